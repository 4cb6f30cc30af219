//! What a packet says: its id's meaning and its payload's values
//! (SEGGER_SYSVIEW.h's event ids, SEGGER_SYSVIEW.c's encodings).

use super::packets::Packet;
use super::varint::{Reader, TooShort};

/// Ids from this one on are the events of the OS's and the application's
/// modules (the FreeRTOS integration's API calls, for one): their names and
/// arguments are in description files on the host, not in the stream.
pub const FIRST_MODULE_ID: u32 = 32;

/// The severities of printed messages (the low bits of their options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Log,
    Warning,
    Error,
}

/// A decoded packet.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<'a> {
    /// The target dropped packets while its buffer was full; `dropped` is
    /// its running count of packets it could not even report.
    Overflow {
        dropped: u32,
    },
    IsrEnter {
        isr: u32,
    },
    IsrExit,
    TaskStartExec {
        task: u32,
    },
    TaskStopExec,
    TaskStartReady {
        task: u32,
    },
    TaskStopReady {
        task: u32,
        cause: u32,
    },
    TaskCreate {
        task: u32,
    },
    TaskInfo {
        task: u32,
        priority: u32,
        name: &'a [u8],
    },
    TraceStart,
    TraceStop,
    SystemTime,
    /// Text of comma-separated `key=value` items: `N=` application, `D=`
    /// device, `O=` OS, `I#n=` the name of interrupt n.
    SystemDescription {
        text: &'a [u8],
    },
    MarkStart {
        marker: u32,
    },
    MarkStop {
        marker: u32,
    },
    Idle,
    IsrToScheduler,
    TimerEnter {
        timer: u32,
    },
    TimerExit,
    StackInfo {
        task: u32,
        base: u32,
        size: u32,
        used: u32,
    },
    ModuleDescription,
    DataSample,
    /// The timestamp's frequency and the CPU's, and how the target shrinks
    /// addresses into ids: `(address - id_base) >> id_shift`.
    Init {
        timestamp_hz: u32,
        cpu_hz: u32,
        id_base: u32,
        id_shift: u32,
    },
    NameResource {
        resource: u32,
        name: &'a [u8],
    },
    /// A message; `format` is printf's when `args` are given (formatted on
    /// the host), the finished text when not.
    Print {
        format: &'a [u8],
        level: Level,
        args: Vec<u32>,
    },
    ModuleCount,
    EndCall {
        call: u32,
    },
    TaskTerminate {
        task: u32,
    },
    Mark {
        marker: u32,
    },
    NameMarker {
        marker: u32,
        name: &'a [u8],
    },
    /// A heap: its id, where it starts, its size in bytes and the bytes
    /// each block's bookkeeping takes.
    HeapDefine {
        heap: u32,
        base: u32,
        size: u32,
        metadata: u32,
    },
    /// A block of `size` bytes allocated at `addr` (0: the allocation
    /// failed); `tag` is the application's, if it gave one.
    HeapAlloc {
        heap: u32,
        addr: u32,
        size: u32,
        tag: Option<u32>,
    },
    HeapFree {
        heap: u32,
        addr: u32,
    },
    /// One of the extended events not modelled (data registration).
    Extended {
        sub_id: u32,
    },
    /// A module's event: its id and the integers of its payload.
    Module {
        id: u32,
        args: Vec<u32>,
    },
    /// An id SystemView does not define.
    Unknown {
        id: u32,
    },
}

/// Why a packet's payload could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadPayload;

impl From<TooShort> for BadPayload {
    fn from(_: TooShort) -> Self {
        BadPayload
    }
}

