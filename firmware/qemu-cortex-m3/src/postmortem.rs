//! The post-mortem transport: the ring records from reset and is never
//! written out. After 200 ticks the loop hands `task_b` (named here as a
//! task, so that the crash has one) a last turn, in which it reads through
//! a bad pointer, a misaligned one (QEMU's lm3s6965evb answers reads of
//! addresses where nothing is with zeros, but a misaligned doubleword read
//! is a UsageFault, escalated to a HardFault); the HardFault handler records the fault with
//! `tband::fault`, prints `fault recorded` by semihosting and waits there,
//! its ring for a debugger to read (`tband-capture --flight-recorder`).

use cortex_m_rt::{exception, ExceptionFrame};
use cortex_m_semihosting::hprintln;
use tband::fault::{fault, Fault, FaultKind};

use crate::{Counts, MARKER_TASK_B};

const TICKS_BEFORE_THE_CRASH: u32 = 200;
const TASK_A: u32 = 1;
const TASK_B: u32 = 2;
const MARKER_CRASH: u32 = 4;
/// Not doubleword-aligned: `ldrd` from it faults.
const BAD_ADDRESS: usize = 0x2000_0002;

pub fn set_up() {
    tband::freertos::task_name(TASK_A, "task_a");
    tband::freertos::task_name(TASK_B, "task_b");
    tband::evtmarker_name(MARKER_CRASH, "crash");
}

pub fn start() {}

pub fn keep_recording(ticks: u32) -> bool {
    ticks < TICKS_BEFORE_THE_CRASH
}

pub fn stream_write(_core: usize, _bytes: &[u8]) -> bool {
    false
}

/// `task_b`'s last turn, which never returns.
pub fn finish(_counts: &Counts) -> bool {
    tband::freertos::task_switched_in(TASK_B);
    tband::evtmarker_begin(MARKER_TASK_B, "last turn");
    read_sensor() != 0
}

#[inline(never)]
fn read_sensor() -> u32 {
    tband::evtmarker(MARKER_CRASH, "read 0x20000002");
    // SAFETY: none: the read faults, on purpose.
    let value = unsafe { core::ptr::read_volatile(BAD_ADDRESS as *const u64) }; // the bad dereference
    value as u32
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    let stacked = [
        frame.r0(),
        frame.r1(),
        frame.r2(),
        frame.r3(),
        frame.r12(),
        frame.lr(),
        frame.pc(),
        frame.xpsr(),
    ];
    fault(&Fault::cortex_m(FaultKind::HardFault, &stacked));
    hprintln!("fault recorded");
    loop {
        cortex_m::asm::wfi();
    }
}
