//! Synthetic ThreadX trace buffers of any size, for tests and benchmarks: a
//! small simulated system (a producer and a consumer thread exchanging
//! queue messages, a semaphore, a mutex, a periodic ISR, user events) whose
//! entries fill a wrapped buffer.

use super::entries::{THREAD_WORD_INIT, THREAD_WORD_ISR};
use super::layout::{ByteOrder, ENTRY_SIZE, HEADER_ID, HEADER_SIZE};
use super::timer::TimerDirection;

/// How the synthetic buffer looks.
#[derive(Debug, Clone, Copy)]
pub struct SyntheticOptions {
    /// File size; the trace area takes what the header and registry leave.
    pub bytes: usize,
    pub byte_order: ByteOrder,
    pub timer_mask: u32,
    pub timer_direction: TimerDirection,
}

impl Default for SyntheticOptions {
    fn default() -> Self {
        SyntheticOptions {
            bytes: 1 << 20,
            byte_order: ByteOrder::Little,
            timer_mask: u32::MAX,
            timer_direction: TimerDirection::Up,
        }
    }
}

const BASE: u32 = 0x2000_0000;
const NAME_SIZE: usize = 32;
const REGISTRY_ENTRY: usize = 16 + NAME_SIZE;
const PRODUCER: u32 = 0x2010_0000;
const CONSUMER: u32 = 0x2010_0100;
const QUEUE: u32 = 0x2010_0200;
const SEMAPHORE: u32 = 0x2010_0300;
const MUTEX: u32 = 0x2010_0400;
const QUEUE_DEPTH: u32 = 16;
/// A registry entry of the simulated system (all in use).
struct Object {
    object_type: u8,
    reserved: [u8; 2],
    address: u32,
    params: [u32; 2],
    name: &'static str,
}

const REGISTRY: [Object; 5] = [
    Object {
        object_type: 1,
        reserved: [0x80, 10],
        address: PRODUCER,
        params: [0x2020_0000, 1024],
        name: "producer",
    },
    Object {
        object_type: 1,
        reserved: [0x80, 12],
        address: CONSUMER,
        params: [0x2020_0400, 2048],
        name: "consumer",
    },
    Object {
        object_type: 3,
        reserved: [0, 0],
        address: QUEUE,
        params: [QUEUE_DEPTH * 4, 1],
        name: "samples",
    },
    Object {
        object_type: 4,
        reserved: [0, 0],
        address: SEMAPHORE,
        params: [0, 0],
        name: "data ready",
    },
    Object {
        object_type: 5,
        reserved: [0, 0],
        address: MUTEX,
        params: [1, 0],
        name: "bus lock",
    },
];

/// One entry before it is placed: thread word, priority word, event id, info.
type Event = (u32, u32, u32, [u32; 4]);

/// One cycle of the simulated system, about 40 entries: the producer fills
/// the queue, gives the semaphore and sleeps; the consumer drains the queue
/// under the mutex, logs a user event and blocks on the empty queue; the
/// idle system is interrupted by the timer ISR, which wakes the producer.
fn cycle(round: u32) -> Vec<Event> {
    let producer = 0x8000_0000 | 10 << 16 | 10;
    let consumer = 0x8000_0000 | 12 << 16 | 12;
    let mut events = Vec::with_capacity(48);
    for level in 0..QUEUE_DEPTH {
        events.push((PRODUCER, producer, 69, [QUEUE, 0x2030_0000, 0, level]));
    }
    events.push((PRODUCER, producer, 88, [SEMAPHORE, 0, 0, 0x2020_03F0]));
    events.push((PRODUCER, producer, 112, [1, 0, 0x2020_03E0, 0]));
    events.push((PRODUCER, producer, 2, [PRODUCER, 4, 0x2020_03D0, CONSUMER]));
    events.push((
        CONSUMER,
        consumer,
        83,
        [SEMAPHORE, u32::MAX, 1, 0x2020_07F0],
    ));
    events.push((CONSUMER, consumer, 52, [MUTEX, u32::MAX, 0, 0]));
    for level in (1..=QUEUE_DEPTH).rev() {
        events.push((
            CONSUMER,
            consumer,
            68,
            [QUEUE, 0x2030_0100, u32::MAX, level],
        ));
    }
    events.push((CONSUMER, consumer, 57, [MUTEX, CONSUMER, 1, 0x2020_07E0]));
    events.push((
        CONSUMER,
        consumer,
        4096 + round % 4,
        [round, round.wrapping_mul(3), 7, 0xCAFE],
    ));
    events.push((CONSUMER, consumer, 68, [QUEUE, 0x2030_0100, u32::MAX, 0]));
    events.push((CONSUMER, consumer, 2, [CONSUMER, 5, 0x2020_07D0, 0]));
    events.push((THREAD_WORD_ISR, 0, 3, [0x2020_0F00, 1, 1, 0]));
    events.push((THREAD_WORD_ISR, 0, 1, [PRODUCER, 4, 0x2020_0EF0, PRODUCER]));
    events.push((THREAD_WORD_ISR, 0, 4, [0x2020_0F00, 1, 1, 0]));
    events
}

