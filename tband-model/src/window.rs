//! A window of a model: the model of the time from `from` to `to`, which
//! a sink reads as it reads a whole trace (the Perfetto export of a part of
//! a capture too large for the browser, one piece of a split).
//!
//! A window holds at its start what was in effect there: an interval that
//! began earlier (a task's run and state, an ISR, a marker span, a mutex
//! hold, an object's lifetime) begins at `from`, and each counter (a
//! queue's or stream buffer's fill level, a task's priority, a value
//! marker, a pool's counter) has its value of the time at `from`. An interval still open at
//! `to` is cut there and flagged `truncated`, as one open at a trace's end
//! is. Times stay those of the whole trace.

use std::collections::HashMap;
use std::hash::Hash;

use crate::{
    Anomaly, CounterValue, HeapBlock, HeapLevel, IsrSlice, MarkerSpan, Memory, Model, MutexHold,
    QueueOp, QueueOpKind, Row, RtosObjects, SchedSlice, StackMargin, StateReason, StreamBufferOp,
    StreamBufferOpKind, Table, TaskState, TrackedLifetime,
};

impl Model {
    /// The model of the time from `from` to `to` (to the end of the trace
    /// when `to` is `None`, events at its last instant included), as the
    /// module documentation says.
    pub fn window(&self, from: u64, to: Option<u64>) -> Model {
        let cut = Cut {
            from,
            to,
            trace_end: self.info.duration_ns,
        };
        let task_states = cut.intervals(&self.task_states);
        let mut tasks = self.tasks.clone();
        for task in &mut tasks {
            task.ever_waited = false;
        }
        for s in task_states.iter().filter(|s| s.state.is_waiting()) {
            if let Some(task) = tasks.get_mut(s.task as usize) {
                task.ever_waited = true;
            }
        }
        let queue_ops = cut.queue_ops(&self.queue_ops);
        let mut queues = self.queues.clone();
        for queue in &mut queues {
            queue.high_water = 0;
        }
        for op in queue_ops.iter() {
            if let (Some(queue), Some(len)) = (queues.get_mut(op.queue as usize), op.len_after) {
                queue.high_water = queue.high_water.max(len);
            }
        }
        let mut info = self.info.clone();
        info.duration_ns = to.map_or(info.duration_ns, |to| to.min(info.duration_ns));
        let o = &self.rtos_objects;
        let stream_buffer_ops = cut.stream_buffer_ops(&o.stream_buffer_ops);
        let mut stream_buffers = o.stream_buffers.clone();
        for buffer in &mut stream_buffers {
            buffer.high_water = 0;
        }
        for op in &stream_buffer_ops {
            if let Some(buffer) = stream_buffers.get_mut(op.buffer as usize) {
                buffer.high_water = buffer.high_water.max(op.bytes_after);
            }
        }
        let rtos_objects = RtosObjects {
            notifications: cut.instants(&o.notifications, |n| n.ts_ns),
            event_groups: o.event_groups.clone(),
            event_group_ops: cut.instants(&o.event_group_ops, |e| e.ts_ns),
            stream_buffers,
            stream_buffer_ops,
            timers: o.timers.clone(),
            timer_ops: cut.instants(&o.timer_ops, |t| t.ts_ns),
        };
        Model {
            info,
            strings: self.strings.clone(),
            cores: self.cores.clone(),
            tasks,
            sched_slices: cut.intervals(&self.sched_slices),
            task_states,
            task_priorities: cut.counter(
                &self.task_priorities,
                |p| p.task,
                |p, ts_ns| p.ts_ns = ts_ns,
            ),
            isrs: self.isrs.clone(),
            isr_slices: cut.intervals(&self.isr_slices),
            markers: self.markers.clone(),
            marker_spans: cut.intervals(&self.marker_spans),
            marker_instants: cut.instant_rows(&self.marker_instants),
            marker_values: cut.counter(
                &self.marker_values,
                |v| v.marker,
                |v, ts_ns| v.ts_ns = ts_ns,
            ),
            queues,
            queue_ops,
            mutex_holds: cut.intervals(&self.mutex_holds),
            anomalies: self
                .anomalies
                .iter()
                .filter_map(|a| cut.anomaly(a))
                .collect(),
            tracked: cut.tracked(&self.tracked),
            rtos_objects,
            memory: cut.memory(&self.memory),
            logs: cut.instants(&self.logs, |l| l.ts_ns),
            faults: cut.instants(&self.faults, |f| f.ts_ns),
        }
    }

