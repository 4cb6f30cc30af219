//! The FreeRTOS example application (`firmware/freertos/`) on Cortex-M3,
//! traced by SEGGER SystemView instead of tband (`make TRACER=systemview`):
//! run in QEMU's mps2-an385 held for a GDB client, its `SysView` RTT
//! channel recorded by `tband-capture` through QEMU's gdbstub until the
//! application exits, and the recording read by the tools against the
//! application's record: every task it created is named with its
//! priority, the busy task's CPU time is within 2 % of the kernel's
//! measure, and nothing is damaged. This is how
//! `tests/corpus/systemview/freertos_cm3.sysview` was made. Built with
//! `-DSYSTEMVIEW_WAIT_FOR_HOST`, the target waits for SystemView's start
//! command, which `tband-capture --start systemview` sends on the down
//! channel; the recording is then the same application's record, and
//! without the command there is none.
//!
//! SystemView's target sources are found in `segger-systemview-3.58/` of
//! the folder `TBAND_VENDOR_TRACERS` names, the kernel through
//! `FREERTOS_KERNEL_PATH`; the build needs `arm-none-eabi-gcc` with newlib
//! and `qemu-system-arm`. Without any of them the test skips with a
//! message, and fails instead when `TBAND_REQUIRE_VENDOR_TRACERS=1` (as in
//! CI).

use std::path::Path;
use std::time::Duration;

use tband_capture::start::Start;
use tband_trace::InputFormat;

mod example;
use example::{
    build_systemview, check_tasks_and_busy_time, open_recording, record_systemview,
    record_systemview_unstarted, systemview_sources,
};

/// The run's length the corpus recording was made with.
const RUN_NS: &str = "500000000ull";

#[test]
fn the_systemview_recording_is_the_applications_record() {
    let Some((systemview, kernel)) = systemview_sources() else {
        return;
    };
    let cppflags = format!("-DRUN_NS={RUN_NS}");
    let (dir, firmware) =
        build_systemview(&systemview, &kernel, "freertos-cm3-systemview", &cppflags);
    let recording = record_systemview(&dir, &firmware, None);
    assert_is_the_applications_record(&dir, &recording);
}

#[test]
fn a_target_that_waits_is_started_by_the_capture() {
    let Some((systemview, kernel)) = systemview_sources() else {
        return;
    };
    let cppflags = format!("-DRUN_NS={RUN_NS} -DSYSTEMVIEW_WAIT_FOR_HOST");
    let (dir, firmware) = build_systemview(
        &systemview,
        &kernel,
        "freertos-cm3-systemview-wait",
        &cppflags,
    );
    let recording = record_systemview(&dir, &firmware, Some(Start::Systemview));
    assert_is_the_applications_record(&dir, &recording);
    // The default build sends its first packets as soon as it runs; this
    // one, not started, sends nothing.
    let unstarted = record_systemview_unstarted(&dir, &firmware, Duration::from_secs(2));
    assert_eq!(std::fs::metadata(unstarted).unwrap().len(), 0);
}

/// Checks the recording against the record the application wrote into
/// `truth.txt` in `dir`.
fn assert_is_the_applications_record(dir: &Path, recording: &Path) {
    let model = &open_recording(recording, InputFormat::Systemview);
    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let truth = std::fs::read_to_string(dir.join("truth.txt")).unwrap();
    check_tasks_and_busy_time(model, &truth);
}
