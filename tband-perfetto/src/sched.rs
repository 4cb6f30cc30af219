//! Scheduling and interrupts as kernel (ftrace) events: per core, a stream of
//! `FtraceEventBundle`s with context switches, wake-ups and IRQ entry/exit,
//! so that Perfetto fills its native `sched`, `thread_state` and IRQ tables.

use std::io::{self, Write};

use tband_decode::model::{IsrSlice, Model, StateReason, TaskState, TaskStateKind};

use crate::protos::ftrace_event_bundle::CompactSched;
use crate::protos::{
    FtraceEvent, FtraceEventBundle, IrqHandlerEntryFtraceEvent, IrqHandlerExitFtraceEvent,
    SchedSwitchFtraceEvent, SchedWakingFtraceEvent, TracePacket,
};
use crate::threads::{PriorityCursor, Threads, IDLE_TID};
use crate::writer::PacketWriter;

/// How context switches and wake-ups are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchedEncoding {
    /// Parallel delta-encoded arrays (`compact_sched`), as Perfetto itself
    /// records them: a few bytes per switch.
    #[default]
    Compact,
    /// One `sched_switch` / `sched_waking` event message each, with both
    /// tasks spelled out: larger, but readable by any ftrace-aware tool.
    Events,
}

/// A task name not yet in the bundle's intern table.
const UNSET: u32 = u32::MAX;

/// Events per bundle before it is written out.
const BUNDLE_EVENTS: usize = 4096;

/// Linux task-state bits of `prev_state`, in the layout Perfetto assumes when
/// the trace names no kernel version.
const STATE_RUNNABLE: i64 = 0;
const STATE_SLEEPING: i64 = 1;
const STATE_STOPPED: i64 = 4;
const STATE_DEAD: i64 = 16;
const STATE_PREEMPTED: i64 = 0x800;

/// Kernel trace flag: the event happened in hard-interrupt context.
const FLAG_HARDIRQ: u32 = 0x08;

/// What one core's stream holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuCounts {
    pub switches: u64,
    pub wakings: u64,
    pub irqs: u64,
}

/// The `prev_state` of a task leaving the core for `state`.
fn prev_state(state: Option<(TaskStateKind, StateReason)>) -> i64 {
    match state {
        None | Some((TaskStateKind::Running, _)) => STATE_RUNNABLE,
        Some((TaskStateKind::Ready, StateReason::Preempted)) => STATE_RUNNABLE | STATE_PREEMPTED,
        Some((TaskStateKind::Ready, _)) => STATE_RUNNABLE,
        Some((TaskStateKind::Blocked, _)) => STATE_SLEEPING,
        Some((TaskStateKind::Suspended, _)) => STATE_STOPPED,
        Some((TaskStateKind::Deleted, _)) => STATE_DEAD,
    }
}

/// Whether a task-state row is a wake-up (a task made ready by something
/// other than being preempted).
pub fn is_waking(s: &TaskState) -> bool {
    s.state == TaskStateKind::Ready && s.reason != StateReason::Preempted
}

/// The thread on a core, as a switch names it.
#[derive(Clone, Copy)]
struct OnCpu<'m> {
    /// Index in `model.tasks`.
    task: Option<usize>,
    tid: i32,
    comm: &'m str,
    prio: i32,
}

