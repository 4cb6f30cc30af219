//! Reads a decoded timeline by the rules of docs/src/format.md, "What the events
//! mean" into the ground-truth shapes, so tests can check that the
//! simulator's ground truth is exactly what its events say.

use std::collections::HashMap;

use tband::EventKind as K;
use tband_sim::{
    BlockReason, IsrRun, MarkerInstant, MarkerSpan, MarkerValue, PriorityCause, PriorityChange,
    QueueLevel, RunSlice, StateSpan, TaskState,
};

use super::Ev;

#[derive(Default, Debug, PartialEq)]
pub struct Replay {
    pub run_slices: Vec<RunSlice>,
    pub isr_runs: Vec<IsrRun>,
    pub task_states: Vec<StateSpan>,
    pub priorities: Vec<PriorityChange>,
    pub queue_levels: Vec<QueueLevel>,
    pub marker_spans: Vec<MarkerSpan>,
    pub marker_instants: Vec<MarkerInstant>,
    pub values: Vec<MarkerValue>,
}

#[derive(Default)]
struct CoreView {
    running: Option<(u32, u64)>,
    announced: Option<TaskState>,
    isrs: Vec<(u32, u64)>,
}

/// Start, message and core of a span still open.
type OpenSpan = (u64, String, u32);

pub fn replay(timeline: &[Ev], cores: u32, end_ts: u64) -> Replay {
    let mut r = Replay::default();
    let mut view: Vec<CoreView> = (0..cores).map(|_| CoreView::default()).collect();
    let mut states: HashMap<u32, (TaskState, u64)> = HashMap::new();
    let mut spans: HashMap<(Option<u32>, u32), Vec<OpenSpan>> = HashMap::new();
    let mut set_state = |r: &mut Replay, task_id: u32, state: TaskState, ts: u64| {
        if let Some((prev, start)) = states.get(&task_id).copied() {
            if prev == state {
                return;
            }
            r.task_states.push(StateSpan {
                task_id,
                state: prev,
                start,
                end: ts,
                truncated: false,
            });
        }
        states.insert(task_id, (state, ts));
    };
    for e in timeline {
        let ts = e.ts.unwrap();
        let c = e.core;
        let v = &mut view[c as usize];
        let in_task = v.isrs.is_empty();
        let current = v.running.map(|(t, _)| t);
        let announce = |v: &mut CoreView, s: TaskState| {
            assert!(in_task, "a task event inside an ISR at {ts}");
            v.announced = Some(s);
        };
        match e.kind {
            // Switching to the running task again changes nothing.
            K::TaskSwitchedIn if current == Some(e.u32(0)) => {}
            K::TaskSwitchedIn => {
                let t = e.u32(0);
                if let Some((prev, start)) = v.running.replace((t, ts)) {
                    r.run_slices.push(RunSlice {
                        core: c,
                        task_id: prev,
                        start,
                        end: ts,
                        truncated: false,
                    });
                    let left = v.announced.take().unwrap_or(TaskState::Ready);
                    set_state(&mut r, prev, left, ts);
                }
                set_state(&mut r, t, TaskState::Running { core: c }, ts);
            }
            K::CurtaskDelay => announce(
                v,
                TaskState::Blocked(BlockReason::Delay { ticks: e.u32(0) }),
            ),
            K::CurtaskDelayUntil => announce(
                v,
                TaskState::Blocked(BlockReason::DelayUntil {
                    time_to_wake: e.u32(0),
                }),
            ),
            K::CurtaskBlockOnQueueSend => announce(
                v,
                TaskState::Blocked(BlockReason::QueueSend { queue_id: e.u32(0) }),
            ),
            K::CurtaskBlockOnQueueReceive => announce(
                v,
                TaskState::Blocked(BlockReason::QueueReceive { queue_id: e.u32(0) }),
            ),
            K::CurtaskBlockOnQueuePeek => announce(
                v,
                TaskState::Blocked(BlockReason::QueuePeek { queue_id: e.u32(0) }),
            ),
            K::TaskSuspended | K::TaskDeleted => {
                let t = e.u32(0);
                let s = if e.kind == K::TaskSuspended {
                    TaskState::Suspended
                } else {
                    TaskState::Deleted
                };
                if current == Some(t) {
                    announce(v, s);
                } else {
                    set_state(&mut r, t, s, ts);
                }
            }
            K::TaskToRdyState | K::TaskResumed | K::TaskResumedFromIsr => {
                let t = e.u32(0);
                assert!(
                    view.iter().all(|v| v.running.map(|(r, _)| r) != Some(t)),
                    "a running task made ready at {ts}"
                );
                set_state(&mut r, t, TaskState::Ready, ts);
            }
            K::TaskPrioritySet | K::TaskPriorityInherit | K::TaskPriorityDisinherit => {
                r.priorities.push(PriorityChange {
                    task_id: e.u32(0),
                    ts,
                    priority: e.u32(1),
                    cause: match e.kind {
                        K::TaskPrioritySet => PriorityCause::Set,
                        K::TaskPriorityInherit => PriorityCause::Inherit,
                        _ => PriorityCause::Disinherit,
                    },
                })
            }
            K::IsrEnter => v.isrs.push((e.u32(0), ts)),
            K::IsrExit => {
                let (isr_id, start) = v.isrs.pop().expect("isr_exit without isr_enter");
                assert_eq!(isr_id, e.u32(0), "isr_exit of another ISR at {ts}");
                r.isr_runs.push(IsrRun {
                    core: c,
                    isr_id,
                    start,
                    end: ts,
                    depth: v.isrs.len() as u32,
                    truncated: false,
                });
            }
            K::QueueSend
            | K::QueueSendFromIsr
            | K::QueueOverwrite
            | K::QueueOverwriteFromIsr
            | K::QueueReceive
            | K::QueueReceiveFromIsr
            | K::QueueCurLength => r.queue_levels.push(QueueLevel {
                queue_id: e.u32(0),
                ts,
                len: e.u32(1),
            }),
            K::EvtmarkerBegin | K::TaskEvtmarkerBegin | K::EvtmarkerEnd | K::TaskEvtmarkerEnd => {
                let task = match e.kind {
                    K::TaskEvtmarkerBegin | K::TaskEvtmarkerEnd => {
                        assert!(in_task);
                        Some(current.expect("task marker without a running task"))
                    }
                    _ => None,
                };
                let stack = spans.entry((task, e.u32(0))).or_default();
                if matches!(e.kind, K::EvtmarkerBegin | K::TaskEvtmarkerBegin) {
                    stack.push((ts, e.text.clone().unwrap_or_default(), c));
                } else {
                    let (start, msg, core) = stack.pop().expect("marker end without begin");
                    r.marker_spans.push(MarkerSpan {
                        marker_id: e.u32(0),
                        task_id: task,
                        core,
                        start,
                        end: ts,
                        depth: stack.len() as u32,
                        msg,
                        truncated: false,
                    });
                }
            }
            K::Evtmarker | K::TaskEvtmarker => r.marker_instants.push(MarkerInstant {
                marker_id: e.u32(0),
                task_id: (e.kind == K::TaskEvtmarker).then(|| current.unwrap()),
                core: c,
                ts,
                msg: e.text.clone().unwrap_or_default(),
            }),
            K::Valmarker | K::TaskValmarker => r.values.push(MarkerValue {
                marker_id: e.u32(0),
                task_id: (e.kind == K::TaskValmarker).then(|| current.unwrap()),
                core: c,
                ts,
                value: e.num(1) as i64,
            }),
            _ => {}
        }
    }
    for (c, v) in view.iter().enumerate() {
        if let Some((task_id, start)) = v.running {
            r.run_slices.push(RunSlice {
                core: c as u32,
                task_id,
                start,
                end: end_ts,
                truncated: true,
            });
        }
        for (depth, &(isr_id, start)) in v.isrs.iter().enumerate() {
            r.isr_runs.push(IsrRun {
                core: c as u32,
                isr_id,
                start,
                end: end_ts,
                depth: depth as u32,
                truncated: true,
            });
        }
    }
    for (task_id, (state, start)) in states {
        r.task_states.push(StateSpan {
            task_id,
            state,
            start,
            end: end_ts,
            truncated: true,
        });
    }
    for ((task_id, marker_id), stack) in spans {
        for (depth, (start, msg, core)) in stack.into_iter().enumerate() {
            r.marker_spans.push(MarkerSpan {
                marker_id,
                task_id,
                core,
                start,
                end: end_ts,
                depth: depth as u32,
                msg,
                truncated: true,
            });
        }
    }
    r.sort();
    r
}

impl Replay {
    pub fn sort(&mut self) {
        self.run_slices.sort_by_key(|s| (s.start, s.core));
        self.isr_runs.sort_by_key(|s| (s.start, s.core, s.depth));
        self.task_states.sort_by_key(|s| (s.start, s.task_id));
        self.marker_spans
            .sort_by_key(|s| (s.start, s.task_id, s.marker_id, s.depth));
    }
}
