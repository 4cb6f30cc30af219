//! What the example and the cost programs share: a future that counts its
//! polls, one yield to the executor, and the end of a run by semihosting;
//! and what the cost programs share among themselves ([`cost`]).
#![no_std]

use cortex_m_semihosting::debug;

pub mod cost;

pub use tband_poll_count::{counted, yield_once};

/// Ends QEMU: success or failure.
pub fn exit(success: bool) -> ! {
    debug::exit(if success {
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
    exit(false)
}
