//! The one interface every trace format's importer offers.

use crate::{EventRow, EventSink, Model, TraceInfo};

/// Told how many input bytes (all streams together) an importer has read
/// so far, every megabyte or so, on the thread that builds the model: for a
/// progress display.
pub type ReadProgress<'a> = &'a dyn Fn(u64);

/// Tells a [`ReadProgress`] how far an importer has read a trace's
/// streams: at most once a megabyte, and at the end.
pub struct ReadTeller<'a> {
    progress: ReadProgress<'a>,
    /// Per stream: the offset read up to.
    read: Vec<u64>,
    total: u64,
    next_told: u64,
}

impl<'a> ReadTeller<'a> {
    const STEP: u64 = 1 << 20;

    pub fn new(streams: usize, progress: ReadProgress<'a>) -> ReadTeller<'a> {
        ReadTeller {
            progress,
            read: vec![0; streams],
            total: 0,
            next_told: Self::STEP,
        }
    }

    /// Stream `stream` has been read up to `offset`.
    #[inline]
    pub fn read_to(&mut self, stream: usize, offset: u64) {
        if let Some(read) = self.read.get_mut(stream) {
            self.total += offset.saturating_sub(*read);
            *read = offset.max(*read);
        }
        if self.total >= self.next_told {
            (self.progress)(self.total);
            self.next_told = self.total + Self::STEP;
        }
    }

    /// Everything has been read: `bytes` in all.
    pub fn done(self, bytes: u64) {
        (self.progress)(bytes);
    }
}

/// A trace in one format, read and ready to be modelled.
pub trait Import {
    /// Builds the model. `info` holds what the caller knows (the inputs'
    /// names); the importer adds the format's own facts. Every event
    /// decoded goes to `events`, if given, in the order the model takes
    /// them in.
    fn build_model(&self, info: TraceInfo, events: Option<EventSink<'_>>) -> Model;

    /// [`Import::build_model`], handing `events` only the events whose
    /// name `wanted` accepts. An importer that can tell an event's name
    /// before decoding its fields (CTF, by event class) leaves the others
    /// undecoded where the model does not need them.
    fn build_model_handing_named(
        &self,
        info: TraceInfo,
        wanted: &dyn Fn(&str) -> bool,
        events: EventSink<'_>,
    ) -> Model {
        let mut named = |row: &EventRow<'_>| {
            if wanted(row.name) {
                events(row);
            }
        };
        self.build_model(info, Some(&mut named))
    }
}

impl<T: Import + ?Sized> Import for &T {
    fn build_model(&self, info: TraceInfo, events: Option<EventSink<'_>>) -> Model {
        (**self).build_model(info, events)
    }

    fn build_model_handing_named(
        &self,
        info: TraceInfo,
        wanted: &dyn Fn(&str) -> bool,
        events: EventSink<'_>,
    ) -> Model {
        (**self).build_model_handing_named(info, wanted, events)
    }
}
