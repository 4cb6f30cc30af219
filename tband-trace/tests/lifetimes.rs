//! Lifetime rules through the front door: the built-in network-buffer
//! rules on a Zephyr CTF trace written here, with nothing but the trace.

#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;

use net_buf_trace::Who;
use tband_model::{Actor, AnomalyKind, Model, TrackedKey};
use tband_trace::{OpenOptions, Trace};

fn net_buf_model() -> Model {
    let dir = net_buf_trace::write(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    let args = [dir.display().to_string()];
    Trace::open(&args, &OpenOptions::default())
        .expect("the trace opens")
        .model
}

fn who(model: &Model, actor: Option<Actor>) -> Option<Who> {
    actor.map(|actor| match actor {
        Actor::Task(task) => {
            let name = &(model.tasks.iter().find(|t| t.task_id == task))
                .expect("a known task")
                .name;
            Who::Thread(if name == "rx_thread" {
                "rx_thread"
            } else {
                "tx_thread"
            })
        }
        Actor::Isr(_) => Who::Isr,
    })
}

#[test]
fn net_buf_lifetimes_are_what_the_stream_records() {
    let model = net_buf_model();
    let o = &model.tracked;
    assert_eq!(model.info.duration_ns, net_buf_trace::END_NS);
    let lifetimes: Vec<net_buf_trace::Lifetime> = o
        .lifetimes
        .iter()
        .map(|l| {
            let pool = o.pool(l.pool).expect("every buffer has a pool");
            assert_eq!(
                o.names.get(l.name),
                pool.name,
                "a buffer is named by its pool"
            );
            assert_eq!(o.kind(l.kind), "net_buf");
            let TrackedKey::Int(key) = *o.key(&l) else {
                panic!("an address")
            };
            let pool_name = net_buf_trace::LIFETIMES
                .iter()
                .map(|e| e.0)
                .find(|name| *name == pool.name)
                .expect("a pool the stream names");
            (
                pool_name,
                key as u32,
                l.start_ns,
                (!l.truncated).then_some(l.end_ns),
                who(&model, l.begun_by).expect("begun while something ran"),
                who(&model, l.ended_by),
            )
        })
        .collect();
    assert_eq!(lifetimes, net_buf_trace::LIFETIMES);
    for leaked in o.lifetimes.iter().filter(|l| l.truncated) {
        assert_eq!(leaked.end_ns, net_buf_trace::END_NS);
    }

    let marks: Vec<(u64, u32, &str, u32)> = o
        .marks
        .iter()
        .map(|m| {
            let lifetime = o.lifetimes.get(m.lifetime as usize).expect("a lifetime");
            let TrackedKey::Int(key) = *o.key(&lifetime) else {
                panic!()
            };
            (
                m.ts_ns,
                key as u32,
                o.names.get(m.event),
                m.value.expect("a count") as u32,
            )
        })
        .collect();
    assert_eq!(marks, net_buf_trace::MARKS);

    let free: Vec<(&str, u64, u32)> = o
        .counter_values
        .iter()
        .map(|v| {
            let counter = &o.counters[v.counter as usize];
            assert_eq!(counter.name, "free");
            (
                o.pools[counter.pool as usize].name.as_str(),
                v.ts_ns,
                v.value as u32,
            )
        })
        .collect();
    let expected: Vec<(&str, u64, u32)> = net_buf_trace::FREE.to_vec();
    assert_eq!(free, expected);

    let slots: Vec<(&str, u32)> = o.pools.iter().map(|p| (p.name.as_str(), p.slots)).collect();
    assert_eq!(slots, [("rx_pool", 2), ("data_pool", 1), ("tx_pool", 2)]);
    assert_eq!(model.anomaly_count(AnomalyKind::Inconsistent), 0);
    assert_eq!(model.anomaly_count(AnomalyKind::EndWithoutBegin), 0);
}

#[test]
fn a_rules_file_that_does_not_parse_is_one_sentence_naming_the_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rule]]\nevent = \"a\"\naction = \"begin\"\nkind = \"k\"\nkey = \"f\"\nvalue = \"v\"\n",
    )
    .expect("written");
    let trace = net_buf_trace::write(dir.path());
    let options = OpenOptions {
        rules: Some(rules.clone()),
        ..OpenOptions::default()
    };
    let error = Trace::open(&[trace.display().to_string()], &options)
        .err()
        .expect("refused");
    assert_eq!(
        error.to_string(),
        format!(
            "{} line 6: `value` applies only to mark and counter rules, not begin",
            rules.display()
        )
    );
}

