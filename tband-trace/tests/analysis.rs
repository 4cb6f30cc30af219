//! The analyses on a real recording.

use tband_model::analysis::Analysis;
use tband_trace::Trace;

#[test]
fn real_trace_time_adds_up() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/tband/freertos_small.bin"
    );
    let m = Trace::open(&[path.to_string()], &Default::default())
        .unwrap()
        .model;
    let a = Analysis::of(&m);
    let scheduled: u64 = m.sched_slices.iter().map(|s| s.end_ns - s.start_ns).sum();
    let split: u64 = a.tasks.iter().map(|t| t.run_ns + t.isr_ns).sum();
    assert_eq!(scheduled, split);
    let isr_total: u64 = a.tasks.iter().map(|t| t.isr_ns).sum();
    assert!(isr_total > 0, "the simulated IRQ interrupts tasks");
    let c = a.cores[0];
    assert!(c.isr_ns >= isr_total);
    assert!(a.core_load(0) > 0.0 && a.core_load(0) < 100.0);
}
