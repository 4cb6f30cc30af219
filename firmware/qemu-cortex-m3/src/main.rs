//! A small cooperative firmware on QEMU's lm3s6965evb (Cortex-M3): two
//! tasks take turns in a loop while SysTick interrupts every millisecond.
//! tband records the interrupts (as an ISR), each task's turns (event
//! marker spans), an instant per tick seen, a counter (value marker), and
//! the allocations and frees of its global allocator at start (`heap`).
//! The cargo feature picks how the trace leaves the target (see
//! `transport`): a snapshot written to `trace.bin` by semihosting (the
//! default), or a stream over UART0 or an RTT channel, after which the
//! firmware prints by semihosting how many events it traced; or kept in the
//! post-mortem ring until a fault on purpose (`postmortem`), for a debugger
//! to read.
#![no_std]
#![no_main]

#[cfg(not(any(
    feature = "snapshot",
    feature = "stream-uart",
    feature = "stream-rtt",
    feature = "postmortem"
)))]
compile_error!(
    "choose how the trace leaves the target: feature snapshot, stream-uart, stream-rtt or postmortem"
);

#[cfg(any(feature = "stream-uart", feature = "stream-rtt"))]
mod stream;
#[cfg_attr(feature = "snapshot", path = "snapshot.rs")]
#[cfg_attr(feature = "stream-uart", path = "uart.rs")]
#[cfg_attr(feature = "stream-rtt", path = "rtt.rs")]
#[cfg_attr(feature = "postmortem", path = "postmortem.rs")]
mod transport;

extern crate alloc;
mod heap;

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::{SCB, SYST};
use cortex_m_rt::{entry, exception};
use cortex_m_semihosting::debug;
/// SysTick counts core clock cycles; QEMU runs this board at 12 MHz.
const CLOCK_HZ: u32 = 12_000_000;
/// One SysTick interrupt per millisecond.
const RELOAD: u32 = CLOCK_HZ / 1000 - 1;
/// SysTick is exception 15; tband ISR ids are ours to choose.
const SYSTICK_ISR: u32 = 15;

const MARKER_TASK_A: u32 = 1;
const MARKER_TASK_B: u32 = 2;
const MARKER_TICK: u32 = 3;
const VALUE_COUNTER: u32 = 1;

static TICKS: AtomicU32 = AtomicU32::new(0);

/// Time in clock cycles since start: whole SysTick periods plus the
/// current count. Called with interrupts masked (inside tband's critical
/// section), so a wrap that happened since the last interrupt shows as a
/// pending SysTick and is counted here; the handler counts its own wrap
/// before it traces. The counter pends the interrupt as it reaches 0, the
/// last cycle of the period that ends: only once it has reloaded does the
/// next period count.
fn cycles() -> u64 {
    let ticks = TICKS.load(Ordering::Relaxed);
    let mut current = SYST::get_current();
    let mut periods = u64::from(ticks);
    if SCB::is_pendst_pending() {
        current = SYST::get_current();
        if current != 0 {
            periods += 1;
        }
    }
    periods * u64::from(RELOAD + 1) + u64::from(RELOAD - current)
}

struct QemuPort;

impl tband::Port for QemuPort {
    fn ts_resolution_ns() -> u64 {
        // 83.3 ns per cycle at 12 MHz, rounded.
        u64::from(1_000_000_000 / CLOCK_HZ)
    }

    fn timestamp() -> u64 {
        cycles()
    }

    fn stream_write(core: usize, bytes: &[u8]) -> bool {
        transport::stream_write(core, bytes)
    }
}

tband::set_port!(QemuPort);

#[exception]
fn SysTick() {
    TICKS.fetch_add(1, Ordering::Relaxed);
    tband::isr_enter(SYSTICK_ISR);
    tband::isr_exit(SYSTICK_ISR);
}

/// Some work for a task's turn, so that spans have a length.
fn work(rounds: u32) -> u32 {
    let mut x = rounds;
    for i in 0..rounds * 50 {
        x = x.wrapping_mul(1_664_525).wrapping_add(i);
    }
    core::hint::black_box(x)
}

/// How many events of each kind the firmware traced, for the host to check
/// a captured stream against.
#[derive(Default)]
pub struct Counts {
    pub isr_enter: u32,
    pub isr_exit: u32,
    pub evtmarker_begin: u32,
    pub evtmarker_end: u32,
    pub evtmarker: u32,
    pub valmarker: u32,
}

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("taken once at start");
    transport::set_up();

    tband::gather_system_metadata();
    tband::isr_name(SYSTICK_ISR, "SysTick");
    tband::evtmarker_name(MARKER_TASK_A, "task_a");
    tband::evtmarker_name(MARKER_TASK_B, "task_b");
    tband::evtmarker_name(MARKER_TICK, "tick_seen");
    tband::valmarker_name(VALUE_COUNTER, "counter");
    heap::set_up();

    cp.SYST.set_clock_source(SystClkSource::Core);
    cp.SYST.set_reload(RELOAD);
    cp.SYST.clear_current();
    transport::start();
    cp.SYST.enable_interrupt();
    cp.SYST.enable_counter();
    heap::exercise();

    let mut counts = Counts::default();
    let mut counter: i64 = 0;
    let mut last_tick = 0;
    while transport::keep_recording(TICKS.load(Ordering::Relaxed)) {
        tband::evtmarker_begin(MARKER_TASK_A, "turn");
        counter += i64::from(work(20) % 7);
        tband::valmarker(VALUE_COUNTER, counter);
        tband::evtmarker_end(MARKER_TASK_A);

        tband::evtmarker_begin(MARKER_TASK_B, "");
        work(35);
        let tick = TICKS.load(Ordering::Relaxed);
        if tick != last_tick {
            tband::evtmarker(MARKER_TICK, "new tick");
            last_tick = tick;
            counts.evtmarker += 1;
        }
        tband::evtmarker_end(MARKER_TASK_B);
        counts.evtmarker_begin += 2;
        counts.evtmarker_end += 2;
        counts.valmarker += 1;
    }
    cp.SYST.disable_interrupt();
    cp.SYST.disable_counter();
    // Every SysTick since the counter started ran while recording.
    counts.isr_enter = TICKS.load(Ordering::Relaxed);
    counts.isr_exit = counts.isr_enter;

    let done = transport::finish(&counts);
    debug::exit(if done {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
