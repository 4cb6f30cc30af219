//! The fault events end the running task's slice and become the model's
//! `faults` row and the trace's last anomaly; the summary's last line says
//! who crashed, where and why; the timeline shows the fault as an instant
//! on its core and its task.

#[path = "../../tests/fault/stream.rs"]
mod stream;

use tband::Event;
use tband_decode::encode::encode_stream;
use tband_decode::input::Input;
use tband_model::summary::write_summary;
use tband_model::timeline::{Parent, Shape, Timeline};
use tband_model::{AnomalyKind, FaultAddress, FaultStatus, Model, TaskStateKind};
use tband_trace::{OpenOptions, Trace};

fn model(events: &[(u64, Event<'_>)]) -> Model {
    let inputs = Input::per_core("crash", vec![encode_stream(events)]);
    Trace::from_inputs(inputs, &OpenOptions::default())
        .unwrap()
        .model
}

#[test]
fn a_fault_ends_the_running_slice_and_is_the_last_anomaly() {
    let m = model(&stream::crash());
    assert_eq!(m.faults.len(), 1);
    let f = &m.faults[0];
    let logger = m.tasks.iter().position(|t| t.name == "logger").unwrap() as u32;
    assert_eq!(
        (f.ts_ns, f.core_id, f.task, f.isr),
        (4_000, 0, Some(logger), None)
    );
    assert_eq!((f.kind, f.pc, f.lr), (3, 0x1234, 0x1201));
    assert_eq!(
        (f.status, f.address),
        (
            Some(FaultStatus {
                xpsr: 0x6100_0000,
                cfsr: 0x8200,
                hfsr: 0x4000_0000
            }),
            Some(FaultAddress {
                mmfar: 0x4000_0004,
                bfar: 0x4000_0004
            })
        )
    );
    let last = m.sched_slices.iter().next_back().unwrap();
    assert_eq!(
        (last.task, last.end_ns, last.truncated, last.end_state),
        (logger, 4_000, false, Some(TaskStateKind::Suspended))
    );
    let anomaly = m.anomalies.last().unwrap();
    assert_eq!(anomaly.kind, AnomalyKind::Fault);
    assert_eq!(
        anomaly.detail,
        "HardFault in task `logger` at pc 0x00001234"
    );

    let mut summary = Vec::new();
    write_summary(&mut summary, &m).unwrap();
    let summary = String::from_utf8(summary).unwrap();
    assert_eq!(
        summary.lines().last().unwrap(),
        "  4.00 µs core 0: task logger crashed at pc 0x00001234, lr 0x00001201: \
         HardFault: escalated, precise data bus error at 0x40000004"
    );
}

#[test]
fn the_fault_is_an_instant_on_its_core_and_its_task() {
    let m = model(&stream::crash());
    let timeline = Timeline::new(&m);
    let mut instants = Vec::new();
    for layer in &timeline.layers {
        layer.visit(&m, 0..layer.len(&m), &mut |_, item| {
            if let Shape::Instant(ts) = item.shape {
                let track = &timeline.tracks[item.track as usize];
                instants.push((
                    timeline.full_name(&m, track),
                    ts,
                    item.name.text.to_string(),
                ));
            }
        });
    }
    assert_eq!(
        instants,
        [
            ("core 0".to_string(), 4_000, "HardFault".to_string()),
            ("logger/fault".to_string(), 4_000, "HardFault".to_string()),
        ]
    );
    let on_task = timeline.tracks.iter().find(|t| t.name == "fault").unwrap();
    assert!(matches!(on_task.parent, Parent::Task(_)));
}

#[test]
fn a_fault_whose_registers_were_lost_still_names_its_kind() {
    let events = stream::crash();
    let registers_lost: Vec<_> = (events.iter().cloned())
        .filter(|(_, e)| !matches!(e, Event::FaultStatus { .. } | Event::FaultAddress { .. }))
        .collect();
    let m = model(&registers_lost);
    assert_eq!(m.faults[0].cause(), "HardFault");
    assert_eq!(m.anomaly_count(AnomalyKind::Fault), 1);
}

#[test]
fn a_fault_in_an_isr_is_the_isrs_and_ends_it_unexited() {
    let mut events = stream::crash();
    let fault_at = events
        .iter()
        .position(|(_, e)| matches!(e, Event::Fault { .. }))
        .unwrap();
    events.insert(
        1,
        (
            0,
            Event::IsrName {
                isr_id: 7,
                name: b"UART0",
            },
        ),
    );
    events.insert(fault_at - 1, (4, Event::IsrEnter { isr_id: 7 }));
    let m = model(&events);
    let f = &m.faults[0];
    let uart = &m.isrs[f.isr.unwrap() as usize];
    assert_eq!(uart.name, "UART0");
    let slice = m.isr_slices.iter().next_back().unwrap();
    assert_eq!((slice.end_ns, slice.truncated), (f.ts_ns, true));
    let anomaly = m.anomalies.last().unwrap();
    assert_eq!(anomaly.detail, "HardFault in ISR `UART0` at pc 0x00001234");
    let mut summary = Vec::new();
    write_summary(&mut summary, &m).unwrap();
    let summary = String::from_utf8(summary).unwrap();
    assert!(summary
        .lines()
        .last()
        .unwrap()
        .contains("core 0: ISR UART0 crashed at pc 0x00001234"));
}

#[test]
fn what_the_crash_left_open_comes_before_it_among_the_anomalies() {
    let mut events = stream::crash();
    events.insert(
        4,
        (
            2,
            Event::EvtmarkerBegin {
                evtmarker_id: 1,
                msg: b"never ends",
            },
        ),
    );
    let m = model(&events);
    let kinds: Vec<AnomalyKind> = m.anomalies.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [AnomalyKind::NeverClosed, AnomalyKind::Fault]);
}
