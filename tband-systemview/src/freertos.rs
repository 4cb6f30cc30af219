//! SEGGER's FreeRTOS integration's API events (module events with ids 32 +
//! its `apiID_*` numbers, SEGGER_SYSVIEW_FreeRTOS.h) as the model's queue
//! operations, notifications and stream-buffer operations.
//!
//! The integration records what a call was asked, not what it did: a send
//! to a full queue and a take of an empty semaphore give the same packet as
//! ones that went through, and no packet holds a level. The importer keeps
//! each object's level from its creation on and takes an operation the
//! level rules out (a receive at 0, a send at the capacity) as failed; an
//! object whose level it cannot know (created before the recording, or a
//! counting semaphore, whose initial count is not recorded) has its
//! operations without a level, failed ones included.

use std::collections::{HashMap, HashSet};

use tband_model::{
    ModelBuilder, QueueKind, QueueOpKind, StreamBufferKind, StreamBufferOpKind, TimerOpKind,
};

/// Module event ids of the integration's API calls are this plus the call's
/// number.
const API_OFFSET: u32 = 32;
/// The highest call number the integration defines
/// (xStreamBufferReceiveFromISR).
const LAST_API: u32 = 111;

mod api {
    pub const TASK_GENERIC_NOTIFY: u32 = 30;
    pub const TASK_GENERIC_NOTIFY_FROM_ISR: u32 = 31;
    pub const TASK_NOTIFY_WAIT: u32 = 32;
    pub const TASK_NOTIFY_GIVE_FROM_ISR: u32 = 33;
    pub const TASK_NOTIFY_TAKE: u32 = 34;
    pub const QUEUE_GENERIC_SEND: u32 = 58;
    pub const QUEUE_PEEK_FROM_ISR: u32 = 59;
    pub const QUEUE_GENERIC_RECEIVE: u32 = 60;
    pub const QUEUE_GENERIC_SEND_FROM_ISR: u32 = 64;
    pub const QUEUE_RECEIVE_FROM_ISR: u32 = 66;
    pub const QUEUE_ADD_TO_REGISTRY: u32 = 81;
    pub const QUEUE_GENERIC_CREATE: u32 = 83;
    pub const STREAM_BUFFER_CREATE: u32 = 105;
    pub const STREAM_BUFFER_RESET: u32 = 107;
    pub const STREAM_BUFFER_SEND: u32 = 108;
    pub const STREAM_BUFFER_SEND_FROM_ISR: u32 = 109;
    pub const STREAM_BUFFER_RECEIVE: u32 = 110;
    pub const STREAM_BUFFER_RECEIVE_FROM_ISR: u32 = 111;
}

/// `xCopyPosition` of a send that overwrites (queueOVERWRITE).
const QUEUE_OVERWRITE: u32 = 2;
/// FreeRTOS's eNotifyAction values.
const NOTIFY_SET_BITS: u32 = 1;
const NOTIFY_INCREMENT: u32 = 2;
const NOTIFY_SET_VALUE_WITH_OVERWRITE: u32 = 3;
const NOTIFY_SET_VALUE_WITHOUT_OVERWRITE: u32 = 4;
/// The length FreeRTOS stores before each message of a message buffer
/// (a size_t on the 32-bit targets SystemView records).
const MESSAGE_LENGTH_BYTES: u32 = 4;

/// Whether a module event id is one of the integration's calls.
pub fn is_api_event(id: u32) -> bool {
    (API_OFFSET + 1..=API_OFFSET + LAST_API).contains(&id)
}

/// How the target turns addresses into ids: `(address - base) >> shift`.
#[derive(Clone, Copy, Default)]
pub struct IdShrink {
    pub base: u32,
    pub shift: u32,
}

impl IdShrink {
    pub fn shrink(self, address: u32) -> u32 {
        address.wrapping_sub(self.base).wrapping_shr(self.shift)
    }

    pub fn address(self, id: u32) -> u32 {
        id.wrapping_shl(self.shift).wrapping_add(self.base)
    }
}

#[derive(Default)]
struct QueueState {
    capacity: Option<u32>,
    level: Option<u32>,
}

/// A queue created, waiting for the first packet that names its handle.
struct CreatedQueue {
    kind: QueueKind,
    capacity: u32,
}

#[derive(Default)]
struct Notifications {
    value: u32,
    pending: bool,
}

