//! The ground truth is exactly what the events say (the rules of docs/src/format.md) and
//! is consistent in itself.

mod common;

use std::collections::HashMap;
use std::sync::OnceLock;

use common::replay::{replay, Replay};
use common::{decode, timeline};
use tband::EventKind;
use tband_sim::{generate, Config, DropConfig, GroundTruth, Layout, TaskKind, TaskState};

fn run(config: &Config) -> (Vec<common::Ev>, GroundTruth) {
    let config = Config {
        record_truth: true,
        ..config.clone()
    };
    let (streams, truth) = generate(&config).unwrap();
    (decode(&streams), truth.unwrap())
}

/// The configurations every test checks, generated once per test binary.
fn runs() -> &'static [(Config, Vec<common::Ev>, GroundTruth)] {
    static RUNS: OnceLock<Vec<(Config, Vec<common::Ev>, GroundTruth)>> = OnceLock::new();
    RUNS.get_or_init(|| {
        configs()
            .into_iter()
            .map(|c| {
                let (events, truth) = run(&c);
                (c, events, truth)
            })
            .collect()
    })
}

fn configs() -> Vec<Config> {
    let mut v = Vec::new();
    for (cores, tasks, isrs) in [(1, 8, 5), (1, 20, 9), (2, 12, 6), (4, 14, 8)] {
        for seed in [1, 9] {
            v.push(Config {
                seed,
                cores,
                tasks,
                isrs,
                queues: 9,
                size: 200 << 10,
                layout: if seed == 1 {
                    Layout::Streaming
                } else {
                    Layout::Snapshot
                },
                // Values of every varint length in half the runs, values
                // like firmware's in the other half.
                wide_values: seed == 9,
                ..Config::default()
            });
        }
    }
    v
}

#[test]
fn truth_equals_the_events_read_by_the_format_rules() {
    for (c, events, truth) in runs() {
        let tl = timeline(events);
        assert_eq!(truth.end_ts, tl.last().unwrap().ts.unwrap());
        assert_eq!(truth.start_ts, tl.first().unwrap().ts.unwrap());
        let r = replay(&tl, c.cores, truth.end_ts);
        let mut t = Replay {
            run_slices: truth.run_slices.clone(),
            isr_runs: truth.isr_runs.clone(),
            task_states: truth.task_states.clone(),
            priorities: truth.priorities.clone(),
            queue_levels: truth.queue_levels.clone(),
            marker_spans: truth.marker_spans.clone(),
            marker_instants: truth.marker_instants.clone(),
            values: truth.values.clone(),
        };
        t.sort();
        assert_eq!(r.run_slices, t.run_slices, "{c:?}");
        assert_eq!(r.isr_runs, t.isr_runs);
        assert_eq!(r.task_states, t.task_states);
        assert_eq!(r.priorities, t.priorities);
        assert_eq!(r.queue_levels, t.queue_levels);
        assert_eq!(r.marker_spans, t.marker_spans);
        assert_eq!(r.marker_instants, t.marker_instants);
        assert_eq!(r.values, t.values);
    }
}

#[test]
fn run_slices_are_contiguous_per_core() {
    for (c, _, truth) in runs() {
        for core in 0..c.cores {
            let s: Vec<_> = truth.run_slices.iter().filter(|s| s.core == core).collect();
            assert!(s.len() > 10);
            for w in s.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert_ne!(w[0].task_id, w[1].task_id);
                assert!(!w[0].truncated);
            }
            let last = s.last().unwrap();
            assert!(last.truncated && last.end == truth.end_ts);
            for slice in &s {
                assert_eq!(truth.task(slice.task_id).unwrap().core, core);
            }
        }
        // Every core idles now and then, and its idle task is marked.
        for core in 0..c.cores {
            let idle = truth
                .tasks
                .iter()
                .find(|t| t.kind == TaskKind::Idle && t.core == core)
                .unwrap();
            assert!(truth.run_slices.iter().any(|s| s.task_id == idle.task_id));
        }
    }
}

#[test]
fn isr_runs_nest_properly() {
    let mut nested = 0;
    for (_, _, truth) in runs() {
        let prio: HashMap<(u32, u32), u32> = truth
            .isrs
            .iter()
            .map(|i| ((i.core, i.isr_id), i.priority))
            .collect();
        for r in &truth.isr_runs {
            assert!(r.start < r.end || (r.truncated && r.start == r.end));
            if r.depth == 0 {
                continue;
            }
            nested += 1;
            let outer = truth
                .isr_runs
                .iter()
                .find(|o| {
                    // Both end with the trace when it stops inside them.
                    let ends_after = r.end < o.end || (o.truncated && r.end == o.end);
                    o.core == r.core && o.depth == r.depth - 1 && o.start < r.start && ends_after
                })
                .expect("a nested ISR inside its outer one");
            assert!(prio[&(r.core, r.isr_id)] > prio[&(outer.core, outer.isr_id)]);
        }
    }
    assert!(nested > 0, "no ISR ever nested");
}

