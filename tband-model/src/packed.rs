//! The packed form of each large table's rows (see [`super::table`]).
//!
//! Times are offsets from the chunk's base and durations, both 32-bit; ids
//! are codes of the table's dictionary, 12-bit ones two to a word with
//! enums and flags where that saves bytes, 16-bit ones otherwise. A task
//! state's optional queue, core and waking ISR share one code whose meaning
//! follows from the state.

use super::table::{offset, Codes, Interval, Row, Table};
use super::{
    IsrKey, IsrSlice, MarkerInstant, MarkerSpan, MarkerValue, MutexHold, PriorityCause, QueueOp,
    QueueOpKind, SchedSlice, StateReason, StrId, TaskPriority, TaskState, TaskStateKind,
};

/// `end - start`, if it fits.
#[inline]
fn duration(start: u64, end: u64) -> Option<u32> {
    u32::try_from(end.checked_sub(start)?).ok()
}

/// The duration of a packed interval starting at `start` that ends at `t`
/// (not before its start), if it fits.
#[inline]
fn duration_to(base: u64, start: u32, t: u64) -> Option<u32> {
    let start = base + u64::from(start);
    duration(start, t.max(start))
}

/// Implements [`Interval`] for a row type with `start_ns` and `end_ns` whose
/// packed form has `start` and `dur`.
macro_rules! interval_row {
    ($row:ty) => {
        impl Interval for $row {
            #[inline]
            fn end_packed_at(packed: &mut Self::Packed, base: u64, t: u64) -> bool {
                match duration_to(base, packed.start, t) {
                    Some(dur) => {
                        packed.dur = dur;
                        true
                    }
                    None => false,
                }
            }

            fn end_at(&mut self, t: u64) {
                self.end_ns = t.max(self.start_ns);
            }
        }
    };
}

interval_row!(SchedSlice);
interval_row!(TaskState);
interval_row!(IsrSlice);
interval_row!(MarkerSpan);
interval_row!(MutexHold);

/// The absolute start and end of a packed interval.
#[inline]
fn interval(base: u64, start: u32, dur: u32) -> (u64, u64) {
    let start = base + u64::from(start);
    (start, start + u64::from(dur))
}

/// The dictionary key of an ISR: the ISR's low 8 bits, the core's low 4,
/// then the rest of the ISR's and of the core's bits. The usual ids (ISRs
/// below 256 on cores below 16) so make keys below 4096, which the
/// dictionary looks up by index.
#[inline]
fn isr_key(key: IsrKey) -> u64 {
    let (isr, core) = (u64::from(key.isr_id), u64::from(key.core_id));
    isr & 0xff | (core & 0xf) << 8 | (isr >> 8) << 12 | (core >> 4) << 36
}

/// The inverse of [`isr_key`].
#[inline]
fn isr_of(key: u64) -> IsrKey {
    IsrKey {
        core_id: ((key >> 8) & 0xf | (key >> 36) << 4) as u32,
        isr_id: (key & 0xff | (key >> 12 & 0xff_ffff) << 8) as u32,
    }
}

const PRIORITY_CAUSES: [PriorityCause; 3] = [
    PriorityCause::Set,
    PriorityCause::Inherit,
    PriorityCause::Disinherit,
];

const QUEUE_OPS: [QueueOpKind; 5] = [
    QueueOpKind::Send,
    QueueOpKind::Overwrite,
    QueueOpKind::Receive,
    QueueOpKind::Reset,
    QueueOpKind::Level,
];

/// The entry of `table` at `index` (the index comes from a packed row,
/// which only holds valid ones).
#[inline]
fn nth<T: Copy>(table: &[T], index: u8) -> T {
    table[usize::from(index).min(table.len() - 1)]
}

#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub struct PackedSlice {
    start: u32,
    dur: u32,
    /// The task's code in bits 0-15 (firmware that creates tasks as it runs
    /// has thousands), the core's in bits 16-27, truncated in bit 28.
    fields: u32,
    /// The end state in bits 4-7 and its reason in bits 0-3 (their indices
    /// in `TASK_STATE_KINDS` and `STATE_REASONS`), `NO_END_STATE` for none.
    end: u8,
}

const TASK_STATE_KINDS: [TaskStateKind; 5] = [
    TaskStateKind::Running,
    TaskStateKind::Ready,
    TaskStateKind::Blocked,
    TaskStateKind::Suspended,
    TaskStateKind::Deleted,
];

