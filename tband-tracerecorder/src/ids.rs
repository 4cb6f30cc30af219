//! Event ids of TraceRecorder v4's FreeRTOS kernel port (its
//! `PSF_EVENT_*` numbers) that `trace-recorder-parser` names but leaves
//! raw, or does not name: this crate decodes them from their parameter
//! words; and two the parser decodes as their task-context twins.

use trace_recorder_parser::streaming::event::{EventId, EventType};

pub const TIMER_CREATE: u16 = 0x14;
pub const STREAM_BUFFER_CREATE: u16 = 0x18;
pub const TASK_DELETE: u16 = 0x20;
pub const TIMER_DELETE: u16 = 0x24;
pub const STREAM_BUFFER_DELETE: u16 = 0x28;
pub const MESSAGE_BUFFER_DELETE: u16 = 0x29;
/// The OS tick: its parameter is the new tick count.
pub const NEW_TIME: u16 = 0x31;
/// A tick while the scheduler is suspended.
pub const NEW_TIME_SCHEDULER_SUSPENDED: u16 = 0x32;
pub const TASK_DELAY_UNTIL: u16 = 0x79;
pub const TASK_DELAY: u16 = 0x7A;
pub const TASK_SUSPEND: u16 = 0x7B;
pub const TASK_RESUME: u16 = 0x7C;
pub const TASK_RESUME_FROM_ISR: u16 = 0x7D;
pub const TIMER_START: u16 = 0xA0;
pub const TIMER_RESET: u16 = 0xA1;
pub const TIMER_STOP: u16 = 0xA2;
pub const TIMER_CHANGE_PERIOD: u16 = 0xA3;
pub const TIMER_START_FROM_ISR: u16 = 0xA4;
pub const TIMER_RESET_FROM_ISR: u16 = 0xA5;
pub const TIMER_STOP_FROM_ISR: u16 = 0xA6;
pub const TIMER_CHANGE_PERIOD_FROM_ISR: u16 = 0xA7;
pub const TIMER_EXPIRED: u16 = 0xD2;
pub const STREAM_BUFFER_SEND: u16 = 0xD3;
pub const STREAM_BUFFER_SEND_BLOCK: u16 = 0xD4;
pub const STREAM_BUFFER_SEND_FAILED: u16 = 0xD5;
pub const STREAM_BUFFER_RECEIVE: u16 = 0xD6;
pub const STREAM_BUFFER_RECEIVE_BLOCK: u16 = 0xD7;
pub const STREAM_BUFFER_RECEIVE_FAILED: u16 = 0xD8;
pub const STREAM_BUFFER_SEND_FROM_ISR: u16 = 0xD9;
pub const STREAM_BUFFER_SEND_FROM_ISR_FAILED: u16 = 0xDA;
pub const STREAM_BUFFER_RECEIVE_FROM_ISR: u16 = 0xDB;
pub const STREAM_BUFFER_RECEIVE_FROM_ISR_FAILED: u16 = 0xDC;
pub const STREAM_BUFFER_RESET: u16 = 0xDD;
pub const MESSAGE_BUFFER_SEND_FROM_ISR: u16 = 0xE4;
pub const MESSAGE_BUFFER_RECEIVE_FROM_ISR: u16 = 0xE6;
pub const MALLOC_FAILED: u16 = 0xE9;
pub const FREE_FAILED: u16 = 0xEA;

/// The names of the ids above that the parser does not name.
const UNNAMED_BY_THE_PARSER: [(u16, &str); 25] = [
    (STREAM_BUFFER_CREATE, "STREAMBUFFER_CREATE"),
    (TASK_DELETE, "TASK_DELETE"),
    (TIMER_DELETE, "TIMER_DELETE"),
    (STREAM_BUFFER_DELETE, "STREAMBUFFER_DELETE"),
    (MESSAGE_BUFFER_DELETE, "MESSAGEBUFFER_DELETE"),
    (NEW_TIME, "NEW_TIME"),
    (NEW_TIME_SCHEDULER_SUSPENDED, "NEW_TIME_SCHEDULER_SUSPENDED"),
    (TIMER_CHANGE_PERIOD, "TIMER_CHANGEPERIOD"),
    (TIMER_START_FROM_ISR, "TIMER_START_FROMISR"),
    (TIMER_RESET_FROM_ISR, "TIMER_RESET_FROMISR"),
    (TIMER_STOP_FROM_ISR, "TIMER_STOP_FROMISR"),
    (TIMER_CHANGE_PERIOD_FROM_ISR, "TIMER_CHANGEPERIOD_FROMISR"),
    (STREAM_BUFFER_SEND, "STREAMBUFFER_SEND"),
    (STREAM_BUFFER_SEND_BLOCK, "STREAMBUFFER_SEND_BLOCK"),
    (STREAM_BUFFER_SEND_FAILED, "STREAMBUFFER_SEND_FAILED"),
    (STREAM_BUFFER_RECEIVE, "STREAMBUFFER_RECEIVE"),
    (STREAM_BUFFER_RECEIVE_BLOCK, "STREAMBUFFER_RECEIVE_BLOCK"),
    (STREAM_BUFFER_RECEIVE_FAILED, "STREAMBUFFER_RECEIVE_FAILED"),
    (STREAM_BUFFER_SEND_FROM_ISR, "STREAMBUFFER_SEND_FROM_ISR"),
    (
        STREAM_BUFFER_SEND_FROM_ISR_FAILED,
        "STREAMBUFFER_SEND_FROM_ISR_FAILED",
    ),
    (
        STREAM_BUFFER_RECEIVE_FROM_ISR,
        "STREAMBUFFER_RECEIVE_FROM_ISR",
    ),
    (
        STREAM_BUFFER_RECEIVE_FROM_ISR_FAILED,
        "STREAMBUFFER_RECEIVE_FROM_ISR_FAILED",
    ),
    (STREAM_BUFFER_RESET, "STREAMBUFFER_RESET"),
    (MALLOC_FAILED, "MALLOC_FAILED"),
    (FREE_FAILED, "FREE_FAILED"),
];

/// The event's name as TraceRecorder's sources have it (without
/// `PSF_EVENT_`), or `None` for an id it does not define.
pub fn name(id: u16) -> Option<String> {
    if let Some((_, name)) = UNNAMED_BY_THE_PARSER.iter().find(|(i, _)| *i == id) {
        return Some((*name).to_string());
    }
    match EventType::from(EventId(id)) {
        EventType::Unknown(_) => None,
        known => Some(known.to_string()),
    }
}

/// Whether TraceRecorder defines the id.
pub fn is_defined(id: u16) -> bool {
    UNNAMED_BY_THE_PARSER.iter().any(|(i, _)| *i == id)
        || !matches!(EventType::from(EventId(id)), EventType::Unknown(_))
}

/// Whether an event of this name can be in a recording.
pub fn is_event_name(name: &str) -> bool {
    (0..0x1000).any(|id| self::name(id).is_some_and(|n| n == name))
}
