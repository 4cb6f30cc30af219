//! One core's output stream: frames events with the `tband` encoder, buffers
//! them for the sink, and plays the tracer's dropped-event accounting
//! (refused events, the running `dropped_evt_cnt`, its heartbeat).

use std::io::{self, Write};

use tband::{encode_frame, Event};

use crate::config::DropConfig;
use crate::rng::Rng;
use crate::truth::{DropEpisode, Ts};

/// Bytes collected before they are handed to the sink.
const FLUSH_AT: usize = 1 << 16;
/// Room for the longest frame the simulator writes (strings are short).
const MAX_FRAME: usize = 256;

/// When the sink refuses events.
struct DropPlan {
    rng: Rng,
    config: DropConfig,
    /// Events still accepted before the next episode starts (at least 1).
    until_episode: u64,
    /// Events still refused in the current episode.
    left_in_episode: u32,
}

impl DropPlan {
    fn new(rng: Rng, config: DropConfig) -> Self {
        let mut plan = DropPlan {
            rng,
            config,
            until_episode: 0,
            left_in_episode: 0,
        };
        plan.schedule_next();
        plan
    }

    fn schedule_next(&mut self) {
        let mean = u64::from(self.config.mean_gap_events.max(1));
        self.until_episode = self.rng.range(mean / 2 + 1, mean + mean / 2);
    }

    /// Whether the sink refuses the next event. At least one event gets
    /// through between two episodes.
    fn refuses(&mut self) -> bool {
        if self.left_in_episode > 0 {
            self.left_in_episode -= 1;
            if self.left_in_episode == 0 {
                self.schedule_next();
            }
            return true;
        }
        if self.until_episode > 0 {
            self.until_episode -= 1;
            return false;
        }
        let max = u64::from(self.config.max_lost_events.max(1));
        // This event is the episode's first loss.
        self.left_in_episode = self.rng.range(1, max) as u32 - 1;
        if self.left_in_episode == 0 {
            self.schedule_next();
        }
        true
    }
}

pub(crate) struct CoreStream<W> {
    core: u32,
    sink: W,
    /// Frames not yet handed to the sink: `buf[..filled]`.
    buf: Box<[u8]>,
    filled: usize,
    bytes: u64,
    plan: Option<DropPlan>,
    heartbeat: u32,
    dropped: u32,
    sent_dropped: u32,
    events_since_count: u32,
    /// The last refused event ended an episode that is still growing.
    in_episode: bool,
    episodes: Vec<DropEpisode>,
    /// Episodes before this index have been reported.
    reported: usize,
    last_written_ts: Option<Ts>,
}

impl<W: Write> CoreStream<W> {
    pub fn new(core: u32, sink: W, heartbeat: u32, drops: Option<(Rng, DropConfig)>) -> Self {
        CoreStream {
            core,
            sink,
            buf: vec![0; FLUSH_AT + MAX_FRAME].into_boxed_slice(),
            filled: 0,
            bytes: 0,
            plan: drops.map(|(rng, config)| DropPlan::new(rng, config)),
            heartbeat,
            dropped: 0,
            sent_dropped: 0,
            events_since_count: 0,
            in_episode: false,
            episodes: Vec::new(),
            reported: 0,
            last_written_ts: None,
        }
    }

