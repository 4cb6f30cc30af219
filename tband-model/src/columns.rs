//! The columns of each of the model's large tables (see [`super::table`]
//! and, for the kinds of column, [`super::column`]).
//!
//! Ids are codes of a dictionary per column: 16-bit ones, 8-bit ones for
//! cores (few by nature) and for the details of a task state (most states
//! have none, so that the rows of ids past the first 254 kept as
//! exceptions cost less than wider codes for every row); enums take four
//! bits, flags one.

use super::column::{columns, Column, Dictionary, End, Enum, Flag, Narrow, Plain, Time, Zeroed};
use super::table::{Interval, Row, Table};
use super::{
    Actor, CounterValue, IsrSlice, MarkerInstant, MarkerSpan, MarkerValue, Model, MutexHold,
    PriorityCause, QueueOp, QueueOpKind, SchedSlice, StateReason, StrId, TaskPriority, TaskState,
    TaskStateKind, TrackedLifetime, TrackedMark,
};

columns! {
    SchedSlice in SchedSliceChunk, SchedSliceColumns {
        start_ns: Time,
        end_ns: End,
        task: Dictionary<u32, u16>,
        core_id: Dictionary<u32, u8>,
        end_state: Enum<Option<TaskStateKind>>,
        end_reason: Enum<StateReason>,
        truncated: Flag,
    }
}

columns! {
    TaskState in TaskStateChunk, TaskStateColumns {
        start_ns: Time,
        end_ns: End,
        task: Dictionary<u32, u16>,
        state: Enum<TaskStateKind>,
        reason: Enum<StateReason>,
        queue: Dictionary<Option<u32>, u8>,
        core_id: Dictionary<Option<u32>, u8>,
        woken_by_isr: Dictionary<Option<u32>, u8>,
        truncated: Flag,
    }
}

columns! {
    TaskPriority in TaskPriorityChunk, TaskPriorityColumns {
        ts_ns: Time,
        task: Dictionary<u32, u16>,
        priority: Plain<u32>,
        cause: Enum<PriorityCause>,
    }
}

columns! {
    IsrSlice in IsrSliceChunk, IsrSliceColumns {
        start_ns: Time,
        end_ns: End,
        core_id: Dictionary<u32, u8>,
        isr: Dictionary<u32, u16>,
        depth: Narrow<u32, u8>,
        truncated: Flag,
    }
}

columns! {
    MarkerSpan in MarkerSpanChunk, MarkerSpanColumns {
        start_ns: Time,
        end_ns: End,
        marker: Dictionary<u32, u16>,
        msg: Plain<StrId>,
        depth: Narrow<u32, u8>,
        truncated: Flag,
    }
}

columns! {
    MarkerInstant in MarkerInstantChunk, MarkerInstantColumns {
        ts_ns: Time,
        marker: Dictionary<u32, u16>,
        msg: Plain<StrId>,
    }
}

columns! {
    MarkerValue in MarkerValueChunk, MarkerValueColumns {
        ts_ns: Time,
        marker: Dictionary<u32, u16>,
        value: Narrow<i64, i32>,
    }
}

columns! {
    QueueOp in QueueOpChunk, QueueOpColumns {
        ts_ns: Time,
        queue: Dictionary<u32, u16>,
        op: Enum<QueueOpKind>,
        from_isr: Flag,
        task: Dictionary<Option<u32>, u16>,
        core_id: Dictionary<u32, u8>,
        len_after: Narrow<Option<u32>, u16>,
    }
}

columns! {
    MutexHold in MutexHoldChunk, MutexHoldColumns {
        start_ns: Time,
        end_ns: End,
        queue: Dictionary<u32, u16>,
        task: Dictionary<u32, u16>,
        truncated: Flag,
    }
}

columns! {
    TrackedLifetime in ObjectLifetimeChunk, ObjectLifetimeColumns {
        start_ns: Time,
        end_ns: End,
        kind: Dictionary<u32, u8>,
        key: Plain<u32>,
        name: Plain<StrId>,
        pool: Dictionary<Option<u32>, u16>,
        slot: Narrow<u32, u8>,
        truncated: Flag,
        begin_core: Dictionary<u32, u8>,
        end_core: Dictionary<Option<u32>, u8>,
        begun_by: Dictionary<Option<Actor>, u16>,
        ended_by: Dictionary<Option<Actor>, u16>,
    }
}

columns! {
    TrackedMark in ObjectMarkChunk, ObjectMarkColumns {
        ts_ns: Time,
        lifetime: Plain<u32>,
        event: Plain<StrId>,
        value: Narrow<Option<i64>, i32>,
    }
}

