//! What the measuring programs share: the port (SysTick as the clock), the
//! semihosting exit, and inputs the compiler cannot see through.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::SYST;
use cortex_m_semihosting::debug;

/// SysTick reload: the clock wraps every 2^24 cycles.
pub const RELOAD: u32 = 0x00FF_FFFF;

static INPUT: AtomicU32 = AtomicU32::new(7);

/// A value the optimiser must treat as unknown.
#[inline(always)]
pub fn opaque() -> u32 {
    INPUT.load(Ordering::Relaxed)
}

/// SysTick's down-counter as an up-counting cycle count.
#[inline(always)]
pub fn now() -> u32 {
    RELOAD - SYST::get_current()
}

#[cfg(feature = "isr-markers")]
struct Port;

#[cfg(feature = "isr-markers")]
impl tband::Port for Port {
    fn ts_resolution_ns() -> u64 {
        83
    }
    fn timestamp() -> u64 {
        u64::from(now())
    }
}

#[cfg(feature = "isr-markers")]
tband::set_port!(Port);

pub fn exit() -> ! {
    debug::exit(debug::EXIT_SUCCESS);
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