const STATE_REASONS: [StateReason; 15] = [
    StateReason::None,
    StateReason::Preempted,
    StateReason::Woken,
    StateReason::Created,
    StateReason::Delay,
    StateReason::DelayUntil,
    StateReason::QueueSend,
    StateReason::QueueReceive,
    StateReason::QueuePeek,
    StateReason::Semaphore,
    StateReason::Mutex,
    StateReason::EventFlags,
    StateReason::Sleep,
    StateReason::Suspend,
    StateReason::Deleted,
];

const NO_END_STATE: u8 = 0xff;

/// The `end` of a slice whose task ends it in `state` for `reason`.
#[inline(always)]
fn end_code(state: TaskStateKind, reason: StateReason) -> u8 {
    (state as u8) << 4 | reason as u8
}

/// The state and reason of a slice's `end`.
#[inline]
fn end_of(end: u8) -> (Option<TaskStateKind>, StateReason) {
    if end == NO_END_STATE {
        return (None, StateReason::None);
    }
    (
        Some(nth(&TASK_STATE_KINDS, end >> 4)),
        nth(&STATE_REASONS, end & 15),
    )
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
        self.change(
            index,
            |packed, base| {
                let ended = SchedSlice::end_packed_at(packed, base, t);
                if ended {
                    packed.end = end_code(state, reason);
                }
                ended
            },
            |slice| {
                slice.end_at(t);
                slice.end_state = Some(state);
                slice.end_reason = reason;
            },
        );
    }
}

impl Row for SchedSlice {
    type Packed = PackedSlice;

    fn time_ns(&self) -> u64 {
        self.start_ns
    }

    #[inline(always)]
    fn pack(&self, base: u64, codes: &mut Codes) -> Option<PackedSlice> {
        let task = u32::from(codes.code(self.task_id.into())?);
        let core = short_code(codes, self.core_id.into())?;
        Some(PackedSlice {
            start: offset(self.start_ns, base)?,
            dur: duration(self.start_ns, self.end_ns)?,
            fields: task | core << 16 | u32::from(self.truncated) << 28,
            end: match (self.end_state, self.end_reason) {
                (Some(state), reason) => end_code(state, reason),
                (None, StateReason::None) => NO_END_STATE,
                (None, _) => return None,
            },
        })
    }

    #[inline]
    fn unpack(p: PackedSlice, base: u64, codes: &Codes) -> Self {
        let (start_ns, end_ns) = interval(base, p.start, p.dur);
        let fields = p.fields;
        let (end_state, end_reason) = end_of(p.end);
        SchedSlice {
            start_ns,
            end_ns,
            task_id: codes.id(fields as u16),
            core_id: codes.id(short_at(fields, 16)),
            end_state,
            end_reason,
            truncated: fields >> 28 != 0,
        }
    }
}

#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub struct PackedState {
    start: u32,
    dur: u32,
    /// The task's code in bits 0-14; in bits 15-26 the code of the detail
    /// (running: the core; ready: the waking ISR; otherwise: the queue),
    /// `NO_SHORT_CODE` for none; the state and reason in bits 27-30 (see
    /// [`state_code`]), truncated in bit 31.
    fields: u32,
}

/// Some packed rows hold 12-bit codes (two of them and a byte fill 32
/// bits): a table with more distinct ids keeps the rows that use the others
/// whole. `NO_SHORT_CODE` stands for an absent optional id.
const NO_SHORT_CODE: u16 = 0xfff;

/// `code` if it fits 12 bits.
#[inline(always)]
fn short(code: u16) -> Option<u32> {
    (code < NO_SHORT_CODE).then_some(u32::from(code))
}

/// The 12-bit code of `key`.
#[inline(always)]
fn short_code(codes: &mut Codes, key: u64) -> Option<u32> {
    short(codes.code(key)?)
}

/// The 12-bit code of an optional id (`NO_SHORT_CODE` for none).
#[inline(always)]
fn short_optional(codes: &mut Codes, id: Option<u32>) -> Option<u32> {
    match id {
        Some(id) => short_code(codes, id.into()),
        None => Some(u32::from(NO_SHORT_CODE)),
    }
}

/// The 12-bit code at bit `shift` of `fields`.
#[inline]
fn short_at(fields: u32, shift: u32) -> u16 {
    (fields >> shift) as u16 & NO_SHORT_CODE
}

