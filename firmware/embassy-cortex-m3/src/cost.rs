//! What the cost programs share: SysTick as a free-running cycle counter,
//! tband's port on it, and the end of a run. Under QEMU's `-icount
//! shift=0` one instruction takes one nanosecond of virtual time, and
//! SysTick counts 12 MHz cycles of it.

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;

use crate::exit;

/// SysTick reload: the clock wraps every 2^24 cycles.
const RELOAD: u32 = 0x00FF_FFFF;
/// Nanoseconds (= instructions under `-icount shift=0`) per 1000 cycles at 12 MHz.
const NS_PER_1000_CYCLES: u64 = 83_333;

/// Starts SysTick counting core cycles, without interrupts.
pub fn start_clock(syst: &mut SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(RELOAD);
    syst.clear_current();
    syst.enable_counter();
}

/// SysTick's down-counter as an up-counting cycle count.
pub fn now() -> u32 {
    RELOAD - SYST::get_current()
}

/// Cycles since `start` (an earlier [`now`]), less than one wrap ago.
pub fn cycles_since(start: u32) -> u64 {
    u64::from(now().wrapping_sub(start) & RELOAD)
}

/// Instructions per round, of `rounds` rounds that took `cycles`.
pub fn instructions_per_round(cycles: u64, rounds: u64) -> u64 {
    cycles * NS_PER_1000_CYCLES / 1000 / rounds
}

/// tband's port on the cycle counter.
#[cfg(feature = "trace")]
pub struct CyclePort;

#[cfg(feature = "trace")]
impl tband::Port for CyclePort {
    fn ts_resolution_ns() -> u64 {
        83
    }
    fn timestamp() -> u64 {
        u64::from(now())
    }
}

/// Ends the run. Traced, it prints the bytes the snapshot recorded and
/// succeeds only if the snapshot still records and dropped nothing.
pub fn finish() -> ! {
    #[cfg(feature = "trace")]
    {
        let recording = tband::snapshot_state(0) == Some(tband::SnapshotState::Recording);
        let mut recorded = 0;
        tband::read_snapshot(0, |bytes| recorded += bytes.len());
        cortex_m_semihosting::hprintln!("{} bytes recorded", recorded);
        exit(recording && tband::dropped_events(0) == 0);
    }
    #[cfg(not(feature = "trace"))]
    exit(true)
}
