//! Objects that firmware tracks by id (buffers, pool blocks, requests):
//! their lifetimes, the instants marked on them and the counters of their
//! pools, as the lifetime rules (see [`crate::rules`]) made them from the
//! trace's events.

use std::fmt;

use crate::{IsrKey, StrId, Strings, Table};

/// An object's identity within its kind: the value of the rule's key field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TrackedKey {
    Int(u64),
    Text(Box<str>),
}

impl fmt::Display for TrackedKey {
    /// Integers (addresses, ids) in hexadecimal, text as it is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrackedKey::Int(v) => write!(f, "{v:#x}"),
            TrackedKey::Text(s) => f.write_str(s),
        }
    }
}

/// What was running when an event happened: a task, or an ISR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Actor {
    Task(u32),
    Isr(IsrKey),
}

/// A pool: what groups objects of a kind (the objects' `pool` field) and
/// holds the kind's counters (keyed by the counter rule's key field).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackedPool {
    /// Index into [`TrackedObjects::kinds`].
    pub kind: u32,
    pub key: TrackedKey,
    /// The name an event gave it, or its key.
    pub name: String,
    /// How many of its objects were live at once at most: the lanes its
    /// lifetimes need (see [`TrackedLifetime::slot`]).
    pub slots: u32,
}

/// One object from the event that began it to the one that ended it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackedLifetime {
    /// Index into [`TrackedObjects::kinds`].
    pub kind: u32,
    /// Index into [`TrackedObjects::keys`].
    pub key: u32,
    /// In [`TrackedObjects::names`]; the empty string when no field named it.
    pub name: StrId,
    /// Index into [`TrackedObjects::pools`].
    pub pool: Option<u32>,
    /// A lane of its pool (or of its kind, without a pool) that no other
    /// lifetime uses at the same time: the lowest free at its start.
    pub slot: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Never ended before the trace did (a leak, or a trace cut short).
    pub truncated: bool,
    pub begin_core: u32,
    pub end_core: Option<u32>,
    pub begun_by: Option<Actor>,
    pub ended_by: Option<Actor>,
}

/// An instant on a lifetime (a reference taken or dropped), with a value
/// from the event where the rule names one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackedMark {
    pub ts_ns: u64,
    /// Index into [`TrackedObjects::lifetimes`].
    pub lifetime: u32,
    /// The event's name, in [`TrackedObjects::names`].
    pub event: StrId,
    pub value: Option<i64>,
}

/// A counter of a pool, e.g. its free buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackedCounter {
    /// Index into [`TrackedObjects::pools`].
    pub pool: u32,
    pub name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterValue {
    pub ts_ns: u64,
    /// Index into [`TrackedObjects::counters`].
    pub counter: u32,
    pub value: i64,
}

/// Everything the lifetime rules made of a trace. Lifetimes are sorted by
/// start, marks and counter values by time.
#[derive(Clone, Debug, Default)]
pub struct TrackedObjects {
    /// The kinds the rules named, in the rules' order.
    pub kinds: Vec<String>,
    /// The objects' keys, each once (objects of different kinds may share one).
    pub keys: Vec<TrackedKey>,
    pub names: Strings,
    pub pools: Vec<TrackedPool>,
    pub lifetimes: Table<TrackedLifetime>,
    pub marks: Table<TrackedMark>,
    pub counters: Vec<TrackedCounter>,
    pub counter_values: Table<CounterValue>,
}

impl TrackedObjects {
    pub fn is_empty(&self) -> bool {
        self.lifetimes.is_empty() && self.counter_values.is_empty()
    }

    pub fn kind(&self, kind: u32) -> &str {
        self.kinds.get(kind as usize).map_or("", String::as_str)
    }

    /// The key of `lifetime`'s object.
    pub fn key(&self, lifetime: &TrackedLifetime) -> &TrackedKey {
        &self.keys[lifetime.key as usize]
    }

    /// The keys as text, by index: made once per key for the sinks that
    /// name each lifetime by its key.
    pub fn key_texts(&self) -> Vec<String> {
        self.keys.iter().map(ToString::to_string).collect()
    }

    pub fn pool(&self, pool: Option<u32>) -> Option<&TrackedPool> {
        self.pools.get(pool? as usize)
    }
}