/// The optional id whose 12-bit code is at bit `shift` of `fields`.
#[inline]
fn optional_at(codes: &Codes, fields: u32, shift: u32) -> Option<u32> {
    let code = short_at(fields, shift);
    (code != NO_SHORT_CODE).then(|| codes.id(code))
}

/// A state and its reason in 4 bits: the reason's index where the reason
/// tells the state, running for no reason, and 15 for blocked for no
/// reason (see [`STATE_OF_CODE`]). Other pairs (which no importer makes) do
/// not fit.
#[inline(always)]
fn state_code(state: TaskStateKind, reason: StateReason) -> Option<u32> {
    // The only candidate is the reason's index, or 15 for a state other
    // than running without a reason; the table tells whether it stands
    // for the pair.
    let code = if reason == StateReason::None && state != TaskStateKind::Running {
        BLOCKED_FOR_NO_REASON
    } else {
        reason as u32
    };
    (nth(&STATE_OF_CODE, code as u8) == (state, reason)).then_some(code)
}

const BLOCKED_FOR_NO_REASON: u32 = 15;

/// The state and reason of each code of [`state_code`].
const STATE_OF_CODE: [(TaskStateKind, StateReason); 16] = [
    (TaskStateKind::Running, StateReason::None),
    (TaskStateKind::Ready, StateReason::Preempted),
    (TaskStateKind::Ready, StateReason::Woken),
    (TaskStateKind::Ready, StateReason::Created),
    (TaskStateKind::Blocked, StateReason::Delay),
    (TaskStateKind::Blocked, StateReason::DelayUntil),
    (TaskStateKind::Blocked, StateReason::QueueSend),
    (TaskStateKind::Blocked, StateReason::QueueReceive),
    (TaskStateKind::Blocked, StateReason::QueuePeek),
    (TaskStateKind::Blocked, StateReason::Semaphore),
    (TaskStateKind::Blocked, StateReason::Mutex),
    (TaskStateKind::Blocked, StateReason::EventFlags),
    (TaskStateKind::Blocked, StateReason::Sleep),
    (TaskStateKind::Suspended, StateReason::Suspend),
    (TaskStateKind::Deleted, StateReason::Deleted),
    (TaskStateKind::Blocked, StateReason::None),
];

impl Row for TaskState {
    type Packed = PackedState;

    fn time_ns(&self) -> u64 {
        self.start_ns
    }

    #[inline(always)]
    fn pack(&self, base: u64, codes: &mut Codes) -> Option<PackedState> {
        let detail = match self.state {
            TaskStateKind::Running if self.queue_id.is_none() && self.woken_by_isr.is_none() => {
                short_optional(codes, self.core_id)?
            }
            TaskStateKind::Ready if self.queue_id.is_none() && self.core_id.is_none() => {
                match self.woken_by_isr {
                    Some(isr) => short_code(codes, isr_key(isr))?,
                    None => u32::from(NO_SHORT_CODE),
                }
            }
            TaskStateKind::Running | TaskStateKind::Ready => return None,
            _ if self.core_id.is_none() && self.woken_by_isr.is_none() => {
                short_optional(codes, self.queue_id)?
            }
            _ => return None,
        };
        let task = u32::from(codes.code(self.task_id.into())?);
        if task >= 1 << 15 {
            return None;
        }
        let kind = state_code(self.state, self.reason)? | u32::from(self.truncated) << 4;
        Some(PackedState {
            start: offset(self.start_ns, base)?,
            dur: duration(self.start_ns, self.end_ns)?,
            fields: task | detail << 15 | kind << 27,
        })
    }

    #[inline]
    fn unpack(p: PackedState, base: u64, codes: &Codes) -> Self {
        let (start_ns, end_ns) = interval(base, p.start, p.dur);
        let fields = p.fields;
        let (state, reason) = nth(&STATE_OF_CODE, (fields >> 27) as u8 & 15);
        let detail = short_at(fields, 15);
        let mut row = TaskState {
            start_ns,
            end_ns,
            task_id: codes.id(fields as u16 & 0x7fff),
            state,
            reason,
            queue_id: None,
            core_id: None,
            woken_by_isr: None,
            truncated: fields >> 31 != 0,
        };
        if detail != NO_SHORT_CODE {
            match state {
                TaskStateKind::Running => row.core_id = Some(codes.id(detail)),
                TaskStateKind::Ready => row.woken_by_isr = Some(isr_of(codes.key(detail))),
                _ => row.queue_id = Some(codes.id(detail)),
            }
        }
        row
    }
}

