//! Starting the recording on a target that waits for its host: the command
//! a tracer's target code reads from the RTT down channel beside its up
//! channel before it records anything.

use std::fmt;

/// The tracer whose start command to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// SEGGER SystemView: its target code
    /// (`SEGGER_SYSVIEW_IsStarted`, or any event it records) starts when it
    /// reads the start command's id from the down channel numbered as its
    /// `SysView` up channel.
    Systemview,
}

impl Start {
    pub const ALL: [Start; 1] = [Start::Systemview];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Start::Systemview => "systemview",
        }
    }

    /// The bytes to write into the down channel.
    pub fn command(self) -> &'static [u8] {
        match self {
            // SEGGER_SYSVIEW_COMMAND_ID_START.
            Start::Systemview => &[1],
        }
    }
}

impl fmt::Display for Start {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Start::Systemview => write!(f, "SystemView's start command"),
        }
    }
}
