//! The builder's calls for notifications, event groups, stream buffers and
//! timers (see [`RtosObjects`]).

use std::collections::BTreeMap;

use super::ModelBuilder;
use crate::{
    AnomalyKind, EventGroup, EventGroupOp, EventGroupOpKind, Notification, NotificationOp,
    RtosObjects, StreamBuffer, StreamBufferKind, StreamBufferOp, StreamBufferOpKind, Timer,
    TimerOp, TimerOpKind,
};

/// What is known of each object while the model is built.
#[derive(Default)]
pub(super) struct RtosObjectsSoFar {
    event_group_names: BTreeMap<u32, Option<String>>,
    stream_buffers: BTreeMap<u32, BufferSoFar>,
    timer_names: BTreeMap<u32, Option<String>>,
}

#[derive(Default)]
struct BufferSoFar {
    name: Option<String>,
    kind: Option<StreamBufferKind>,
    high_water: u32,
}

fn name(bytes: &[u8]) -> Option<String> {
    Some(String::from_utf8_lossy(bytes).into())
}

impl RtosObjectsSoFar {
    /// Fills the lists of objects, by id.
    pub(super) fn fill(&self, objects: &mut RtosObjects) {
        objects.event_groups = (self.event_group_names.iter())
            .map(|(&group_id, name)| EventGroup {
                group_id,
                name: name
                    .clone()
                    .unwrap_or_else(|| format!("event group {group_id}")),
            })
            .collect();
        objects.stream_buffers = (self.stream_buffers.iter())
            .map(|(&buffer_id, track)| StreamBuffer {
                buffer_id,
                name: (track.name.clone()).unwrap_or_else(|| format!("stream buffer {buffer_id}")),
                kind: track.kind.unwrap_or(StreamBufferKind::Stream),
                high_water: track.high_water,
            })
            .collect();
        objects.timers = (self.timer_names.iter())
            .map(|(&timer_id, name)| Timer {
                timer_id,
                name: name.clone().unwrap_or_else(|| format!("timer {timer_id}")),
            })
            .collect();
    }
}

/// Changes the operations' objects and tasks from the ids the builder
/// writes to indices into the lists (`to_indices`), or back; `task` maps
/// a task the same way.
pub(super) fn renumber(objects: &mut RtosObjects, task: &dyn Fn(u32) -> u32, to_indices: bool) {
    let groups: Vec<u32> = objects.event_groups.iter().map(|g| g.group_id).collect();
    let buffers: Vec<u32> = (objects.stream_buffers.iter())
        .map(|b| b.buffer_id)
        .collect();
    let timers: Vec<u32> = objects.timers.iter().map(|t| t.timer_id).collect();
    // The lists are sorted by id.
    let number = |ids: &[u32], n: u32| {
        if to_indices {
            ids.binary_search(&n).map_or(n, |i| i as u32)
        } else {
            ids.get(n as usize).copied().unwrap_or(n)
        }
    };
    for op in &mut objects.event_group_ops {
        op.group = number(&groups, op.group);
        op.task = op.task.map(task);
    }
    for op in &mut objects.stream_buffer_ops {
        op.buffer = number(&buffers, op.buffer);
        op.task = op.task.map(task);
    }
    for op in &mut objects.timer_ops {
        op.timer = number(&timers, op.timer);
        op.task = op.task.map(task);
    }
}

impl ModelBuilder {
    /// The task running on `core`, unless the call comes from an ISR.
    fn task_unless_isr(&self, core: u32, from_isr: bool) -> Option<u32> {
        if from_isr {
            None
        } else {
            self.running_task(core)
        }
    }

    /// `task` was notified; its notification value is now `value`.
    pub fn notification_given(&mut self, t: u64, core: u32, task: u32, value: u32, from_isr: bool) {
        let by_task_id = self.task_unless_isr(core, from_isr);
        self.model.rtos_objects.notifications.push(Notification {
            ts_ns: t,
            task_id: task,
            op: NotificationOp::Given,
            value,
            from_isr,
            by_task_id,
            core_id: core,
        });
    }

    /// The task running on `core` read its notification value `value`.
    pub fn notification_taken(&mut self, t: u64, core: u32, value: u32) {
        let Some(task) = self.running_task(core) else {
            self.anomaly(
                t,
                t,
                Some(core),
                AnomalyKind::NoCurrentTask,
                1,
                "a task took a notification but no running task is known".into(),
            );
            return;
        };
        self.model.rtos_objects.notifications.push(Notification {
            ts_ns: t,
            task_id: task,
            op: NotificationOp::Taken,
            value,
            from_isr: false,
            by_task_id: None,
            core_id: core,
        });
    }

    pub fn event_group_created(&mut self, group: u32) {
        self.rtos_objects
            .event_group_names
            .entry(group)
            .or_default();
    }

    pub fn set_event_group_name(&mut self, group: u32, bytes: &[u8]) {
        self.rtos_objects
            .event_group_names
            .insert(group, name(bytes));
    }

    pub fn event_group_op(
        &mut self,
        t: u64,
        core: u32,
        group: u32,
        op: EventGroupOpKind,
        bits: u32,
        from_isr: bool,
    ) {
        self.event_group_created(group);
        let task = self.task_unless_isr(core, from_isr);
        self.model.rtos_objects.event_group_ops.push(EventGroupOp {
            ts_ns: t,
            group,
            op,
            bits,
            from_isr,
            task,
            core_id: core,
        });
    }

    pub fn stream_buffer_created(&mut self, buffer: u32, kind: StreamBufferKind) {
        self.rtos_objects
            .stream_buffers
            .entry(buffer)
            .or_default()
            .kind = Some(kind);
    }

    pub fn set_stream_buffer_name(&mut self, buffer: u32, bytes: &[u8]) {
        self.rtos_objects
            .stream_buffers
            .entry(buffer)
            .or_default()
            .name = name(bytes);
    }

    /// An operation on a stream buffer that leaves `bytes_after` in it.
    pub fn stream_buffer_op(
        &mut self,
        t: u64,
        core: u32,
        buffer: u32,
        op: StreamBufferOpKind,
        from_isr: bool,
        bytes_after: u32,
    ) {
        let track = self.rtos_objects.stream_buffers.entry(buffer).or_default();
        track.high_water = track.high_water.max(bytes_after);
        let task = self.task_unless_isr(core, from_isr);
        self.model
            .rtos_objects
            .stream_buffer_ops
            .push(StreamBufferOp {
                ts_ns: t,
                buffer,
                op,
                from_isr,
                task,
                core_id: core,
                bytes_after,
            });
    }

    pub fn set_timer_name(&mut self, timer: u32, bytes: &[u8]) {
        self.rtos_objects.timer_names.insert(timer, name(bytes));
    }

    /// A timer was created, was sent a command (`command`, the RTOS's
    /// number) or expired.
    pub fn timer_op(
        &mut self,
        t: u64,
        core: u32,
        timer: u32,
        op: TimerOpKind,
        command: Option<u32>,
        from_isr: bool,
    ) {
        self.rtos_objects.timer_names.entry(timer).or_default();
        let task = self.task_unless_isr(core, from_isr);
        self.model.rtos_objects.timer_ops.push(TimerOp {
            ts_ns: t,
            timer,
            op,
            command,
            from_isr,
            task,
            core_id: core,
        });
    }
}