/// Opens `inputs` (already read) with the lifetime rules `rules`.
fn model_with_rules(inputs: Vec<tband_trace::input::Input>, rules: &str) -> Model {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("rules.toml");
    std::fs::write(&path, rules).expect("written");
    let options = OpenOptions {
        rules: Some(path),
        ..OpenOptions::default()
    };
    Trace::from_inputs(inputs, &options)
        .expect("the trace opens")
        .model
}

/// (key, start, end when ended, begun by a task (else an ISR)).
fn lifetimes_of(model: &Model) -> Vec<(String, u64, Option<u64>, Option<bool>)> {
    let o = &model.tracked;
    o.lifetimes
        .iter()
        .map(|l| {
            let by_task = l.begun_by.map(|a| matches!(a, Actor::Task(_)));
            (
                o.key(&l).to_string(),
                l.start_ns,
                (!l.truncated).then_some(l.end_ns),
                by_task,
            )
        })
        .collect()
}

const MARKER_RULES: &str = r#"
[[rule]]
event = "evtmarker"
where = { evtmarker_id = 7 }
action = "begin"
kind = "request"
key = "msg"

[[rule]]
event = "evtmarker"
where = { evtmarker_id = 8 }
action = "end"
kind = "request"
key = "msg"

[[rule]]
event = "evtmarker"
where = { evtmarker_id = 9 }
action = "mark"
kind = "request"
key = "msg"

[[rule]]
event = "valmarker"
where = { valmarker_id = 3 }
action = "counter"
kind = "request"
key = "valmarker_id"
counter = "in flight"
value = "val"
"#;

#[test]
fn rules_apply_to_tband_markers() {
    use tband::Event;
    let msg = |m: &'static str| m.as_bytes();
    let events = [
        (
            0,
            Event::TaskName {
                task_id: 1,
                name: msg("net"),
            },
        ),
        (0, Event::TaskSwitchedIn { task_id: 1 }),
        (
            100,
            Event::Evtmarker {
                evtmarker_id: 7,
                msg: msg("17"),
            },
        ),
        (
            100,
            Event::Valmarker {
                valmarker_id: 3,
                val: 1,
            },
        ),
        (
            200,
            Event::Evtmarker {
                evtmarker_id: 7,
                msg: msg("18"),
            },
        ),
        (
            200,
            Event::Valmarker {
                valmarker_id: 3,
                val: 2,
            },
        ),
        (
            250,
            Event::Evtmarker {
                evtmarker_id: 9,
                msg: msg("17"),
            },
        ),
        (300, Event::IsrEnter { isr_id: 2 }),
        (
            310,
            Event::Evtmarker {
                evtmarker_id: 7,
                msg: msg("19"),
            },
        ),
        (
            310,
            Event::Valmarker {
                valmarker_id: 3,
                val: 3,
            },
        ),
        (320, Event::IsrExit { isr_id: 2 }),
        (
            400,
            Event::Evtmarker {
                evtmarker_id: 8,
                msg: msg("19"),
            },
        ),
        (
            400,
            Event::Valmarker {
                valmarker_id: 3,
                val: 2,
            },
        ),
        (
            500,
            Event::Evtmarker {
                evtmarker_id: 8,
                msg: msg("17"),
            },
        ),
        (
            500,
            Event::Valmarker {
                valmarker_id: 3,
                val: 1,
            },
        ),
        (
            600,
            Event::Evtmarker {
                evtmarker_id: 8,
                msg: msg("20"),
            },
        ),
        (700, Event::TaskSwitchedIn { task_id: 1 }),
    ];
    let bytes = tband_decode::encode::encode_stream(&events);
    let inputs = tband_trace::input::Input::per_core("markers", vec![bytes]);
    let model = model_with_rules(inputs, MARKER_RULES);
    assert_eq!(
        lifetimes_of(&model),
        [
            ("17".to_string(), 100, Some(500), Some(true)),
            ("18".to_string(), 200, None, Some(true)),
            ("19".to_string(), 310, Some(400), Some(false)),
        ]
    );
    let o = &model.tracked;
    let marks: Vec<_> = o
        .marks
        .iter()
        .map(|m| (m.ts_ns, m.lifetime, m.value))
        .collect();
    assert_eq!(marks, [(250, 0, None)]);
    let counts: Vec<_> = o
        .counter_values
        .iter()
        .map(|v| (v.ts_ns, v.value))
        .collect();
    assert_eq!(counts, [(100, 1), (200, 2), (310, 3), (400, 2), (500, 1)]);
    assert_eq!(o.counters[0].name, "in flight");
    // The end of a request never begun is an anomaly, not a lifetime.
    let ends: Vec<_> = model
        .anomalies
        .iter()
        .filter(|a| a.kind == AnomalyKind::EndWithoutBegin)
        .map(|a| (a.end_ns, a.detail.as_str()))
        .collect();
    assert_eq!(
        ends,
        [(
            600,
            "evtmarker ended request 20, which had not begun (first of these)"
        )]
    );
}

