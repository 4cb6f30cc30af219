//! The numbers every report agrees on: CPU time per task and core, ISR time,
//! load, ISR statistics and queue high-water marks.
//!
//! A task's run time on a core is its scheduled time there minus the time of
//! the outermost (depth-0) ISRs on that core that overlap its slices; that ISR
//! time is reported separately as `isr_ns`. Load is `run_ns * 100 /
//! duration`. Idle tasks count as idle, never as load. A core's load is its
//! non-idle run time plus all its depth-0 ISR time, over the duration.
//!
//! The CPU timeline cuts each core's time at every scheduling slice and
//! depth-0 ISR boundary, so that each piece has one task scheduled (or
//! none) and an ISR running or not: what load over time is summed from.

use std::collections::{BTreeMap, HashMap};

use crate::{IsrSlice, Model, SchedSlice};

/// Time one task spent on one core.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskCoreTime {
    /// The task, as an index into [`Model::tasks`].
    pub task: u32,
    pub core_id: u32,
    /// Scheduled time minus the depth-0 ISR time inside it.
    pub run_ns: u64,
    /// Depth-0 ISR time that interrupted this task on this core.
    pub isr_ns: u64,
    pub slices: u64,
}

/// Time one task spent over all cores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskTime {
    /// The task, as an index into [`Model::tasks`].
    pub task: u32,
    pub idle: bool,
    pub run_ns: u64,
    pub isr_ns: u64,
    pub slices: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreTime {
    pub core_id: u32,
    /// Run time of non-idle tasks.
    pub busy_run_ns: u64,
    /// Run time of the idle task(s).
    pub idle_run_ns: u64,
    /// All depth-0 ISR time on the core, whether or not a task was known.
    pub isr_ns: u64,
}

impl CoreTime {
    /// A core with no time counted yet.
    fn of(core_id: u32) -> CoreTime {
        CoreTime {
            core_id,
            ..CoreTime::default()
        }
    }