columns! {
    CounterValue in CounterValueChunk, CounterValueColumns {
        ts_ns: Time,
        counter: Dictionary<u32, u16>,
        value: Narrow<i64, i32>,
    }
}

impl Table<TrackedLifetime> {
    /// Ends the lifetime at `index` at `t` (not before its start), by
    /// `actor` on `core`.
    pub(crate) fn end_lifetime_at(
        &mut self,
        index: usize,
        t: u64,
        core: u32,
        actor: Option<Actor>,
    ) {
        if let Some((chunk, columns)) = self.chunk_mut(index) {
            TrackedLifetime::end_at(chunk, columns, index, t);
            columns
                .end_core
                .set(&mut chunk.end_core, index, Some(core), t);
            columns.ended_by.set(&mut chunk.ended_by, index, actor, t);
        }
    }
}

impl Table<SchedSlice> {
    /// Ends the slice at `index` at `t` (not before its start), its task
    /// then in `state` for `reason`.
    #[inline(always)]
    pub(crate) fn end_slice_at(
        &mut self,
        index: usize,
        t: u64,
        state: TaskStateKind,
        reason: StateReason,
    ) {
        if let Some((chunk, columns)) = self.chunk_mut(index) {
            SchedSlice::end_at(chunk, columns, index, t);
            let end_state = &mut chunk.end_state;
            columns.end_state.set(end_state, index, Some(state), t);
            columns
                .end_reason
                .set(&mut chunk.end_reason, index, reason, t);
        }
    }
}

/// A change of the numbers rows refer to entities by: the builder writes
/// firmware ids into rows while a trace is read and changes them to indices
/// into the entity tables when it makes the model (and back when a model it
/// lent out returns). Each function maps one id to one index.
pub(crate) struct Renumbering<'a> {
    pub(crate) task: &'a dyn Fn(u32) -> u32,
    pub(crate) queue: &'a dyn Fn(u32) -> u32,
    pub(crate) isr: &'a dyn Fn(u32) -> u32,
    pub(crate) marker: &'a dyn Fn(u32) -> u32,
}

