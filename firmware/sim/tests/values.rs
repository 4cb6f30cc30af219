//! Value markers: by default in the range of what each one measures, with
//! `wide_values` of every varint length.

mod common;

use std::collections::{BTreeSet, HashMap};

use common::decode;
use tband::EventKind;
use tband_sim::{generate, Config, GroundTruth, QueueKind};

/// A run with every role and every kind of device interrupt, on two cores.
fn run(wide_values: bool) -> (Vec<common::Ev>, GroundTruth) {
    let config = Config {
        tasks: 20,
        isrs: 10,
        cores: 2,
        size: 1 << 20,
        record_truth: true,
        wide_values,
        ..Config::default()
    };
    let (streams, truth) = generate(&config).unwrap();
    (decode(&streams), truth.unwrap())
}

/// Value marker names by (task, id), from the metadata.
fn names(events: &[common::Ev]) -> HashMap<(Option<u32>, u32), String> {
    let mut names = HashMap::new();
    for e in events {
        let key = match e.kind {
            EventKind::ValmarkerName => (None, e.u32(0)),
            EventKind::TaskValmarkerName => (Some(e.u32(1)), e.u32(0)),
            _ => continue,
        };
        names.insert(key, e.text.clone().unwrap());
    }
    names
}

/// Bytes of the zigzag varint of `v`.
fn varint_len(v: i64) -> u32 {
    let z = ((v << 1) ^ (v >> 63)) as u64;
    (64 - z.leading_zeros()).div_ceil(7).max(1)
}

#[test]
fn values_look_like_firmware_by_default() {
    let (events, truth) = run(false);
    let names = names(&events);
    let mut series: HashMap<(Option<u32>, u32), Vec<i64>> = HashMap::new();
    for v in &truth.values {
        series
            .entry((v.task_id, v.marker_id))
            .or_default()
            .push(v.value);
    }
    let data_capacity = truth
        .queues
        .iter()
        .filter(|q| q.kind == QueueKind::Queue)
        .map(|q| i64::from(q.capacity))
        .max()
        .unwrap();
    let mut seen = BTreeSet::new();
    for (key, values) in &series {
        let name = &names[key];
        assert!(values.len() > 10, "{name}: {} values", values.len());
        let (min, max) = (values.iter().min().unwrap(), values.iter().max().unwrap());
        let steps = values.windows(2).map(|w| (w[1] - w[0]).abs());
        let max_step = steps.max().unwrap_or(0);
        let measure = name.rsplit(' ').next().unwrap();
        match measure {
            "sample" => {
                assert!(*min >= 0 && *max <= 4095, "{name}: {min}..{max}");
                assert!(max_step <= 16, "{name}: step {max_step}");
            }
            "level" => assert!(values.iter().all(|v| *v == 0 || *v == 1), "{name}"),
            "rate" => {
                // One frame every 2..=8 ms, within 5 %.
                assert!(*min >= 118 && *max <= 525, "{name}: {min}..{max}");
                assert!(max - min <= max / 10, "{name}: {min}..{max}");
            }
            "load" => assert!(*min >= 0 && *max <= 100, "{name}: {min}..{max}"),
            "fired" | "seq" => {
                let counted: Vec<i64> = (1..=values.len() as i64).collect();
                assert_eq!(values, &counted, "{name}");
            }
            "backlog" => assert!(*min >= 0 && *max <= data_capacity, "{name}: {min}..{max}"),
            "latency" => assert!(*min >= 0 && *max < 1000, "{name}: {min}..{max} µs"),
            "iterations" => {
                assert!(*min >= 100 && *max <= 10_000, "{name}: {min}..{max}");
                assert!(max_step <= max / 50, "{name}: step {max_step}");
            }
            _ => panic!("value marker {name} measures nothing known"),
        }
        seen.insert(measure);
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        [
            "backlog",
            "fired",
            "iterations",
            "latency",
            "level",
            "load",
            "rate",
            "sample",
            "seq"
        ]
    );
}

#[test]
fn wide_values_have_every_varint_length() {
    let (events, truth) = run(true);
    let lengths: BTreeSet<u32> = truth.values.iter().map(|v| varint_len(v.value)).collect();
    assert_eq!(lengths, (1..=10).collect());
    for extreme in [i64::MIN, i64::MAX] {
        assert!(truth.values.iter().any(|v| v.value == extreme));
    }
    // The decoded values are the ones the simulator drew.
    let decoded: Vec<i64> = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Valmarker | EventKind::TaskValmarker))
        .map(|e| e.num(1) as i64)
        .collect();
    assert_eq!(decoded.len(), truth.values.len());
    let mut a = decoded;
    let mut b: Vec<i64> = truth.values.iter().map(|v| v.value).collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
}

#[test]
fn the_load_a_manager_reports_is_its_cores_load() {
    let (events, truth) = run(false);
    let names = names(&events);
    for core in 0..truth.cores {
        let samples: Vec<&tband_sim::MarkerValue> = truth
            .values
            .iter()
            .filter(|v| v.core == core && names[&(v.task_id, v.marker_id)].ends_with(" load"))
            .collect();
        let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
            continue;
        };
        // Samples after the first cover first.ts..last.ts; weigh each by the
        // time it covers.
        let mut weighted = 0.0;
        for w in samples.windows(2) {
            weighted += w[1].value as f64 * (w[1].ts - w[0].ts) as f64;
        }
        let reported = weighted / (last.ts - first.ts) as f64;
        let idle = truth
            .tasks
            .iter()
            .find(|t| t.kind == tband_sim::TaskKind::Idle && t.core == core)
            .unwrap()
            .task_id;
        let idle_time: u64 = truth
            .run_slices
            .iter()
            .filter(|s| s.task_id == idle)
            .map(|s| s.end.min(last.ts).saturating_sub(s.start.max(first.ts)))
            .sum();
        let load = 100.0 * (1.0 - idle_time as f64 / (last.ts - first.ts) as f64);
        assert!(
            (reported - load).abs() < 2.0,
            "core {core}: reported {reported:.1} %, scheduled {load:.1} %"
        );
    }
}
