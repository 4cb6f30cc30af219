//! The builder's calls for heaps and stacks (see [`Memory`]): blocks from
//! allocation to free, each heap's bytes in use, and what did not add up
//! (a free of an unknown address, a double free, a size that disagrees),
//! counted as anomalies.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{ModelBuilder, OpenEnds};
use crate::lanes::Lanes;
use crate::{
    Anomaly, AnomalyKind, FailedAllocation, Heap, HeapBlock, HeapLevel, Memory, StackMargin,
};

/// What is known of each heap while the model is built.
#[derive(Default)]
pub(super) struct MemorySoFar {
    heaps: BTreeMap<u32, HeapSoFar>,
    problems: Vec<Problem>,
}

#[derive(Default)]
struct HeapSoFar {
    name: Option<String>,
    total_size: Option<u32>,
    in_use: u64,
    peak: (u64, u64),
    lanes: Lanes,
    /// The live blocks by address: their rows in `Memory::blocks`.
    live: HashMap<u64, usize>,
    /// Addresses freed and not allocated again since.
    freed: HashSet<u64>,
}

/// A kind of thing that did not add up, in one heap: how often, where
/// first and last, and the first as an example.
struct Problem {
    heap_id: u32,
    kind: AnomalyKind,
    count: u64,
    first_ns: u64,
    last_ns: u64,
    core_id: u32,
    example: String,
}

impl MemorySoFar {
    /// Fills the list of heaps, by id.
    pub(super) fn fill(&self, memory: &mut Memory) {
        memory.heaps = (self.heaps.iter())
            .map(|(&heap_id, heap)| Heap {
                heap_id,
                name: (heap.name.clone()).unwrap_or_else(|| format!("heap {heap_id}")),
                total_size: heap.total_size,
                peak_bytes: heap.peak.0,
                peak_ns: heap.peak.1,
                lanes: heap.lanes.count(),
            })
            .collect();
    }

    /// Ends (or opens again) the blocks still live.
    pub(super) fn set_open_ends(&self, memory: &mut Memory, ends: OpenEnds) {
        for &row in self.heaps.values().flat_map(|h| h.live.values()) {
            let b = &mut memory.blocks[row];
            ends.apply(b.start_ns, &mut b.end_ns, &mut b.truncated);
        }
    }

    /// The anomalies of what did not add up.
    pub(super) fn anomalies(&self) -> impl Iterator<Item = Anomaly> + '_ {
        self.problems.iter().map(|p| Anomaly {
            start_ns: p.first_ns,
            end_ns: p.last_ns,
            core_id: Some(p.core_id),
            kind: p.kind,
            count: p.count,
            detail: if p.count == 1 {
                p.example.clone()
            } else {
                format!("{} (first of these)", p.example)
            },
        })
    }

    fn name(&self, heap_id: u32) -> String {
        match self.heaps.get(&heap_id).and_then(|h| h.name.as_deref()) {
            Some(name) => name.into(),
            None => format!("heap {heap_id}"),
        }
    }

    fn count(&mut self, heap_id: u32, kind: AnomalyKind, t: u64, core: u32, example: String) {
        match (self.problems.iter_mut()).find(|p| p.heap_id == heap_id && p.kind == kind) {
            Some(p) => {
                p.count += 1;
                p.last_ns = t;
            }
            None => self.problems.push(Problem {
                heap_id,
                kind,
                count: 1,
                first_ns: t,
                last_ns: t,
                core_id: core,
                example,
            }),
        }
    }
}

impl ModelBuilder {
    /// Names a heap and gives its size in bytes, if known.
    pub fn set_heap(&mut self, heap: u32, name: &[u8], total_size: Option<u32>) {
        let h = self.memory.heaps.entry(heap).or_default();
        h.name = Some(String::from_utf8_lossy(name).into());
        h.total_size = total_size.or(h.total_size);
    }

    /// The bytes `heap` has, learnt apart from its name.
    pub fn set_heap_size(&mut self, heap: u32, total_size: u32) {
        self.memory.heaps.entry(heap).or_default().total_size = Some(total_size);
    }

