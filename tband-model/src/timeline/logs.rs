//! Log lines on the timeline: an instant per decoded line, named by its
//! text, with its level and source line as arguments, on a track "Logs"
//! under the task that logged it; the lines of ISRs (and of idle tasks,
//! which have no track) go on a track per ISR or task in the group "Logs".
//! Lines that were not decoded are not drawn (the model counts them).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use super::tracked::actor_name;
use super::{
    rank, rows_in, ArgName, ArgValue, Args, Details, Item, Layer, Name, Parent, Section,
    TrackBuilder, TrackId, TrackKey, TrackKind,
};
use crate::{Actor, Model};

const DESCRIPTION: &str = "Log lines (defmt)";

pub(super) fn declare(
    m: &Model,
    task_tracks: &[Option<TrackId>],
    tracks: &mut TrackBuilder,
) -> Arc<dyn Layer> {
    let mut by_actor: HashMap<Option<Actor>, TrackId> = HashMap::new();
    let mut group = None;
    for line in m.logs.iter().filter(|l| l.message.is_some()) {
        if by_actor.contains_key(&line.by) {
            continue;
        }
        let task = match line.by {
            Some(Actor::Task(id)) => m.tasks.binary_search_by_key(&id, |t| t.task_id).ok(),
            _ => None,
        };
        let track = match task.filter(|&i| task_tracks.get(i).is_some_and(Option::is_some)) {
            Some(i) => tracks.child(
                TrackKey::new("log", 0, i as u64),
                Parent::Task(i as u32),
                rank(i).saturating_add(1),
                "Logs",
                DESCRIPTION,
                TrackKind::Events(Section::Logs),
            ),
            None => {
                let parent = *group.get_or_insert_with(|| tracks.group("Logs"));
                let (name, key) = match line.by {
                    Some(Actor::Task(id)) => (actor_name(m, Actor::Task(id)), (1, u64::from(id))),
                    Some(Actor::Isr(isr)) => (
                        actor_name(m, Actor::Isr(isr)),
                        (2, u64::from(isr.core_id) << 32 | u64::from(isr.isr_id)),
                    ),
                    None => ("no task".to_string(), (3, 0)),
                };
                tracks.child(
                    TrackKey::new("log", key.0, key.1),
                    Parent::Track(parent),
                    rank(by_actor.len()),
                    &name,
                    DESCRIPTION,
                    TrackKind::Events(Section::Logs),
                )
            }
        };
        by_actor.insert(line.by, track);
    }
    Arc::new(Logs { by_actor })
}

struct Logs {
    /// The track of each task or ISR that logged a decoded line.
    by_actor: HashMap<Option<Actor>, TrackId>,
}

impl Layer for Logs {
    fn len(&self, m: &Model) -> usize {
        m.logs.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        for (i, line) in rows_in(m.logs.iter(), rows) {
            let (Some(message), Some(&track)) = (&line.message, self.by_actor.get(&line.by)) else {
                continue;
            };
            let mut args = Vec::with_capacity(2);
            if let Some(level) = message.level {
                args.push((ArgName::Level, ArgValue::Str(level.as_str())));
            }
            if let Some(n) = message.line {
                args.push((ArgName::Line, ArgValue::Uint(u64::from(n))));
            }
            let name = Name::keyed(&message.text, i);
            visit(
                i,
                Item::instant(track, line.ts_ns, name).with_args(Args::of(&args)),
            );
        }
    }

    fn name_keys(&self, m: &Model) -> usize {
        m.logs.len()
    }

    fn name_of<'a>(&'a self, m: &'a Model, key: u32) -> &'a str {
        let message = m.logs.get(key as usize).and_then(|l| l.message.as_ref());
        message.map_or("", |msg| msg.text.as_str())
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let Some(line) = m.logs.get(row) else {
            return;
        };
        let Some(message) = &line.message else {
            return;
        };
        out.push(("level", message.level.map_or("-", |l| l.as_str()).into()));
        out.push(("text", message.text.clone()));
        let by = line
            .by
            .map_or_else(|| "-".to_string(), |a| actor_name(m, a));
        out.push(("by", by));
        out.push(("core", line.core_id.to_string()));
        let place = match (&message.file, message.line) {
            (Some(file), Some(n)) => format!("{file}:{n}"),
            (Some(file), None) => file.clone(),
            _ => "-".to_string(),
        };
        out.push(("at", place));
    }
}