/// What the importer knows of the objects the API events touch.
#[derive(Default)]
pub struct Objects {
    pub ids: IdShrink,
    queues: HashMap<u32, QueueState>,
    created_queue: Option<CreatedQueue>,
    stream_buffers: HashMap<u32, (StreamBufferKind, u32)>,
    notifications: HashMap<u32, Notifications>,
    /// Timers seen entering their callbacks, heaps seen defined.
    timers: HashSet<u32>,
    heaps: HashSet<u32>,
    /// Names the recording gave resources (`SEGGER_SYSVIEW_NameResource`),
    /// by their id.
    names: HashMap<u32, Vec<u8>>,
}

/// A call's packet: its time, its module event id and its arguments.
pub struct Call<'a> {
    pub t: u64,
    pub core: u32,
    pub id: u32,
    pub args: &'a [u32],
}

impl Objects {
    /// A resource's name; an object seen already takes it now, one seen
    /// later when it first appears.
    pub fn name_resource(&mut self, b: &mut ModelBuilder, resource: u32, name: &[u8]) {
        if self.timers.contains(&resource) {
            b.set_timer_name(resource, name);
        }
        if self.heaps.contains(&resource) {
            b.set_heap(resource, name, None);
        }
        if self.queues.contains_key(&resource) {
            b.set_queue_name(resource, name);
        }
        if self.stream_buffers.contains_key(&resource) {
            b.set_stream_buffer_name(resource, name);
        }
        self.names.insert(resource, name.to_vec());
    }