    /// `size` bytes of `heap` were allocated at `addr`.
    pub fn heap_alloc(&mut self, t: u64, core: u32, heap: u32, addr: u64, size: u32) {
        let by = self.actor(core);
        let name = self.memory.name(heap);
        let h = self.memory.heaps.entry(heap).or_default();
        if let Some(earlier) = h.live.remove(&addr) {
            let block = &mut self.model.memory.blocks[earlier];
            block.end_ns = t;
            block.truncated = true;
            h.lanes.release(block.lane);
            h.in_use -= u64::from(block.size);
            self.memory.count(
                heap,
                AnomalyKind::Inconsistent,
                t,
                core,
                format!(
                    "{name}: {addr:#x} was allocated again while live; its free was not recorded"
                ),
            );
        }
        let h = self.memory.heaps.entry(heap).or_default();
        h.freed.remove(&addr);
        h.in_use += u64::from(size);
        if h.in_use > h.peak.0 {
            h.peak = (h.in_use, t);
        }
        let lane = h.lanes.take();
        h.live.insert(addr, self.model.memory.blocks.len());
        let in_use = h.in_use;
        let m = &mut self.model.memory;
        m.blocks.push(HeapBlock {
            heap_id: heap,
            addr,
            size,
            start_ns: t,
            end_ns: t,
            truncated: false,
            lane,
            alloc_core: core,
            free_core: None,
            allocated_by: by,
            freed_by: None,
        });
        m.heap_levels.push(HeapLevel {
            ts_ns: t,
            heap_id: heap,
            bytes_in_use: in_use,
        });
    }

    /// An allocation of `size` bytes of `heap` failed.
    pub fn heap_alloc_failed(&mut self, t: u64, core: u32, heap: u32, size: u32) {
        self.memory.heaps.entry(heap).or_default();
        let by = self.actor(core);
        (self.model.memory.failed_allocations).push(FailedAllocation {
            ts_ns: t,
            heap_id: heap,
            size,
            core_id: core,
            by,
        });
    }

    /// The block of `heap` at `addr` was freed; `size` is its size as the
    /// allocator says, if it does.
    pub fn heap_free(&mut self, t: u64, core: u32, heap: u32, addr: u64, size: Option<u32>) {
        let by = self.actor(core);
        let name = self.memory.name(heap);
        let h = self.memory.heaps.entry(heap).or_default();
        let Some(row) = h.live.remove(&addr) else {
            let (kind, what) = if h.freed.contains(&addr) {
                (AnomalyKind::DoubleFree, "was freed again")
            } else {
                (AnomalyKind::UnknownFree, "was freed but never allocated")
            };
            let example = format!("{name}: {addr:#x} {what}");
            self.memory.count(heap, kind, t, core, example);
            return;
        };
        h.freed.insert(addr);
        let block = &mut self.model.memory.blocks[row];
        block.end_ns = t;
        block.free_core = Some(core);
        block.freed_by = by;
        h.lanes.release(block.lane);
        h.in_use -= u64::from(block.size);
        let (allocated, in_use) = (block.size, h.in_use);
        self.model.memory.heap_levels.push(HeapLevel {
            ts_ns: t,
            heap_id: heap,
            bytes_in_use: in_use,
        });
        if let Some(size) = size.filter(|&s| s != allocated) {
            let example =
                format!("{name}: {addr:#x} was freed as {size} bytes but allocated as {allocated}");
            self.memory
                .count(heap, AnomalyKind::FreeSizeMismatch, t, core, example);
        }
    }

