//! The one interface every trace format's importer offers.

use crate::{EventSink, Model, TraceInfo};

/// A trace in one format, read and ready to be modelled.
pub trait Import {
    /// Builds the model. `info` holds what the caller knows (the inputs'
    /// names); the importer adds the format's own facts. Every event
    /// decoded goes to `events`, if given, in the order the model takes
    /// them in.
    fn build_model(&self, info: TraceInfo, events: Option<EventSink<'_>>) -> Model;
}

impl<T: Import + ?Sized> Import for &T {
    fn build_model(&self, info: TraceInfo, events: Option<EventSink<'_>>) -> Model {
        (**self).build_model(info, events)
    }
}
