//! An event as a raw event row: its name, its parameter words and, for
//! the events that carry one, its text.

use trace_recorder_parser::streaming::event::{Event, EventCode};

use super::ids;
use super::stream::RawEvent;
use tband_model::{Actor, ArgValue, EventRow};

/// Hands `raw`, read by the parser as `parsed`, to `events`.
pub fn hand_event(
    events: &mut dyn FnMut(&EventRow<'_>),
    raw: &RawEvent<'_>,
    parsed: Option<&(EventCode, Event)>,
    ts_ns: u64,
    actor: Option<Actor>,
    little_endian: bool,
) {
    let name = ids::name(raw.id).unwrap_or_else(|| "UNKNOWN".into());
    let text = match parsed {
        Some((_, Event::User(e))) => Some(e.formatted_string.to_string()),
        Some((_, Event::ObjectName(e))) => Some(e.name.to_string()),
        Some((_, Event::IsrDefine(e))) => Some(e.name.to_string()),
        _ => None,
    };
    let mut args: Vec<(&str, ArgValue<'_>)> = vec![("count", ArgValue::UInt(raw.count.into()))];
    let words = raw.bytes[8..].chunks_exact(4).map(|w| {
        let w = [w[0], w[1], w[2], w[3]];
        if little_endian {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    });
    match &text {
        // The words of a text are the text.
        Some(text) => {
            let handle = words.take(1).map(|w| ("handle", ArgValue::UInt(w.into())));
            args.extend(handle.filter(|_| !matches!(parsed, Some((_, Event::User(_))))));
            args.push(("text", ArgValue::Str(text.as_bytes())));
        }
        None => args.extend(words.map(|w| ("param", ArgValue::UInt(w.into())))),
    }
    events(&EventRow {
        ts_ns: Some(ts_ns),
        core_id: 0,
        class: raw.id.into(),
        name: &name,
        args: &args,
        actor,
    });
}
