//! Counts the instructions of one poll on embassy's thread-mode executor,
//! traced (feature `trace`: embassy's trace hooks into tband's snapshot)
//! or not: run with QEMU's `-icount shift=0`, where one instruction takes
//! one nanosecond of virtual time and SysTick counts 12 MHz cycles of it.
//! One task yields `ROUNDS` times: each round is the executor's way from
//! one poll of the task to the next (wake, idle, poll start, the poll).
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;
use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use embassy_executor::Executor;
use tband_embassy_cortex_m3::{counted, exit, yield_once};

const ROUNDS: u32 = 256;
/// SysTick reload: the clock wraps every 2^24 cycles.
const RELOAD: u32 = 0x00FF_FFFF;
/// Nanoseconds (= instructions under `-icount shift=0`) per 1000 cycles at 12 MHz.
const NS_PER_1000_CYCLES: u64 = 83_333;

static POLLS: AtomicU32 = AtomicU32::new(0);

/// SysTick's down-counter as an up-counting cycle count.
fn now() -> u32 {
    RELOAD - SYST::get_current()
}

#[cfg(feature = "trace")]
struct Port;

#[cfg(feature = "trace")]
impl tband::Port for Port {
    fn ts_resolution_ns() -> u64 {
        83
    }
    fn timestamp() -> u64 {
        u64::from(now())
    }
}

#[cfg(feature = "trace")]
tband::set_port!(Port);

#[embassy_executor::task]
async fn yielder() {
    // One round first, so that the measured ones start in a poll.
    yield_once().await;
    let start = now();
    counted(&POLLS, async {
        for _ in 0..ROUNDS {
            yield_once().await;
        }
    })
    .await;
    let cycles = u64::from(now().wrapping_sub(start) & RELOAD);
    let rounds = u64::from(POLLS.load(Ordering::Relaxed) - 1);
    let per_round = cycles * NS_PER_1000_CYCLES / 1000 / rounds;
    let traced = if cfg!(feature = "trace") {
        "traced"
    } else {
        "untraced"
    };
    hprintln!(
        "embassy poll: {} instructions per poll ({})",
        per_round,
        traced
    );
    #[cfg(feature = "trace")]
    {
        let recording = tband::snapshot_state(0) == Some(tband::SnapshotState::Recording);
        let mut recorded = 0;
        tband::read_snapshot(0, |bytes| recorded += bytes.len());
        hprintln!("{} bytes recorded", recorded);
        exit(recording && tband::dropped_events(0) == 0);
    }
    #[cfg(not(feature = "trace"))]
    exit(true)
}

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("taken once at start");
    cp.SYST.set_clock_source(SystClkSource::Core);
    cp.SYST.set_reload(RELOAD);
    cp.SYST.clear_current();
    cp.SYST.enable_counter();
    #[cfg(feature = "trace")]
    tband::embassy::start();
    static mut EXECUTOR: Option<Executor> = None;
    // SAFETY: main runs once and never returns; nothing else uses it.
    let executor = unsafe { (*core::ptr::addr_of_mut!(EXECUTOR)).insert(Executor::new()) };
    executor.run(|spawner| spawner.spawn(yielder().unwrap()))
}