    /// How many rows of the model's time-ordered tables (those a sink
    /// draws) start before `t`: a measure of how much of the trace lies
    /// before `t`, found by binary search.
    pub fn rows_before(&self, t: u64) -> u64 {
        fn before<R: Row>(table: &Table<R>, t: u64) -> usize {
            table.partition_point(|r| r.time_ns() < t)
        }
        let o = &self.rtos_objects;
        let tracked = &self.tracked;
        let memory = &self.memory;
        let rows = before(&self.sched_slices, t)
            + before(&self.task_states, t)
            + before(&self.task_priorities, t)
            + before(&self.isr_slices, t)
            + before(&self.marker_spans, t)
            + before(&self.marker_instants, t)
            + before(&self.marker_values, t)
            + before(&self.queue_ops, t)
            + before(&self.mutex_holds, t)
            + before(&tracked.lifetimes, t)
            + before(&tracked.marks, t)
            + before(&tracked.counter_values, t)
            + o.notifications.partition_point(|n| n.ts_ns < t)
            + o.event_group_ops.partition_point(|e| e.ts_ns < t)
            + o.stream_buffer_ops.partition_point(|s| s.ts_ns < t)
            + o.timer_ops.partition_point(|op| op.ts_ns < t)
            + memory.blocks.partition_point(|b| b.start_ns < t)
            + memory.heap_levels.partition_point(|l| l.ts_ns < t)
            + (memory.failed_allocations).partition_point(|f| f.ts_ns < t)
            + memory.stack_margins.partition_point(|s| s.ts_ns < t)
            + self.logs.partition_point(|l| l.ts_ns < t);
        rows as u64
    }
}

/// A row with a start and an end, as a window cuts it.
trait Interval: Sized {
    fn start_ns(&self) -> u64;
    fn end_ns(&self) -> u64;
    fn truncated(&self) -> bool;
    fn begin_at(&mut self, from: u64);
    /// Ends the row at `to`, as the end of a trace ends a row still open.
    fn cut_at(&mut self, to: u64);
}

macro_rules! interval {
    ($row:ty, |$r:ident| $cut:block) => {
        impl Interval for $row {
            fn start_ns(&self) -> u64 {
                self.start_ns
            }
            fn end_ns(&self) -> u64 {
                self.end_ns
            }
            fn truncated(&self) -> bool {
                self.truncated
            }
            fn begin_at(&mut self, from: u64) {
                self.start_ns = from;
            }
            fn cut_at(&mut self, to: u64) {
                let $r = self;
                $r.end_ns = to;
                $r.truncated = true;
                $cut
            }
        }
    };
}

interval!(SchedSlice, |s| {
    s.end_state = None;
    s.end_reason = StateReason::None;
});
interval!(TaskState, |_s| {});
interval!(IsrSlice, |_s| {});
interval!(MarkerSpan, |_s| {});
interval!(MutexHold, |_s| {});
interval!(TrackedLifetime, |l| {
    l.end_core = None;
    l.ended_by = None;
});
interval!(HeapBlock, |b| {
    b.free_core = None;
    b.freed_by = None;
});

/// The bounds of a window.
#[derive(Clone, Copy)]
struct Cut {
    from: u64,
    to: Option<u64>,
    /// Where the trace ends, and with it the intervals still open then.
    trace_end: u64,
}

impl Cut {
    fn before_end(&self, t: u64) -> bool {
        self.to.is_none_or(|to| t < to)
    }

