//! Export of the trace model to Perfetto's protobuf trace format, shaped like
//! a Linux scheduling trace: tasks are threads of one process, context
//! switches, wake-ups and ISRs are kernel (ftrace) events per core, and
//! markers, counters and anomalies are track events on named tracks.

pub mod events;
#[allow(clippy::all)]
#[rustfmt::skip]
pub mod protos;
pub mod sched;
pub mod serve;
pub mod threads;
pub mod tracks;
pub mod wire;
pub mod writer;

#[cfg(test)]
mod test_fixtures;

use std::io::{self, Write};
use std::sync::mpsc;

use tband_decode::model::Model;

use crate::events::EventCounts;
use crate::protos::process_tree::{Process, Thread};
use crate::protos::{ProcessTree, TracePacket};
use crate::sched::{CpuCounts, SchedEncoding};
use crate::threads::{Threads, IDLE_TID, PID};
use crate::tracks::Waiting;
use crate::writer::{ChunkSender, Merge, PacketWriter};

/// Packet sequence of the process tree and the kernel events.
pub const FTRACE_SEQUENCE_ID: u32 = 1;
/// Packet sequence of the track descriptors and track events.
pub const TRACK_EVENT_SEQUENCE_ID: u32 = 2;

/// Chunks of track events that may wait for the writer when encoding on two threads.
const CHUNKS_IN_FLIGHT: usize = 4;

/// How to export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    pub sched: SchedEncoding,
    /// Encode the track events on a second thread while this one encodes
    /// the kernel events and writes both (the two packet sequences are
    /// independent, so their chunks may interleave).
    pub two_threads: bool,
}

/// What an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportStats {
    pub sched: CpuCounts,
    pub events: EventCounts,
    pub packets: u64,
    /// Bytes of the trace before any compression.
    pub bytes: u64,
}

/// Writes the whole model to `out` as a Perfetto trace, in chunks of
/// [`writer::CHUNK_BYTES`].
pub fn export<W: Write>(
    model: &Model,
    options: ExportOptions,
    out: &mut W,
) -> io::Result<ExportStats> {
    let threads = Threads::new(model);
    if !options.two_threads {
        let mut writer = PacketWriter::new(out);
        writer.write(&process_tree(model, &threads))?;
        let (sched, waiting) = sched::write_sched(model, &threads, options.sched, &mut writer)?;
        let events = events::write_track_events(model, &threads, &waiting, &mut writer)?;
        let (packets, bytes) = (writer.packets(), writer.bytes());
        writer.finish()?;
        return Ok(ExportStats {
            sched,
            events,
            packets,
            bytes,
        });
    }
    std::thread::scope(|scope| {
        let (full, incoming) = mpsc::sync_channel(CHUNKS_IN_FLIGHT);
        let (emptied, returned) = mpsc::channel();
        let worker = scope.spawn(|| {
            let mut writer = PacketWriter::new(ChunkSender {
                full,
                emptied: returned,
            });
            // The scheduling walk, on the other thread, finds which tasks
            // wait as well; this one cannot wait for it.
            let waiting = Waiting::of(model, &threads);
            let events = events::write_track_events(model, &threads, &waiting, &mut writer)?;
            let (packets, bytes) = (writer.packets(), writer.bytes());
            writer.finish()?;
            io::Result::Ok((events, packets, bytes))
        });
        let mut writer = PacketWriter::new(Merge {
            out,
            incoming,
            emptied,
        });
        writer.write(&process_tree(model, &threads))?;
        let (sched, _) = sched::write_sched(model, &threads, options.sched, &mut writer)?;
        let (packets, bytes) = (writer.packets(), writer.bytes());
        writer.finish()?.drain()?;
        let (events, event_packets, event_bytes) = worker
            .join()
            .map_err(|_| io::Error::other("the track-event encoder failed"))??;
        Ok(ExportStats {
            sched,
            events,
            packets: packets + event_packets,
            bytes: bytes + event_bytes,
        })
    })
}

/// The firmware as one process whose threads are its (non-idle) tasks.
fn process_tree(model: &Model, threads: &Threads<'_>) -> TracePacket {
    TracePacket {
        trusted_packet_sequence_id: Some(FTRACE_SEQUENCE_ID),
        process_tree: Some(ProcessTree {
            processes: vec![Process {
                pid: Some(PID),
                ppid: Some(0),
                cmdline: vec![tracks::firmware_name(model)],
            }],
            threads: model
                .tasks
                .iter()
                .map(|t| (threads.tid(t.task_id), t))
                .filter(|&(tid, _)| tid != IDLE_TID)
                .map(|(tid, t)| Thread {
                    tid: Some(tid),
                    name: Some(t.name.clone()),
                    tgid: Some(PID),
                })
                .collect(),
        }),
        ..Default::default()
    }
}
