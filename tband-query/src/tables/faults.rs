//! The table of crashes: each fault a firmware's fault handler recorded,
//! with its registers and what they say, from the model's
//! [`tband_model::Fault`]s.

use tband_model::{fault_kind_name, Fault};

use super::{int, text, Column, Each, ModelTable, Value};
use crate::rows::RowSource;

pub struct Faults;

impl ModelTable for Faults {
    type Row = Fault;
    const NAME: &str = "faults";
    const DOC: &str = "Crashes: each fault a fault handler recorded, with its registers.";
    const COLUMNS: &[Column<Value<Fault>>] = &[
        int("ts_ns", "when", |f, _| f.ts_ns.into()),
        int("core_id", "the core that faulted", |f, _| f.core_id.into()),
        int(
            "task_id",
            "the task that ran (NULL when unknown)",
            |f, x| f.task.map(|t| x.task_id(t)).into(),
        ),
        int(
            "isr_id",
            "the ISR it faulted in, on core_id (NULL: not in an ISR)",
            |f, x| f.isr.map(|i| x.isr(i).isr_id).into(),
        ),
        int(
            "kind",
            "the exception number of the handler that recorded it, 0: found by the software",
            |f, _| u32::from(f.kind).into(),
        ),
        text("kind_name", "the kind's name, e.g. HardFault", |f, _| {
            fault_kind_name(f.kind).into()
        }),
        int("pc", "the stacked PC: the faulting instruction", |f, _| {
            f.pc.into()
        }),
        int("lr", "the stacked LR", |f, _| f.lr.into()),
        int(
            "xpsr",
            "the stacked xPSR (NULL when not recorded)",
            |f, _| f.status.map(|s| s.xpsr).into(),
        ),
        int("cfsr", "Configurable Fault Status Register", |f, _| {
            f.status.map(|s| s.cfsr).into()
        }),
        int("hfsr", "HardFault Status Register", |f, _| {
            f.status.map(|s| s.hfsr).into()
        }),
        int("mmfar", "MemManage Fault Address Register", |f, _| {
            f.address.map(|a| a.mmfar).into()
        }),
        int("bfar", "BusFault Address Register", |f, _| {
            f.address.map(|a| a.bfar).into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Fault>) -> Result<(), String> {
        source.each_in(|m| &m.faults, each)
    }
}
