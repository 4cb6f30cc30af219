//! Counts the instructions of `isr_enter` into the snapshot backend on
//! QEMU: run with `-icount shift=0`, where one instruction takes one
//! nanosecond of virtual time, and SysTick counts 12 MHz cycles of it.
//! Prints instructions per call, from the SysTick cycles of 256 calls
//! minus those of 256 rounds of the bare loop.
#![no_std]
#![no_main]

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use tband_footprint::{exit, now, opaque, RELOAD};

const CALLS: u32 = 256;
/// Nanoseconds (= instructions under `-icount shift=0`) per 1000 cycles at 12 MHz.
const NS_PER_1000_CYCLES: u32 = 83_333;

#[inline(never)]
fn traced(id: u32) {
    #[cfg(feature = "isr-markers")]
    tband::isr_enter(id);
    #[cfg(not(feature = "isr-markers"))]
    core::hint::black_box(id);
}

#[inline(never)]
fn bare(id: u32) {
    core::hint::black_box(id);
}

fn cycles_of(f: fn(u32)) -> u32 {
    let id = opaque();
    let start = now();
    for _ in 0..CALLS {
        f(id);
    }
    now() - start
}

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("taken once at start");
    cp.SYST.set_clock_source(SystClkSource::Core);
    cp.SYST.set_reload(RELOAD);
    cp.SYST.clear_current();
    cp.SYST.enable_counter();
    // The first read after enabling sees the cleared counter, not a count.
    cycles_of(bare);
    #[cfg(feature = "isr-markers")]
    tband::trigger_snapshot();
    // 256 events of at most 8 bytes fit the 4096-byte snapshot: every call
    // stores its frame.
    let traced = cycles_of(traced);
    let bare = cycles_of(bare);
    let per_call = (traced - bare) as u64 * u64::from(NS_PER_1000_CYCLES) / 1000 / u64::from(CALLS);
    hprintln!(
        "isr_enter: {} instructions per call (snapshot backend)",
        per_call
    );
    #[cfg(feature = "isr-markers")]
    {
        let mut recorded = 0;
        tband::read_snapshot(0, |bytes| recorded += bytes.len());
        hprintln!("{} bytes recorded", recorded);
    }
    exit()
}
