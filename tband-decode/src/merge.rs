//! The merge of several streams by time, for every format whose cores
//! record apart (tband's sequencer, the CTF importer): a streaming k-way
//! merge over each stream's next event (its head), never a global sort.

use std::hint::select_unpredictable;

/// Visits streams in time order. `heads` holds each stream's first head
/// time and its number, in stream order. While a stream has a head, the
/// one whose head is earliest (the first in `heads` at equal times) is
/// given to `visit` with `bound`, the earliest head time of the others
/// (`u64::MAX` when there is no other). `visit` visits that head and may
/// go on with the stream's next events while they are not later than
/// `bound` (which side of an equal time goes first is the caller's rule),
/// and returns the time of the stream's new head, or `None` once the
/// stream has ended.
#[inline(always)]
pub fn merge_by_time(heads: &[(u64, usize)], mut visit: impl FnMut(usize, u64) -> Option<u64>) {
    let mut heads = HeadTimes::new(heads);
    while !heads.is_empty() {
        let (slot, bound) = heads.earliest();
        match visit(heads.streams[slot], bound) {
            Some(ts) => heads.times[slot] = ts,
            None => heads.remove(slot),
        }
    }
}

/// Head times compared at once, without branches.
const AT_ONCE: usize = 4;

/// The times of the streams' heads, and the streams, in stream order
/// (which breaks ties), kept apart from the streams in groups of
/// [`AT_ONCE`], so that finding the earliest and the bound is a few
/// comparisons without branches. Slots past the last stream hold the
/// latest time, which a stream in an earlier slot wins.
struct HeadTimes {
    times: Vec<u64>,
    streams: Vec<usize>,
    len: usize,
}

impl HeadTimes {
    fn new(heads: &[(u64, usize)]) -> Self {
        let padded = heads.len().next_multiple_of(AT_ONCE);
        let mut slots = HeadTimes {
            times: vec![u64::MAX; padded],
            streams: vec![usize::MAX; padded],
            len: heads.len(),
        };
        for (k, &(ts, stream)) in heads.iter().enumerate() {
            slots.times[k] = ts;
            slots.streams[k] = stream;
        }
        slots
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot of the earliest head and the earliest time of the others
    /// (`u64::MAX` when it is the only one).
    #[inline(always)]
    fn earliest(&self) -> (usize, u64) {
        let (groups, _) = self.times.as_chunks::<AT_ONCE>();
        let Some((first, groups)) = groups.split_first() else {
            return (0, u64::MAX);
        };
        let (mut slot, mut best, mut bound) = earliest_of_four(first);
        for (g, group) in groups.iter().enumerate() {
            let (s, ts, others) = earliest_of_four(group);
            if ts < best {
                bound = best.min(others);
                (slot, best) = ((g + 1) * AT_ONCE + s, ts);
            } else {
                bound = bound.min(ts);
            }
        }
        (slot, bound)
    }

    /// Takes out the stream in `slot`, which has ended.
    fn remove(&mut self, slot: usize) {
        self.times.remove(slot);
        self.streams.remove(slot);
        self.len -= 1;
        if self.len.is_multiple_of(AT_ONCE) {
            self.times.truncate(self.len);
            self.streams.truncate(self.len);
        } else {
            self.times.push(u64::MAX);
            self.streams.push(usize::MAX);
        }
    }
}

/// The slot (of four) of the earliest time, the lower at equal times, its
/// time, and the earliest time of the other three. Which slot is earliest
/// cannot be predicted, so each choice is a select rather than a branch.
#[inline(always)]
fn earliest_of_four(&[t0, t1, t2, t3]: &[u64; AT_ONCE]) -> (usize, u64, u64) {
    let (first_is_1, first_is_3) = (t1 < t0, t3 < t2);
    let (lo01, hi01) = (t0.min(t1), t0.max(t1));
    let (lo23, hi23) = (t2.min(t3), t2.max(t3));
    let pair_23 = lo23 < lo01;
    let slot = select_unpredictable(
        pair_23,
        2 + usize::from(first_is_3),
        usize::from(first_is_1),
    );
    // The other pair's earlier time, or the winning pair's later one.
    let others = lo01
        .max(lo23)
        .min(select_unpredictable(pair_23, hi23, hi01));
    (slot, lo01.min(lo23), others)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The earliest head and the bound as a plain scan finds them.
    fn scan(heads: &[(u64, usize)]) -> Option<(usize, u64)> {
        let k = (0..heads.len()).min_by_key(|&k| (heads[k].0, k))?;
        let bound = (0..heads.len())
            .filter(|&j| j != k)
            .map(|j| heads[j].0)
            .min()
            .unwrap_or(u64::MAX);
        Some((heads[k].1, bound))
    }

    #[test]
    fn head_times_find_what_a_scan_finds() {
        let mut seed = 7u64;
        let mut random = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for streams in 1..=11 {
            for _ in 0..200 {
                // Few distinct times, so that ties are common, and the
                // latest time, which padding slots also hold.
                let time = |r: u64| if r == 5 { u64::MAX } else { r * 10 };
                let mut heads: Vec<(u64, usize)> =
                    (0..streams).map(|i| (time(random(6)), i)).collect();
                let mut slots = HeadTimes::new(&heads);
                while let Some(expected) = scan(&heads) {
                    let (slot, bound) = slots.earliest();
                    assert_eq!((slots.streams[slot], bound), expected, "{heads:?}");
                    if random(4) == 0 {
                        slots.remove(slot);
                        heads.remove(slot);
                    } else {
                        let ts = time(random(6));
                        slots.times[slot] = ts;
                        heads[slot].0 = ts;
                    }
                }
                assert!(slots.is_empty());
            }
        }
    }

    #[test]
    fn visits_one_head_at_a_time_in_time_then_stream_order() {
        let streams = [vec![10, 30, 30], vec![10, 20], vec![], vec![5, 40]];
        let heads: Vec<(u64, usize)> = streams
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.first().map(|&ts| (ts, i)))
            .collect();
        let mut next = vec![0; streams.len()];
        let mut visited = Vec::new();
        merge_by_time(&heads, |stream, bound| {
            let ts = streams[stream][next[stream]];
            visited.push((ts, stream, bound));
            next[stream] += 1;
            streams[stream].get(next[stream]).copied()
        });
        assert_eq!(
            visited,
            [
                (5, 3, 10),
                (10, 0, 10),
                (10, 1, 30),
                (20, 1, 30),
                (30, 0, 40),
                (30, 0, 40),
                (40, 3, u64::MAX),
            ]
        );
    }
}
