//! The C ABI of the fault events.

use crate::fault::{self, Fault, FaultKind};

/// Records a fault of kind `kind` (the exception number of the handler
/// that records it, 0 for a fault the software found) with its
/// registers, then freezes the post-mortem ring; see [`fault::fault`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn tband_fault(
    kind: u8,
    pc: u32,
    lr: u32,
    xpsr: u32,
    cfsr: u32,
    hfsr: u32,
    mmfar: u32,
    bfar: u32,
) {
    let registers = Fault {
        kind: FaultKind::Software,
        pc,
        lr,
        xpsr,
        cfsr,
        hfsr,
        mmfar,
        bfar,
    };
    fault::record(kind, &registers);
}
