//! What can go wrong, each as one sentence for the user.

use std::fmt;

use tband_trace::TraceError;

#[derive(Debug)]
pub enum Error {
    /// The trace could not be opened.
    Trace(TraceError),
    /// The engine rejected a statement: where it is, and the engine's message.
    Sql { at: String, message: String },
    /// The engine failed while opening or loading a database.
    Database(String),
    /// A bad argument, file or parameter.
    Input(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Trace(e) => e.fmt(f),
            Error::Sql { at, message } => write!(f, "{at}: {message}"),
            Error::Database(m) | Error::Input(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<TraceError> for Error {
    fn from(e: TraceError) -> Self {
        Error::Trace(e)
    }
}