/// Writes the ftrace bundles of core `cpu`.
pub fn write_cpu<W: Write>(
    model: &Model,
    threads: &Threads<'_>,
    cpu: u32,
    encoding: SchedEncoding,
    out: &mut PacketWriter<W>,
) -> io::Result<CpuCounts> {
    let idle_task = model
        .cores
        .iter()
        .find(|c| c.core_id == cpu)
        .and_then(|c| c.idle_task_id)
        .and_then(|t| threads.task_index(t));
    let idle = OnCpu {
        task: idle_task,
        tid: IDLE_TID,
        comm: idle_task.map_or("swapper", |i| threads.comm_at(Some(i))),
        prio: threads.linux_prio(None),
    };
    let mut pass = CpuPass {
        model,
        threads,
        bundle: Bundle::new(cpu, encoding, model.tasks.len()),
        counts: CpuCounts::default(),
        states: StateCursor::new(model),
        prios: PriorityCursor::new(model),
        isrs: model
            .isr_slices
            .iter()
            .filter(|s| s.core_id == cpu)
            .peekable(),
        isr_open: Vec::new(),
        current: idle,
        last_isr_ts: 0,
    };
    // End of the running slice, when it ends before the trace does.
    let mut running_until: Option<u64> = None;
    for s in model.sched_slices.iter().filter(|s| s.core_id == cpu) {
        if let Some(end) = running_until.filter(|&end| end < s.start_ns) {
            pass.advance(end, out)?;
            pass.switch(end, idle, out)?;
        }
        pass.advance(s.start_ns, out)?;
        let task = threads.task_index(s.task_id);
        let next = OnCpu {
            task,
            tid: threads.tid_at(task),
            comm: threads.comm_at(task),
            prio: threads.linux_prio(pass.prios.at(threads, s.start_ns, task)),
        };
        pass.switch(s.start_ns, next, out)?;
        running_until = (!s.truncated).then_some(s.end_ns);
    }
    if let Some(end) = running_until {
        pass.advance(end, out)?;
        pass.switch(end, idle, out)?;
    }
    pass.advance(u64::MAX, out)?;
    pass.bundle.flush(out)?;
    Ok(pass.counts)
}

/// One walk over the model for one core.
struct CpuPass<'m, 't, I: Iterator<Item = IsrSlice>> {
    model: &'m Model,
    threads: &'t Threads<'m>,
    bundle: Bundle,
    counts: CpuCounts,
    states: StateCursor<'m>,
    prios: PriorityCursor<'m>,
    isrs: std::iter::Peekable<I>,
    /// Exit times and irq numbers of the ISRs executing, innermost last.
    isr_open: Vec<(u64, i32)>,
    current: OnCpu<'m>,
    last_isr_ts: u64,
}

impl<'m, I: Iterator<Item = IsrSlice>> CpuPass<'m, '_, I> {
    /// Switches from the current thread to `next` (nothing if it is already current).
    fn switch<W: Write>(
        &mut self,
        ts: u64,
        next: OnCpu<'m>,
        out: &mut PacketWriter<W>,
    ) -> io::Result<()> {
        if next.tid == self.current.tid {
            return Ok(());
        }
        let prev = self.current;
        let state = if prev.tid == IDLE_TID {
            STATE_RUNNABLE
        } else {
            prev_state(self.states.current_of(prev.task))
        };
        self.bundle.switch(ts, prev, state, next);
        self.counts.switches += 1;
        self.current = next;
        self.bundle.flush_if_full(out)
    }

    /// Emits everything on this core that happens at or before `t`, in time
    /// order: ISR exits, wake-ups, ISR entries.
    fn advance<W: Write>(&mut self, t: u64, out: &mut PacketWriter<W>) -> io::Result<()> {
        loop {
            let exit = self
                .isr_open
                .last()
                .map(|&(end, _)| end)
                .filter(|&e| e <= t);
            let entry = self.isrs.peek().map(|s| s.start_ns).filter(|&s| s <= t);
            let state = self.states.peek_start().filter(|&s| s <= t);
            let Some(now) = [exit, state, entry].into_iter().flatten().min() else {
                return Ok(());
            };
            if exit == Some(now) {
                if let Some((end, irq)) = self.isr_open.pop() {
                    let ts = end.max(self.last_isr_ts);
                    self.last_isr_ts = ts;
                    self.bundle.irq_exit(ts, self.current.tid, irq);
                }
            } else if state == Some(now) {
                if let Some((row, target_cpu)) = self.states.next_row(self.threads) {
                    if is_waking(&row) && target_cpu == self.bundle.cpu {
                        self.waking(&row);
                    }
                }
            } else if let Some(isr) = self.isrs.next() {
                let irq = i32::try_from(isr.isr_id).unwrap_or(i32::MAX);
                let name = self
                    .model
                    .isr(tband_decode::model::IsrKey {
                        core_id: isr.core_id,
                        isr_id: isr.isr_id,
                    })
                    .map_or("", |i| i.name.as_str());
                self.last_isr_ts = self.last_isr_ts.max(isr.start_ns);
                self.bundle
                    .irq_entry(self.last_isr_ts, self.current.tid, irq, name);
                self.counts.irqs += 1;
                self.isr_open.push((isr.end_ns, irq));
            }
            self.bundle.flush_if_full(out)?;
        }
    }

    fn waking(&mut self, row: &TaskState) {
        let idx = self.threads.task_index(row.task_id);
        let woken = OnCpu {
            task: idx,
            tid: self.threads.tid_at(idx),
            comm: self.threads.comm_at(idx),
            prio: self
                .threads
                .linux_prio(self.prios.at(self.threads, row.start_ns, idx)),
        };
        let flags = if row.woken_by_isr.is_some() {
            FLAG_HARDIRQ
        } else {
            0
        };
        self.bundle
            .waking(row.start_ns, self.current.tid, woken, flags);
        self.counts.wakings += 1;
    }
}

