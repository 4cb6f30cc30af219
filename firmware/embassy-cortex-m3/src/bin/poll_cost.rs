//! Counts the instructions of one poll on embassy's thread-mode executor,
//! traced (feature `trace`: embassy's trace hooks into tband's snapshot)
//! or not: run with QEMU's `-icount shift=0`, where one instruction takes
//! one nanosecond of virtual time and SysTick counts 12 MHz cycles of it.
//! One task yields `ROUNDS` times: each round is the executor's way from
//! one poll of the task to the next (wake, idle, poll start, the poll).
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use embassy_executor::Executor;
use tband_embassy_cortex_m3::cost::{cycles_since, finish, instructions_per_round, now, start_clock};
use tband_embassy_cortex_m3::{counted, yield_once};

const ROUNDS: u32 = 256;

static POLLS: AtomicU32 = AtomicU32::new(0);

#[cfg(feature = "trace")]
tband::set_port!(tband_embassy_cortex_m3::cost::CyclePort);

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
    let cycles = cycles_since(start);
    let rounds = u64::from(POLLS.load(Ordering::Relaxed) - 1);
    let per_round = instructions_per_round(cycles, rounds);
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
    finish()
}

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("taken once at start");
    start_clock(&mut cp.SYST);
    #[cfg(feature = "trace")]
    tband::embassy::start();
    static mut EXECUTOR: Option<Executor> = None;
    // SAFETY: main runs once and never returns; nothing else uses it.
    let executor = unsafe { (*core::ptr::addr_of_mut!(EXECUTOR)).insert(Executor::new()) };
    executor.run(|spawner| spawner.spawn(yielder().unwrap()))
}
