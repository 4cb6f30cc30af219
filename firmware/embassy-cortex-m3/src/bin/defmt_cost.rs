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

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;
use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use tband_embassy_cortex_m3::exit;

const LINES: u32 = 128;
/// SysTick reload: the clock wraps every 2^24 cycles.
const RELOAD: u32 = 0x00FF_FFFF;
/// Nanoseconds (= instructions under `-icount shift=0`) per 1000 cycles at 12 MHz.
const NS_PER_1000_CYCLES: u64 = 83_333;

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

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("taken once at start");
    cp.SYST.set_clock_source(SystClkSource::Core);
    cp.SYST.set_reload(RELOAD);
    cp.SYST.clear_current();
    cp.SYST.enable_counter();
    #[cfg(feature = "trace")]
    tband::trigger_snapshot();
    // One line first, so that the measured ones find everything set up.
    defmt::info!("line {=u32} at {=u32}", 0, now());
    let start = now();
    for i in 1..=LINES {
        defmt::info!("line {=u32} at {=u32}", i, now());
    }
    let cycles = u64::from(now().wrapping_sub(start) & RELOAD);
    let per_line = cycles * NS_PER_1000_CYCLES / 1000 / u64::from(LINES);
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
