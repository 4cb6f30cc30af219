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
pub mod writer;

use std::io::{self, Write};

use tband_decode::model::Model;

use crate::events::EventCounts;
use crate::protos::process_tree::{Process, Thread};
use crate::protos::{ProcessTree, TracePacket};
use crate::sched::{CpuCounts, SchedEncoding};
use crate::threads::{Threads, IDLE_TID, PID};
use crate::writer::PacketWriter;

/// Packet sequence of the process tree and the kernel events.
pub const FTRACE_SEQUENCE_ID: u32 = 1;
/// Packet sequence of the track descriptors and track events.
pub const TRACK_EVENT_SEQUENCE_ID: u32 = 2;

/// What an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportStats {
    pub sched: CpuCounts,
    pub events: EventCounts,
    pub packets: u64,
    /// Bytes of the trace before any compression.
    pub bytes: u64,
}

/// Writes the whole model as a Perfetto trace.
pub fn export<W: Write>(
    model: &Model,
    encoding: SchedEncoding,
    out: &mut PacketWriter<W>,
) -> io::Result<ExportStats> {
    let threads = Threads::new(model);
    out.write(&process_tree(model, &threads))?;
    let mut sched = CpuCounts::default();
    for core in &model.cores {
        let c = sched::write_cpu(model, &threads, core.core_id, encoding, out)?;
        sched.switches += c.switches;
        sched.wakings += c.wakings;
        sched.irqs += c.irqs;
    }
    let events = events::write_track_events(model, &threads, out)?;
    Ok(ExportStats {
        sched,
        events,
        packets: out.packets(),
        bytes: out.bytes(),
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
