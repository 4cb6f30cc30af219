//! The UART transport: every frame goes out of UART0 as it is traced. On
//! QEMU, `-serial tcp::PORT,server` turns the UART into a TCP server that
//! `tband-capture --tcp` reads.

use core::ptr::{read_volatile, write_volatile};

pub use crate::stream::{keep_recording, start};

use crate::Counts;

/// UART0 of the LM3S6965 (a PL011).
const UART0: usize = 0x4000_C000;
const UARTDR: *mut u32 = UART0 as *mut u32;
const UARTFR: *const u32 = (UART0 + 0x18) as *const u32;
const UARTCTL: *mut u32 = (UART0 + 0x30) as *mut u32;
/// UARTFR: the transmit FIFO is full.
const TXFF: u32 = 1 << 5;
/// UARTCTL: UART and transmitter enabled.
const UARTEN_TXE: u32 = 1 | 1 << 8;
/// RCGC1 of the system control block: clock gating of UART0 (bit 0).
const RCGC1: *mut u32 = 0x400F_E104 as *mut u32;

pub fn set_up() {
    // SAFETY: the documented registers of this chip, written once at start
    // before anything else uses the UART.
    unsafe {
        write_volatile(RCGC1, read_volatile(RCGC1) | 1);
        write_volatile(UARTCTL, UARTEN_TXE);
    }
}

/// Sends the bytes, waiting while the transmit FIFO is full: nothing is
/// ever dropped, the link's speed is the limit.
pub fn stream_write(_core: usize, bytes: &[u8]) -> bool {
    for &byte in bytes {
        // SAFETY: UART0's flag and data registers.
        unsafe {
            while read_volatile(UARTFR) & TXFF != 0 {}
            write_volatile(UARTDR, u32::from(byte));
        }
    }
    true
}

pub fn finish(counts: &Counts) -> bool {
    tband::stop_streaming();
    crate::stream::report(counts);
    true
}
