//! What the recording lost, in the statistics Perfetto reads data loss from,
//! so that its `stats` table and the UI's trace info page show the damage.
//!
//! Each core's stream is a trace buffer of its own: the trace's statistics
//! packet (`TraceStats`) has one `BufferStats` per core, in the order of
//! `model.cores`, with the events the tracer dropped as
//! `trace_writer_packet_loss` and the invalid frames as `abi_violations`
//! (data the reader could not accept); damage the importer could not place
//! on a core goes to one more buffer after them. Perfetto reports these as
//! `traced_buf_trace_writer_packet_loss` and `traced_buf_abi_violations`,
//! indexed by buffer. The kernel events of a core also flag the bundle in
//! which the damage shows (`lost_events`), which Perfetto reports as
//! `ftrace_cpu_has_data_loss` for that cpu (see [`crate::sched`]).

use tband_model::{AnomalyKind, Model};

use crate::protos::trace_stats::BufferStats;
use crate::protos::{TracePacket, TraceStats};

/// Whether an anomaly is data the trace lost.
pub fn is_loss(kind: AnomalyKind) -> bool {
    matches!(kind, AnomalyKind::DroppedEvents | AnomalyKind::InvalidFrame)
}

/// The trace's statistics packet, if the model lost anything.
pub fn trace_stats(model: &Model) -> Option<TracePacket> {
    let mut buffers = vec![BufferStats::default(); model.cores.len()];
    for a in model.anomalies.iter().filter(|a| is_loss(a.kind)) {
        let core = a
            .core_id
            .and_then(|c| model.cores.iter().position(|core| core.core_id == c));
        let index = core.unwrap_or(model.cores.len());
        if index >= buffers.len() {
            buffers.resize(index + 1, BufferStats::default());
        }
        let count = match a.kind {
            AnomalyKind::DroppedEvents => &mut buffers[index].trace_writer_packet_loss,
            _ => &mut buffers[index].abi_violations,
        };
        *count = Some(count.unwrap_or(0) + a.count);
    }
    let lost = buffers
        .iter()
        .any(|b| b.trace_writer_packet_loss.is_some() || b.abi_violations.is_some());
    lost.then(|| TracePacket {
        trusted_packet_sequence_id: Some(crate::FTRACE_SEQUENCE_ID),
        trace_stats: Some(TraceStats {
            buffer_stats: buffers,
        }),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband_model::{Anomaly, Core};

    fn anomaly(core_id: Option<u32>, kind: AnomalyKind, count: u64) -> Anomaly {
        Anomaly {
            start_ns: 0,
            end_ns: 10,
            core_id,
            kind,
            count,
            detail: String::new(),
        }
    }

    #[test]
    fn each_cores_losses_are_its_buffers_and_losses_of_no_core_one_more() {
        let mut m = Model {
            cores: [0, 1]
                .map(|core_id| Core {
                    core_id,
                    idle_task: None,
                })
                .to_vec(),
            ..Model::default()
        };
        m.anomalies = vec![anomaly(Some(0), AnomalyKind::TimeBackwards, 1)];
        assert_eq!(trace_stats(&m), None);
        m.anomalies.extend([
            anomaly(Some(1), AnomalyKind::DroppedEvents, 5),
            anomaly(Some(0), AnomalyKind::InvalidFrame, 3),
            anomaly(Some(1), AnomalyKind::DroppedEvents, 2),
            anomaly(None, AnomalyKind::DroppedEvents, 1),
        ]);
        let packet = trace_stats(&m).expect("a statistics packet");
        let buffers: Vec<_> = packet
            .trace_stats
            .unwrap()
            .buffer_stats
            .into_iter()
            .map(|b| (b.trace_writer_packet_loss, b.abi_violations))
            .collect();
        assert_eq!(buffers, [(None, Some(3)), (Some(7), None), (Some(1), None)]);
    }
}
