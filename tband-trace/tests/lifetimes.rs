//! Lifetime rules through the front door: the built-in network-buffer
//! rules on a Zephyr CTF trace written here, with nothing but the trace.

#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;

use net_buf_trace::Who;
use tband_model::{Actor, AnomalyKind, Model, ObjectKey};
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
            let name = &model.task(task).expect("a known task").name;
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
    let o = &model.objects;
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
            let ObjectKey::Int(key) = l.key else {
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
            let ObjectKey::Int(key) = o.lifetimes[m.lifetime as usize].key else {
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
