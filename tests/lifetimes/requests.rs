//! A tband stream of requests that the tests write, and the lifetime rules
//! that make them objects. Each request begins with event marker 7 (its
//! number as the message), is marked by event marker 9 from an ISR and
//! ends with event marker 8 three requests later; value marker 7 counts the
//! requests in flight. Two tasks take turns: `producer` begins requests,
//! `consumer` ends them (every fourth end comes from an ISR instead). Halfway, a request that never began ends; the last
//! three never end. The tests of a followed file include this file
//! (`#[path = "../../tests/lifetimes/requests.rs"] mod requests;`).

#![allow(dead_code)] // each crate's test uses a part of it

use tband::Event;

/// The rules: requests in the pool keyed by their marker's id (7), whose
/// counter `in flight` is value marker 7.
pub const RULES: &str = r#"
[[rule]]
event = "evtmarker"
where = { evtmarker_id = 7 }
action = "begin"
kind = "request"
key = "msg"
pool = "evtmarker_id"

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
where = { valmarker_id = 7 }
action = "counter"
kind = "request"
key = "valmarker_id"
counter = "in flight"
value = "val"
"#;

/// How many requests are live at most: the lanes of the pool.
pub const MOST_LIVE: u32 = 4;

/// The stream of `n` requests, 10 µs apart.
pub fn stream(n: u32) -> Vec<u8> {
    let numbers: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let number = |i: u32| numbers[i as usize].as_bytes();
    let mut events = vec![
        (0, Event::TsResolutionNs { ns_per_ts: 1000 }),
        (
            0,
            Event::TaskName {
                task_id: 1,
                name: b"producer",
            },
        ),
        (
            0,
            Event::TaskName {
                task_id: 2,
                name: b"consumer",
            },
        ),
    ];
    let mut in_flight = 0;
    for i in 0..n {
        let t = u64::from(i) * 10;
        in_flight += 1;
        events.extend([
            (t, Event::TaskSwitchedIn { task_id: 1 }),
            (
                t + 1,
                Event::Evtmarker {
                    evtmarker_id: 7,
                    msg: number(i),
                },
            ),
            (
                t + 1,
                Event::Valmarker {
                    valmarker_id: 7,
                    val: in_flight,
                },
            ),
        ]);
        if i >= MOST_LIVE - 1 {
            in_flight -= 1;
            let from_isr = i % 4 == 3;
            events.push(match from_isr {
                true => (t + 5, Event::IsrEnter { isr_id: 2 }),
                false => (t + 5, Event::TaskSwitchedIn { task_id: 2 }),
            });
            events.extend([
                (
                    t + 6,
                    Event::Evtmarker {
                        evtmarker_id: 8,
                        msg: number(i + 1 - MOST_LIVE),
                    },
                ),
                (
                    t + 6,
                    Event::Valmarker {
                        valmarker_id: 7,
                        val: in_flight,
                    },
                ),
            ]);
            if from_isr {
                events.push((t + 6, Event::IsrExit { isr_id: 2 }));
            }
        }
        if i == n / 2 {
            let never_began = Event::Evtmarker {
                evtmarker_id: 8,
                msg: b"lost",
            };
            events.push((t + 6, never_began));
        }
        if i % 4 == 1 {
            events.extend([
                (t + 7, Event::IsrEnter { isr_id: 1 }),
                (
                    t + 8,
                    Event::Evtmarker {
                        evtmarker_id: 9,
                        msg: number(i - 1),
                    },
                ),
                (t + 9, Event::IsrExit { isr_id: 1 }),
            ]);
        }
    }
    tband_decode::encode::encode_stream(&events)
}
