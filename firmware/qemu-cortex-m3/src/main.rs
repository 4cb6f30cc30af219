//! A small cooperative firmware on QEMU's lm3s6965evb (Cortex-M3): two
//! tasks take turns in a loop while SysTick interrupts every millisecond.
//! tband records the interrupts (as an ISR), each task's turns (event
//! marker spans), an instant per tick seen, and a counter (value marker)
//! with the snapshot backend. When the snapshot is full or 40 ticks have
//! passed, the firmware writes metadata + snapshot to `trace.bin` in QEMU's
//! working directory by semihosting and exits.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::{SCB, SYST};
use cortex_m_rt::{entry, exception};
use cortex_m_semihosting::{debug, syscall};

/// SysTick counts core clock cycles; QEMU runs this board at 12 MHz.
const CLOCK_HZ: u32 = 12_000_000;
/// One SysTick interrupt per millisecond.
const RELOAD: u32 = CLOCK_HZ / 1000 - 1;
/// SysTick is exception 15; tband ISR ids are ours to choose.
const SYSTICK_ISR: u32 = 15;
const TICKS_TO_RECORD: u32 = 40;

const MARKER_TASK_A: u32 = 1;
const MARKER_TASK_B: u32 = 2;
const MARKER_TICK: u32 = 3;
const VALUE_COUNTER: u32 = 1;

static TICKS: AtomicU32 = AtomicU32::new(0);

/// Time in clock cycles since start: whole SysTick periods plus the
/// current count. Called with interrupts masked (inside tband's critical
/// section), so a wrap that happened since the last interrupt shows as a
/// pending SysTick and is counted here; the handler counts its own wrap
/// before it traces.
fn cycles() -> u64 {
    let ticks = TICKS.load(Ordering::Relaxed);
    let current = SYST::get_current();
    let mut periods = u64::from(ticks);
    let mut elapsed = RELOAD - current;
    if SCB::is_pendst_pending() {
        periods += 1;
        elapsed = RELOAD - SYST::get_current();
    }
    periods * u64::from(RELOAD + 1) + u64::from(elapsed)
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

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("taken once at start");

    tband::gather_system_metadata();
    tband::isr_name(SYSTICK_ISR, "SysTick");
    tband::evtmarker_name(MARKER_TASK_A, "task_a");
    tband::evtmarker_name(MARKER_TASK_B, "task_b");
    tband::evtmarker_name(MARKER_TICK, "tick_seen");
    tband::valmarker_name(VALUE_COUNTER, "counter");

    cp.SYST.set_clock_source(SystClkSource::Core);
    cp.SYST.set_reload(RELOAD);
    cp.SYST.clear_current();
    tband::trigger_snapshot();
    cp.SYST.enable_interrupt();
    cp.SYST.enable_counter();

    let mut counter: i64 = 0;
    let mut last_tick = 0;
    while TICKS.load(Ordering::Relaxed) < TICKS_TO_RECORD
        && tband::snapshot_state(0) == Some(tband::SnapshotState::Recording)
    {
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
        }
        tband::evtmarker_end(MARKER_TASK_B);
    }
    cp.SYST.disable_interrupt();
    cp.SYST.disable_counter();
    tband::stop_snapshot();

    let written = write_host_file(b"trace.bin\0");
    debug::exit(if written {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::wfi();
    }
}

/// Writes metadata buffer + snapshot to a host file (NUL-terminated name).
fn write_host_file(name: &[u8]) -> bool {
    const MODE_WRITE_BINARY: usize = 5;
    // SAFETY: semihosting calls with valid pointers and lengths.
    let fd = unsafe { syscall!(OPEN, name.as_ptr(), MODE_WRITE_BINARY, name.len() - 1) };
    if fd as isize == -1 {
        return false;
    }
    let mut ok = true;
    tband::read_snapshot(0, |part| {
        // SAFETY: as above; WRITE returns the number of bytes not written.
        ok &= unsafe { syscall!(WRITE, fd, part.as_ptr(), part.len()) } == 0;
    });
    // SAFETY: as above.
    ok & (unsafe { syscall!(CLOSE, fd) } == 0)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
