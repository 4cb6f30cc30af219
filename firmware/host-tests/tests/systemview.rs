//! The FreeRTOS example application (`firmware/freertos/`) on Cortex-M3,
//! traced by SEGGER SystemView instead of tband (`make TRACER=systemview`):
//! run in QEMU's mps2-an385 held for a GDB client, its `SysView` RTT
//! channel recorded by `tband-capture` through QEMU's gdbstub until the
//! application exits, and the recording read by the tools against the
//! application's record: every task it created is named with its
//! priority, the busy task's CPU time is within 2 % of the kernel's
//! measure, and nothing is damaged. This is how
//! `tests/corpus/systemview/freertos_cm3.sysview` was made.
//!
//! SystemView's target sources are found in `segger-systemview-3.58/` of
//! the folder `TBAND_VENDOR_TRACERS` names, the kernel through
//! `FREERTOS_KERNEL_PATH`; the build needs `arm-none-eabi-gcc` with newlib
//! and `qemu-system-arm`. Without any of them the test skips with a
//! message, and fails instead when `TBAND_REQUIRE_VENDOR_TRACERS=1` (as in
//! CI).

use tband_trace::InputFormat;

mod example;
use example::{
    build_systemview, check_tasks_and_busy_time, open_recording, record_systemview,
    systemview_sources,
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
    let recording = record_systemview(&dir, &firmware);
    let model = &open_recording(&recording, InputFormat::Systemview);
    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let truth = std::fs::read_to_string(dir.join("truth.txt")).unwrap();
    check_tasks_and_busy_time(model, &truth);
}