/// A wrapped buffer full of the simulated system's entries; the current
/// pointer sits mid-buffer. The first entries are two initialization
/// entries, which the wrap has overwritten unless the buffer is small.
pub fn synthetic_buffer(options: &SyntheticOptions) -> Vec<u8> {
    let registry_start = HEADER_SIZE;
    let registry_end = registry_start + REGISTRY.len() * REGISTRY_ENTRY;
    let slots = options.bytes.saturating_sub(registry_end) / ENTRY_SIZE;
    let buffer_end = registry_end + slots * ENTRY_SIZE;
    let mut bytes = vec![0u8; buffer_end.max(options.bytes)];
    let order = options.byte_order;
    let put = |bytes: &mut [u8], offset: usize, value: u32| {
        let raw = match order {
            ByteOrder::Little => value.to_le_bytes(),
            ByteOrder::Big => value.to_be_bytes(),
        };
        bytes[offset..offset + 4].copy_from_slice(&raw);
    };
    let address = |offset: usize| BASE + offset as u32;

    // The entries written, oldest first: more than fit, so the buffer wraps.
    let total = slots + slots / 3;
    let current_slot = if slots == 0 { 0 } else { total % slots };
    let mut ticks: u32 = 0x1234_5678;
    let mut random: u32 = 0x9E37_79B9;
    let mut written = 0usize;
    let mut round = 0u32;
    let init: [Event; 2] = [(THREAD_WORD_INIT, 0, 6, [0; 4]); 2];
    let mut script = init.to_vec();
    'fill: loop {
        for &(thread, priority, id, info) in &script {
            if written == total {
                break 'fill;
            }
            // Entries older than the last `slots` were overwritten.
            if written + slots >= total {
                let slot = written % slots.max(1);
                let offset = registry_end + slot * ENTRY_SIZE;
                random = random.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                ticks = ticks.wrapping_add(40 + (random >> 24));
                let timestamp = match options.timer_direction {
                    TimerDirection::Up => ticks,
                    TimerDirection::Down => !ticks,
                };
                // Bits outside the mask hold garbage, as on real targets.
                let timestamp = timestamp & options.timer_mask | random & !options.timer_mask;
                let words = [
                    thread, priority, id, timestamp, info[0], info[1], info[2], info[3],
                ];
                for (index, word) in words.into_iter().enumerate() {
                    put(&mut bytes, offset + index * 4, word);
                }
            }
            written += 1;
        }
        script = cycle(round);
        round = round.wrapping_add(1);
    }

    let header = [
        HEADER_ID,
        options.timer_mask,
        BASE,
        address(registry_start),
        0, // reserved1 and name size, written below as half-words
        address(registry_end),
        address(registry_end),
        address(buffer_end),
        address(registry_end + current_slot * ENTRY_SIZE),
        0xAAAA_AAAA,
        0xBBBB_BBBB,
        0xCCCC_CCCC,
    ];
    for (index, word) in header.into_iter().enumerate() {
        put(&mut bytes, index * 4, word);
    }
    let name_size = match order {
        ByteOrder::Little => (NAME_SIZE as u16).to_le_bytes(),
        ByteOrder::Big => (NAME_SIZE as u16).to_be_bytes(),
    };
    bytes[18..20].copy_from_slice(&name_size);
    for (index, object) in REGISTRY.iter().enumerate() {
        let offset = registry_start + index * REGISTRY_ENTRY;
        let [reserved_high, reserved_low] = object.reserved;
        bytes[offset..offset + 4].copy_from_slice(&[
            0,
            object.object_type,
            reserved_high,
            reserved_low,
        ]);
        put(&mut bytes, offset + 4, object.address);
        put(&mut bytes, offset + 8, object.params[0]);
        put(&mut bytes, offset + 12, object.params[1]);
        let name = object.name.as_bytes();
        bytes[offset + 16..offset + 16 + name.len()].copy_from_slice(name);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build_model, Buffer, ReadOptions};
    use tband_model::{QueueKind, StateReason, TaskStateKind};

    fn read_back(options: &SyntheticOptions) -> (usize, tband_model::Model) {
        let bytes = synthetic_buffer(options);
        assert_eq!(bytes.len(), options.bytes);
        let buffer = Buffer::read(&bytes, &ReadOptions::default()).expect("reads");
        assert!(buffer.problems().is_empty(), "{:?}", buffer.problems());
        assert_eq!(buffer.byte_order, options.byte_order);
        assert_eq!(buffer.timer.direction, options.timer_direction);
        let mut entries = buffer.entries();
        let count = entries.by_ref().count();
        assert!(entries.finish().is_empty());
        assert_eq!(count, buffer.layout.slots);
        (count, build_model(&buffer, Vec::new(), None))
    }

    #[test]
    fn little_endian_up_counting_buffer_models_the_system() {
        let (entries, model) = read_back(&SyntheticOptions {
            bytes: 64 * 1024,
            ..SyntheticOptions::default()
        });
        assert!(entries > 1900);
        let names: Vec<_> = model.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["idle", "producer", "consumer"]);
        let queue = model
            .queues
            .iter()
            .find(|q| q.name == "samples")
            .expect("queue");
        assert_eq!(
            (queue.kind, queue.capacity, queue.high_water),
            (QueueKind::Queue, Some(16), 16)
        );
        assert!(model.mutex_holds.len() > 10);
        // User events 4096..4099 become marker instants carrying their words.
        assert_eq!(model.markers.len(), 4);
        assert_eq!(model.markers[0].name, "user event 4096");
        let instant = model.marker_instants.first().expect("user event instants");
        assert!(model
            .strings
            .get(instant.msg)
            .ends_with("0x00000007 0x0000CAFE"));
        // The consumer blocks on the empty queue; idle time is idle.
        assert!(model
            .task_states
            .iter()
            .any(|s| s.state == TaskStateKind::Blocked && s.reason == StateReason::QueueReceive));
        assert!((model.sched_slices.iter()).any(|s| model.tasks[s.task as usize].task_id == 0));
        assert!(model.isr_slices.len() > 40);
        assert!(model
            .anomalies
            .iter()
            .all(|a| a.kind == tband_model::AnomalyKind::NoTimerResolution));
    }

    #[test]
    fn big_endian_16_bit_down_counting_buffer_reads_back() {
        read_back(&SyntheticOptions {
            bytes: 16 * 1024 + 7,
            byte_order: ByteOrder::Big,
            timer_mask: 0xFFFF,
            timer_direction: TimerDirection::Down,
        });
    }

    #[test]
    fn tiny_buffers_keep_their_initialization_entries() {
        let (entries, model) = read_back(&SyntheticOptions {
            bytes: HEADER_SIZE + REGISTRY.len() * REGISTRY_ENTRY + 2 * ENTRY_SIZE,
            ..SyntheticOptions::default()
        });
        assert_eq!(entries, 2);
        assert_eq!(model.marker_spans.len(), 1);
    }
}
