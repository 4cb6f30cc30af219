//! Export of the trace model to Perfetto's protobuf trace format, shaped like
//! a Linux scheduling trace: tasks are threads of one process, context
//! switches, wake-ups and ISRs are kernel (ftrace) events per core, and
//! markers, counters and anomalies are track events on named tracks.

#[cfg(not(target_family = "wasm"))]
pub mod accelerator;
pub mod chrome_json;
#[cfg(not(target_family = "wasm"))]
pub mod cli;
pub mod events;
pub mod extension;
#[cfg(not(target_family = "wasm"))]
pub mod link;
pub mod loss;
#[allow(clippy::all)]
#[rustfmt::skip]
pub mod protos;
pub mod sched;
#[cfg(not(target_family = "wasm"))]
pub mod serve;
pub mod sql_text;
pub mod threads;
#[cfg(not(target_family = "wasm"))]
pub mod tls;
pub mod trace_processor;
pub mod tracks;
#[cfg(not(target_family = "wasm"))]
pub mod windows;
pub mod wire;
pub mod writer;

#[cfg(test)]
mod test_fixtures;

use std::io::{self, Write};
use std::sync::atomic::AtomicU64;

use tband_model::timeline::Timeline;
use tband_model::Model;

use crate::events::EventCounts;
use crate::protos::process_tree::{Process, Thread};
use crate::protos::{ProcessTree, TracePacket};
use crate::sched::{CpuCounts, SchedEncoding};
use crate::threads::{Threads, IDLE_TID, PID};
use crate::writer::{ChunkSink, Interleave, PacketWriter, Telling};

/// Packet sequence of the process tree and the kernel events.
pub const FTRACE_SEQUENCE_ID: u32 = 1;
/// Packet sequence of the track descriptors and track events.
pub const TRACK_EVENT_SEQUENCE_ID: u32 = 2;

/// How to export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    pub sched: SchedEncoding,
    /// Encode the track events on a second thread while this one encodes
    /// the kernel events (the two packet sequences are independent, so
    /// their chunks may interleave; they do so in an order fixed by the
    /// model, see [`Interleave`]).
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

/// Told how many rows of the model an export has read so far, of
/// [`rows_to_read`], each time a chunk of packets is handed on: for a
/// progress display.
pub type ExportProgress<'a> = &'a (dyn Fn(u64) + Sync);

/// Writes the whole model to `out` as a Perfetto trace, in chunks of
/// [`writer::CHUNK_BYTES`].
pub fn export<W: Write + Send>(
    model: &Model,
    options: ExportOptions,
    out: &mut W,
) -> io::Result<ExportStats> {
    export_with_progress(model, options, out, &|_| {})
}

/// [`export`], telling `progress` how far it has got.
pub fn export_with_progress<W: Write + Send>(
    model: &Model,
    options: ExportOptions,
    out: &mut W,
    progress: ExportProgress<'_>,
) -> io::Result<ExportStats> {
    let read = AtomicU64::new(0);
    if !options.two_threads {
        return export_chunks(model, options.sched, Telling::new(out, &read, progress));
    }
    let threads = Threads::new(model);
    let interleave = Interleave::new(out);
    let (sched, (events, event_packets, event_bytes), (packets, bytes)) =
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                let timeline = Timeline::new(model);
                let lane = interleave.lane(false, events::rows_read(model, &timeline));
                let mut writer = PacketWriter::new(Telling::new(lane, &read, progress));
                let events = events::write_track_events(model, &timeline, &threads, &mut writer)?;
                let (packets, bytes) = (writer.packets(), writer.bytes());
                writer.finish()?.into_inner().finish()?;
                io::Result::Ok((events, packets, bytes))
            });
            let sched = (|| {
                let lane = interleave.lane(true, sched::rows_read(model));
                let mut writer = PacketWriter::new(Telling::new(lane, &read, progress));
                write_header(model, &threads, &mut writer)?;
                let sched = sched::write_sched(model, &threads, options.sched, &mut writer)?;
                let (packets, bytes) = (writer.packets(), writer.bytes());
                writer.finish()?.into_inner().finish()?;
                io::Result::Ok((sched, packets, bytes))
            })();
            let events = worker
                .join()
                .map_err(|_| io::Error::other("the track-event encoder failed"))?;
            // Of two errors, the one that stopped the other thread.
            match (sched, events) {
                (Ok((sched, packets, bytes)), Ok(events)) => Ok((sched, events, (packets, bytes))),
                (Err(e), Err(other)) if stopped_by_other(&e) => Err(other),
                (Err(e), _) | (_, Err(e)) => Err(e),
            }
        })?;
    Ok(ExportStats {
        sched,
        events,
        packets: packets + event_packets,
        bytes: bytes + event_bytes,
    })
}

/// Writes the whole model to `sink` on the calling thread, chunk by chunk,
/// each handed on with how many rows of the model the encoder has read so
/// far, of [`rows_to_read`] in all.
pub fn export_chunks<S: ChunkSink>(
    model: &Model,
    sched_encoding: SchedEncoding,
    sink: S,
) -> io::Result<ExportStats> {
    let threads = Threads::new(model);
    let mut writer = PacketWriter::new(sink);
    write_header(model, &threads, &mut writer)?;
    let sched = sched::write_sched(model, &threads, sched_encoding, &mut writer)?;
    let timeline = Timeline::new(model);
    let events = events::write_track_events(model, &timeline, &threads, &mut writer)?;
    let (packets, bytes) = (writer.packets(), writer.bytes());
    writer.finish()?;
    Ok(ExportStats {
        sched,
        events,
        packets,
        bytes,
    })
}

/// The rows of the model that [`export_chunks`] reads: the kernel events'
/// then the track events'.
pub fn rows_to_read(model: &Model) -> u64 {
    sched::rows_read(model) + events::rows_read(model, &Timeline::new(model))
}

/// Whether an encoder stopped because the other one failed.
fn stopped_by_other(error: &io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|e| e.is::<writer::OtherLaneStopped>())
}

/// The packets before the kernel events: the process tree, and the trace's
/// statistics when it lost data.
fn write_header<S: ChunkSink>(
    model: &Model,
    threads: &Threads<'_>,
    writer: &mut PacketWriter<S>,
) -> io::Result<()> {
    writer.write(&process_tree(model, threads))?;
    if let Some(stats) = loss::trace_stats(model) {
        writer.write(&stats)?;
    }
    Ok(())
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
                .enumerate()
                .map(|(i, t)| (threads.tid_at(Some(i)), t))
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
