//! The summary's lines for the model's timeline beyond what the summary
//! says in its own words (markers and queues): under each section's title,
//! a line per track — or per group of tracks below the top, such as a
//! pool's lanes and counters — saying what its items add up to.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::timeline::{Parent, Section, Shape, Timeline, TrackId};
use crate::Model;

use super::{format_ns, truncate};

const SECTIONS: [Section; 2] = [Section::RtosObjects, Section::TrackedObjects];

/// What the items of one line add up to.
#[derive(Default)]
struct Line {
    slices: u64,
    open: u64,
    longest_ended: u64,
    /// Instants by name, in the order first seen.
    instants: Vec<(String, u64)>,
    /// Counters by track: what to call it, smallest and largest value.
    counters: BTreeMap<TrackId, (String, i64, i64)>,
}

impl Line {
    fn add(
        &mut self,
        timeline: &Timeline,
        owner: TrackId,
        track: TrackId,
        name: &str,
        shape: Shape,
    ) {
        match shape {
            Shape::Slice {
                start, end, open, ..
            } => {
                self.slices += 1;
                if open {
                    self.open += 1;
                } else {
                    self.longest_ended = self.longest_ended.max(end - start);
                }
            }
            Shape::Instant(_) => match self.instants.iter_mut().find(|(n, _)| n == name) {
                Some((_, count)) => *count += 1,
                None => self.instants.push((name.to_owned(), 1)),
            },
            Shape::Counter(_, value) => {
                let counter = &timeline.tracks[track as usize];
                // A line of one counter is named after it already.
                let called = if track == owner {
                    String::new()
                } else {
                    format!("{} ", counter.name)
                };
                let entry = (self.counters)
                    .entry(track)
                    .or_insert_with(|| (called, value, value));
                entry.1 = entry.1.min(value);
                entry.2 = entry.2.max(value);
            }
        }
    }

    fn text(&self) -> String {
        let mut parts = Vec::new();
        if self.slices > 0 {
            let plural = if self.slices == 1 { "" } else { "s" };
            let mut slices = format!("{} slice{plural}", self.slices);
            if self.open > 0 {
                slices += &format!(" ({} open at the end)", self.open);
            }
            if self.slices > self.open {
                slices += &format!(", longest ended {}", format_ns(self.longest_ended));
            }
            parts.push(slices);
        }
        parts.extend(self.instants.iter().map(|(name, n)| format!("{n} {name}")));
        parts.extend(
            (self.counters.values()).map(|(called, min, max)| format!("{called}{min}..{max}")),
        );
        parts.join(", ")
    }
}

pub(super) fn write(out: &mut impl Write, m: &Model) -> io::Result<()> {
    let timeline = Timeline::new(m);
    // Each track's line: its own, or its group's below the top.
    let line_of: Vec<Option<(Section, TrackId)>> = (timeline.tracks.iter().enumerate())
        .map(|(id, track)| {
            let section = track.section().filter(|s| SECTIONS.contains(s))?;
            let owner = match track.parent {
                Parent::Track(p) if timeline.tracks[p as usize].parent != Parent::Top => p,
                _ => id as TrackId,
            };
            Some((section, owner))
        })
        .collect();
    let mut lines: BTreeMap<(Section, TrackId), Line> = BTreeMap::new();
    for layer in &timeline.layers {
        layer.visit(m, 0..layer.len(m), &mut |_, item| {
            if let Some(Some(key)) = line_of.get(item.track as usize) {
                let line = lines.entry(*key).or_default();
                line.add(&timeline, key.1, item.track, item.name.text, item.shape);
            }
        });
    }
    for section in SECTIONS {
        let mut in_section = lines.iter().filter(|((s, _), _)| *s == section).peekable();
        if in_section.peek().is_none() {
            continue;
        }
        writeln!(out, "\n{}", section.title())?;
        for ((_, owner), line) in in_section {
            let name = timeline.full_name(m, &timeline.tracks[*owner as usize]);
            writeln!(out, "  {:<28} {}", truncate(&name, 28), line.text())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        EventGroup, EventGroupOp, EventGroupOpKind, StreamBuffer, StreamBufferKind, StreamBufferOp,
        StreamBufferOpKind,
    };

    #[test]
    fn a_line_per_track_counts_instants_by_name_and_gives_counters_ranges() {
        let mut m = Model::default();
        let o = &mut m.rtos_objects;
        o.event_groups.push(EventGroup {
            group_id: 3,
            name: "flags".into(),
        });
        for (ts_ns, op) in [
            (1, EventGroupOpKind::Set),
            (2, EventGroupOpKind::Clear),
            (3, EventGroupOpKind::Set),
        ] {
            o.event_group_ops.push(EventGroupOp {
                ts_ns,
                group: 0,
                op,
                bits: 1,
                from_isr: false,
                task: None,
                core_id: 0,
            });
        }
        o.stream_buffers.push(StreamBuffer {
            buffer_id: 1,
            name: "rx".into(),
            kind: StreamBufferKind::Stream,
            high_water: 12,
        });
        for (ts_ns, bytes_after) in [(4, 12), (5, 2)] {
            o.stream_buffer_ops.push(StreamBufferOp {
                ts_ns,
                buffer: 0,
                op: StreamBufferOpKind::Send,
                from_isr: false,
                task: None,
                core_id: 0,
                bytes_after,
            });
        }
        let mut out = Vec::new();
        write(&mut out, &m).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\nRTOS objects\n  flags                        2 set, 1 clear\n  rx                           2..12\n"
        );
    }
}