mod id {
    pub const OVERFLOW: u32 = 1;
    pub const ISR_ENTER: u32 = 2;
    pub const ISR_EXIT: u32 = 3;
    pub const TASK_START_EXEC: u32 = 4;
    pub const TASK_STOP_EXEC: u32 = 5;
    pub const TASK_START_READY: u32 = 6;
    pub const TASK_STOP_READY: u32 = 7;
    pub const TASK_CREATE: u32 = 8;
    pub const TASK_INFO: u32 = 9;
    pub const TRACE_START: u32 = 10;
    pub const TRACE_STOP: u32 = 11;
    pub const SYSTIME_CYCLES: u32 = 12;
    pub const SYSTIME_US: u32 = 13;
    pub const SYSDESC: u32 = 14;
    pub const MARK_START: u32 = 15;
    pub const MARK_STOP: u32 = 16;
    pub const IDLE: u32 = 17;
    pub const ISR_TO_SCHEDULER: u32 = 18;
    pub const TIMER_ENTER: u32 = 19;
    pub const TIMER_EXIT: u32 = 20;
    pub const STACK_INFO: u32 = 21;
    pub const MODULEDESC: u32 = 22;
    pub const DATA_SAMPLE: u32 = 23;
    pub const INIT: u32 = 24;
    pub const NAME_RESOURCE: u32 = 25;
    pub const PRINT_FORMATTED: u32 = 26;
    pub const NUMMODULES: u32 = 27;
    pub const END_CALL: u32 = 28;
    pub const TASK_TERMINATE: u32 = 29;
    pub const EX: u32 = 31;
    pub const EX_MARK: u32 = 0;
    pub const EX_NAME_MARKER: u32 = 1;
    pub const EX_HEAP_DEFINE: u32 = 2;
    pub const EX_HEAP_ALLOC: u32 = 3;
    pub const EX_HEAP_ALLOC_EX: u32 = 4;
    pub const EX_HEAP_FREE: u32 = 5;
}

/// The options bits of a message that give its level.
const LEVEL_MASK: u32 = 3;

/// The name of the event an id stands for, as the raw events show it.
pub fn event_name(event_id: u32) -> &'static str {
    match event_id {
        0 => "nop",
        id::OVERFLOW => "overflow",
        id::ISR_ENTER => "isr_enter",
        id::ISR_EXIT => "isr_exit",
        id::TASK_START_EXEC => "task_start_exec",
        id::TASK_STOP_EXEC => "task_stop_exec",
        id::TASK_START_READY => "task_start_ready",
        id::TASK_STOP_READY => "task_stop_ready",
        id::TASK_CREATE => "task_create",
        id::TASK_INFO => "task_info",
        id::TRACE_START => "trace_start",
        id::TRACE_STOP => "trace_stop",
        id::SYSTIME_CYCLES => "systime_cycles",
        id::SYSTIME_US => "systime_us",
        id::SYSDESC => "system_description",
        id::MARK_START => "mark_start",
        id::MARK_STOP => "mark_stop",
        id::IDLE => "idle",
        id::ISR_TO_SCHEDULER => "isr_to_scheduler",
        id::TIMER_ENTER => "timer_enter",
        id::TIMER_EXIT => "timer_exit",
        id::STACK_INFO => "stack_info",
        id::MODULEDESC => "module_description",
        id::DATA_SAMPLE => "data_sample",
        id::INIT => "init",
        id::NAME_RESOURCE => "name_resource",
        id::PRINT_FORMATTED => "print",
        id::NUMMODULES => "module_count",
        id::END_CALL => "end_call",
        id::TASK_TERMINATE => "task_terminate",
        id::EX => "extended",
        id if id >= FIRST_MODULE_ID => "module_event",
        _ => "unknown",
    }
}

/// Whether a raw event of that name can be in a SystemView recording.
pub fn is_event_name(name: &str) -> bool {
    (0..=FIRST_MODULE_ID).any(|id| event_name(id) == name)
}