/// Walks `model.task_states` in time order, keeping each task's current state
/// and the core it last ran on.
struct StateCursor<'m> {
    model: &'m Model,
    next: usize,
    /// By task index.
    current: Vec<Option<(TaskStateKind, StateReason)>>,
    last_core: Vec<Option<u32>>,
}

impl<'m> StateCursor<'m> {
    fn new(model: &'m Model) -> Self {
        StateCursor {
            model,
            next: 0,
            current: vec![None; model.tasks.len()],
            last_core: vec![None; model.tasks.len()],
        }
    }

    fn peek_start(&self) -> Option<u64> {
        self.model.task_states.get(self.next).map(|s| s.start_ns)
    }

    /// Consumes the next row; returns it with the core it wakes the task on
    /// (the interrupted core for an ISR wake-up, else where the task last ran).
    fn next_row(&mut self, threads: &Threads<'_>) -> Option<(TaskState, u32)> {
        let row = self.model.task_states.get(self.next)?;
        self.next += 1;
        let idx = threads.task_index(row.task_id);
        let last_core = idx.and_then(|i| self.last_core.get_mut(i));
        let target = row
            .woken_by_isr
            .map(|k| k.core_id)
            .or_else(|| last_core.as_ref().and_then(|c| **c))
            .unwrap_or(0);
        if let (Some(slot), Some(core)) = (last_core, row.core_id) {
            *slot = Some(core);
        }
        if let Some(slot) = idx.and_then(|i| self.current.get_mut(i)) {
            *slot = Some((row.state, row.reason));
        }
        Some((row, target))
    }

    fn current_of(&self, task: Option<usize>) -> Option<(TaskStateKind, StateReason)> {
        self.current.get(task?).copied().flatten()
    }
}

/// The bundle being filled for one core.
struct Bundle {
    cpu: u32,
    encoding: SchedEncoding,
    events: Vec<FtraceEvent>,
    compact: CompactSched,
    /// Position of each task's name in `compact.intern_table`, by task index
    /// (the last slot is for a core without a known idle task); `UNSET` if
    /// not in the table yet.
    comm_index: Vec<u32>,
    /// The slots of `comm_index` that are set.
    comm_set: Vec<usize>,
    last_switch_ts: u64,
    last_waking_ts: u64,
    len: usize,
}

