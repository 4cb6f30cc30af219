//! The one interface every trace format's importer offers.

use crate::{EventRow, EventSink, Model, TraceInfo};

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
