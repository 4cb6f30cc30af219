//! Counts the instructions of one defmt log line through tband's global
//! logger (feature `trace`: each line a `defmt_frame` event in tband's
//! snapshot) or through defmt's own RTT logger (feature `defmt-rtt`, an
//! RTT up channel nobody reads, large enough never to fill): run with
//! QEMU's `-icount shift=0`, where one instruction takes one nanosecond
//! of virtual time and SysTick counts 12 MHz cycles of it. `LINES` lines
//! of one call site, a counter and a timestamp as arguments, as a log
//! line in a loop would be.
#![no_std]
#![no_main]

#[cfg(all(feature = "trace", feature = "defmt-rtt"))]
compile_error!("defmt_cost: choose one logger, feature `trace` or `defmt-rtt`");
#[cfg(not(any(feature = "trace", feature = "defmt-rtt")))]
compile_error!("defmt_cost: choose a logger, feature `trace` or `defmt-rtt`");

#[cfg(feature = "defmt-rtt")]
use defmt_rtt as _;

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use tband_embassy_cortex_m3::cost::{cycles_since, finish, instructions_per_round, now, start_clock};

const LINES: u32 = 128;

#[cfg(feature = "trace")]
tband::set_port!(tband_embassy_cortex_m3::cost::CyclePort);

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("taken once at start");
    start_clock(&mut cp.SYST);
    #[cfg(feature = "trace")]
    tband::trigger_snapshot();
    // One line first, so that the measured ones find everything set up.
    defmt::info!("line {=u32} at {=u32}", 0, now());
    let start = now();
    for i in 1..=LINES {
        defmt::info!("line {=u32} at {=u32}", i, now());
    }
    let cycles = cycles_since(start);
    let per_line = instructions_per_round(cycles, u64::from(LINES));
    let logger = if cfg!(feature = "trace") {
        "tband"
    } else {
        "defmt-rtt"
    };
    hprintln!(
        "defmt line: {} instructions per line ({})",
        per_line,
        logger
    );
    finish()
}
