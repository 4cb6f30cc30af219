//! Builds the QEMU example firmware (`firmware/qemu-cortex-m3`) for
//! thumbv7m-none-eabi, runs it on QEMU's lm3s6965evb and checks the trace it
//! writes by semihosting: SysTick enter/exit pairs, names, time order, and
//! the allocations, failed allocations, frees and peak of bytes in use of
//! its global allocator (`tband::TracedAlloc`) against the counts it
//! printed.
//! Without qemu-system-arm or the rustup target the test says why and
//! passes, unless TBAND_REQUIRE_QEMU=1.

use tband::EventKind;
use tband_host_tests::qemu::{self, build_firmware};
use tband_host_tests::{decode, run, Frame};

/// Builds and runs the firmware; returns the trace it wrote and what it
/// printed.
fn record_qemu_trace() -> (Vec<u8>, String) {
    let elf = build_firmware("snapshot");
    let work = elf.with_file_name("run");
    std::fs::create_dir_all(&work).unwrap();
    let trace = work.join("trace.bin");
    let _ = std::fs::remove_file(&trace);
    let out = run(qemu::qemu().current_dir(&work).arg("-kernel").arg(&elf));
    let trace = std::fs::read(&trace).expect("the firmware writes trace.bin");
    (trace, String::from_utf8(out.stdout).unwrap())
}

fn names(frames: &[Frame], kind: EventKind) -> Vec<String> {
    frames
        .iter()
        .filter(|f| f.kind == kind)
        .map(|f| f.fields.clone())
        .collect()
}

#[test]
fn firmware_trace_in_qemu() {
    if !qemu::tools_present() {
        return;
    }
    let (bytes, printed) = record_qemu_trace();
    let frames = decode(&bytes, 0).expect("every frame decodes");
    check_heap(&frames, &printed);
    assert_eq!(
        names(&frames, EventKind::IsrName),
        ["isr_id=15 name=SysTick"]
    );
    assert_eq!(
        names(&frames, EventKind::EvtmarkerName),
        [
            "evtmarker_id=1 name=task_a",
            "evtmarker_id=2 name=task_b",
            "evtmarker_id=3 name=tick_seen"
        ]
    );
    assert_eq!(
        names(&frames, EventKind::ValmarkerName),
        ["valmarker_id=1 name=counter"]
    );
    assert_eq!(names(&frames, EventKind::TsResolutionNs), ["ns_per_ts=83"]);

    let timed: Vec<_> = frames.iter().filter(|f| f.ts.is_some()).collect();
    assert!(
        timed.windows(2).all(|w| w[0].ts <= w[1].ts),
        "time never goes back"
    );
    // SysTick: strictly alternating enter/exit, never nested.
    let isr: Vec<_> = timed
        .iter()
        .filter(|f| matches!(f.kind, EventKind::IsrEnter | EventKind::IsrExit))
        .collect();
    assert!(
        isr.len() >= 10,
        "at least 5 ticks recorded, got {}",
        isr.len() / 2
    );
    for (i, f) in isr.iter().enumerate() {
        let expected = if i % 2 == 0 {
            EventKind::IsrEnter
        } else {
            EventKind::IsrExit
        };
        // The snapshot may end between an enter and its exit.
        if i + 1 < isr.len() || f.kind == expected {
            assert_eq!(f.kind, expected, "ISR event {i}");
        }
        assert_eq!(f.fields, "isr_id=15");
    }
    // Ticks are about 1 ms (12000 cycles) apart.
    let enters: Vec<_> = isr
        .iter()
        .filter(|f| f.kind == EventKind::IsrEnter)
        .collect();
    for w in enters.windows(2) {
        let gap = w[1].ts.unwrap() - w[0].ts.unwrap();
        assert!((11_000..13_000).contains(&gap), "tick gap {gap}");
    }
    let values = names(&frames, EventKind::Valmarker);
    assert!(values.len() > 10);
}

/// The value of `name=` among a frame's fields.
fn field(frame: &Frame, name: &str) -> u64 {
    let prefix = format!("{name}=");
    let value = frame
        .fields
        .split(' ')
        .find_map(|f| f.strip_prefix(&prefix));
    value
        .unwrap_or_else(|| panic!("{frame:?}: no {name}"))
        .parse()
        .unwrap()
}

/// The heap events against the firmware's line `heap: allocations=N
/// failed=N frees=N peak=N in_use=N heap_used_at_peak=N`.
fn check_heap(frames: &[Frame], printed: &str) {
    let line = printed.lines().find_map(|l| l.strip_prefix("heap: "));
    let counts: Vec<(&str, u64)> = line
        .expect("the firmware prints its heap counts")
        .split(' ')
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap();
            (name, value.parse().unwrap())
        })
        .collect();
    let count = |name: &str| counts.iter().find(|(n, _)| *n == name).unwrap().1;
    assert_eq!(
        names(frames, EventKind::HeapName),
        ["heap_id=1 total_size=1024 name=heap"]
    );
    let mut traced = [0u64; 3];
    let (mut in_use, mut peak) = (0, 0);
    for frame in frames {
        match frame.kind {
            EventKind::HeapAlloc if field(frame, "addr") == 0 => traced[1] += 1,
            EventKind::HeapAlloc => {
                traced[0] += 1;
                in_use += field(frame, "size");
                peak = peak.max(in_use);
            }
            EventKind::HeapFree => {
                traced[2] += 1;
                in_use -= field(frame, "size");
            }
            _ => {}
        }
    }
    let counted = [count("allocations"), count("failed"), count("frees")];
    assert_eq!(traced, counted, "allocations, failed, frees");
    assert!(counted[1] > 0);
    assert_eq!(peak, count("peak"));
    assert_eq!(peak, count("heap_used_at_peak"), "the heap's own count");
    assert_eq!(in_use, count("in_use"));
}
