//! A crash on the timeline: one call from the fault handler records the
//! fault's kind and the registers a Cortex-M fault handler has (the fault
//! events, ids 160–162), and freezes the post-mortem ring so that the
//! crash stays its last event until a debugger reads it out.

use crate::global::event;
use crate::Event;

/// What faulted: the number of the exception whose handler records it
/// (Cortex-M's numbering), or 0 for a fault the software found itself
/// (a failed assertion, a panic).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    Software = 0,
    NonMaskable = 2,
    HardFault = 3,
    MemManage = 4,
    BusFault = 5,
    UsageFault = 6,
    SecureFault = 7,
}

/// The registers of a fault, as its handler finds them (0 where the core
/// has no such register or the handler does not read it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// The faulting instruction (the stacked PC).
    pub pc: u32,
    /// The stacked LR: where the faulting function was called from.
    pub lr: u32,
    pub xpsr: u32,
    /// Configurable Fault Status Register.
    pub cfsr: u32,
    /// HardFault Status Register.
    pub hfsr: u32,
    /// MemManage Fault Address Register.
    pub mmfar: u32,
    /// BusFault Address Register.
    pub bfar: u32,
}

impl Fault {
    /// The fault of a Cortex-M exception handler: the PC, LR and xPSR
    /// from the exception `frame` the core stacked (R0–R3, R12, LR, PC,
    /// xPSR), the status and address registers from the System Control
    /// Block.
    #[cfg(target_arch = "arm")]
    pub fn cortex_m(kind: FaultKind, frame: &[u32; 8]) -> Self {
        let scb = |addr: usize| {
            // SAFETY: the System Control Block's fault registers, readable
            // on every Cortex-M with them (v7-M and later).
            unsafe { core::ptr::read_volatile(addr as *const u32) }
        };
        Fault {
            kind,
            pc: frame[6],
            lr: frame[5],
            xpsr: frame[7],
            cfsr: scb(0xE000_ED28),
            hfsr: scb(0xE000_ED2C),
            mmfar: scb(0xE000_ED34),
            bfar: scb(0xE000_ED38),
        }
    }
}

/// Records `fault` on the running core, then freezes the post-mortem ring
/// (when that is the backend) so that the fault stays its last event.
pub fn fault(fault: &Fault) {
    record(fault.kind as u8, fault);
}

/// Records `fault` as of kind `kind` (the C ABI passes any number).
pub(crate) fn record(kind: u8, fault: &Fault) {
    event(Event::FaultStatus {
        xpsr: fault.xpsr,
        cfsr: fault.cfsr,
        hfsr: fault.hfsr,
    });
    event(Event::FaultAddress {
        mmfar: fault.mmfar,
        bfar: fault.bfar,
    });
    event(Event::Fault {
        kind,
        pc: fault.pc,
        lr: fault.lr,
    });
    #[cfg(feature = "postmortem")]
    crate::stop_postmortem();
}