    /// Applies an API call; `task` gives the model's id of a task's id in
    /// the stream. False when the packet has too few arguments for its call.
    pub fn call(
        &mut self,
        b: &mut ModelBuilder,
        call: &Call<'_>,
        task: &mut dyn FnMut(u32) -> u32,
    ) -> bool {
        let Call { t, core, args, .. } = *call;
        let needed = match call.id - API_OFFSET {
            api::TASK_GENERIC_NOTIFY => 3,
            api::TASK_GENERIC_NOTIFY_FROM_ISR => 3,
            api::TASK_NOTIFY_WAIT => 2,
            api::TASK_NOTIFY_GIVE_FROM_ISR => 1,
            api::TASK_NOTIFY_TAKE => 1,
            api::QUEUE_GENERIC_SEND => 4,
            api::QUEUE_GENERIC_RECEIVE => 4,
            api::QUEUE_GENERIC_SEND_FROM_ISR
            | api::QUEUE_RECEIVE_FROM_ISR
            | api::QUEUE_PEEK_FROM_ISR
            | api::QUEUE_ADD_TO_REGISTRY => 1,
            api::QUEUE_GENERIC_CREATE => 3,
            api::STREAM_BUFFER_CREATE => 2,
            api::STREAM_BUFFER_RESET => 1,
            api::STREAM_BUFFER_SEND
            | api::STREAM_BUFFER_SEND_FROM_ISR
            | api::STREAM_BUFFER_RECEIVE
            | api::STREAM_BUFFER_RECEIVE_FROM_ISR => 2,
            _ => 0,
        };
        if args.len() < needed {
            return false;
        }
        // Every argument read below is one of the `needed`.
        let a = |i: usize| args[i];
        match call.id - API_OFFSET {
            api::TASK_GENERIC_NOTIFY => {
                let task = task(a(0));
                self.notify(b, t, core, task, a(2), a(1), false);
            }
            api::TASK_GENERIC_NOTIFY_FROM_ISR => {
                let task = task(a(0));
                self.notify(b, t, core, task, a(2), a(1), true);
            }
            api::TASK_NOTIFY_GIVE_FROM_ISR => {
                let task = task(a(0));
                self.notify(b, t, core, task, NOTIFY_INCREMENT, 0, true);
            }
            api::TASK_NOTIFY_TAKE => self.notification_taken(b, t, core, |value| {
                if a(0) != 0 {
                    0
                } else {
                    value.saturating_sub(1)
                }
            }),
            api::TASK_NOTIFY_WAIT => {
                let (clear_on_entry, clear_on_exit) = (a(0), a(1));
                let pending = b
                    .running_task(core)
                    .and_then(|task| self.notifications.get(&task))
                    .is_some_and(|n| n.pending);
                let clear = if pending {
                    clear_on_exit
                } else {
                    clear_on_entry
                };
                self.notification_taken(b, t, core, |value| value & !clear);
            }
            api::QUEUE_GENERIC_CREATE => {
                self.created_queue = Some(CreatedQueue {
                    kind: queue_kind(a(2)),
                    capacity: a(0),
                });
            }
            api::QUEUE_GENERIC_SEND => {
                let op = if a(3) == QUEUE_OVERWRITE {
                    QueueOpKind::Overwrite
                } else {
                    QueueOpKind::Send
                };
                self.queue_op(b, t, core, a(0), op, false);
            }
            api::QUEUE_GENERIC_SEND_FROM_ISR => {
                self.queue_op(b, t, core, a(0), QueueOpKind::Send, true)
            }
            api::QUEUE_GENERIC_RECEIVE => {
                // A peek passes its buffer; a receive passes none (the id
                // of address 0), and a semaphore take says so by its last
                // argument, 0.
                let peek = a(3) != 0 && a(1) != self.ids.shrink(0);
                if peek {
                    self.seen_queue(b, a(0));
                } else {
                    self.queue_op(b, t, core, a(0), QueueOpKind::Receive, false);
                }
            }
            api::QUEUE_RECEIVE_FROM_ISR => {
                self.queue_op(b, t, core, a(0), QueueOpKind::Receive, true)
            }
            api::QUEUE_PEEK_FROM_ISR | api::QUEUE_ADD_TO_REGISTRY => {
                self.seen_queue(b, a(0));
            }
            api::STREAM_BUFFER_CREATE if a(1) != 0 => {
                let buffer = self.ids.shrink(a(1));
                let kind = match a(0) {
                    0 => StreamBufferKind::Stream,
                    1 => StreamBufferKind::Message,
                    _ => StreamBufferKind::Batching,
                };
                self.stream_buffers.insert(buffer, (kind, 0));
                b.stream_buffer_created(buffer, kind);
                b.set_stream_buffer_name(buffer, &self.name_of(buffer));
            }
            api::STREAM_BUFFER_RESET => {
                let buffer = self.ids.shrink(a(0));
                if let Some((_, level)) = self.stream_buffers.get_mut(&buffer) {
                    *level = 0;
                }
                let from_isr = b.in_isr(core);
                b.stream_buffer_op(t, core, buffer, StreamBufferOpKind::Reset, from_isr, 0);
            }
            api @ (api::STREAM_BUFFER_SEND
            | api::STREAM_BUFFER_SEND_FROM_ISR
            | api::STREAM_BUFFER_RECEIVE
            | api::STREAM_BUFFER_RECEIVE_FROM_ISR) => {
                let send = matches!(
                    api,
                    api::STREAM_BUFFER_SEND | api::STREAM_BUFFER_SEND_FROM_ISR
                );
                let from_isr = matches!(
                    api,
                    api::STREAM_BUFFER_SEND_FROM_ISR | api::STREAM_BUFFER_RECEIVE_FROM_ISR
                );
                self.stream_buffer_op(b, t, core, a(0), a(1), send, from_isr);
            }
            // Calls whose effect other packets record (task creation,
            // deletion, priorities, suspension, delays: the scheduling
            // packets) or that the model has no table for.
            _ => {}
        }
        true
    }

    /// A resource's name: the one the recording gave it, else its address.
    pub fn name_of(&self, resource: u32) -> Vec<u8> {
        match self.names.get(&resource) {
            Some(name) => name.clone(),
            None => format!("{:#x}", self.ids.address(resource)).into_bytes(),
        }
    }

    /// A heap of `bytes` bytes.
    pub fn heap_defined(&mut self, b: &mut ModelBuilder, heap: u32, bytes: u32) {
        self.heaps.insert(heap);
        b.set_heap(heap, &self.name_of(heap), Some(bytes));
    }

    /// A timer's callback runs (`SEGGER_SYSVIEW_RecordEnterTimer`): it
    /// expired.
    pub fn timer_entered(&mut self, b: &mut ModelBuilder, t: u64, core: u32, timer: u32) {
        if self.timers.insert(timer) {
            b.set_timer_name(timer, &self.name_of(timer));
        }
        let from_isr = b.in_isr(core);
        b.timer_op(t, core, timer, TimerOpKind::Expired, None, from_isr);
    }

