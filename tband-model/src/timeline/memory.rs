//! Heaps and stacks on the timeline: under the group "Memory", a group
//! per heap holding its bytes in use (a counter), its failed allocations
//! (instants, when it has any) and one track per lane of live blocks
//! (`block <lane>`), each block a slice from allocation to free named by
//! its size and address (the core that allocated it as the argument
//! `core`; `truncated` when it was never freed). Each task's stack margin
//! is a counter under the task (under the group for an idle task, which
//! has no track).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use super::tracked::actor_name;
use super::{
    index_of, rank, rows_in, task_name_by_id, ArgName, ArgValue, Args, Details, Item, Layer, Name,
    Parent, Section, TrackBuilder, TrackId, TrackKey, TrackKind, Unit,
};
use crate::{HeapBlock, Model};

/// The tracks of one heap.
struct HeapTracks {
    in_use: TrackId,
    failed: Option<TrackId>,
    /// By lane.
    lanes: Vec<TrackId>,
}

#[derive(Default)]
struct Tracks {
    /// By index in `m.memory.heaps`.
    heaps: Vec<HeapTracks>,
    /// By task index.
    stacks: Vec<Option<TrackId>>,
    /// The names of blocks and failed allocations, by name key.
    names: Vec<String>,
    /// The name key of each (address, size); address 0 for a failure.
    name_keys: HashMap<(u64, u32), u32>,
}

impl Tracks {
    fn heap(&self, m: &Model, heap_id: u32) -> Option<&HeapTracks> {
        let i = index_of(&m.memory.heaps, heap_id, |h| h.heap_id)?;
        self.heaps.get(i)
    }

    fn name(&self, addr: u64, size: u32) -> Name<'_> {
        match self.name_keys.get(&(addr, size)) {
            Some(&key) => Name::keyed(&self.names[key as usize], key as usize),
            None => Name::NONE,
        }
    }
}

/// A block's (or a failure's) name: its size, and where it was.
fn block_name(addr: u64, size: u32) -> String {
    match addr {
        0 => format!("{size} B"),
        addr => format!("{size} B at {addr:#x}"),
    }
}

pub(super) fn declare(
    m: &Model,
    task_tracks: &[Option<TrackId>],
    tracks: &mut TrackBuilder,
) -> [Arc<dyn Layer>; 4] {
    let t = Arc::new(memory_tracks(m, task_tracks, tracks));
    [
        Table::Blocks,
        Table::Levels,
        Table::Failed,
        Table::StackMargins,
    ]
    .map(|table| -> Arc<dyn Layer> {
        Arc::new(MemoryLayer {
            tracks: t.clone(),
            table,
        })
    })
}

fn memory_tracks(m: &Model, task_tracks: &[Option<TrackId>], tracks: &mut TrackBuilder) -> Tracks {
    let memory = &m.memory;
    let mut t = Tracks::default();
    if memory.is_empty() {
        return t;
    }
    let group = tracks.group("Memory");
    for (i, heap) in memory.heaps.iter().enumerate() {
        let key = |family| TrackKey::new(family, heap.heap_id.into(), 0);
        let g = tracks.subgroup(key("heap"), group, rank(i), heap.name.clone());
        let in_use = tracks.child(
            key("heap in use"),
            Parent::Track(g),
            0,
            "in use",
            &format!("Bytes of {} allocated and not yet freed", heap.name),
            TrackKind::Counter(Section::Memory, Unit::Bytes),
        );
        let fails = (memory.failed_allocations.iter()).any(|f| f.heap_id == heap.heap_id);
        let failed = fails.then(|| {
            tracks.child(
                key("heap failed"),
                Parent::Track(g),
                1,
                "failed allocations",
                "Allocations the heap could not satisfy, by the bytes asked for",
                TrackKind::Events(Section::Memory),
            )
        });
        let lanes = (0..heap.lanes)
            .map(|lane| {
                tracks.child(
                    TrackKey::new("heap lane", heap.heap_id.into(), lane.into()),
                    Parent::Track(g),
                    rank(lane as usize).saturating_add(2),
                    &format!("block {lane}"),
                    "Blocks allocated, one at a time: from allocation to free",
                    TrackKind::Events(Section::Memory),
                )
            })
            .collect();
        t.heaps.push(HeapTracks {
            in_use,
            failed,
            lanes,
        });
    }
    let mut has_margins = vec![false; m.tasks.len()];
    for s in &memory.stack_margins {
        if let Some(i) = index_of(&m.tasks, s.task_id, |t| t.task_id) {
            has_margins[i] = true;
        }
    }
    t.stacks = (m.tasks.iter().enumerate())
        .map(|(i, task)| {
            has_margins[i].then(|| {
                let (parent, name) = match task_tracks.get(i).copied().flatten() {
                    Some(_) => (Parent::Task(i as u32), "stack free".to_string()),
                    None => (Parent::Track(group), format!("{} stack free", task.name)),
                };
                tracks.child(
                    TrackKey::new("stack free", task.task_id.into(), 0),
                    parent,
                    rank(memory.heaps.len() + i),
                    &name,
                    "The fewest bytes of the task's stack it has had left",
                    TrackKind::Counter(Section::Memory, Unit::Bytes),
                )
            })
        })
        .collect();
    let named = (memory.blocks.iter().map(|b| (b.addr, b.size)))
        .chain(memory.failed_allocations.iter().map(|f| (0, f.size)));
    for (addr, size) in named {
        let next = t.names.len() as u32;
        t.name_keys.entry((addr, size)).or_insert_with(|| {
            t.names.push(block_name(addr, size));
            next
        });
    }
    t
}

