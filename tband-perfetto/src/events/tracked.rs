//! The track events of objects tracked by id: each lifetime a slice named
//! by the object's key on its lane (the core that began it as the argument
//! `core`; `truncated` when its end was not seen: open when the trace ended
//! with it live), each mark an instant on it (its value, a reference count for
//! the built-in rules, as the argument `count`), and the pools' counters.

use std::io;

use tband_model::Model;

use super::{Arg, EventCounts, IidCache, Sequence, ARG_CORE, ARG_COUNT, ARG_TRUNCATED};
use crate::tracks::Tracks;
use crate::writer::ChunkSink;

pub(super) fn write<'m, S: ChunkSink>(
    seq: &mut Sequence<'_, 'm, S>,
    model: &'m Model,
    keys: &'m [String],
    tracks: &Tracks,
    counts: &mut EventCounts,
) -> io::Result<()> {
    let o = &model.tracked;
    let mut key_names = IidCache::new(keys.len());
    // Each lifetime's track, for its marks.
    let mut lifetime_tracks = Vec::with_capacity(o.lifetimes.len());
    for l in &o.lifetimes {
        let track = tracks.tracked.lifetime(&l);
        lifetime_tracks.push(track);
        let Some(track) = track else {
            continue;
        };
        let key = l.key as usize;
        let name = key_names.iid(&mut seq.names, Some(key), &keys[key]);
        let core = Arg::Uint(ARG_CORE, l.begin_core.into());
        if l.truncated {
            // Truncated also where the object was begun again before its
            // end was seen, which the argument alone tells.
            let args = [core, Arg::Bool(ARG_TRUNCATED, true)];
            let cut = l.end_ns >= model.info.duration_ns;
            seq.slice_or_open(track, l.start_ns, l.end_ns, cut, name, &args)?;
        } else {
            seq.slice(track, l.start_ns, l.end_ns, name, &[core])?;
        }
        counts.slices += 1;
    }
    let mut mark_names = IidCache::new(o.names.all().len());
    for mark in &o.marks {
        let Some(&Some(track)) = lifetime_tracks.get(mark.lifetime as usize) else {
            continue;
        };
        let event = Some(mark.event.0 as usize);
        let name = mark_names.iid(&mut seq.names, event, o.names.get(mark.event));
        match mark.value {
            Some(value) => seq.instant(track, mark.ts_ns, name, &[Arg::Int(ARG_COUNT, value)])?,
            None => seq.instant(track, mark.ts_ns, name, &[])?,
        }
        counts.instants += 1;
    }
    for v in &o.counter_values {
        if let Some(&track) = tracks.tracked.counters.get(v.counter as usize) {
            seq.counter(track, v.ts_ns, v.value)?;
            counts.counter_values += 1;
        }
    }
    Ok(())
}