    /// A queue's state, and the queue made known to the model when first
    /// seen: the queue a create packet waits for, if one does.
    fn seen_queue(&mut self, b: &mut ModelBuilder, queue: u32) -> &mut QueueState {
        if !self.queues.contains_key(&queue) {
            let mut state = QueueState::default();
            if let Some(created) = self.created_queue.take() {
                b.set_queue_kind(queue, created.kind);
                b.set_queue_capacity(queue, created.capacity);
                state = QueueState {
                    capacity: Some(created.capacity),
                    level: (created.kind != QueueKind::CountingSemaphore).then_some(0),
                };
            }
            b.queue_created(queue);
            b.set_queue_name(queue, &self.name_of(queue));
            self.queues.insert(queue, state);
        }
        self.queues.get_mut(&queue).expect("inserted above")
    }

    fn queue_op(
        &mut self,
        b: &mut ModelBuilder,
        t: u64,
        core: u32,
        queue: u32,
        op: QueueOpKind,
        from_isr: bool,
    ) {
        let state = self.seen_queue(b, queue);
        let level = match (op, state.level, state.capacity) {
            (QueueOpKind::Receive, Some(0), _) => return,
            (QueueOpKind::Receive, Some(level), _) => Some(level - 1),
            (QueueOpKind::Send, Some(level), Some(capacity)) if level >= capacity => return,
            (QueueOpKind::Send, Some(level), _) => Some(level.saturating_add(1)),
            (QueueOpKind::Overwrite, Some(_), _) => Some(1),
            _ => None,
        };
        state.level = level;
        b.queue_op(t, core, queue, op, from_isr, level);
    }

    /// `bytes` went into or out of a stream buffer; 0 bytes is a call that
    /// moved none.
    #[allow(clippy::too_many_arguments)]
    fn stream_buffer_op(
        &mut self,
        b: &mut ModelBuilder,
        t: u64,
        core: u32,
        handle: u32,
        bytes: u32,
        send: bool,
        from_isr: bool,
    ) {
        if bytes == 0 {
            return;
        }
        let buffer = self.ids.shrink(handle);
        let (kind, level) = self
            .stream_buffers
            .entry(buffer)
            .or_insert((StreamBufferKind::Stream, 0));
        let stored = match kind {
            StreamBufferKind::Message => bytes.saturating_add(MESSAGE_LENGTH_BYTES),
            _ => bytes,
        };
        let op = if send {
            *level = level.saturating_add(stored);
            StreamBufferOpKind::Send
        } else {
            *level = level.saturating_sub(stored);
            StreamBufferOpKind::Receive
        };
        b.stream_buffer_op(t, core, buffer, op, from_isr, *level);
    }

    /// `task` was notified with `action` and `value`: its value as FreeRTOS
    /// leaves it.
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &mut self,
        b: &mut ModelBuilder,
        t: u64,
        core: u32,
        task: u32,
        action: u32,
        value: u32,
        from_isr: bool,
    ) {
        let n = self.notifications.entry(task).or_default();
        n.value = match action {
            NOTIFY_SET_BITS => n.value | value,
            NOTIFY_INCREMENT => n.value.wrapping_add(1),
            NOTIFY_SET_VALUE_WITH_OVERWRITE => value,
            NOTIFY_SET_VALUE_WITHOUT_OVERWRITE if !n.pending => value,
            _ => n.value,
        };
        n.pending = true;
        b.notification_given(t, core, task, n.value, from_isr);
    }

    /// The running task took its notification value; `after` is what the
    /// call leaves of it.
    fn notification_taken(
        &mut self,
        b: &mut ModelBuilder,
        t: u64,
        core: u32,
        after: impl FnOnce(u32) -> u32,
    ) {
        let value = match b.running_task(core) {
            Some(task) => {
                let n = self.notifications.entry(task).or_default();
                let value = n.value;
                n.value = after(value);
                n.pending = false;
                value
            }
            None => 0,
        };
        b.notification_taken(t, core, value);
    }
}

/// FreeRTOS's ucQueueType values (queue.h).
fn queue_kind(queue_type: u32) -> QueueKind {
    match queue_type {
        0 => QueueKind::Queue,
        1 => QueueKind::Mutex,
        2 => QueueKind::CountingSemaphore,
        3 => QueueKind::BinarySemaphore,
        4 => QueueKind::RecursiveMutex,
        _ => QueueKind::Unknown,
    }
}
