//! A tband stream that ends in a crash, which the tests of the model and
//! of the sinks read (`#[path = "../../tests/fault/stream.rs"] mod stream;`).

use tband::Event;

/// Task 1 `sensor` runs from 1 µs, task 2 `logger` from 3 µs; the logger
/// takes a precise bus error at 0x40000004 (escalated to a HardFault) at
/// 5 µs: its registers, then the fault. One tick is 1 µs.
pub fn crash() -> Vec<(u64, Event<'static>)> {
    vec![
        (0, Event::TsResolutionNs { ns_per_ts: 1000 }),
        (
            0,
            Event::TaskName {
                task_id: 1,
                name: b"sensor",
            },
        ),
        (
            0,
            Event::TaskName {
                task_id: 2,
                name: b"logger",
            },
        ),
        (1, Event::TaskSwitchedIn { task_id: 1 }),
        (3, Event::TaskSwitchedIn { task_id: 2 }),
        (
            5,
            Event::FaultStatus {
                xpsr: 0x6100_0000,
                cfsr: 0x0000_8200,
                hfsr: 0x4000_0000,
            },
        ),
        (
            5,
            Event::FaultAddress {
                mmfar: 0x4000_0004,
                bfar: 0x4000_0004,
            },
        ),
        (
            5,
            Event::Fault {
                kind: 3,
                pc: 0x0000_1234,
                lr: 0x0000_1201,
            },
        ),
    ]
}