impl Model {
    /// Changes the entity numbers of every row that refers to an entity.
    pub(crate) fn renumber_rows(&mut self, new: &Renumbering) {
        self.sched_slices.columns_mut().task.renumber(new.task);
        self.task_states.columns_mut().task.renumber(new.task);
        self.task_priorities.columns_mut().task.renumber(new.task);
        self.queue_ops.columns_mut().task.renumber(new.task);
        self.mutex_holds.columns_mut().task.renumber(new.task);
        self.task_states.columns_mut().queue.renumber(new.queue);
        self.queue_ops.columns_mut().queue.renumber(new.queue);
        self.mutex_holds.columns_mut().queue.renumber(new.queue);
        self.task_states
            .columns_mut()
            .woken_by_isr
            .renumber(new.isr);
        self.isr_slices.columns_mut().isr.renumber(new.isr);
        self.marker_spans.columns_mut().marker.renumber(new.marker);
        self.marker_instants
            .columns_mut()
            .marker
            .renumber(new.marker);
        self.marker_values.columns_mut().marker.renumber(new.marker);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::SmallEnum;
    use crate::table::tests::slice;
    use crate::IsrKey;

    fn state(start_ns: u64, end_ns: u64, state: TaskStateKind) -> TaskState {
        TaskState {
            start_ns,
            end_ns,
            task: 3,
            state,
            reason: StateReason::QueueReceive,
            queue: None,
            core_id: None,
            woken_by_isr: None,
            truncated: start_ns % 2 == 1,
        }
    }

    #[test]
    fn times_far_apart_and_going_back_round_trip() {
        // Rows 3 s apart (64 of them span far more than 4.29 s), 5 s apart,
        // one that goes back in time and one at the end of time.
        let start = |i: u64| match i {
            5_000 => 7,
            9_999 => u64::MAX,
            _ if i < 8_000 => i * 3_000_000_000,
            _ => i * 5_000_000_000,
        };
        let rows: Vec<SchedSlice> = (0..10_000)
            .map(|i| slice(start(i), start(i).saturating_add(100), (i % 5) as u32))
            .collect();
        let mut table: Table<SchedSlice> = rows.iter().copied().collect();
        assert!(table.iter().eq(rows.iter().copied()));
        table.end_at(8_345, 8_345 * 5_000_000_000 + 500);
        assert_eq!(
            table.get(8_345).unwrap().end_ns,
            8_345 * 5_000_000_000 + 500
        );
        assert_eq!(table.get(5_000).unwrap().start_ns, 7);
        assert_eq!(table.last().unwrap().start_ns, u64::MAX);

        // Rows close together keep their times in their columns.
        let close: Table<SchedSlice> = (0..10_000)
            .map(|i| slice(i * 1_000, i * 1_000, 1))
            .collect();
        assert_eq!(close.columns().start_ns.exceptions(), 0);
        assert_eq!(table.columns().end_ns.exceptions(), 0);
    }

    #[test]
    fn durations_over_32_bits_round_trip_and_change_in_place() {
        // Every hundredth row is ended more than 4.29 s after its start.
        let mut table = Table::new();
        let mut rows = Vec::new();
        for i in 0..20_000u64 {
            let row = slice(i * 1_000, i * 1_000, (i % 7) as u32);
            table.push(row);
            rows.push(row);
        }
        for (i, row) in rows.iter_mut().enumerate() {
            row.end_ns = row.start_ns + if i % 100 == 3 { 5_000_000_000 } else { 50 };
            table.end_at(i, row.end_ns);
        }
        assert_eq!(table.columns().end_ns.exceptions(), 200);
        assert!(table.iter().eq(rows.iter().copied()));
        // Made short again, longer still, ending before the start.
        table.end_at(1_503, rows[1_503].start_ns + 60);
        rows[1_503].end_ns = rows[1_503].start_ns + 60;
        table.update(1_603, |s| s.end_ns += 1 << 40);
        rows[1_603].end_ns += 1 << 40;
        table.update(17, |s| s.end_ns = 3);
        rows[17].end_ns = 3;
        table.end_at(18, 0);
        rows[18].end_ns = rows[18].start_ns;
        assert_eq!(table.columns().end_ns.exceptions(), 200);
        assert!(table.iter().eq(rows.iter().copied()));
    }

    #[test]
    fn task_states_round_trip_with_every_detail() {
        let isr = Some(9);
        let far_isr = Some(70_000);
        let mut rows = vec![
            state(100, 200, TaskStateKind::Blocked),
            state(101, 300, TaskStateKind::Running),
            state(150, 160, TaskStateKind::Ready),
            state(151, 151, TaskStateKind::Ready),
            state(50, 60, TaskStateKind::Blocked),
            state(200, 200 + (1 << 33), TaskStateKind::Suspended),
            state(201, 210, TaskStateKind::Running),
            state(1 << 40, (1 << 40) + 5, TaskStateKind::Deleted),
            state(1 << 40, (1 << 40) + 5, TaskStateKind::Ready),
        ];
        rows[0].queue = Some(7);
        rows[1].core_id = Some(1);
        rows[2].woken_by_isr = isr;
        rows[6].queue = Some(u32::MAX);
        rows[6].core_id = Some(u32::MAX);
        rows[6].woken_by_isr = far_isr;
        rows[8].woken_by_isr = isr;
        let table: Table<TaskState> = rows.clone().into();
        assert_eq!(table.to_vec(), rows);
        assert_eq!(table.get(4), Some(rows[4]));
        assert_eq!(table.get(rows.len()), None);
    }

    #[test]
    fn more_ids_than_codes_round_trip() {
        // 70,000 markers: more than 16-bit codes hold; values beyond 32
        // bits.
        let values: Vec<MarkerValue> = (0..70_000u32)
            .map(|i| MarkerValue {
                ts_ns: u64::from(i),
                marker: i * 3,
                value: i64::from(i) << 20,
            })
            .collect();
        let table: Table<MarkerValue> = values.iter().copied().collect();
        assert_eq!(table.len(), 70_000);
        assert!(table.iter().eq(values.iter().copied()));
        let columns = table.columns();
        assert_eq!(columns.marker.exceptions(), 70_000 - 65_534);
        assert_eq!(columns.value.exceptions(), 70_000 - 2_048);

        // 300 cores: more than 8-bit codes hold.
        let slices: Vec<SchedSlice> = (0..600u32)
            .map(|i| SchedSlice {
                core_id: i / 2 * 7,
                ..slice(u64::from(i), u64::from(i) + 1, i)
            })
            .collect();
        let mut table: Table<SchedSlice> = slices.iter().copied().collect();
        assert!(table.iter().eq(slices.iter().copied()));
        assert_eq!(table.columns().core_id.exceptions(), 2 * (300 - 254));
        // A row changed to an id that has a code leaves the exceptions.
        table.update(599, |s| s.core_id = 0);
        assert_eq!(table.get(599).unwrap().core_id, 0);
        assert_eq!(table.columns().core_id.exceptions(), 2 * (300 - 254) - 1);

        // Task states waiting on 300 queues or woken by 300 ISRs.
        let states: Vec<TaskState> = (0..600u32)
            .map(|i| {
                let mut row = state(u64::from(i), u64::from(i) + 1, TaskStateKind::Blocked);
                if i % 2 == 0 {
                    row.queue = Some(i / 2 + 1_000);
                } else {
                    row.state = TaskStateKind::Ready;
                    row.woken_by_isr = Some(i / 2);
                }
                row
            })
            .collect();
        let table: Table<TaskState> = states.iter().copied().collect();
        assert!(table.iter().eq(states.iter().copied()));
        assert_eq!(table.columns().queue.exceptions(), 300 - 254);
        assert_eq!(table.columns().woken_by_isr.exceptions(), 300 - 254);
    }

    #[test]
    fn renumbered_ids_change_in_every_row_and_back() {
        // 70,000 tasks: the rows past the first 65,534 ids are exceptions.
        let ops: Vec<QueueOp> = (0..70_000u32)
            .map(|i| QueueOp {
                ts_ns: u64::from(i),
                queue: 1,
                op: QueueOpKind::Send,
                from_isr: i % 3 == 0,
                task: (i % 3 != 0).then_some(i),
                core_id: 0,
                len_after: None,
            })
            .collect();
        let mut table: Table<QueueOp> = ops.iter().copied().collect();
        table.columns_mut().task.renumber(|id| 69_999 - id);
        assert!(table
            .iter()
            .zip(&ops)
            .all(|(row, op)| row.task == op.task.map(|id| 69_999 - id)));
        // A row pushed after the change gets the code of its new id.
        table.push(QueueOp {
            task: Some(69_999),
            ..ops[1]
        });
        table.columns_mut().task.renumber(|index| 69_999 - index);
        assert!(table.iter().take(ops.len()).eq(ops.iter().copied()));
        assert_eq!(table.last().unwrap().task, Some(0));
    }

    #[test]
    fn optional_ids_and_counts_round_trip() {
        let ops: Vec<QueueOp> = [None, Some(0), Some(65_533), Some(65_534), Some(u32::MAX)]
            .into_iter()
            .enumerate()
            .map(|(i, len_after)| QueueOp {
                ts_ns: i as u64,
                queue: u32::MAX - i as u32,
                op: QUEUE_OPS[i],
                from_isr: i % 2 == 0,
                task: (i > 1).then_some(i as u32),
                core_id: 0,
                len_after,
            })
            .collect();
        let table: Table<QueueOp> = ops.iter().copied().collect();
        assert_eq!(table.to_vec(), ops);
        assert_eq!(table.columns().len_after.exceptions(), 2);

        let spans: Vec<MarkerSpan> = (0..300u32)
            .map(|depth| MarkerSpan {
                start_ns: u64::from(depth),
                end_ns: 1_000,
                marker: depth % 5,
                msg: StrId(depth),
                depth,
                truncated: depth % 3 == 0,
            })
            .collect();
        let table: Table<MarkerSpan> = spans.iter().copied().collect();
        assert!(table.iter().eq(spans.iter().copied()));
    }

    #[test]
    fn tracked_objects_round_trip_with_wide_values_and_every_actor() {
        let actors = [
            None,
            Some(Actor::Task(0)),
            Some(Actor::Task(u32::MAX)),
            Some(Actor::Isr(IsrKey {
                core_id: 1,
                isr_id: 7,
            })),
            Some(Actor::Isr(IsrKey {
                core_id: 2,
                isr_id: 300,
            })),
        ];
        let lifetimes: Vec<TrackedLifetime> = (0..600u32)
            .map(|i| TrackedLifetime {
                kind: i % 3,
                key: i,
                name: StrId(i / 2),
                pool: (i % 4 != 0).then_some(i % 5),
                slot: i,
                start_ns: u64::from(i) * 10,
                end_ns: u64::from(i) * 10 + 5,
                truncated: i % 7 == 0,
                begin_core: i % 2,
                end_core: (i % 3 != 0).then_some(i % 2),
                begun_by: actors[i as usize % 5],
                ended_by: actors[(i as usize + 1) % 5],
            })
            .collect();
        let mut table: Table<TrackedLifetime> = lifetimes.iter().copied().collect();
        assert!(table.iter().eq(lifetimes.iter().copied()));
        let ender = actors[4];
        table.end_lifetime_at(5, 1_000, 3, ender);
        let ended = table.get(5).expect("row 5");
        assert_eq!(
            (ended.end_ns, ended.end_core, ended.ended_by),
            (1_000, Some(3), ender)
        );

        // The narrow code of a missing value, as a value, is kept whole.
        let values = [
            None,
            Some(0),
            Some(-2_147_483_647),
            Some(i64::MIN),
            Some(i64::MAX),
        ];
        let marks: Vec<TrackedMark> = (0..10u32)
            .map(|i| TrackedMark {
                ts_ns: u64::from(i),
                lifetime: i,
                event: StrId(i % 2),
                value: values[i as usize % 5],
            })
            .collect();
        let table: Table<TrackedMark> = marks.iter().copied().collect();
        assert_eq!(table.to_vec(), marks);
        let counts: Vec<CounterValue> = (0..10u32)
            .map(|i| CounterValue {
                ts_ns: u64::from(i),
                counter: i % 3,
                value: values[i as usize % 5]
                    .unwrap_or(7)
                    .wrapping_add(i64::from(i)),
            })
            .collect();
        let table: Table<CounterValue> = counts.iter().copied().collect();
        assert_eq!(table.to_vec(), counts);
    }

    const QUEUE_OPS: [QueueOpKind; 5] = [
        QueueOpKind::Send,
        QueueOpKind::Overwrite,
        QueueOpKind::Receive,
        QueueOpKind::Reset,
        QueueOpKind::Level,
    ];

    const TASK_STATE_KINDS: [TaskStateKind; 5] = [
        TaskStateKind::Running,
        TaskStateKind::Ready,
        TaskStateKind::Blocked,
        TaskStateKind::Suspended,
        TaskStateKind::Deleted,
    ];

    /// Every pair of a state and a reason, whether importers make it or not.
    fn every_state_and_reason() -> Vec<(TaskStateKind, StateReason)> {
        let reasons: Vec<StateReason> = (0..15).map(StateReason::from_bits).collect();
        TASK_STATE_KINDS
            .iter()
            .flat_map(|&k| reasons.iter().map(move |&r| (k, r)))
            .collect()
    }

    #[test]
    fn every_state_and_reason_round_trips() {
        let pairs = every_state_and_reason();
        assert_eq!(pairs.len(), 5 * 15);
        let mut states = Vec::new();
        for (i, &(kind, reason)) in pairs.iter().enumerate() {
            for truncated in [false, true] {
                states.push(TaskState {
                    reason,
                    task: i as u32,
                    truncated,
                    ..state(
                        states.len() as u64 * 100,
                        states.len() as u64 * 100 + 50,
                        kind,
                    )
                });
            }
        }
        let table: Table<TaskState> = states.iter().copied().collect();
        assert!(table.iter().eq(states.iter().copied()));
        let priorities: Vec<TaskPriority> = (0..3)
            .map(|i| TaskPriority {
                ts_ns: i,
                task: 1,
                priority: u32::MAX - i as u32,
                cause: PriorityCause::from_bits(i as u8),
            })
            .collect();
        let table: Table<TaskPriority> = priorities.iter().copied().collect();
        assert!(table.iter().eq(priorities.iter().copied()));
    }

    #[test]
    fn slices_are_ended_with_every_end_state() {
        let ends = every_state_and_reason();
        // Three chunks of open slices, then each ended in one of the
        // states; every seventh one lasts more than 4.29 s.
        let mut table = Table::new();
        let mut slices: Vec<SchedSlice> = (0..20_000u64)
            .map(|i| slice(i * 100, i * 100, (i % 3) as u32))
            .collect();
        for &slice in &slices {
            table.push(slice);
        }
        assert!(table.iter().eq(slices.iter().copied()));
        for (i, slice) in slices.iter_mut().enumerate() {
            let (state, reason) = ends[i % ends.len()];
            let t = slice.start_ns + if i % 7 == 0 { 5_000_000_000 } else { 50 };
            table.end_slice_at(i, t, state, reason);
            slice.end_ns = t;
            slice.end_state = Some(state);
            slice.end_reason = reason;
        }
        assert!(table.iter().eq(slices.iter().copied()));
        // A reason without a state.
        slices[3].end_state = None;
        let table: Table<SchedSlice> = slices.iter().copied().collect();
        assert!(table.iter().eq(slices.iter().copied()));
    }
}