#[test]
fn task_states_are_contiguous_and_queue_levels_within_capacity() {
    for (c, _, truth) in runs() {
        let mut by_task: HashMap<u32, Vec<_>> = HashMap::new();
        for s in &truth.task_states {
            by_task.entry(s.task_id).or_default().push(s);
        }
        let mut blocked_kinds = std::collections::HashSet::new();
        for spans in by_task.values() {
            for w in spans.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert_ne!(w[0].state, w[1].state);
                assert_ne!(w[0].state, TaskState::Deleted);
            }
            for s in spans.iter() {
                if let TaskState::Blocked(reason) = s.state {
                    blocked_kinds.insert(std::mem::discriminant(&reason));
                }
            }
        }
        assert!(blocked_kinds.len() >= 4, "{c:?}");
        for l in &truth.queue_levels {
            let q = truth.queue(l.queue_id).unwrap();
            assert!(l.len <= q.capacity);
        }
        for q in &truth.queues {
            let max = truth
                .queue_levels
                .iter()
                .filter(|l| l.queue_id == q.queue_id)
                .map(|l| l.len)
                .max();
            assert_eq!(q.high_water, max);
        }
    }
}

#[test]
fn marker_spans_nest_on_each_track() {
    for (_, _, truth) in runs() {
        for global in [true, false] {
            let scoped = |s: &&tband_sim::MarkerSpan| s.task_id.is_none() == global;
            assert!(truth
                .marker_spans
                .iter()
                .filter(scoped)
                .any(|s| s.depth == 0));
            assert!(truth
                .marker_spans
                .iter()
                .filter(scoped)
                .any(|s| s.depth == 1));
        }
        let mut tracks: HashMap<(Option<u32>, u32), Vec<&tband_sim::MarkerSpan>> = HashMap::new();
        for s in &truth.marker_spans {
            tracks.entry((s.task_id, s.marker_id)).or_default().push(s);
        }
        for spans in tracks.values_mut() {
            spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
            let mut open: Vec<u64> = Vec::new();
            for s in spans.iter() {
                while open.last().is_some_and(|&end| end < s.start) {
                    open.pop();
                }
                if let Some(&end) = open.last() {
                    assert!(s.end <= end, "{s:?} overlaps its outer span");
                }
                assert_eq!(s.depth as usize, open.len(), "{s:?}");
                open.push(s.end);
            }
        }
    }
}

#[test]
fn drop_episodes_are_exactly_the_missing_events() {
    for cores in [1, 3] {
        let c = Config {
            cores,
            size: 300 << 10,
            drops: Some(DropConfig {
                mean_gap_events: 300,
                max_lost_events: 30,
            }),
            ..Config::default()
        };
        let (events, truth) = run(&c);
        // Without drops the same seed schedules the same things.
        let (_, full) = run(&Config {
            drops: None,
            ..c.clone()
        });
        assert!(truth.drop_episodes.len() > 5);
        let until = full.end_ts.min(truth.end_ts);
        let done = |s: &&tband_sim::RunSlice| s.end < until;
        assert!(truth
            .run_slices
            .iter()
            .filter(done)
            .eq(full.run_slices.iter().filter(done)));
        for core in 0..cores {
            let written: Vec<u64> = events
                .iter()
                .filter(|e| e.core == core && e.ts.is_some())
                .filter(|e| !matches!(e.kind, EventKind::CoreId | EventKind::DroppedEvtCnt))
                .map(|e| e.ts.unwrap())
                .collect();
            let counts: Vec<(u64, u32)> = events
                .iter()
                .filter(|e| e.core == core && e.kind == EventKind::DroppedEvtCnt)
                .map(|e| (e.ts.unwrap(), e.u32(0)))
                .collect();
            let mut lost_so_far = 0;
            for ep in truth.drop_episodes.iter().filter(|d| d.core == core) {
                lost_so_far += ep.lost_events;
                assert!(!written
                    .iter()
                    .any(|&t| (ep.first_lost_ts..=ep.last_lost_ts).contains(&t)));
                let before = written.iter().rev().find(|&&t| t < ep.first_lost_ts);
                assert_eq!(ep.previous_ts, before.copied());
                if let Some(at) = ep.reported_at_ts {
                    let first_after = counts.iter().find(|(t, _)| *t > ep.last_lost_ts).unwrap();
                    assert_eq!(first_after.0, at);
                    assert!(first_after.1 >= lost_so_far);
                    let before = counts.iter().rev().find(|(t, _)| *t < ep.first_lost_ts);
                    assert!(before.is_none_or(|b| b.1 < first_after.1));
                }
            }
        }
    }
}
