//! Encoding on two threads interleaves the chunks of the two packet
//! sequences (the same way every run), but each sequence (and each core's
//! kernel events) keeps the packets of the single-threaded export, in order.

use std::collections::BTreeMap;

use prost::Message;
use tband_perfetto::protos::{Trace as PerfettoTrace, TracePacket};
use tband_perfetto::sched::SchedEncoding;
use tband_perfetto::writer::CHUNK_BYTES;
use tband_perfetto::{export, ExportOptions, ExportStats};
use tband_trace::{OpenOptions, Trace};

/// Packets by sequence id and, for kernel events, core.
type Streams = BTreeMap<(Option<u32>, Option<u32>), Vec<TracePacket>>;

fn convert(trace: &Trace, options: ExportOptions) -> (Vec<u8>, ExportStats, Streams) {
    let mut bytes = Vec::new();
    let stats = export(&trace.model, options, &mut bytes).unwrap();
    let mut streams = Streams::new();
    for packet in PerfettoTrace::decode(bytes.as_slice()).unwrap().packet {
        let cpu = packet.ftrace_events.as_ref().and_then(|b| b.cpu);
        streams
            .entry((packet.trusted_packet_sequence_id, cpu))
            .or_default()
            .push(packet);
    }
    (bytes, stats, streams)
}

#[test]
fn two_threads_write_the_same_sequences_as_one() {
    let config = tband_sim::Config {
        size: 6 << 20,
        cores: 2,
        wide_values: true,
        ..tband_sim::Config::default()
    };
    let (streams, _) = tband_sim::generate(&config).unwrap();
    let dir = std::env::temp_dir().join(format!("tband-perfetto-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let inputs: Vec<String> = streams
        .iter()
        .enumerate()
        .map(|(core, bytes)| {
            let path = dir.join(format!("sim.c{core}.bin"));
            std::fs::write(&path, bytes).unwrap();
            format!("{}@{core}", path.display())
        })
        .collect();
    let trace = Trace::open(&inputs, &OpenOptions::default()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();

    for sched in [SchedEncoding::Compact, SchedEncoding::Events] {
        let one = convert(
            &trace,
            ExportOptions {
                sched,
                two_threads: false,
            },
        );
        let two = convert(
            &trace,
            ExportOptions {
                sched,
                two_threads: true,
            },
        );
        // Several chunks, so that they can interleave.
        assert!(one.0.len() > 4 * CHUNK_BYTES, "{} bytes", one.0.len());
        assert_eq!(one.0.len(), two.0.len());
        assert_eq!(one.1, two.1);
        assert_eq!(one.1.bytes, one.0.len() as u64);
        assert_eq!(one.2.len(), 4, "process tree and track events, two cores");
        assert!(one.2 == two.2, "{sched:?}: the sequences differ");
        let again = convert(
            &trace,
            ExportOptions {
                sched,
                two_threads: true,
            },
        );
        assert!(two.0 == again.0, "{sched:?}: two runs differ");
    }
}
