//! The one interface every trace format's importer offers.

use crate::{Model, TraceInfo};

/// A trace in one format, read and ready to be modelled.
pub trait Import {
    /// Builds the model. `info` holds what the caller knows (the inputs'
    /// names); the importer adds the format's own facts.
    fn build_model(&self, info: TraceInfo) -> Model;
}

impl<T: Import + ?Sized> Import for &T {
    fn build_model(&self, info: TraceInfo) -> Model {
        (**self).build_model(info)
    }
}