impl Bundle {
    fn new(cpu: u32, encoding: SchedEncoding, tasks: usize) -> Self {
        Bundle {
            cpu,
            encoding,
            events: Vec::new(),
            compact: CompactSched::default(),
            comm_index: vec![UNSET; tasks + 1],
            comm_set: Vec::new(),
            last_switch_ts: 0,
            last_waking_ts: 0,
            len: 0,
        }
    }

    fn comm(&mut self, on_cpu: &OnCpu<'_>) -> u32 {
        let slot = on_cpu
            .task
            .filter(|&t| t < self.comm_index.len())
            .unwrap_or(self.comm_index.len() - 1);
        if self.comm_index[slot] == UNSET {
            let table = &mut self.compact.intern_table;
            table.push(on_cpu.comm.to_owned());
            self.comm_index[slot] = (table.len() - 1) as u32;
            self.comm_set.push(slot);
        }
        self.comm_index[slot]
    }

    fn switch(&mut self, ts: u64, prev: OnCpu<'_>, prev_state: i64, next: OnCpu<'_>) {
        self.len += 1;
        match self.encoding {
            SchedEncoding::Compact => {
                let comm = self.comm(&next);
                let c = &mut self.compact;
                c.switch_timestamp
                    .push(ts.saturating_sub(self.last_switch_ts));
                self.last_switch_ts = ts;
                c.switch_prev_state.push(prev_state);
                c.switch_next_pid.push(next.tid);
                c.switch_next_prio.push(next.prio);
                c.switch_next_comm_index.push(comm);
            }
            SchedEncoding::Events => self.events.push(FtraceEvent {
                timestamp: Some(ts),
                pid: Some(prev.tid as u32),
                sched_switch: Some(SchedSwitchFtraceEvent {
                    prev_comm: Some(prev.comm.to_owned()),
                    prev_pid: Some(prev.tid),
                    prev_prio: Some(prev.prio),
                    prev_state: Some(prev_state),
                    next_comm: Some(next.comm.to_owned()),
                    next_pid: Some(next.tid),
                    next_prio: Some(next.prio),
                }),
                ..Default::default()
            }),
        }
    }

    fn waking(&mut self, ts: u64, waker_tid: i32, woken: OnCpu<'_>, flags: u32) {
        self.len += 1;
        match self.encoding {
            SchedEncoding::Compact => {
                let comm = self.comm(&woken);
                let c = &mut self.compact;
                c.waking_timestamp
                    .push(ts.saturating_sub(self.last_waking_ts));
                self.last_waking_ts = ts;
                c.waking_pid.push(woken.tid);
                c.waking_target_cpu.push(self.cpu as i32);
                c.waking_prio.push(woken.prio);
                c.waking_comm_index.push(comm);
                c.waking_common_flags.push(flags);
            }
            SchedEncoding::Events => self.events.push(FtraceEvent {
                timestamp: Some(ts),
                pid: Some(waker_tid as u32),
                common_flags: Some(flags),
                sched_waking: Some(SchedWakingFtraceEvent {
                    comm: Some(woken.comm.to_owned()),
                    pid: Some(woken.tid),
                    prio: Some(woken.prio),
                    success: Some(1),
                    target_cpu: Some(self.cpu as i32),
                }),
                ..Default::default()
            }),
        }
    }

    fn irq_entry(&mut self, ts: u64, current_tid: i32, irq: i32, name: &str) {
        self.len += 1;
        self.events.push(FtraceEvent {
            timestamp: Some(ts),
            pid: Some(current_tid as u32),
            common_flags: Some(FLAG_HARDIRQ),
            irq_handler_entry: Some(IrqHandlerEntryFtraceEvent {
                irq: Some(irq),
                name: Some(name.to_owned()),
            }),
            ..Default::default()
        });
    }

    fn irq_exit(&mut self, ts: u64, current_tid: i32, irq: i32) {
        self.len += 1;
        self.events.push(FtraceEvent {
            timestamp: Some(ts),
            pid: Some(current_tid as u32),
            common_flags: Some(FLAG_HARDIRQ),
            irq_handler_exit: Some(IrqHandlerExitFtraceEvent {
                irq: Some(irq),
                ret: Some(1),
            }),
            ..Default::default()
        });
    }