    /// Bytes written so far (buffered included).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn write_frame(&mut self, ts: Ts, event: &Event<'_>) -> io::Result<()> {
        let Some(n) = encode_frame(&mut self.buf[self.filled..], ts, event) else {
            return Err(io::Error::other(format!(
                "a {} frame is longer than {MAX_FRAME} bytes",
                event.kind().name()
            )));
        };
        self.filled += n;
        self.bytes += n as u64;
        if self.filled >= FLUSH_AT {
            self.sink.write_all(&self.buf[..self.filled])?;
            self.filled = 0;
        }
        Ok(())
    }

    /// A metadata event (kept in the tracer's metadata buffer, never lost).
    pub fn meta(&mut self, event: &Event<'_>) -> io::Result<()> {
        self.write_frame(0, event)
    }

    /// A `core_id` frame of the stream header (never lost).
    pub fn header_core_id(&mut self, core_id: u32) -> io::Result<()> {
        self.write_frame(0, &Event::CoreId { core_id })
    }

    /// A timestamped event; `Ok(false)` when the sink refused it.
    #[inline]
    pub fn event(&mut self, ts: Ts, event: &Event<'_>) -> io::Result<bool> {
        if let Some(plan) = &mut self.plan {
            if plan.refuses() {
                self.count_loss(ts);
                return Ok(false);
            }
        }
        self.in_episode = false;
        let heartbeat_due = self.heartbeat > 0 && self.events_since_count >= self.heartbeat;
        if self.dropped != self.sent_dropped || heartbeat_due {
            self.write_frame(ts, &Event::DroppedEvtCnt { cnt: self.dropped })?;
            self.sent_dropped = self.dropped;
            self.events_since_count = 0;
            for episode in &mut self.episodes[self.reported..] {
                episode.reported_at_ts = Some(ts);
            }
            self.reported = self.episodes.len();
        }
        self.write_frame(ts, event)?;
        self.events_since_count += 1;
        self.last_written_ts = Some(ts);
        Ok(true)
    }

    fn count_loss(&mut self, ts: Ts) {
        self.dropped = self.dropped.wrapping_add(1);
        match self.episodes.last_mut() {
            Some(episode) if self.in_episode => {
                episode.last_lost_ts = ts;
                episode.lost_events += 1;
            }
            _ => self.episodes.push(DropEpisode {
                core: self.core,
                previous_ts: self.last_written_ts,
                first_lost_ts: ts,
                last_lost_ts: ts,
                lost_events: 1,
                reported_at_ts: None,
            }),
        }
        self.in_episode = true;
    }

    /// Flushes and hands back the sink and the episodes of lost events.
    pub fn finish(mut self) -> io::Result<(W, Vec<DropEpisode>)> {
        self.sink.write_all(&self.buf[..self.filled])?;
        self.sink.flush()?;
        Ok((self.sink, self.episodes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(bytes: &[u8]) -> Vec<Option<u32>> {
        // One entry per frame: Some(cnt) for dropped_evt_cnt frames.
        bytes
            .split(|&b| b == 0)
            .filter(|f| !f.is_empty())
            .map(|f| {
                let mut payload = [0u8; 64];
                let n = tband::cobs::decode(f, &mut payload).unwrap();
                match tband::Record::decode(&payload[..n]).unwrap().event {
                    Event::DroppedEvtCnt { cnt } => Some(cnt),
                    _ => None,
                }
            })
            .collect()
    }

    #[test]
    fn heartbeat_every_n_events() {
        let mut s = CoreStream::new(0, Vec::new(), 3, None);
        for ts in 1..=7 {
            assert!(s.event(ts, &Event::IsrEnter { isr_id: 1 }).unwrap());
        }
        let (bytes, episodes) = s.finish().unwrap();
        assert!(episodes.is_empty());
        let c = counts(&bytes);
        assert_eq!(
            c,
            [None, None, None, Some(0), None, None, None, Some(0), None]
        );
    }

    #[test]
    fn losses_are_reported_once_before_the_next_event() {
        let config = DropConfig {
            mean_gap_events: 4,
            max_lost_events: 3,
        };
        let mut s = CoreStream::new(2, Vec::new(), 0, Some((Rng::new(3), config)));
        let mut written = Vec::new();
        for ts in 1..=200 {
            written.push(s.event(ts, &Event::IsrExit { isr_id: 1 }).unwrap());
        }
        let (bytes, episodes) = s.finish().unwrap();
        let lost = written.iter().filter(|w| !**w).count() as u32;
        assert!(lost > 0);
        assert_eq!(episodes.iter().map(|e| e.lost_events).sum::<u32>(), lost);
        // Every count frame shows a new total, and the totals add up.
        let sent: Vec<u32> = counts(&bytes).into_iter().flatten().collect();
        assert!(sent.windows(2).all(|w| w[0] < w[1]));
        for e in &episodes {
            assert_eq!(e.core, 2);
            assert!(e.first_lost_ts <= e.last_lost_ts);
            assert!(e.previous_ts.is_none_or(|p| p < e.first_lost_ts));
            if let Some(at) = e.reported_at_ts {
                assert!(at > e.last_lost_ts);
                assert!(!written[at as usize - 2]);
            }
        }
        let reported: u32 = episodes
            .iter()
            .filter(|e| e.reported_at_ts.is_some())
            .map(|e| e.lost_events)
            .sum();
        assert_eq!(sent.last().copied(), Some(reported));
    }
}
