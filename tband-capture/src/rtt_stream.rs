//! An RTT up channel read as a stream of bytes: each poll takes what the
//! channel holds from the target's memory. The same loop serves a GDB
//! server, which halts the target for each poll, and a debug probe, which
//! reads while the target runs.

use std::io::{self, Read};
use std::time::{Duration, Instant};

use crate::record::READ_TIMEOUT;
use crate::rtt::{self, Channel, DownChannel, Location, TargetMemory, UpChannel};
use crate::start::Start;

/// The least time between two polls of a channel that was less than half
/// full: behind an all-stop GDB server each poll halts the target.
pub const POLL_INTERVAL: Duration = Duration::from_millis(10);
/// How long the target may run without setting up its RTT control block.
const CONTROL_BLOCK_WAIT: Duration = Duration::from_secs(10);

/// A connection to a target through which its RTT memory is read.
pub trait Attached: TargetMemory {
    /// Makes the memory readable (halts the target where the connection
    /// reads only a halted one); `false` if the target is gone: exited, or
    /// the connection closed.
    fn pause(&mut self) -> io::Result<bool>;
    /// Lets the target run on after [`Attached::pause`].
    fn resume(&mut self) -> io::Result<()>;
    /// Leaves the target running as the recording ends.
    fn release(&mut self);
}

/// An RTT up channel read through `T`.
pub struct RttStream<T: Attached> {
    target: T,
    location: Location,
    channel: Channel,
    found: Option<UpChannel>,
    /// The command still to send on the paired down channel, and that
    /// channel as the last poll saw it.
    start: Option<Start>,
    down_seen: Option<DownChannel>,
    /// Bytes taken from the target and not yet returned.
    taken: Vec<u8>,
    returned: usize,
    next_poll: Instant,
    started: Instant,
    gone: bool,
    /// Polls so far and the time the target spent paused for them.
    pub polls: u64,
    pub paused: Duration,
}

impl<T: Attached> RttStream<T> {
    /// Reads through `target`, which may be halted; it runs from the first
    /// read on. With `start`, its command is sent once the channel is found.
    pub fn new(
        target: T,
        location: Location,
        channel: Channel,
        start: Option<Start>,
    ) -> RttStream<T> {
        let now = Instant::now();
        RttStream {
            target,
            location,
            channel,
            found: None,
            start,
            down_seen: None,
            taken: Vec::new(),
            returned: 0,
            next_poll: now,
            started: now,
            gone: false,
            polls: 0,
            paused: Duration::ZERO,
        }
    }

    /// Takes what the channel holds; the channel is looked for until it is
    /// found.
    fn take(&mut self) -> Result<(), String> {
        if self.found.is_none() {
            self.found = rtt::find_channel(&mut self.target, &self.location, &self.channel)?;
        }
        match self.found {
            Some(channel) => {
                if let Some(start) = self.start {
                    self.send_start(channel, start)?;
                }
                let n = channel.take(&mut self.target, &mut self.taken)?;
                let half_full = n as u64 * 2 >= u64::from(channel.size());
                if !half_full {
                    self.next_poll = Instant::now() + POLL_INTERVAL;
                }
                Ok(())
            }
            None if self.started.elapsed() > CONTROL_BLOCK_WAIT => Err(format!(
                "the target set up no RTT control block {} in {} s; check that the ELF is \
                 the running firmware and that it calls rtt_init!",
                match self.location {
                    Location::At(address) => format!("at {address:#010x}"),
                    Location::Scan { start, len } =>
                        format!("in {start:#010x}..{:#010x}", start.saturating_add(len)),
                },
                CONTROL_BLOCK_WAIT.as_secs()
            )),
            None => {
                self.next_poll = Instant::now() + POLL_INTERVAL;
                Ok(())
            }
        }
    }

    /// Sends `start` on the down channel paired with `channel` once the
    /// target has set that channel up. The target may have been halted
    /// while setting it up, its offsets not yet cleared: it is written to
    /// only once two polls in a row have seen it the same.
    fn send_start(&mut self, channel: UpChannel, start: Start) -> Result<(), String> {
        let down = channel
            .paired_down_channel(&mut self.target)
            .map_err(|e| format!("cannot send {start}: {e}"))?;
        match down {
            Some(down) if self.down_seen == Some(down) => {
                down.send(&mut self.target, start.command())
                    .map_err(|e| format!("cannot send {start}: {e}"))?;
                self.start = None;
            }
            None if self.started.elapsed() > CONTROL_BLOCK_WAIT => {
                return Err(format!(
                    "cannot send {start}: the target set up no RTT down channel {} in {} s",
                    channel.number(),
                    CONTROL_BLOCK_WAIT.as_secs()
                ))
            }
            seen => self.down_seen = seen,
        }
        Ok(())
    }

    /// One poll: pause, take, resume. `false` once the target is gone.
    fn poll(&mut self) -> io::Result<bool> {
        let paused_at = Instant::now();
        if !self.target.pause()? {
            return Ok(false);
        }
        let taken = self.take();
        self.target.resume()?;
        self.polls += 1;
        self.paused += paused_at.elapsed();
        taken.map_err(io::Error::other)?;
        Ok(true)
    }
}

impl<T: Attached> Read for RttStream<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.returned == self.taken.len() {
            self.taken.clear();
            self.returned = 0;
            if self.gone {
                return Ok(0);
            }
            let wait = self.next_poll.saturating_duration_since(Instant::now());
            if wait > READ_TIMEOUT {
                std::thread::sleep(READ_TIMEOUT);
                return Err(io::ErrorKind::TimedOut.into());
            }
            std::thread::sleep(wait);
            if !self.poll()? {
                self.gone = true;
                return Ok(0);
            }
            if self.taken.is_empty() {
                return Err(io::ErrorKind::TimedOut.into());
            }
        }
        let rest = &self.taken[self.returned..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.returned += n;
        Ok(n)
    }
}

impl<T: Attached> Drop for RttStream<T> {
    fn drop(&mut self) {
        if !self.gone {
            self.target.release();
        }
    }
}
