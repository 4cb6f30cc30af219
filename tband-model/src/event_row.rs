//! A decoded event as its format recorded it, before it means anything to
//! the model: what raw-event listings and tables show.

use crate::Actor;

/// One field of a raw event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgValue<'a> {
    Int(i64),
    UInt(u64),
    Str(&'a [u8]),
}

/// One decoded event as the format recorded it, for ad-hoc queries.
#[derive(Clone, Copy, Debug)]
pub struct EventRow<'a> {
    /// ns since the first event; `None` for metadata.
    pub ts_ns: Option<u64>,
    pub core_id: u32,
    /// The event's class within its trace: events of one class have the
    /// same name and the same arguments in the same order (a CTF event
    /// class, a tband or ThreadX event id).
    pub class: u32,
    pub name: &'a str,
    pub args: &'a [(&'a str, ArgValue<'a>)],
    /// The task or ISR running on its core when it happened, as the model
    /// has it from the events before; `None` where no model is built.
    pub actor: Option<Actor>,
}

/// Where an importer hands every event it decodes, as the format recorded
/// it, in time order, during the pass that builds the model.
pub type EventSink<'s> = &'s mut dyn FnMut(&EventRow<'_>);
