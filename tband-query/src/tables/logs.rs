//! The table of log lines: each line the firmware logged that was decoded
//! (with its ELF), on the task or ISR that logged it, from the model's
//! [`tband_model::LogLine`]s. Lines not decoded are counted in `anomalies`.

use tband_model::{LogLine, LogMessage};

use super::{actor_isr, actor_task, int, text, Column, Each, ModelTable, Value};
use crate::rows::{Cell, Context, RowSource};

pub struct Logs;

/// The decoded line's fields, for a row that has one.
fn message<'a>(l: &'a LogLine, field: impl FnOnce(&'a LogMessage) -> Cell<'a>) -> Cell<'a> {
    l.message.as_ref().map_or(Cell::Null, field)
}

impl ModelTable for Logs {
    type Row = LogLine;
    const NAME: &str = "logs";
    const DOC: &str = "Log lines the firmware sent through tband (defmt), decoded with its ELF.";
    const COLUMNS: &[Column<Value<LogLine>>] = &[
        int("ts_ns", "when it was logged", |l, _| l.ts_ns.into()),
        int("core_id", "the core it was logged on", |l, _| {
            l.core_id.into()
        }),
        int(
            "task_id",
            "the task that logged it (NULL from an ISR or when unknown)",
            |l, _| actor_task(l.by),
        ),
        int("isr_id", "the ISR that logged it, on core_id", |l, _| {
            actor_isr(l.by)
        }),
        text(
            "level",
            "trace, debug, info, warn or error (NULL for a line without one)",
            |l, _| message(l, |m| m.level.map(|level| level.as_str()).into()),
        ),
        text("text", "the line as the firmware formatted it", |l, _| {
            message(l, |m| m.text.as_str().into())
        }),
        text(
            "file",
            "the source file of the log call, when the ELF says",
            |l, _| message(l, |m| m.file.as_deref().into()),
        ),
        int("line", "its line in file", |l, _| {
            message(l, |m| m.line.into())
        }),
    ];

    fn rows(source: &mut RowSource<'_>, mut each: impl Each<LogLine>) -> Result<(), String> {
        let context = Context::new(source.model());
        let mut decoded = context.model.logs.iter().filter(|l| l.message.is_some());
        decoded.try_for_each(|l| each(l, &context))
    }
}
