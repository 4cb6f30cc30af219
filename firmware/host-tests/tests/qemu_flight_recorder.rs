//! The QEMU example firmware (`firmware/qemu-cortex-m3`) built with its
//! post-mortem transport: it runs its loop, then `task_b` reads through a
//! misaligned pointer and faults; the HardFault handler records the fault
//! and waits. `tband-capture --flight-recorder` reads its ring through
//! QEMU's gdbstub: the ring went round many times, yet its oldest event is
//! whole and nothing after it is lost; the trace ends with the events the
//! firmware recorded last; its last anomaly is the fault in `task_b`, an
//! unaligned access, whose PC is the line of `read_sensor` that reads.
//! Without qemu-system-arm or the rustup target the test says why and
//! passes, unless TBAND_REQUIRE_QEMU=1.

use std::path::Path;

use tband_capture::flight_cli::{run, Memory, Options};
use tband_host_tests::event_lines::trace_with_event_lines;
use tband_host_tests::qemu::{self, build_firmware, run_until_fault, Console};
use tband_model::AnomalyKind;
use tband_trace::symbols::Symbols;

/// The line of the firmware's source that faults.
fn faulting_line() -> usize {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../qemu-cortex-m3/src/postmortem.rs");
    let text = std::fs::read_to_string(source).unwrap();
    1 + text
        .lines()
        .position(|l| l.contains("// the bad dereference"))
        .expect("postmortem.rs marks its bad dereference")
}

#[test]
fn rust_firmware_crash_is_read_through_the_gdbstub() {
    if !qemu::tools_present() {
        return;
    }
    let elf = build_firmware("postmortem");
    let (mut qemu, address) = run_until_fault(&mut qemu::qemu(), &elf, Console::Stdout);
    let trace = elf.with_file_name("crash.bin");
    let options = Options {
        elf: elf.clone(),
        memory: Memory::Gdb(address),
        output: trace.clone(),
    };
    let mut report = Vec::new();
    let read = run(&options, &mut report);
    qemu.kill().unwrap();
    qemu.wait().unwrap();
    read.unwrap();
    let report = String::from_utf8(report).unwrap();
    println!("{report}");

    let core = report.lines().find(|l| l.starts_with("core 0:")).unwrap();
    let before = &core[..core.find(" event(s) overwritten").unwrap()];
    let overwritten: u64 = before.rsplit(' ').next().unwrap().parse().unwrap();

    let (mut built, last) = trace_with_event_lines(&trace);
    let model = &mut built.model;
    assert_eq!(model.info.invalid_frames, 0);
    // The ring went round many times: what it dropped is many times what
    // it holds.
    assert!(overwritten > 4 * last.len() as u64, "{core}");
    let fault = model.faults[0].clone();
    let unaligned = 1 << 24;
    let status = fault.status.unwrap();
    assert_eq!(status.cfsr, unaligned);
    assert_eq!(
        last[last.len() - 6..],
        [
            "task_switched_in task_id=0x2".to_string(),
            "evtmarker_begin evtmarker_id=0x2 msg=last turn".to_string(),
            "evtmarker evtmarker_id=0x4 msg=read 0x20000002".to_string(),
            format!(
                "fault_status xpsr={:#x} cfsr={unaligned:#x} hfsr=0x40000000",
                status.xpsr
            ),
            "fault_address mmfar=0x0 bfar=0x0".to_string(),
            format!("fault kind=0x3 pc={:#x} lr={:#x}", fault.pc, fault.lr),
        ]
    );
    let anomaly = model.anomalies.last().unwrap();
    assert_eq!(anomaly.kind, AnomalyKind::Fault);
    Symbols::read(&elf).unwrap().locate_faults(model);
    let fault = &model.faults[0];
    assert_eq!(model.tasks[fault.task.unwrap() as usize].name, "task_b");
    let at = format!("read_sensor at postmortem.rs:{}", faulting_line());
    let pc = fault.pc_location.as_deref().unwrap();
    assert!(pc.ends_with(&at), "{pc}");
    let crash = report.lines().find(|l| l.starts_with("crash: ")).unwrap();
    assert!(
        crash.contains("task task_b crashed in ")
            && crash.contains(&at)
            && crash.ends_with("HardFault: escalated, unaligned access"),
        "{crash}"
    );
}