    fn flush_if_full<W: Write>(&mut self, out: &mut PacketWriter<W>) -> io::Result<()> {
        if self.len >= BUNDLE_EVENTS {
            self.flush(out)?;
        }
        Ok(())
    }

    fn flush<W: Write>(&mut self, out: &mut PacketWriter<W>) -> io::Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        let compact = std::mem::take(&mut self.compact);
        let has_compact =
            !compact.switch_timestamp.is_empty() || !compact.waking_timestamp.is_empty();
        out.write(&TracePacket {
            trusted_packet_sequence_id: Some(crate::FTRACE_SEQUENCE_ID),
            ftrace_events: Some(FtraceEventBundle {
                cpu: Some(self.cpu),
                event: std::mem::take(&mut self.events),
                compact_sched: has_compact.then_some(compact),
            }),
            ..Default::default()
        })?;
        for slot in self.comm_set.drain(..) {
            self.comm_index[slot] = UNSET;
        }
        self.last_switch_ts = 0;
        self.last_waking_ts = 0;
        self.len = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use tband_decode::model::{Core, Isr, IsrKey, SchedSlice, Task, TaskKind};

    use crate::protos::Trace;

    fn task(task_id: u32, name: &str, kind: TaskKind) -> Task {
        Task {
            task_id,
            name: name.into(),
            kind,
            created_ns: None,
            deleted_ns: None,
            stack_size: None,
        }
    }

    fn slice(task_id: u32, start_ns: u64, end_ns: u64, truncated: bool) -> SchedSlice {
        SchedSlice {
            start_ns,
            end_ns,
            task_id,
            core_id: 0,
            truncated,
        }
    }

    fn state(task_id: u32, start_ns: u64, state: TaskStateKind, reason: StateReason) -> TaskState {
        TaskState {
            start_ns,
            end_ns: start_ns,
            task_id,
            state,
            reason,
            queue_id: None,
            core_id: (state == TaskStateKind::Running).then_some(0),
            woken_by_isr: None,
            truncated: false,
        }
    }

    /// One core: idle (id 1), A (2) and B (3). A runs, is preempted by B,
    /// B blocks, a gap with nothing known, A runs to the end. An ISR wakes B
    /// and a nested ISR runs inside it.
    fn model() -> Model {
        use StateReason as R;
        use TaskStateKind as S;
        let mut m = Model::default();
        m.info.format = "tband".into();
        m.info.duration_ns = 100;
        m.cores = vec![Core {
            core_id: 0,
            idle_task_id: Some(1),
        }];
        m.tasks = vec![
            task(1, "IDLE", TaskKind::Idle),
            task(2, "A", TaskKind::Normal),
            task(3, "B", TaskKind::Normal),
        ];
        m.sched_slices = vec![
            slice(1, 0, 10, false),
            slice(2, 10, 30, false),
            slice(3, 30, 40, false),
            slice(2, 50, 100, true),
        ]
        .into();
        let mut states = vec![
            state(2, 10, S::Running, R::None),
            state(3, 20, S::Ready, R::Woken),
            state(2, 30, S::Ready, R::Preempted),
            state(3, 30, S::Running, R::None),
            state(3, 40, S::Blocked, R::QueueReceive),
            state(2, 50, S::Running, R::None),
        ];
        states[1].woken_by_isr = Some(IsrKey {
            core_id: 0,
            isr_id: 5,
        });
        m.task_states = states.into();
        m.isrs = vec![Isr {
            core_id: 0,
            isr_id: 5,
            name: "UART".into(),
        }];
        m.isr_slices = vec![
            IsrSlice {
                start_ns: 18,
                end_ns: 25,
                core_id: 0,
                isr_id: 5,
                depth: 0,
                truncated: false,
            },
            IsrSlice {
                start_ns: 19,
                end_ns: 21,
                core_id: 0,
                isr_id: 5,
                depth: 1,
                truncated: false,
            },
        ]
        .into();
        m
    }

