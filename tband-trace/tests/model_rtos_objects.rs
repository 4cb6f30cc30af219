//! The extension events (notifications, event groups, stream buffers,
//! timers) become the model's `rtos_objects`: each operation with its task, its
//! values and its object's name, and the blocks they announce.

#[path = "../../tests/rtos_objects/stream.rs"]
mod stream;

use tband::Event;
use tband_decode::encode::encode_stream;
use tband_decode::input::Input;
use tband_model::{
    EventGroupOpKind, Model, NotificationOp, StateReason, StreamBufferKind, StreamBufferOpKind,
    TaskStateKind, TimerOpKind,
};
use tband_trace::{OpenOptions, Trace};

fn model(events: &[(u64, Event<'_>)]) -> Model {
    let inputs = Input::per_core("objects", vec![encode_stream(events)]);
    Trace::from_inputs(inputs, &OpenOptions::default())
        .unwrap()
        .model
}

#[test]
fn each_object_event_lands_in_its_table() {
    let m = model(&stream::events());
    assert!(m.anomalies.is_empty(), "{:?}", m.anomalies);
    let o = &m.rtos_objects;

    let notifications: Vec<_> = (o.notifications.iter())
        .map(|n| (n.ts_ns, n.task_id, n.op, n.value, n.from_isr, n.by_task_id))
        .collect();
    assert_eq!(
        notifications,
        [
            (6, 2, NotificationOp::Given, 1, false, Some(1)),
            (11, 2, NotificationOp::Taken, 1, false, None),
            (16, 2, NotificationOp::Given, 3, true, None),
        ]
    );

    assert_eq!(o.event_groups.len(), 1);
    assert_eq!(o.event_groups[0].name, "flags");
    let group_ops: Vec<_> = (o.event_group_ops.iter())
        .map(|e| (e.op, e.bits, e.task.map(|t| m.tasks[t as usize].task_id)))
        .collect();
    assert_eq!(
        group_ops,
        [
            (EventGroupOpKind::Set, 0b101, Some(1)),
            (EventGroupOpKind::Clear, 0b1, Some(2)),
            (EventGroupOpKind::WaitEnd, 0b100, Some(2)),
        ]
    );

    assert_eq!(o.stream_buffers.len(), 1);
    let buffer = &o.stream_buffers[0];
    assert_eq!(
        (buffer.name.as_str(), buffer.kind, buffer.high_water),
        ("rx", StreamBufferKind::Message, 12)
    );
    let buffer_ops: Vec<_> = (o.stream_buffer_ops.iter())
        .map(|s| {
            (
                s.op,
                s.bytes_after,
                s.task.map(|t| m.tasks[t as usize].task_id),
            )
        })
        .collect();
    assert_eq!(
        buffer_ops,
        [
            (StreamBufferOpKind::Send, 12, Some(1)),
            (StreamBufferOpKind::Receive, 0, Some(2)),
        ]
    );

    assert_eq!(o.timers.len(), 1);
    assert_eq!(o.timers[0].name, "tick");
    let timer_ops: Vec<_> = (o.timer_ops.iter())
        .map(|t| (t.op, t.command, t.from_isr))
        .collect();
    assert_eq!(
        timer_ops,
        [
            (TimerOpKind::Created, None, false),
            (TimerOpKind::Stop, Some(8), true),
            (TimerOpKind::Expired, None, false),
        ]
    );

    // The taker blocked on its notification when it left the core.
    let blocked = m
        .task_states
        .iter()
        .find(|s| m.tasks[s.task as usize].task_id == 2 && s.state == TaskStateKind::Blocked)
        .expect("taker blocked");
    assert_eq!((blocked.start_ns, blocked.reason), (2, StateReason::None));
}

#[test]
fn a_notification_taken_with_no_task_running_is_an_anomaly() {
    let m = model(&[(5, Event::CurtaskNotifyTake { value: 1 })]);
    assert!(m.rtos_objects.notifications.is_empty());
    assert_eq!(m.anomaly_count(tband_model::AnomalyKind::NoCurrentTask), 1);
}