#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub struct PackedPriority {
    ts: u32,
    priority: u32,
    task: u16,
    cause: u8,
}

impl Row for TaskPriority {
    type Packed = PackedPriority;

    fn time_ns(&self) -> u64 {
        self.ts_ns
    }

    fn pack(&self, base: u64, codes: &mut Codes) -> Option<PackedPriority> {
        Some(PackedPriority {
            ts: offset(self.ts_ns, base)?,
            priority: self.priority,
            task: codes.code(self.task_id.into())?,
            cause: self.cause as u8,
        })
    }

    fn unpack(p: PackedPriority, base: u64, codes: &Codes) -> Self {
        TaskPriority {
            ts_ns: base + u64::from(p.ts),
            task_id: codes.id(p.task),
            priority: p.priority,
            cause: nth(&PRIORITY_CAUSES, p.cause),
        }
    }
}

#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub struct PackedIsrSlice {
    start: u32,
    dur: u32,
    isr: u16,
    depth: u8,
    truncated: bool,
}

impl Row for IsrSlice {
    type Packed = PackedIsrSlice;

    fn time_ns(&self) -> u64 {
        self.start_ns
    }

    #[inline(always)]
    fn pack(&self, base: u64, codes: &mut Codes) -> Option<PackedIsrSlice> {
        let key = IsrKey {
            core_id: self.core_id,
            isr_id: self.isr_id,
        };
        Some(PackedIsrSlice {
            start: offset(self.start_ns, base)?,
            dur: duration(self.start_ns, self.end_ns)?,
            isr: codes.code(isr_key(key))?,
            depth: u8::try_from(self.depth).ok()?,
            truncated: self.truncated,
        })
    }

    #[inline]
    fn unpack(p: PackedIsrSlice, base: u64, codes: &Codes) -> Self {
        let (start_ns, end_ns) = interval(base, p.start, p.dur);
        let key = isr_of(codes.key(p.isr));
        IsrSlice {
            start_ns,
            end_ns,
            core_id: key.core_id,
            isr_id: key.isr_id,
            depth: p.depth.into(),
            truncated: p.truncated,
        }
    }
}

#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub struct PackedSpan {
    start: u32,
    dur: u32,
    msg: u32,
    /// The marker's code in bits 0-11, the task's in bits 12-23
    /// (`NO_SHORT_CODE`: global), the depth in bits 24-30, truncated in bit 31.
    fields: u32,
}

impl Row for MarkerSpan {
    type Packed = PackedSpan;

    fn time_ns(&self) -> u64 {
        self.start_ns
    }

    #[inline(always)]
    fn pack(&self, base: u64, codes: &mut Codes) -> Option<PackedSpan> {
        let marker = short_code(codes, self.marker_id.into())?;
        let task = short_optional(codes, self.task_id)?;
        let depth = u8::try_from(self.depth).ok().filter(|&d| d < 0x80)?;
        Some(PackedSpan {
            start: offset(self.start_ns, base)?,
            dur: duration(self.start_ns, self.end_ns)?,
            msg: self.msg.0,
            fields: marker | task << 12 | u32::from(depth) << 24 | u32::from(self.truncated) << 31,
        })
    }

    #[inline]
    fn unpack(p: PackedSpan, base: u64, codes: &Codes) -> Self {
        let (start_ns, end_ns) = interval(base, p.start, p.dur);
        let fields = p.fields;
        MarkerSpan {
            start_ns,
            end_ns,
            marker_id: codes.id(short_at(fields, 0)),
            task_id: optional_at(codes, fields, 12),
            msg: StrId(p.msg),
            depth: (fields >> 24) & 0x7f,
            truncated: fields >> 31 != 0,
        }
    }
}

#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub struct PackedInstant {
    ts: u32,
    msg: u32,
    marker: u16,
    task: u16,
}

impl Row for MarkerInstant {
    type Packed = PackedInstant;

    fn time_ns(&self) -> u64 {
        self.ts_ns
    }