const THREADX_RULES: &str = r#"
[[rule]]
event = "user"
where = { event_id = 4100 }
action = "begin"
kind = "block"
key = "info1"
pool = "info2"

[[rule]]
event = "user"
where = { event_id = 4101 }
action = "end"
kind = "block"
key = "info1"

[[rule]]
event = "user"
where = { event_id = 4100 }
action = "counter"
kind = "block"
key = "info2"
counter = "available"
value = "info3"

[[rule]]
event = "user"
where = { event_id = 4101 }
action = "counter"
kind = "block"
key = "info2"
counter = "available"
value = "info3"
"#;

/// A ThreadX trace buffer (TraceX `.trx`, little-endian, not wrapped) of
/// one registered thread logging `entries`: (time, event id, info words).
fn threadx_buffer(entries: &[(u32, u32, [u32; 4])]) -> Vec<u8> {
    const BASE: u32 = 0x2000_0000;
    const THREAD: u32 = 0x2010_0000;
    const HEADER: usize = 48;
    const REGISTRY_ENTRY: usize = 16 + 32;
    const ENTRY: usize = 32;
    let registry_end = HEADER + REGISTRY_ENTRY;
    let buffer_end = registry_end + (entries.len() + 4) * ENTRY;
    let mut bytes = vec![0u8; buffer_end];
    let mut put =
        |offset: usize, word: u32| bytes[offset..offset + 4].copy_from_slice(&word.to_le_bytes());
    let header = [
        0x5458_5442,
        u32::MAX,
        BASE,
        BASE + HEADER as u32,
        0,
        BASE + registry_end as u32,
        BASE + registry_end as u32,
        BASE + buffer_end as u32,
        BASE + registry_end as u32,
    ];
    for (i, word) in header.into_iter().enumerate() {
        put(i * 4, word);
    }
    // The registry's thread: type 1, priority 10, its stack.
    put(HEADER, u32::from_le_bytes([0, 1, 0x80, 10]));
    put(HEADER + 4, THREAD);
    put(HEADER + 8, 0x2020_0000);
    put(HEADER + 12, 1024);
    for (n, &(time, id, info)) in entries.iter().enumerate() {
        let words = [
            THREAD,
            0x8000_0000 | 10 << 16 | 10,
            id,
            time,
            info[0],
            info[1],
            info[2],
            info[3],
        ];
        for (i, word) in words.into_iter().enumerate() {
            put(registry_end + n * ENTRY + i * 4, word);
        }
    }
    bytes[18..20].copy_from_slice(&32u16.to_le_bytes());
    bytes[HEADER + 16..HEADER + 22].copy_from_slice(b"worker");
    bytes
}

#[test]
fn rules_apply_to_threadx_user_events() {
    const POOL: u32 = 0x2030_0000;
    let buffer = threadx_buffer(&[
        (1_000, 4100, [0x2030_0100, POOL, 3, 0]),
        (1_500, 4100, [0x2030_0200, POOL, 2, 0]),
        (2_000, 4101, [0x2030_0100, POOL, 3, 0]),
        (2_500, 4102, [0x2030_0200, POOL, 9, 0]),
        (3_000, 4100, [0x2030_0300, POOL, 2, 0]),
    ]);
    let input = tband_trace::input::Input {
        name: "blocks.trx".into(),
        core: None,
        bytes: tband_trace::input::Bytes::Owned(buffer),
        was_hex: false,
    };
    let model = model_with_rules(vec![input], THREADX_RULES);
    assert_eq!(model.info.format, "threadx");
    let lifetimes: Vec<_> = lifetimes_of(&model)
        .into_iter()
        .map(|(k, s, e, _)| (k, s, e))
        .collect();
    assert_eq!(
        lifetimes,
        [
            ("0x20300100".to_string(), 0, Some(1_000)),
            ("0x20300200".to_string(), 500, None),
            ("0x20300300".to_string(), 2_000, None),
        ]
    );
    let o = &model.tracked;
    assert_eq!(o.pools.len(), 1);
    assert_eq!(
        (o.pools[0].name.as_str(), o.pools[0].slots),
        ("0x20300000", 2)
    );
    let available: Vec<_> = o
        .counter_values
        .iter()
        .map(|v| (v.ts_ns, v.value))
        .collect();
    assert_eq!(available, [(0, 3), (500, 2), (1_000, 3), (2_000, 2)]);
}