    fn holds(&self, t: u64) -> bool {
        t >= self.from && self.before_end(t)
    }

    /// Whether an interval from `start` to `end` is in the window: it
    /// overlaps it, or is an instant in it.
    fn overlaps(&self, start: u64, end: u64) -> bool {
        self.before_end(start) && (end > self.from || start >= self.from)
    }

    /// The rows of `table` in the window, those that began before it
    /// beginning at its start, those that end after it cut at its end.
    fn intervals<R: Interval + Row>(&self, table: &Table<R>) -> Table<R> {
        self.intervals_with_index(table)
            .map(|(_, row)| row)
            .collect()
    }

    /// [`Self::intervals`], each row with its index in `table`.
    fn intervals_with_index<'t, R: Interval + Row>(
        &self,
        table: &'t Table<R>,
    ) -> impl Iterator<Item = (usize, R)> + 't {
        let cut = *self;
        let end = self.to.map_or(table.len(), |to| {
            table.partition_point(|r| r.time_ns() < to)
        });
        (table.iter().take(end).enumerate()).filter_map(move |(i, r)| Some((i, cut.interval(r)?)))
    }

    /// An interval in the window, begun at its start if it began earlier
    /// and cut at its end if it ends later; `None` if it is not in it.
    fn interval<R: Interval>(&self, mut r: R) -> Option<R> {
        // Open when the trace ended: open in a window at its last instant too.
        let open = r.truncated() && r.end_ns() >= self.trace_end;
        let end = if open { u64::MAX } else { r.end_ns() };
        if !self.overlaps(r.start_ns(), end) {
            return None;
        }
        if r.start_ns() < self.from {
            r.begin_at(self.from);
        }
        if let Some(to) = self.to.filter(|&to| r.end_ns() > to) {
            r.cut_at(to);
        }
        Some(r)
    }

    fn instant_rows<R: Row>(&self, table: &Table<R>) -> Table<R> {
        let first = table.partition_point(|r| r.time_ns() < self.from);
        table
            .iter()
            .skip(first)
            .take_while(|r| self.before_end(r.time_ns()))
            .collect()
    }

    fn instants<T: Clone>(&self, rows: &[T], ts: impl Fn(&T) -> u64) -> Vec<T> {
        let first = rows.partition_point(|r| ts(r) < self.from);
        let end = rows.partition_point(|r| self.before_end(ts(r)));
        rows[first..end.max(first)].to_vec()
    }

    /// The values of counters (each row one value of the counter `key`
    /// names): each counter's value at the start, then the values in the
    /// window.
    fn counter<R: Row, K: Hash + Eq>(
        &self,
        table: &Table<R>,
        key: impl Fn(&R) -> K,
        at: impl Fn(&mut R, u64),
    ) -> Table<R> {
        let carried = self.in_effect(table.iter(), R::time_ns, |_| true, key);
        carried
            .into_iter()
            .map(|mut row| {
                at(&mut row, self.from);
                row
            })
            .chain(self.instant_rows(table))
            .collect()
    }

    /// Of `rows` (in time order) that `is_value` says are counter values
    /// (of the counter `key` names), each counter's last before the window,
    /// unless it has a value at the start itself; in the order they came,
    /// so that a window is the same every time.
    fn in_effect<R, K: Hash + Eq>(
        &self,
        rows: impl Iterator<Item = R>,
        time: impl Fn(&R) -> u64,
        is_value: impl Fn(&R) -> bool,
        key: impl Fn(&R) -> K,
    ) -> Vec<R> {
        let mut last: HashMap<K, (usize, R)> = HashMap::new();
        for (i, row) in rows.enumerate() {
            let t = time(&row);
            if t > self.from {
                break;
            }
            if !is_value(&row) {
                continue;
            }
            if t < self.from {
                last.insert(key(&row), (i, row));
            } else {
                last.remove(&key(&row));
            }
        }
        let mut carried: Vec<(usize, R)> = last.into_values().collect();
        carried.sort_unstable_by_key(|&(i, _)| i);
        carried.into_iter().map(|(_, row)| row).collect()
    }

    /// The operations on queues in the window, each queue's fill level at
    /// its start stated as a `level` operation.
    fn queue_ops(&self, table: &Table<QueueOp>) -> Table<QueueOp> {
        let levels = self.in_effect(
            table.iter(),
            |op| op.ts_ns,
            |op| op.len_after.is_some(),
            |op| op.queue,
        );
        levels
            .into_iter()
            .map(|op| QueueOp {
                ts_ns: self.from,
                op: QueueOpKind::Level,
                from_isr: false,
                task: None,
                ..op
            })
            .chain(self.instant_rows(table))
            .collect()
    }

    /// The operations on stream buffers in the window, each buffer's fill
    /// level at its start stated as a `level` operation.
    fn stream_buffer_ops(&self, ops: &[StreamBufferOp]) -> Vec<StreamBufferOp> {
        let levels = self.in_effect(ops.iter(), |op| op.ts_ns, |_| true, |op| op.buffer);
        levels
            .into_iter()
            .map(|op| StreamBufferOp {
                ts_ns: self.from,
                op: StreamBufferOpKind::Level,
                from_isr: false,
                task: None,
                ..*op
            })
            .chain(self.instants(ops, |op| op.ts_ns))
            .collect()
    }

    /// The heaps and stacks in the window: blocks cut to it, and each
    /// heap's level and each task's stack margin at its start, then their
    /// values in it; a heap's peak is the window's.
    fn memory(&self, memory: &Memory) -> Memory {
        let blocks: Vec<HeapBlock> = (memory.blocks.iter())
            .take_while(|b| self.before_end(b.start_ns))
            .filter_map(|&b| self.interval(b))
            .collect();
        let levels = &memory.heap_levels;
        let carried = self.in_effect(levels.iter(), |l| l.ts_ns, |_| true, |l| l.heap_id);
        let heap_levels: Vec<HeapLevel> = (carried.into_iter())
            .map(|l| HeapLevel {
                ts_ns: self.from,
                ..*l
            })
            .chain(self.instants(levels, |l| l.ts_ns))
            .collect();
        let mut heaps = memory.heaps.clone();
        for heap in &mut heaps {
            heap.peak_bytes = 0;
            heap.peak_ns = self.from;
        }
        for level in &heap_levels {
            if let Some(heap) = heaps.iter_mut().find(|h| h.heap_id == level.heap_id) {
                if level.bytes_in_use > heap.peak_bytes {
                    heap.peak_bytes = level.bytes_in_use;
                    heap.peak_ns = level.ts_ns;
                }
            }
        }
        let margins = &memory.stack_margins;
        let carried = self.in_effect(margins.iter(), |s| s.ts_ns, |_| true, |s| s.task_id);
        let stack_margins = (carried.into_iter())
            .map(|s| StackMargin {
                ts_ns: self.from,
                ..*s
            })
            .chain(self.instants(margins, |s| s.ts_ns))
            .collect();
        Memory {
            heaps,
            blocks,
            heap_levels,
            failed_allocations: self.instants(&memory.failed_allocations, |f| f.ts_ns),
            stack_margins,
        }
    }

    /// An anomaly in the window, a region cut to it.
    fn anomaly(&self, a: &Anomaly) -> Option<Anomaly> {
        if a.start_ns == a.end_ns {
            return self.holds(a.end_ns).then(|| a.clone());
        }
        if !self.overlaps(a.start_ns, a.end_ns) {
            return None;
        }
        Some(Anomaly {
            start_ns: a.start_ns.max(self.from),
            end_ns: self.to.map_or(a.end_ns, |to| a.end_ns.min(to)),
            ..a.clone()
        })
    }

    /// The tracked objects in the window: lifetimes cut to it, the marks in
    /// it on those lifetimes, and each counter's values as [`Self::counter`].
    fn tracked(&self, tracked: &crate::TrackedObjects) -> crate::TrackedObjects {
        let mut new_index = HashMap::new();
        let mut lifetimes = Table::<TrackedLifetime>::new();
        for (i, l) in self.intervals_with_index(&tracked.lifetimes) {
            new_index.insert(i as u32, lifetimes.push(l) as u32);
        }
        let marks = self
            .instant_rows(&tracked.marks)
            .iter()
            .filter_map(|mut m| {
                m.lifetime = *new_index.get(&m.lifetime)?;
                Some(m)
            })
            .collect();
        let counter_values: Table<CounterValue> = self.counter(
            &tracked.counter_values,
            |v| v.counter,
            |v, ts_ns| v.ts_ns = ts_ns,
        );
        crate::TrackedObjects {
            kinds: tracked.kinds.clone(),
            keys: tracked.keys.clone(),
            names: tracked.names.clone(),
            pools: tracked.pools.clone(),
            lifetimes,
            marks,
            counters: tracked.counters.clone(),
            counter_values,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Actor, AnomalyKind, Core, MarkerValue, PriorityCause, Queue, QueueKind, Task, TaskKind,
        TaskPriority, TaskStateKind, TrackedMark,
    };

    fn slice(start_ns: u64, end_ns: u64, task: u32) -> SchedSlice {
        SchedSlice {
            start_ns,
            end_ns,
            task,
            core_id: 0,
            end_state: Some(TaskStateKind::Ready),
            end_reason: StateReason::Preempted,
            truncated: false,
        }
    }

    fn state(start_ns: u64, end_ns: u64, state: TaskStateKind) -> TaskState {
        TaskState {
            start_ns,
            end_ns,
            task: 0,
            state,
            reason: StateReason::None,
            queue: None,
            core_id: None,
            woken_by_isr: None,
            truncated: false,
        }
    }

    /// A queue operation as the tests compare it: time, queue id (queues 1
    /// and 2 are at indices 0 and 1), kind, task, length after.
    type QueueOpRow = (u64, u32, QueueOpKind, Option<u32>, Option<u32>);

    /// The queue operations of `m`, as [`QueueOpRow`]s.
    fn queue_ops(m: &Model) -> Vec<QueueOpRow> {
        m.queue_ops
            .iter()
            .map(|o| (o.ts_ns, o.queue + 1, o.op, o.task, o.len_after))
            .collect()
    }

    fn level(ts_ns: u64, queue_id: u32, len_after: Option<u32>) -> QueueOp {
        QueueOp {
            ts_ns,
            queue: queue_id - 1,
            op: QueueOpKind::Send,
            from_isr: true,
            task: Some(0),
            core_id: 0,
            len_after,
        }
    }

    fn lifetime(start_ns: u64, end_ns: u64) -> TrackedLifetime {
        TrackedLifetime {
            kind: 0,
            key: 0,
            name: crate::StrId::EMPTY,
            pool: None,
            slot: 0,
            start_ns,
            end_ns,
            truncated: false,
            begin_core: 0,
            end_core: Some(0),
            begun_by: Some(Actor::Task(1)),
            ended_by: Some(Actor::Task(1)),
        }
    }

    /// A trace of 100 ns: task 1 (index 0) runs from 0 to 40 and from 60 to 100,
    /// waits from 40 to 60; two queues, a value marker, a priority change,
    /// two lifetimes, a region of lost events.
    fn model() -> Model {
        let mut m = Model::default();
        m.info.duration_ns = 100;
        m.cores = vec![Core {
            core_id: 0,
            idle_task: None,
        }];
        let mut task = Task::new(1, "worker", TaskKind::Normal);
        task.ever_waited = true;
        m.tasks = vec![task];
        m.sched_slices = vec![slice(0, 40, 0), slice(60, 100, 0)].into();
        m.sched_slices.update(1, |s| {
            s.truncated = true;
            s.end_state = None;
        });
        m.task_states = vec![
            state(0, 40, TaskStateKind::Running),
            state(40, 60, TaskStateKind::Blocked),
            state(60, 100, TaskStateKind::Running),
        ]
        .into();
        m.task_priorities = [(0, 3), (50, 5)]
            .map(|(ts_ns, priority)| TaskPriority {
                ts_ns,
                task: 0,
                priority,
                cause: PriorityCause::Set,
            })
            .to_vec()
            .into();
        m.marker_values = [(5, 7), (30, -2), (70, 9)]
            .map(|(ts_ns, value)| MarkerValue {
                ts_ns,
                marker: 0,
                value,
            })
            .to_vec()
            .into();
        m.queue_ops = vec![
            level(10, 1, Some(2)),
            level(20, 2, Some(1)),
            level(25, 1, None),
            level(30, 2, Some(0)),
            level(30, 1, Some(3)),
            level(45, 1, Some(4)),
        ]
        .into();
        m.queues = [1, 2]
            .map(|queue_id| Queue {
                queue_id,
                name: format!("q{queue_id}"),
                kind: QueueKind::Queue,
                capacity: None,
                high_water: 4,
            })
            .to_vec();
        m.tracked.kinds = vec!["buf".into()];
        m.tracked.lifetimes = vec![lifetime(10, 35), lifetime(20, 90)].into();
        m.tracked.marks = [(15, 0), (50, 1)]
            .map(|(ts_ns, lifetime)| TrackedMark {
                ts_ns,
                lifetime,
                event: crate::StrId::EMPTY,
                value: None,
            })
            .to_vec()
            .into();
        m.rtos_objects.stream_buffers = vec![crate::StreamBuffer {
            buffer_id: 3,
            name: "log".into(),
            kind: crate::StreamBufferKind::Stream,
            high_water: 5,
        }];
        m.rtos_objects.stream_buffer_ops = [
            (10, StreamBufferOpKind::Send, 5),
            (40, StreamBufferOpKind::Receive, 2),
        ]
        .map(|(ts_ns, op, bytes_after)| StreamBufferOp {
            ts_ns,
            buffer: 0,
            op,
            from_isr: true,
            task: None,
            core_id: 0,
            bytes_after,
        })
        .to_vec();
        m.anomalies = vec![Anomaly {
            start_ns: 20,
            end_ns: 80,
            core_id: Some(0),
            kind: AnomalyKind::DroppedEvents,
            count: 4,
            detail: String::new(),
        }];
        m
    }

    #[test]
    fn a_window_of_the_whole_trace_is_the_trace() {
        let m = model();
        let w = m.window(0, None);
        assert_eq!(w.sched_slices, m.sched_slices);
        assert_eq!(w.task_states, m.task_states);
        assert_eq!(w.task_priorities, m.task_priorities);
        assert_eq!(w.marker_values, m.marker_values);
        assert_eq!(w.queue_ops, m.queue_ops);
        assert_eq!(w.tracked.lifetimes, m.tracked.lifetimes);
        assert_eq!(w.tracked.marks, m.tracked.marks);
        assert_eq!(w.anomalies, m.anomalies);
        assert_eq!(w.rtos_objects, m.rtos_objects);
        assert_eq!(w.tasks, m.tasks);
        assert_eq!(w.info, m.info);
        assert_eq!(m.rows_before(0), 0);
        assert_eq!(m.rows_before(101), 2 + 3 + 2 + 3 + 6 + 2 + 2 + 2);
        assert_eq!(m.rows_before(30), 1 + 1 + 1 + 1 + 3 + 2 + 1 + 1);
    }

    #[test]
    fn a_window_starts_with_what_was_in_effect_and_cuts_what_outlasts_it() {
        let w = model().window(30, Some(50));
        assert_eq!(w.info.duration_ns, 50);
        // The run from 0 to 40 begins at 30; the wait from 40 to 60 is cut
        // at 50, as the end of a trace cuts it.
        let slices = w.sched_slices.to_vec();
        assert_eq!(
            slices,
            [SchedSlice {
                start_ns: 30,
                ..slice(0, 40, 0)
            }]
        );
        let states: Vec<_> = w
            .task_states
            .iter()
            .map(|s| (s.start_ns, s.end_ns, s.state, s.truncated))
            .collect();
        assert_eq!(
            states,
            [
                (30, 40, TaskStateKind::Running, false),
                (40, 50, TaskStateKind::Blocked, true),
            ]
        );
        assert!(w.tasks[0].ever_waited);
        // The priority set at 0 holds at 30; the change at 50 is after the window.
        let prios: Vec<_> = w
            .task_priorities
            .iter()
            .map(|p| (p.ts_ns, p.priority))
            .collect();
        assert_eq!(prios, [(30, 3)]);
        // The marker has a value at 30 itself, so none is carried.
        let values: Vec<_> = w.marker_values.iter().map(|v| (v.ts_ns, v.value)).collect();
        assert_eq!(values, [(30, -2)]);
        // Queue 2's level at 30 is its own; queue 1's (2, set at 10) is
        // stated at 30 before its operations there.
        let ops = queue_ops(&w);
        assert_eq!(
            ops,
            [
                (30, 2, QueueOpKind::Send, Some(0), Some(0)),
                (30, 1, QueueOpKind::Send, Some(0), Some(3)),
                (45, 1, QueueOpKind::Send, Some(0), Some(4)),
            ]
        );
        // Levels seen in the window.
        let high: Vec<_> = w.queues.iter().map(|q| q.high_water).collect();
        assert_eq!(high, [4, 0]);
        // So is the stream buffer's (5 bytes, since 10).
        let buffer_ops: Vec<_> = w
            .rtos_objects
            .stream_buffer_ops
            .iter()
            .map(|o| (o.ts_ns, o.op, o.from_isr, o.bytes_after))
            .collect();
        assert_eq!(
            buffer_ops,
            [
                (30, StreamBufferOpKind::Level, false, 5),
                (40, StreamBufferOpKind::Receive, true, 2),
            ]
        );
        assert_eq!(w.rtos_objects.stream_buffers[0].high_water, 5);
        // Both lifetimes are live at 30; the second is cut at 50, where its
        // mark is not (the window ends before 50).
        let lifetimes: Vec<_> = w
            .tracked
            .lifetimes
            .iter()
            .map(|l| (l.start_ns, l.end_ns, l.truncated, l.ended_by))
            .collect();
        assert_eq!(
            lifetimes,
            [(30, 35, false, Some(Actor::Task(1))), (30, 50, true, None)]
        );
        assert!(w.tracked.marks.is_empty());
        assert_eq!((w.anomalies[0].start_ns, w.anomalies[0].end_ns), (30, 50));
    }

    #[test]
    fn what_was_open_when_the_trace_ended_is_in_a_window_at_its_last_instant() {
        let m = model();
        let w = m.window(100, None);
        let open = m.sched_slices.get(1).unwrap();
        assert_eq!(
            w.sched_slices.to_vec(),
            [SchedSlice {
                start_ns: 100,
                ..open
            }]
        );
        // The run that ended at 100 is not open then.
        assert!(w.task_states.is_empty());
    }

    #[test]
    fn counters_carried_to_the_start_come_first_in_their_order() {
        let w = model().window(26, None);
        let ops = queue_ops(&w);
        assert_eq!(
            ops[..2],
            [
                (26, 1, QueueOpKind::Level, None, Some(2)),
                (26, 2, QueueOpKind::Level, None, Some(1)),
            ]
        );
        assert_eq!(ops.len(), 5);
        // The mark at 50 is on the second lifetime, now the window's second.
        let marks: Vec<_> = w
            .tracked
            .marks
            .iter()
            .map(|m| (m.ts_ns, m.lifetime))
            .collect();
        assert_eq!(marks, [(50, 1)]);
        assert_eq!(w.queues[0].high_water, 4);
        assert_eq!(w.queues[1].high_water, 1);
    }
}