impl<'a> Event<'a> {
    /// Decodes a packet's payload.
    pub fn decode(packet: &Packet<'a>) -> Result<Event<'a>, BadPayload> {
        let mut r = Reader::new(packet.payload, 0);
        let event = match packet.id {
            id::OVERFLOW => Event::Overflow { dropped: r.u32()? },
            id::ISR_ENTER => Event::IsrEnter { isr: r.u32()? },
            id::ISR_EXIT => Event::IsrExit,
            id::TASK_START_EXEC => Event::TaskStartExec { task: r.u32()? },
            id::TASK_STOP_EXEC => Event::TaskStopExec,
            id::TASK_START_READY => Event::TaskStartReady { task: r.u32()? },
            id::TASK_STOP_READY => Event::TaskStopReady {
                task: r.u32()?,
                cause: r.u32()?,
            },
            id::TASK_CREATE => Event::TaskCreate { task: r.u32()? },
            id::TASK_INFO => Event::TaskInfo {
                task: r.u32()?,
                priority: r.u32()?,
                name: r.string()?,
            },
            id::TRACE_START => Event::TraceStart,
            id::TRACE_STOP => Event::TraceStop,
            id::SYSTIME_CYCLES | id::SYSTIME_US => Event::SystemTime,
            id::SYSDESC => Event::SystemDescription { text: r.string()? },
            id::MARK_START => Event::MarkStart { marker: r.u32()? },
            id::MARK_STOP => Event::MarkStop { marker: r.u32()? },
            id::IDLE => Event::Idle,
            id::ISR_TO_SCHEDULER => Event::IsrToScheduler,
            id::TIMER_ENTER => Event::TimerEnter { timer: r.u32()? },
            id::TIMER_EXIT => Event::TimerExit,
            id::STACK_INFO => Event::StackInfo {
                task: r.u32()?,
                base: r.u32()?,
                size: r.u32()?,
                used: r.u32()?,
            },
            id::MODULEDESC => Event::ModuleDescription,
            id::DATA_SAMPLE => Event::DataSample,
            id::INIT => Event::Init {
                timestamp_hz: r.u32()?,
                cpu_hz: r.u32()?,
                id_base: r.u32_or_zero()?,
                id_shift: r.u32_or_zero()?,
            },
            id::NAME_RESOURCE => Event::NameResource {
                resource: r.u32()?,
                name: r.string()?,
            },
            id::PRINT_FORMATTED => {
                let format = r.string()?;
                let level = match r.u32()? & LEVEL_MASK {
                    0 => Level::Log,
                    1 => Level::Warning,
                    _ => Level::Error,
                };
                let count = r.u32()?;
                let args = (0..count).map(|_| r.u32()).collect::<Result<_, _>>()?;
                Event::Print {
                    format,
                    level,
                    args,
                }
            }
            id::NUMMODULES => Event::ModuleCount,
            id::END_CALL => Event::EndCall { call: r.u32()? },
            id::TASK_TERMINATE => Event::TaskTerminate { task: r.u32()? },
            id::EX => match r.u32()? {
                id::EX_MARK => Event::Mark { marker: r.u32()? },
                id::EX_NAME_MARKER => Event::NameMarker {
                    marker: r.u32()?,
                    name: r.string()?,
                },
                id::EX_HEAP_DEFINE => Event::HeapDefine {
                    heap: r.u32()?,
                    base: r.u32()?,
                    size: r.u32()?,
                    metadata: r.u32()?,
                },
                sub_id @ (id::EX_HEAP_ALLOC | id::EX_HEAP_ALLOC_EX) => Event::HeapAlloc {
                    heap: r.u32()?,
                    addr: r.u32()?,
                    size: r.u32()?,
                    tag: if sub_id == id::EX_HEAP_ALLOC_EX {
                        Some(r.u32()?)
                    } else {
                        None
                    },
                },
                id::EX_HEAP_FREE => Event::HeapFree {
                    heap: r.u32()?,
                    addr: r.u32()?,
                },
                sub_id => Event::Extended { sub_id },
            },
            id if id >= FIRST_MODULE_ID => {
                let mut args = Vec::new();
                while !r.at_end() {
                    args.push(r.u32()?);
                }
                Event::Module { id, args }
            }
            id => Event::Unknown { id },
        };
        Ok(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(id: u32, payload: &[u8]) -> Packet<'_> {
        Packet {
            offset: 0,
            id,
            payload,
            delta: 0,
        }
    }

    #[test]
    fn task_info_and_messages() {
        assert_eq!(
            Event::decode(&packet(9, &[0x81, 0x01, 7, 4, b'b', b'u', b's', b'y'])),
            Ok(Event::TaskInfo {
                task: 129,
                priority: 7,
                name: b"busy"
            })
        );
        assert_eq!(
            Event::decode(&packet(26, &[5, b'n', b'=', b'%', b'u', b'!', 1, 1, 42])),
            Ok(Event::Print {
                format: b"n=%u!",
                level: Level::Warning,
                args: vec![42]
            })
        );
    }

    #[test]
    fn a_payload_shorter_than_its_values_is_bad() {
        assert_eq!(Event::decode(&packet(26, &[5, b'n'])), Err(BadPayload));
        assert_eq!(Event::decode(&packet(24, &[0x80])), Err(BadPayload));
    }

    #[test]
    fn ids_beyond_the_system_events_are_module_events_and_30_is_unknown() {
        assert_eq!(
            Event::decode(&packet(140, &[3, 0x80, 0x02])),
            Ok(Event::Module {
                id: 140,
                args: vec![3, 256]
            })
        );
        assert_eq!(
            Event::decode(&packet(30, &[1, 2])),
            Ok(Event::Unknown { id: 30 })
        );
        assert_eq!(event_name(30), "unknown");
        assert!(is_event_name("task_info") && !is_event_name("task_switch"));
    }
}
