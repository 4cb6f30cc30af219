//! A decoded packet as a raw event row: its name and its values, labelled.

use super::events::{event_name, Event, Level};
use super::message::format_message;
use tband_model::{Actor, ArgValue, EventRow};

/// Hands `event`, decoded from a packet with id `id`, to `events`.
pub fn hand_event(
    events: &mut dyn FnMut(&EventRow<'_>),
    id: u32,
    event: &Event<'_>,
    ts_ns: u64,
    actor: Option<Actor>,
) {
    let uint = |v: u32| ArgValue::UInt(v.into());
    let text = match event {
        Event::Print { format, args, .. } => format_message(format, args),
        _ => String::new(),
    };
    let args: Vec<(&str, ArgValue<'_>)> = match event {
        Event::Overflow { dropped } => vec![("dropped", uint(*dropped))],
        Event::IsrEnter { isr } => vec![("isr", uint(*isr))],
        Event::TaskStartExec { task }
        | Event::TaskStartReady { task }
        | Event::TaskCreate { task }
        | Event::TaskTerminate { task } => vec![("task", uint(*task))],
        Event::TaskStopReady { task, cause } => {
            vec![("task", uint(*task)), ("cause", uint(*cause))]
        }
        Event::TaskInfo {
            task,
            priority,
            name,
        } => vec![
            ("task", uint(*task)),
            ("priority", uint(*priority)),
            ("name", ArgValue::Str(name)),
        ],
        Event::SystemDescription { text } => vec![("text", ArgValue::Str(text))],
        Event::MarkStart { marker } | Event::MarkStop { marker } | Event::Mark { marker } => {
            vec![("marker", uint(*marker))]
        }
        Event::TimerEnter { timer } => vec![("timer", uint(*timer))],
        Event::StackInfo {
            task,
            base,
            size,
            used,
        } => vec![
            ("task", uint(*task)),
            ("base", uint(*base)),
            ("size", uint(*size)),
            ("used", uint(*used)),
        ],
        Event::Init {
            timestamp_hz,
            cpu_hz,
            id_base,
            id_shift,
        } => vec![
            ("timestamp_hz", uint(*timestamp_hz)),
            ("cpu_hz", uint(*cpu_hz)),
            ("id_base", uint(*id_base)),
            ("id_shift", uint(*id_shift)),
        ],
        Event::HeapDefine {
            heap,
            base,
            size,
            metadata,
        } => vec![
            ("heap", uint(*heap)),
            ("base", uint(*base)),
            ("size", uint(*size)),
            ("metadata", uint(*metadata)),
        ],
        Event::HeapAlloc {
            heap,
            addr,
            size,
            tag,
        } => [
            ("heap", uint(*heap)),
            ("addr", uint(*addr)),
            ("size", uint(*size)),
        ]
        .into_iter()
        .chain(tag.map(|tag| ("tag", uint(tag))))
        .collect(),
        Event::HeapFree { heap, addr } => vec![("heap", uint(*heap)), ("addr", uint(*addr))],
        Event::NameResource { resource, name } => {
            vec![("resource", uint(*resource)), ("name", ArgValue::Str(name))]
        }
        Event::Print { level, .. } => {
            let level = match level {
                Level::Log => "log",
                Level::Warning => "warning",
                Level::Error => "error",
            };
            vec![
                ("level", ArgValue::Str(level.as_bytes())),
                ("text", ArgValue::Str(text.as_bytes())),
            ]
        }
        Event::EndCall { call } => vec![("call", uint(*call))],
        Event::NameMarker { marker, name } => {
            vec![("marker", uint(*marker)), ("name", ArgValue::Str(name))]
        }
        Event::Extended { sub_id } => vec![("sub_id", uint(*sub_id))],
        Event::Module { id, args } => std::iter::once(("id", uint(*id)))
            .chain(args.iter().map(|&a| ("arg", uint(a))))
            .collect(),
        Event::Unknown { id } => vec![("id", uint(*id))],
        Event::IsrExit
        | Event::TaskStopExec
        | Event::TraceStart
        | Event::TraceStop
        | Event::SystemTime
        | Event::Idle
        | Event::IsrToScheduler
        | Event::TimerExit
        | Event::ModuleDescription
        | Event::DataSample
        | Event::ModuleCount => Vec::new(),
    };
    events(&EventRow {
        ts_ns: Some(ts_ns),
        core_id: 0,
        class: id,
        name: event_name(id),
        args: &args,
        actor,
    });
}