#[derive(Clone, Copy)]
enum Table {
    Blocks,
    Levels,
    Failed,
    StackMargins,
}

struct MemoryLayer {
    tracks: Arc<Tracks>,
    table: Table,
}

impl MemoryLayer {
    fn block_item<'a>(&'a self, m: &Model, b: &HeapBlock) -> Option<Item<'a>> {
        let track = *self.tracks.heap(m, b.heap_id)?.lanes.get(b.lane as usize)?;
        let name = self.tracks.name(b.addr, b.size);
        let core = (ArgName::Core, ArgValue::Uint(b.alloc_core.into()));
        let (open, args) = if b.truncated {
            let truncated = (ArgName::Truncated, ArgValue::Bool(true));
            (b.end_ns >= m.info.duration_ns, Args::of(&[core, truncated]))
        } else {
            (false, Args::of(&[core]))
        };
        Some(Item::slice(track, b.start_ns, b.end_ns, open, name).with_args(args))
    }
}

impl Layer for MemoryLayer {
    fn len(&self, m: &Model) -> usize {
        let memory = &m.memory;
        match self.table {
            Table::Blocks => memory.blocks.len(),
            Table::Levels => memory.heap_levels.len(),
            Table::Failed => memory.failed_allocations.len(),
            Table::StackMargins => memory.stack_margins.len(),
        }
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        let memory = &m.memory;
        let t = &self.tracks;
        match self.table {
            Table::Blocks => rows_in(memory.blocks.iter(), rows).for_each(|(i, b)| {
                if let Some(item) = self.block_item(m, b) {
                    visit(i, item);
                }
            }),
            Table::Levels => rows_in(memory.heap_levels.iter(), rows).for_each(|(i, l)| {
                if let Some(heap) = t.heap(m, l.heap_id) {
                    let value = i64::try_from(l.bytes_in_use).unwrap_or(i64::MAX);
                    visit(i, Item::counter(heap.in_use, l.ts_ns, value));
                }
            }),
            Table::Failed => rows_in(memory.failed_allocations.iter(), rows).for_each(|(i, f)| {
                if let Some(track) = t.heap(m, f.heap_id).and_then(|h| h.failed) {
                    visit(i, Item::instant(track, f.ts_ns, t.name(0, f.size)));
                }
            }),
            Table::StackMargins => rows_in(memory.stack_margins.iter(), rows).for_each(|(i, s)| {
                let task = index_of(&m.tasks, s.task_id, |t| t.task_id);
                if let Some(track) = task.and_then(|i| t.stacks.get(i).copied().flatten()) {
                    visit(i, Item::counter(track, s.ts_ns, s.free_bytes.into()));
                }
            }),
        }
    }

    fn name_keys(&self, _: &Model) -> usize {
        match self.table {
            Table::Blocks | Table::Failed => self.tracks.names.len(),
            Table::Levels | Table::StackMargins => 0,
        }
    }

    fn name_of<'a>(&'a self, _: &'a Model, key: u32) -> &'a str {
        match self.table {
            Table::Blocks | Table::Failed => {
                (self.tracks.names.get(key as usize)).map_or("", String::as_str)
            }
            Table::Levels | Table::StackMargins => "",
        }
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let memory = &m.memory;
        let heap_name =
            |heap_id| (memory.heap(heap_id)).map_or(format!("heap {heap_id}"), |h| h.name.clone());
        match self.table {
            Table::Blocks => {
                let Some(b) = memory.blocks.get(row) else {
                    return;
                };
                out.push(("heap", heap_name(b.heap_id)));
                out.push(("address", format!("{:#x}", b.addr)));
                out.push(("size", format!("{} B", b.size)));
                if let Some(actor) = b.allocated_by {
                    out.push(("allocated by", actor_name(m, actor)));
                }
                match (b.truncated, b.freed_by) {
                    (true, _) => out.push(("freed", "never".into())),
                    (false, Some(actor)) => out.push(("freed by", actor_name(m, actor))),
                    (false, None) => {}
                }
            }
            Table::Levels => {
                let Some(l) = memory.heap_levels.get(row) else {
                    return;
                };
                out.push(("heap", heap_name(l.heap_id)));
                let total = memory.heap(l.heap_id).and_then(|h| h.total_size);
                out.push((
                    "in use",
                    match total {
                        Some(total) => format!("{} B of {total} B", l.bytes_in_use),
                        None => format!("{} B", l.bytes_in_use),
                    },
                ));
            }
            Table::Failed => {
                let Some(f) = memory.failed_allocations.get(row) else {
                    return;
                };
                out.push(("heap", heap_name(f.heap_id)));
                out.push(("asked for", format!("{} B", f.size)));
                if let Some(actor) = f.by {
                    out.push(("by", actor_name(m, actor)));
                }
            }
            Table::StackMargins => {
                let Some(s) = memory.stack_margins.get(row) else {
                    return;
                };
                out.push(("task", task_name_by_id(m, Some(s.task_id))));
                let size = m.task_by_id(s.task_id).and_then(|t| t.stack_size);
                out.push((
                    "stack free",
                    match size {
                        Some(size) => format!("{} B of {size} B", s.free_bytes),
                        None => format!("{} B", s.free_bytes),
                    },
                ));
            }
        }
    }
}
