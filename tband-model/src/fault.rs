//! Crashes: the faults a firmware's fault handler recorded, with the
//! registers it saw, and what they say of the cause (the Cortex-M fault
//! status registers' bits, as the Armv7-M architecture defines them).

use std::fmt::Write;

/// A fault: the last thing a core did before it stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub ts_ns: u64,
    pub core_id: u32,
    /// The task running when it faulted, as an index into
    /// [`Model::tasks`](crate::Model::tasks).
    pub task: Option<u32>,
    /// The ISR running when it faulted (it faulted there, not in `task`),
    /// as an index into [`Model::isrs`](crate::Model::isrs).
    pub isr: Option<u32>,
    /// The exception number of the handler that recorded it (Cortex-M's
    /// numbering), 0 for a fault the software found itself.
    pub kind: u8,
    pub pc: u32,
    pub lr: u32,
    /// The rest of the registers, when their events are in the trace.
    pub status: Option<FaultStatus>,
    pub address: Option<FaultAddress>,
    /// Where `pc` and `lr` are in the firmware's source (function and
    /// line), when its ELF file was given.
    pub pc_location: Option<String>,
    pub lr_location: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultStatus {
    pub xpsr: u32,
    pub cfsr: u32,
    pub hfsr: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultAddress {
    pub mmfar: u32,
    pub bfar: u32,
}

/// The name of fault kind `kind`.
pub fn fault_kind_name(kind: u8) -> &'static str {
    match kind {
        0 => "software fault",
        2 => "NMI",
        3 => "HardFault",
        4 => "MemManage fault",
        5 => "BusFault",
        6 => "UsageFault",
        7 => "SecureFault",
        _ => "fault of another exception",
    }
}

/// CFSR bits and what each says, MemManage (0–7), BusFault (8–15) and
/// UsageFault (16–31) status in turn.
const CFSR_CAUSES: [(u32, &str); 17] = [
    (0, "instruction access violation"),
    (1, "data access violation"),
    (3, "MemManage fault on exception return"),
    (4, "MemManage fault on exception entry"),
    (5, "MemManage fault in lazy FP state preservation"),
    (8, "instruction bus error"),
    (9, "precise data bus error"),
    (10, "imprecise data bus error"),
    (11, "bus error on exception return"),
    (12, "bus error on exception entry"),
    (13, "bus error in lazy FP state preservation"),
    (16, "undefined instruction"),
    (17, "invalid state (Thumb bit clear)"),
    (18, "invalid PC on exception return"),
    (19, "no coprocessor"),
    (24, "unaligned access"),
    (25, "divide by zero"),
];
const MMARVALID: u32 = 1 << 7;
const BFARVALID: u32 = 1 << 15;
const HFSR_VECTTBL: u32 = 1 << 1;
const HFSR_FORCED: u32 = 1 << 30;

impl Fault {
    /// What the registers say the fault was: its kind, and the causes the
    /// status registers give, with the faulting address where valid.
    pub fn cause(&self) -> String {
        let mut text = fault_kind_name(self.kind).to_string();
        let Some(status) = self.status else {
            return text;
        };
        let mut causes = Vec::new();
        if status.hfsr & HFSR_VECTTBL != 0 {
            causes.push("vector table read failed".to_string());
        }
        if status.hfsr & HFSR_FORCED != 0 {
            causes.push("escalated".to_string());
        }
        for (bit, what) in CFSR_CAUSES {
            if status.cfsr & (1 << bit) == 0 {
                continue;
            }
            let address = match (bit, self.address) {
                (0..=7, Some(a)) if status.cfsr & MMARVALID != 0 => Some(a.mmfar),
                (8..=15, Some(a)) if status.cfsr & BFARVALID != 0 => Some(a.bfar),
                _ => None,
            };
            causes.push(match address {
                Some(addr) => format!("{what} at {addr:#010x}"),
                None => what.to_string(),
            });
        }
        if !causes.is_empty() {
            let _ = write!(text, ": {}", causes.join(", "));
        }
        text
    }

    /// Where it faulted: `in <function> at <file:line> (pc <pc>)` when
    /// the PC's place is known, else `at pc <pc>`.
    pub fn place(&self) -> String {
        match &self.pc_location {
            Some(at) => format!("in {at} (pc {:#010x})", self.pc),
            None => format!("at pc {:#010x}", self.pc),
        }
    }

    /// The LR, and its function and line when known.
    pub fn lr_place(&self) -> String {
        match &self.lr_location {
            Some(at) => format!("lr {:#010x} in {at}", self.lr),
            None => format!("lr {:#010x}", self.lr),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(kind: u8, cfsr: u32, hfsr: u32) -> Fault {
        Fault {
            ts_ns: 0,
            core_id: 0,
            task: None,
            isr: None,
            kind,
            pc: 0x1234,
            lr: 0x5678,
            status: Some(FaultStatus {
                xpsr: 0x0100_0000,
                cfsr,
                hfsr,
            }),
            address: Some(FaultAddress {
                mmfar: 0xdead_0000,
                bfar: 0x4000_0004,
            }),
            pc_location: None,
            lr_location: None,
        }
    }

    #[test]
    fn an_escalated_precise_bus_error_names_its_address() {
        let f = fault(3, (1 << 9) | BFARVALID, HFSR_FORCED);
        assert_eq!(
            f.cause(),
            "HardFault: escalated, precise data bus error at 0x40000004"
        );
        assert_eq!(f.place(), "at pc 0x00001234");
        let f = Fault {
            pc_location: Some("read_sensor at sensor.c:42".into()),
            ..f
        };
        assert_eq!(f.place(), "in read_sensor at sensor.c:42 (pc 0x00001234)");
        assert_eq!(f.lr_place(), "lr 0x00005678");
    }

    #[test]
    fn an_address_not_marked_valid_is_not_given() {
        let f = fault(4, 1 << 1, 0);
        assert_eq!(f.cause(), "MemManage fault: data access violation");
        let f = fault(6, 1 << 25, 0);
        assert_eq!(f.cause(), "UsageFault: divide by zero");
        let f = Fault { status: None, ..f };
        assert_eq!(f.cause(), "UsageFault");
    }
}