    #[inline(always)]
    fn pack(&self, base: u64, codes: &mut Codes) -> Option<PackedInstant> {
        Some(PackedInstant {
            ts: offset(self.ts_ns, base)?,
            msg: self.msg.0,
            marker: codes.code(self.marker_id.into())?,
            task: codes.optional(self.task_id)?,
        })
    }

    #[inline]
    fn unpack(p: PackedInstant, base: u64, codes: &Codes) -> Self {
        MarkerInstant {
            ts_ns: base + u64::from(p.ts),
            marker_id: codes.id(p.marker),
            task_id: codes.optional_id(p.task),
            msg: StrId(p.msg),
        }
    }
}

#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub struct PackedValue {
    ts: u32,
    value: i32,
    marker: u16,
    task: u16,
}

impl Row for MarkerValue {
    type Packed = PackedValue;

    fn time_ns(&self) -> u64 {
        self.ts_ns
    }

    #[inline(always)]
    fn pack(&self, base: u64, codes: &mut Codes) -> Option<PackedValue> {
        Some(PackedValue {
            ts: offset(self.ts_ns, base)?,
            value: i32::try_from(self.value).ok()?,
            marker: codes.code(self.marker_id.into())?,
            task: codes.optional(self.task_id)?,
        })
    }

    #[inline]
    fn unpack(p: PackedValue, base: u64, codes: &Codes) -> Self {
        MarkerValue {
            ts_ns: base + u64::from(p.ts),
            marker_id: codes.id(p.marker),
            task_id: codes.optional_id(p.task),
            value: p.value.into(),
        }
    }
}

#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub struct PackedQueueOp {
    ts: u32,
    /// `u16::MAX` when unknown.
    len_after: u16,
    core: u16,
    /// The queue's code in bits 0-11, the task's in bits 12-23
    /// (`NO_SHORT_CODE`: none), the operation in bits 24-26, from an ISR in
    /// bit 27.
    fields: u32,
}

impl Row for QueueOp {
    type Packed = PackedQueueOp;

    fn time_ns(&self) -> u64 {
        self.ts_ns
    }

    #[inline(always)]
    fn pack(&self, base: u64, codes: &mut Codes) -> Option<PackedQueueOp> {
        let len_after = match self.len_after {
            Some(len) => u16::try_from(len).ok().filter(|&l| l != u16::MAX)?,
            None => u16::MAX,
        };
        let queue = short_code(codes, self.queue_id.into())?;
        let task = short_optional(codes, self.task_id)?;
        Some(PackedQueueOp {
            ts: offset(self.ts_ns, base)?,
            len_after,
            core: codes.code(self.core_id.into())?,
            fields: queue | task << 12 | (self.op as u32) << 24 | u32::from(self.from_isr) << 27,
        })
    }

    #[inline]
    fn unpack(p: PackedQueueOp, base: u64, codes: &Codes) -> Self {
        let fields = p.fields;
        QueueOp {
            ts_ns: base + u64::from(p.ts),
            queue_id: codes.id(short_at(fields, 0)),
            op: nth(&QUEUE_OPS, (fields >> 24) as u8 & 7),
            from_isr: (fields >> 27) & 1 != 0,
            task_id: optional_at(codes, fields, 12),
            core_id: codes.id(p.core),
            len_after: (p.len_after != u16::MAX).then_some(u32::from(p.len_after)),
        }
    }
}

#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub struct PackedHold {
    start: u32,
    dur: u32,
    /// The mutex's code in bits 0-11, the task's in bits 12-23, truncated
    /// in bit 24.
    fields: u32,
}

impl Row for MutexHold {
    type Packed = PackedHold;

    fn time_ns(&self) -> u64 {
        self.start_ns
    }

    fn pack(&self, base: u64, codes: &mut Codes) -> Option<PackedHold> {
        let queue = short_code(codes, self.queue_id.into())?;
        let task = short_code(codes, self.task_id.into())?;
        Some(PackedHold {
            start: offset(self.start_ns, base)?,
            dur: duration(self.start_ns, self.end_ns)?,
            fields: queue | task << 12 | u32::from(self.truncated) << 24,
        })
    }