    /// Busy time: non-idle run time plus ISR time.
    pub fn busy_ns(&self) -> u64 {
        self.busy_run_ns.saturating_add(self.isr_ns)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IsrStats {
    /// The ISR, as an index into [`Model::isrs`].
    pub isr: u32,
    /// Executions at any depth.
    pub count: u64,
    /// Longest single execution (enter to exit, nested ISRs included).
    pub max_ns: u64,
    /// Sum of executions (enter to exit, nested ISRs included).
    pub total_ns: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueStats {
    pub queue_id: u32,
    pub ops: u64,
    pub high_water: u32,
}

/// All shared figures of one model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    pub duration_ns: u64,
    /// By task (so by task id), then core id.
    pub task_cores: Vec<TaskCoreTime>,
    /// Every task of the model, also those that never ran, in the order
    /// of [`Model::tasks`].
    pub tasks: Vec<TaskTime>,
    /// By core id; every core that has a core row, sched slice or ISR slice.
    pub cores: Vec<CoreTime>,
    /// Every ISR of the model, also those that never ran, in the order of
    /// [`Model::isrs`].
    pub isrs: Vec<IsrStats>,
    /// In the order of [`Model::queues`].
    pub queues: Vec<QueueStats>,
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
pub fn load_percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// Each task's time on each core, by task then core id: its scheduled
/// time split into run time and the time of the depth-0 ISRs on that core
/// that overlap its slices.
pub fn task_core_times(m: &Model) -> Vec<TaskCoreTime> {
    // Depth-0 ISR slices per core (their rows in the table), in start
    // order: they never overlap each other, so one forward pass per core
    // matches them to that core's slices. Row numbers rather than copies
    // of the times keep this small next to the model.
    let mut isr0: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (row, s) in m.isr_slices.iter().enumerate() {
        if s.depth != 0 {
            continue;
        }
        let Ok(row) = u32::try_from(row) else {
            break;
        };
        isr0.entry(s.core_id).or_default().push(row);
    }
    let isr_times = |row: u32| {
        m.isr_slices
            .get(row as usize)
            .map_or((0, 0), |s| (s.start_ns, s.end_ns))
    };
    for rows in isr0.values_mut() {
        rows.shrink_to_fit();
        // Already in order unless the trace's time went backwards.
        if !rows.is_sorted_by_key(|&r| isr_times(r)) {
            rows.sort_by_key(|&r| isr_times(r));
        }
    }
    // Per core: the first of its ISRs that may still overlap a slice,
    // and the start of its previous slice. Slices come in start order
    // (the table's), so the ISRs before that one end before any later
    // slice starts; a slice out of order starts the search over.
    let mut cursors: HashMap<u32, (usize, u64)> = HashMap::new();
    let mut task_cores: HashMap<(u32, u32), TaskCoreTime> = HashMap::new();
    for s in &m.sched_slices {
        let core_id = s.core_id;
        let isrs = isr0.get(&core_id).map_or(&[][..], |v| v.as_slice());
        let (first, previous_start) = cursors.entry(core_id).or_insert((0, 0));
        if s.start_ns < *previous_start {
            *first = 0;
        }
        *previous_start = s.start_ns;
        while isrs
            .get(*first)
            .is_some_and(|&r| isr_times(r).1 <= s.start_ns)
        {
            *first += 1;
        }
        let mut isr_ns = 0u64;
        for &row in &isrs[*first..] {
            let (start, end) = isr_times(row);
            if start >= s.end_ns {
                break;
            }
            let overlap = end.min(s.end_ns).saturating_sub(start.max(s.start_ns));
            isr_ns = isr_ns.saturating_add(overlap);
        }
        let dur = s.end_ns.saturating_sub(s.start_ns);
        let run_ns = dur.saturating_sub(isr_ns);
        let e = task_cores
            .entry((s.task, core_id))
            .or_insert_with(|| TaskCoreTime {
                task: s.task,
                core_id,
                ..TaskCoreTime::default()
            });
        e.run_ns = e.run_ns.saturating_add(run_ns);
        e.isr_ns = e.isr_ns.saturating_add(isr_ns);
        e.slices += 1;
    }
    let mut task_cores: Vec<TaskCoreTime> = task_cores.into_values().collect();
    task_cores.sort_unstable_by_key(|t| (t.task, t.core_id));
    task_cores
}

impl Analysis {
    pub fn of(m: &Model) -> Analysis {
        let task_cores = task_core_times(m);
        let mut cores: BTreeMap<u32, CoreTime> = m
            .cores
            .iter()
            .map(|c| (c.core_id, CoreTime::of(c.core_id)))
            .collect();
        for tc in &task_cores {
            let core = cores
                .entry(tc.core_id)
                .or_insert_with(|| CoreTime::of(tc.core_id));
            if m.is_idle(tc.task) {
                core.idle_run_ns = core.idle_run_ns.saturating_add(tc.run_ns);
            } else {
                core.busy_run_ns = core.busy_run_ns.saturating_add(tc.run_ns);
            }
        }
        let mut tasks: Vec<TaskTime> = (0..m.tasks.len() as u32)
            .map(|task| TaskTime {
                task,
                idle: m.is_idle(task),
                ..TaskTime::default()
            })
            .collect();
        for tc in &task_cores {
            let Some(t) = tasks.get_mut(tc.task as usize) else {
                continue;
            };
            t.run_ns = t.run_ns.saturating_add(tc.run_ns);
            t.isr_ns = t.isr_ns.saturating_add(tc.isr_ns);
            t.slices += tc.slices;
        }

        let mut isrs: Vec<IsrStats> = (0..m.isrs.len() as u32)
            .map(|isr| IsrStats {
                isr,
                count: 0,
                max_ns: 0,
                total_ns: 0,
            })
            .collect();
        for s in &m.isr_slices {
            let d = s.end_ns.saturating_sub(s.start_ns);
            if let Some(e) = isrs.get_mut(s.isr as usize) {
                e.count += 1;
                e.max_ns = e.max_ns.max(d);
                e.total_ns = e.total_ns.saturating_add(d);
            }
            if s.depth == 0 {
                let core = cores
                    .entry(s.core_id)
                    .or_insert_with(|| CoreTime::of(s.core_id));
                core.isr_ns = core.isr_ns.saturating_add(d);
            }
        }

        let mut ops = vec![0; m.queues.len()];
        for op in &m.queue_ops {
            if let Some(n) = ops.get_mut(op.queue as usize) {
                *n += 1;
            }
        }
        let queues = m
            .queues
            .iter()
            .zip(ops)
            .map(|(q, ops)| QueueStats {
                queue_id: q.queue_id,
                ops,
                high_water: q.high_water,
            })
            .collect();

        Analysis {
            duration_ns: m.info.duration_ns,
            task_cores,
            tasks,
            cores: cores.into_values().collect(),
            isrs,
            queues,
        }
    }

    /// The time of the task at index `task` of [`Model::tasks`].
    pub fn task(&self, task: u32) -> Option<&TaskTime> {
        self.tasks.get(task as usize)
    }

    /// A task's load in percent of the trace duration (0 for idle tasks).
    pub fn task_load(&self, task: u32) -> f64 {
        self.task(task)
            .filter(|t| !t.idle)
            .map_or(0.0, |t| load_percent(t.run_ns, self.duration_ns))
    }

    /// A core's load in percent: non-idle run time plus ISR time, over the duration.
    pub fn core_load(&self, core_id: u32) -> f64 {
        self.cores
            .iter()
            .find(|c| c.core_id == core_id)
            .map_or(0.0, |c| load_percent(c.busy_ns(), self.duration_ns))
    }

    /// The figures of the ISR at index `isr` of [`Model::isrs`].
    pub fn isr(&self, isr: u32) -> Option<&IsrStats> {
        self.isrs.get(isr as usize)
    }
}

/// One ISR running, in the state's count of ISRs (see [`CpuPiece::from_state`]).
const ISR_UNIT: i64 = 1 << 33;

/// A stretch of one core's time in one state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuPiece {
    pub core_id: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    /// The task scheduled, as an index into [`Model::tasks`]; `None` when
    /// none is.
    pub task: Option<u32>,
    /// Whether a depth-0 ISR runs.
    pub in_isr: bool,
}

impl CpuPiece {
    /// The state is the sum of the boundaries passed so far: ISRs running ×
    /// [`ISR_UNIT`] plus the task's index + 1. On a consistent trace that is at
    /// most one ISR and one task; on a damaged one, with overlapping slices,
    /// it is read the same way whatever it holds.
    fn from_state(core_id: u32, start_ns: u64, end_ns: u64, state: i64) -> CpuPiece {
        let task = state % ISR_UNIT;
        CpuPiece {
            core_id,
            start_ns,
            end_ns,
            task: (task > 0).then_some((task - 1) as u32),
            in_isr: state >= ISR_UNIT,
        }
    }
}

/// A boundary: its time and what it adds to the state.
type Edge = (u64, i64);

/// One core's boundaries, each list in time order once [`sorted`] ran.
#[derive(Default)]
struct CoreEdges {
    sched: Vec<Edge>,
    isr: Vec<Edge>,
}

/// Slices on a core follow each other, so a list of their starts and ends
/// is already in time order; only a damaged trace's overlapping slices
/// need the sort.
fn sorted(mut edges: Vec<Edge>) -> Vec<Edge> {
    if !edges.is_sorted_by_key(|e| e.0) {
        edges.sort_unstable_by_key(|e| e.0);
    }
    edges
}

/// The CPU timeline: calls `f` with every piece of the model's
/// `sched_slices` and `isr_slices` (given by value, so that a caller may
/// free them as they are read), core by core in core order, each core's
/// pieces in time order. A piece ends at the next boundary on its core; a
/// core's time before its first boundary and after its last has no piece.
pub fn for_each_cpu_piece<E>(
    sched_slices: impl IntoIterator<Item = SchedSlice>,
    isr_slices: impl IntoIterator<Item = IsrSlice>,
    mut f: impl FnMut(CpuPiece) -> Result<(), E>,
) -> Result<(), E> {
    let mut cores: BTreeMap<u32, CoreEdges> = BTreeMap::new();
    for s in sched_slices {
        let d = i64::from(s.task) + 1;
        let edges = &mut cores.entry(s.core_id).or_default().sched;
        edges.extend([(s.start_ns, d), (s.end_ns, -d)]);
    }
    for s in isr_slices.into_iter().filter(|s| s.depth == 0) {
        let edges = &mut cores.entry(s.core_id).or_default().isr;
        edges.extend([(s.start_ns, ISR_UNIT), (s.end_ns, -ISR_UNIT)]);
    }
    for (core_id, edges) in cores {
        let mut sched = sorted(edges.sched).into_iter().peekable();
        let mut isr = sorted(edges.isr).into_iter().peekable();
        let merged = std::iter::from_fn(|| match (sched.peek(), isr.peek()) {
            (Some(a), Some(b)) if b.0 < a.0 => isr.next(),
            (Some(_), _) => sched.next(),
            (None, _) => isr.next(),
        });
        let mut state: i64 = 0;
        let mut last: Option<u64> = None;
        for (t, d) in merged {
            // `state` holds every boundary up to `last`, none later.
            if let Some(start) = last.filter(|&start| t > start) {
                f(CpuPiece::from_state(core_id, start, t, state))?;
            }
            state = state.wrapping_add(d);
            last = Some(t);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Core, Isr, IsrSlice, Queue, QueueKind, SchedSlice, StateReason, Task, TaskKind};

    fn task(task_id: u32, kind: TaskKind) -> Task {
        Task::new(task_id, format!("t{task_id}"), kind)
    }

    fn slice(core_id: u32, task: u32, start_ns: u64, end_ns: u64) -> SchedSlice {
        SchedSlice {
            start_ns,
            end_ns,
            task,
            core_id,
            end_state: None,
            end_reason: StateReason::None,
            truncated: false,
        }
    }

    /// A slice of the ISR at index `isr` of the model's ISRs.
    fn isr(core_id: u32, isr: u32, start_ns: u64, end_ns: u64, depth: u32) -> IsrSlice {
        IsrSlice {
            start_ns,
            end_ns,
            core_id,
            isr,
            depth,
            truncated: false,
        }
    }

    /// Two cores; task 1 runs on both, task 9 is core 0's idle task (tasks
    /// 1, 2, 3 and 9 are at indices 0 to 3).
    /// Core 0: t1 0..100, idle 100..200 with ISR 5 at 50..70 (in t1) and
    /// 90..120 (straddling t1 and idle) and a nested ISR 6 at 95..100.
    /// Core 1: t2 0..50, t1 50..200, ISR 5 (core 1's own) at 40..60.
    fn model() -> Model {
        let mut m = Model::default();
        m.info.duration_ns = 200;
        m.cores = vec![
            Core {
                core_id: 0,
                idle_task: Some(3),
            },
            Core {
                core_id: 1,
                idle_task: None,
            },
        ];
        m.tasks = vec![
            task(1, TaskKind::Normal),
            task(2, TaskKind::Normal),
            task(3, TaskKind::Normal),
            task(9, TaskKind::Idle),
        ];
        m.sched_slices = vec![
            slice(0, 0, 0, 100),
            slice(1, 1, 0, 50),
            slice(1, 0, 50, 200),
            slice(0, 3, 100, 200),
        ]
        .into();
        m.isrs = vec![
            Isr {
                core_id: 0,
                isr_id: 5,
                name: "tick".into(),
            },
            Isr {
                core_id: 0,
                isr_id: 6,
                name: "uart".into(),
            },
            Isr {
                core_id: 1,
                isr_id: 5,
                name: "tick".into(),
            },
        ];
        m.isr_slices = vec![
            isr(1, 2, 40, 60, 0),
            isr(0, 0, 50, 70, 0),
            isr(0, 0, 90, 120, 0),
            isr(0, 1, 95, 100, 1),
        ]
        .into();
        m.queues = vec![Queue {
            queue_id: 3,
            name: "q".into(),
            kind: QueueKind::Queue,
            capacity: None,
            high_water: 4,
        }];
        m
    }

    #[test]
    fn run_time_excludes_depth0_isr_time() {
        let a = Analysis::of(&model());
        let tc = |task, core_id| {
            *a.task_cores
                .iter()
                .find(|t| t.task == task && t.core_id == core_id)
                .unwrap()
        };
        // t1 on core 0: 100 scheduled, ISRs 20 + 10 (90..100) inside.
        assert_eq!((tc(0, 0).run_ns, tc(0, 0).isr_ns), (70, 30));
        // idle on core 0: 100 scheduled, 20 of ISR (100..120).
        assert_eq!((tc(3, 0).run_ns, tc(3, 0).isr_ns), (80, 20));
        assert_eq!((tc(1, 1).run_ns, tc(1, 1).isr_ns), (40, 10));
        assert_eq!((tc(0, 1).run_ns, tc(0, 1).isr_ns), (140, 10));

        let t1 = a.task(0).unwrap();
        assert_eq!((t1.run_ns, t1.isr_ns, t1.slices), (210, 40, 2));
        assert_eq!(a.task_load(0), 105.0);
        assert_eq!(a.task_load(3), 0.0, "idle is not load");
        assert_eq!(
            a.task(2).unwrap().run_ns,
            0,
            "tasks that never ran are listed"
        );

        let c0 = a.cores[0];
        assert_eq!((c0.busy_run_ns, c0.idle_run_ns, c0.isr_ns), (70, 80, 50));
        assert_eq!(a.core_load(0), 60.0);
        assert_eq!(a.core_load(1), 100.0);
    }

    #[test]
    fn the_cpu_timeline_cuts_at_every_slice_and_depth0_isr_boundary() {
        let m = model();
        let mut pieces = Vec::new();
        for_each_cpu_piece(&m.sched_slices, &m.isr_slices, |p| {
            pieces.push((p.core_id, p.start_ns, p.end_ns, p.task, p.in_isr));
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(
            pieces,
            [
                (0, 0, 50, Some(0), false),
                (0, 50, 70, Some(0), true),
                (0, 70, 90, Some(0), false),
                (0, 90, 100, Some(0), true),
                (0, 100, 120, Some(3), true),
                (0, 120, 200, Some(3), false),
                (1, 0, 40, Some(1), false),
                (1, 40, 50, Some(1), true),
                (1, 50, 60, Some(0), true),
                (1, 60, 200, Some(0), false),
            ]
        );
        // The pieces add up to each task's run and ISR time.
        for tc in task_core_times(&m) {
            let (mut run_ns, mut isr_ns) = (0, 0);
            for &(core, start, end, task, in_isr) in &pieces {
                if core == tc.core_id && task == Some(tc.task) {
                    *if in_isr { &mut isr_ns } else { &mut run_ns } += end - start;
                }
            }
            assert_eq!((run_ns, isr_ns), (tc.run_ns, tc.isr_ns), "{tc:?}");
        }
    }

    #[test]
    fn tables_out_of_time_order_give_the_same_figures() {
        let sorted = model();
        let mut shuffled = model();
        let mut slices: Vec<SchedSlice> = sorted.sched_slices.iter().collect();
        slices.reverse();
        shuffled.sched_slices = slices.into();
        let mut isrs: Vec<IsrSlice> = sorted.isr_slices.iter().collect();
        isrs.reverse();
        shuffled.isr_slices = isrs.into();
        assert_eq!(Analysis::of(&shuffled), Analysis::of(&sorted));
    }

    #[test]
    fn isr_and_queue_statistics() {
        let a = Analysis::of(&model());
        // ISR 5 of core 0.
        let s = a.isr(0).unwrap();
        assert_eq!((s.count, s.max_ns, s.total_ns), (2, 30, 50));
        let nested = a.isr(1).unwrap();
        assert_eq!((nested.count, nested.max_ns), (1, 5));
        assert_eq!(a.isrs.len(), 3);
        assert_eq!(
            a.queues,
            vec![QueueStats {
                queue_id: 3,
                ops: 0,
                high_water: 4
            }]
        );
    }

    #[test]
    fn empty_model_has_no_load() {
        let a = Analysis::of(&Model::default());
        assert!(a.tasks.is_empty());
        assert_eq!(a.core_load(0), 0.0);
        assert_eq!(load_percent(5, 0), 0.0);
    }
}