    fn bundles(encoding: SchedEncoding) -> (Vec<FtraceEventBundle>, CpuCounts) {
        let m = model();
        let threads = Threads::new(&m);
        let mut w = PacketWriter::new(Vec::new());
        let counts = write_cpu(&m, &threads, 0, encoding, &mut w).unwrap();
        let trace = Trace::decode(w.into_inner().as_slice()).unwrap();
        let bundles = trace
            .packet
            .into_iter()
            .filter_map(|p| p.ftrace_events)
            .collect();
        (bundles, counts)
    }

    #[test]
    fn full_events_chain_switches_and_map_states() {
        let (bundles, counts) = bundles(SchedEncoding::Events);
        assert_eq!(
            counts,
            CpuCounts {
                switches: 4,
                wakings: 1,
                irqs: 2
            }
        );
        let events: Vec<_> = bundles.iter().flat_map(|b| b.event.iter()).collect();
        let switches: Vec<_> = events
            .iter()
            .filter_map(|e| Some((e.timestamp?, e.sched_switch.clone()?)))
            .map(|(ts, s)| {
                (
                    ts,
                    s.prev_pid.unwrap(),
                    s.prev_state.unwrap(),
                    s.next_pid.unwrap(),
                )
            })
            .collect();
        // IDLE's first slice adds no switch (tid 0 is already current); the
        // gap 40..50 is idle; A's last slice stays open.
        assert_eq!(
            switches,
            [
                (10, 0, STATE_RUNNABLE, 3),
                (30, 3, STATE_RUNNABLE | STATE_PREEMPTED, 4),
                (40, 4, STATE_SLEEPING, 0),
                (50, 0, STATE_RUNNABLE, 3),
            ]
        );
        let waking = events
            .iter()
            .find_map(|e| e.sched_waking.as_ref().map(|w| (e, w)))
            .unwrap();
        assert_eq!(waking.0.common_flags, Some(FLAG_HARDIRQ));
        assert_eq!(waking.1.pid, Some(4));
        // B (priority unknown) maps to the least important priority.
        assert_eq!(waking.1.prio, Some(0));
        let irqs: Vec<_> = events
            .iter()
            .filter_map(|e| match (&e.irq_handler_entry, &e.irq_handler_exit) {
                (Some(_), _) => Some(("entry", e.timestamp.unwrap())),
                (_, Some(_)) => Some(("exit", e.timestamp.unwrap())),
                _ => None,
            })
            .collect();
        assert_eq!(
            irqs,
            [("entry", 18), ("entry", 19), ("exit", 21), ("exit", 25)]
        );
    }

    #[test]
    fn compact_encoding_holds_the_same_switches() {
        let (bundles, counts) = bundles(SchedEncoding::Compact);
        assert_eq!(counts.switches, 4);
        let c = bundles[0].compact_sched.as_ref().unwrap();
        assert_eq!(c.switch_timestamp, [10, 20, 10, 10]);
        assert_eq!(c.switch_next_pid, [3, 4, 0, 3]);
        assert_eq!(
            c.switch_prev_state,
            [
                STATE_RUNNABLE,
                STATE_RUNNABLE | STATE_PREEMPTED,
                STATE_SLEEPING,
                STATE_RUNNABLE
            ]
        );
        let names: Vec<_> = c
            .switch_next_comm_index
            .iter()
            .map(|&i| c.intern_table[i as usize].as_str())
            .collect();
        assert_eq!(names, ["A", "B", "IDLE", "A"]);
        assert_eq!(c.waking_pid, [4]);
        assert_eq!(c.waking_common_flags, [FLAG_HARDIRQ]);
        assert_eq!(bundles[0].cpu, Some(0));
    }
}