    /// `task` has had at most `free_bytes` of its stack left so far.
    pub fn stack_margin(&mut self, t: u64, task: u32, free_bytes: u32) {
        self.tasks.entry(task);
        self.model.memory.stack_margins.push(StackMargin {
            ts_ns: t,
            task_id: task,
            free_bytes,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::{Actor, AnomalyKind, IsrKey, Model, ModelBuilder};

    /// Task 1 allocates three blocks, an ISR frees one, task 1 frees
    /// another, one stays live; an allocation fails.
    fn heap_trace() -> ModelBuilder {
        let mut b = ModelBuilder::default();
        b.set_heap(0, b"sys", Some(1000));
        b.event_at(0, 0);
        b.task_switched_in(0, 0, 1);
        b.heap_alloc(10, 0, 0, 0x100, 64);
        b.heap_alloc(20, 0, 0, 0x200, 32);
        b.heap_alloc(30, 0, 0, 0x300, 16);
        b.isr_enter(40, 0, 7);
        b.heap_free(45, 0, 0, 0x200, Some(32));
        b.isr_exit(50, 0, 7);
        b.heap_free(60, 0, 0, 0x100, None);
        b.heap_alloc_failed(70, 0, 0, 5000);
        b.heap_alloc(80, 0, 0, 0x400, 8);
        b.event_at(0, 100);
        b
    }

    fn blocks(m: &Model) -> Vec<(u64, u32, u64, u64, bool, u32)> {
        (m.memory.blocks.iter())
            .map(|b| (b.addr, b.size, b.start_ns, b.end_ns, b.truncated, b.lane))
            .collect()
    }

    #[test]
    fn blocks_live_from_allocation_to_free_on_the_lowest_free_lane() {
        let m = heap_trace().finish();
        assert_eq!(
            blocks(&m),
            [
                (0x100, 64, 10, 60, false, 0),
                (0x200, 32, 20, 45, false, 1),
                (0x300, 16, 30, 100, true, 2),
                (0x400, 8, 80, 100, true, 0),
            ]
        );
        let b = &m.memory.blocks[1];
        assert_eq!(b.allocated_by, Some(Actor::Task(1)));
        let isr = IsrKey {
            core_id: 0,
            isr_id: 7,
        };
        assert_eq!((b.freed_by, b.free_core), (Some(Actor::Isr(isr)), Some(0)));
        let levels: Vec<_> = (m.memory.heap_levels.iter())
            .map(|l| (l.ts_ns, l.bytes_in_use))
            .collect();
        assert_eq!(
            levels,
            [(10, 64), (20, 96), (30, 112), (45, 80), (60, 16), (80, 24)]
        );
        let heap = &m.memory.heaps[0];
        assert_eq!(
            (
                heap.name.as_str(),
                heap.total_size,
                heap.peak_bytes,
                heap.peak_ns,
                heap.lanes
            ),
            ("sys", Some(1000), 112, 30, 3)
        );
        let failed = &m.memory.failed_allocations[0];
        assert_eq!(
            (failed.ts_ns, failed.size, failed.by),
            (70, 5000, Some(Actor::Task(1)))
        );
        assert!(m.anomalies.is_empty(), "{:?}", m.anomalies);
    }

    #[test]
    fn a_model_taken_so_far_shows_live_blocks_open_and_resumes() {
        let mut b = heap_trace();
        let m = b.take_so_far();
        assert_eq!(blocks(&m)[2], (0x300, 16, 30, 100, true, 2));
        b.resume(m);
        b.heap_free(120, 0, 0, 0x300, Some(16));
        b.event_at(0, 130);
        let m = b.finish();
        assert_eq!(blocks(&m)[2], (0x300, 16, 30, 120, false, 2));
        assert_eq!(blocks(&m)[3], (0x400, 8, 80, 130, true, 0));
    }

    #[test]
    fn frees_that_do_not_add_up_are_counted() {
        let mut b = heap_trace();
        b.heap_free(110, 0, 0, 0x200, Some(32));
        b.heap_free(111, 0, 0, 0x200, Some(32));
        b.heap_free(112, 0, 0, 0x999, Some(4));
        b.heap_free(113, 0, 0, 0x400, Some(9));
        b.heap_alloc(114, 0, 0, 0x300, 16);
        let m = b.finish();
        let anomalies: Vec<_> = (m.anomalies.iter())
            .map(|a| (a.kind, a.count, a.start_ns, a.end_ns, a.detail.as_str()))
            .collect();
        assert_eq!(
            anomalies,
            [
                (
                    AnomalyKind::DoubleFree,
                    2,
                    110,
                    111,
                    "sys: 0x200 was freed again (first of these)"
                ),
                (
                    AnomalyKind::UnknownFree,
                    1,
                    112,
                    112,
                    "sys: 0x999 was freed but never allocated"
                ),
                (
                    AnomalyKind::FreeSizeMismatch,
                    1,
                    113,
                    113,
                    "sys: 0x400 was freed as 9 bytes but allocated as 8"
                ),
                (
                    AnomalyKind::Inconsistent,
                    1,
                    114,
                    114,
                    "sys: 0x300 was allocated again while live; its free was not recorded"
                ),
            ]
        );
        assert_eq!(blocks(&m)[2], (0x300, 16, 30, 114, true, 2));
        assert_eq!(m.memory.heap_levels.last().unwrap().bytes_in_use, 16);
    }

    #[test]
    fn stack_margins_and_sizes_reach_the_model() {
        let mut b = ModelBuilder::default();
        b.set_task_stack_size(3, 512);
        b.stack_margin(5, 3, 400);
        b.stack_margin(9, 3, 380);
        let m = b.finish();
        assert_eq!(m.task_by_id(3).and_then(|t| t.stack_size), Some(512));
        let margins: Vec<_> = (m.memory.stack_margins.iter())
            .map(|s| (s.ts_ns, s.task_id, s.free_bytes))
            .collect();
        assert_eq!(margins, [(5, 3, 400), (9, 3, 380)]);
    }

    #[test]
    fn a_window_cuts_blocks_and_carries_levels_in() {
        let m = heap_trace().finish();
        let w = m.window(25, Some(65));
        assert_eq!(
            blocks(&w),
            [
                (0x100, 64, 25, 60, false, 0),
                (0x200, 32, 25, 45, false, 1),
                (0x300, 16, 30, 65, true, 2),
            ]
        );
        let levels: Vec<_> = (w.memory.heap_levels.iter())
            .map(|l| (l.ts_ns, l.bytes_in_use))
            .collect();
        assert_eq!(levels, [(25, 96), (30, 112), (45, 80), (60, 16)]);
        assert_eq!(
            (w.memory.heaps[0].peak_bytes, w.memory.heaps[0].peak_ns),
            (112, 30)
        );
        assert!(w.memory.failed_allocations.is_empty());
    }
}