    fn unpack(p: PackedHold, base: u64, codes: &Codes) -> Self {
        let (start_ns, end_ns) = interval(base, p.start, p.dur);
        let fields = p.fields;
        MutexHold {
            start_ns,
            end_ns,
            queue_id: codes.id(short_at(fields, 0)),
            task_id: codes.id(short_at(fields, 12)),
            truncated: fields >> 24 != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::Table;
    use super::*;

    #[test]
    fn rows_round_trip_including_those_that_do_not_fit() {
        let state = |start_ns, end_ns, state, queue_id, core_id, woken_by_isr| TaskState {
            start_ns,
            end_ns,
            task_id: 3,
            state,
            reason: StateReason::QueueReceive,
            queue_id,
            core_id,
            woken_by_isr,
            truncated: start_ns % 2 == 1,
        };
        let isr = Some(IsrKey {
            core_id: 2,
            isr_id: 9,
        });
        let rows = vec![
            state(100, 200, TaskStateKind::Blocked, Some(7), None, None),
            state(101, 300, TaskStateKind::Running, None, Some(1), None),
            state(150, 160, TaskStateKind::Ready, None, None, isr),
            state(151, 151, TaskStateKind::Ready, None, None, None),
            // Before the chunk's base, a duration over 32 bits, two details.
            state(50, 60, TaskStateKind::Blocked, None, None, None),
            state(
                200,
                200 + (1 << 33),
                TaskStateKind::Suspended,
                None,
                None,
                None,
            ),
            state(201, 210, TaskStateKind::Running, Some(1), Some(1), None),
            state(
                1 << 40,
                (1 << 40) + 5,
                TaskStateKind::Deleted,
                None,
                None,
                None,
            ),
        ];
        let table: Table<TaskState> = rows.clone().into();
        assert_eq!(table.iter().collect::<Vec<_>>(), rows);
        assert_eq!(table.get(4), Some(rows[4]));
        assert_eq!(table.get(rows.len()), None);

        let ops: Vec<QueueOp> = [None, Some(0), Some(u32::from(u16::MAX)), Some(u32::MAX)]
            .into_iter()
            .enumerate()
            .map(|(i, len_after)| QueueOp {
                ts_ns: i as u64,
                queue_id: u32::MAX - i as u32,
                op: QUEUE_OPS[i],
                from_isr: i % 2 == 0,
                task_id: (i > 1).then_some(i as u32),
                core_id: 0,
                len_after,
            })
            .collect();
        let table: Table<QueueOp> = ops.iter().copied().collect();
        assert_eq!(table.iter().collect::<Vec<_>>(), ops);
    }

    #[test]
    fn rows_are_changed_in_place_even_when_they_stop_fitting() {
        let mut table: Table<SchedSlice> = (0..20_000u64)
            .map(|i| SchedSlice {
                start_ns: i * 10,
                end_ns: i * 10,
                task_id: (i % 70_000) as u32,
                core_id: 0,
                end_state: None,
                end_reason: StateReason::None,
                truncated: false,
            })
            .collect();
        table.update(19_999, |s| s.end_ns = 1 << 36);
        table.update(8_192, |s| {
            s.end_ns += 10;
            s.truncated = true;
        });
        let last = table.last().unwrap();
        assert_eq!((last.start_ns, last.end_ns), (199_990, 1 << 36));
        let row = table.get(8_192).unwrap();
        assert_eq!(
            (row.start_ns, row.end_ns, row.truncated),
            (81_920, 81_930, true)
        );
        assert_eq!(table.partition_point(|s| s.start_ns < 81_925), 8_193);
        assert_eq!(table.iter().rev().nth(1).unwrap().task_id, 19_998);
    }

    #[test]
    fn rows_of_ids_beyond_short_codes_are_kept_whole() {
        let states: Vec<TaskState> = (0..5_000u32)
            .map(|i| TaskState {
                start_ns: u64::from(i),
                end_ns: u64::from(i) + 1,
                task_id: i,
                state: TaskStateKind::Blocked,
                reason: StateReason::QueueSend,
                queue_id: Some(i + 1),
                core_id: None,
                woken_by_isr: None,
                truncated: i % 3 == 0,
            })
            .collect();
        let table: Table<TaskState> = states.iter().copied().collect();
        assert!(table.iter().eq(states.iter().copied()));
        let slices: Vec<SchedSlice> = states
            .iter()
            .map(|s| SchedSlice {
                start_ns: s.start_ns,
                end_ns: s.end_ns,
                task_id: s.task_id,
                core_id: 1,
                end_state: None,
                end_reason: StateReason::None,
                truncated: s.truncated,
            })
            .collect();
        let table: Table<SchedSlice> = slices.iter().copied().collect();
        assert!(table.iter().eq(slices.iter().copied()));
        let spans: Vec<MarkerSpan> = (0..300u32)
            .map(|depth| MarkerSpan {
                start_ns: u64::from(depth),
                end_ns: 1_000,
                marker_id: 4,
                task_id: (depth % 2 == 0).then_some(depth),
                msg: StrId(depth),
                depth,
                truncated: depth % 3 == 0,
            })
            .collect();
        let table: Table<MarkerSpan> = spans.iter().copied().collect();
        assert!(table.iter().eq(spans.iter().copied()));
    }

    /// Every pair of a state and a reason, whether importers make it or not.
    fn every_state_and_reason() -> impl Iterator<Item = (TaskStateKind, StateReason)> {
        TASK_STATE_KINDS
            .iter()
            .flat_map(|&k| STATE_REASONS.iter().map(move |&r| (k, r)))
    }

    #[test]
    fn every_state_and_reason_round_trips() {
        let mut states = Vec::new();
        for (i, (state, reason)) in every_state_and_reason().enumerate() {
            for truncated in [false, true] {
                states.push(TaskState {
                    start_ns: states.len() as u64 * 100,
                    end_ns: states.len() as u64 * 100 + 50,
                    task_id: i as u32,
                    state,
                    reason,
                    queue_id: None,
                    core_id: None,
                    woken_by_isr: None,
                    truncated,
                });
            }
        }
        let table: Table<TaskState> = states.iter().copied().collect();
        assert!(table.iter().eq(states.iter().copied()));
        // The pairs importers make are packed: running or blocked for no
        // reason, and each reason in the state it tells.
        assert_eq!(table.wide_rows(), 2 * (5 * 15 - 16));
        for (code, &(state, reason)) in STATE_OF_CODE.iter().enumerate() {
            assert_eq!(state_code(state, reason), Some(code as u32));
        }
    }

    #[test]
    fn slices_are_ended_with_every_end_state_in_place_or_whole() {
        let ends: Vec<(TaskStateKind, StateReason)> = every_state_and_reason().collect();
        // Three chunks of open slices, then each ended in one of the
        // states; every seventh one lasts too long to stay packed.
        let mut table = Table::new();
        let mut slices: Vec<SchedSlice> = (0..20_000u64)
            .map(|i| SchedSlice {
                start_ns: i * 100,
                end_ns: i * 100,
                task_id: (i % 3) as u32,
                core_id: 1,
                end_state: None,
                end_reason: StateReason::None,
                truncated: false,
            })
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
        assert_eq!(table.wide_rows(), 20_000usize.div_ceil(7));
        assert!(table.iter().eq(slices.iter().copied()));
        // A reason without a state does not fit the packed form.
        slices[3].end_state = None;
        let table: Table<SchedSlice> = slices.iter().copied().collect();
        assert_eq!(table.wide_rows(), 20_000usize.div_ceil(7) + 1);
        assert!(table.iter().eq(slices.iter().copied()));
    }

    #[test]
    fn isr_keys_are_small_for_small_ids_and_round_trip() {
        let ids = [0, 1, 3, 15, 16, 255, 256, 4_095, 0x8000_0000, u32::MAX];
        let mut keys = Vec::new();
        for core_id in ids {
            for isr_id in ids {
                let isr = IsrKey { core_id, isr_id };
                let key = isr_key(isr);
                assert_eq!(isr_of(key), isr);
                assert_eq!(key < 4096, core_id < 16 && isr_id < 256, "{isr:?}");
                keys.push(key);
            }
        }
        assert_eq!(
            isr_key(IsrKey {
                core_id: u32::MAX,
                isr_id: u32::MAX
            }),
            u64::MAX
        );
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), ids.len() * ids.len());
    }

    #[test]
    fn more_ids_than_codes_are_kept_whole() {
        let values: Table<MarkerValue> = (0..70_000u32)
            .map(|i| MarkerValue {
                ts_ns: u64::from(i),
                marker_id: i * 3,
                task_id: None,
                value: i64::from(i) << 20,
            })
            .collect();
        assert_eq!(values.len(), 70_000);
        assert!(values
            .iter()
            .enumerate()
            .all(|(i, v)| v.marker_id == i as u32 * 3 && v.value == (i as i64) << 20));
    }
}
