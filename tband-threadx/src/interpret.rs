//! What ThreadX trace entries mean: the importer that turns a buffer's
//! registry and entries into model-builder calls.
//!
//! ThreadX has one core and no idle thread. Who runs is read from two
//! places: the thread word of every entry logged in thread context (that
//! thread is running), and the "next thread" word of resume/suspend/time-slice
//! events (the scheduler's decision, which takes effect at once in thread
//! context and when the last ISR exits in interrupt context). Time when no
//! thread runs belongs to a synthetic idle task.

use std::collections::{HashMap, HashSet};

use super::entries::{Context, Entry};
use super::event_names::{USER_EVENT_FIRST, USER_EVENT_LAST};
use super::problems::{Problem, ProblemKind};
use super::raw_events::hand_entry;
use super::registry::{ObjectKind, RegistryEntry};
use super::{Buffer, ENTRY_SIZE};
use tband_model::{
    AnomalyKind, EventSink, Import, MarkerKind, Model, ModelBuilder, PriorityCause, PriorityOrder,
    QueueKind, QueueOpKind, ReadProgress, ReadTeller, StateReason, StrId, TaskKind, TaskStateKind,
    TraceInfo,
};

/// ThreadX runs on one core.
const CORE: u32 = 0;
/// Task id of the time no thread runs; registered objects have ids from 1.
pub const IDLE_TASK_ID: u32 = 0;
/// ISR id of interrupt-context entries outside any ISR enter/exit pair.
pub const INTERRUPT_CONTEXT_ISR_ID: u32 = u32::MAX;
/// Marker (global, event kind) spanning the initialization phase. User
/// events use their event id (4096 and up) as marker id.
pub const INIT_MARKER_ID: u32 = 0;
/// Name ThreadX gives its timer service thread.
const TIMER_THREAD_NAME: &str = "System Timer Thread";

/// Event ids the interpretation acts on (tx_trace.h).
mod event {
    pub const THREAD_RESUME: u32 = 1;
    pub const THREAD_SUSPEND: u32 = 2;
    pub const ISR_ENTER: u32 = 3;
    pub const ISR_EXIT: u32 = 4;
    pub const TIME_SLICE: u32 = 5;
    pub const BLOCK_ALLOCATE: u32 = 10;
    pub const BLOCK_POOL_CREATE: u32 = 11;
    pub const BLOCK_RELEASE: u32 = 17;
    pub const BYTE_ALLOCATE: u32 = 20;
    pub const BYTE_POOL_CREATE: u32 = 21;
    pub const BYTE_RELEASE: u32 = 27;
    pub const EVENT_FLAGS_CREATE: u32 = 30;
    pub const EVENT_FLAGS_GET: u32 = 32;
    pub const EVENT_FLAGS_SET: u32 = 36;
    pub const MUTEX_CREATE: u32 = 50;
    pub const MUTEX_GET: u32 = 52;
    pub const MUTEX_PUT: u32 = 57;
    pub const QUEUE_CREATE: u32 = 60;
    pub const QUEUE_FLUSH: u32 = 62;
    pub const QUEUE_FRONT_SEND: u32 = 63;
    pub const QUEUE_RECEIVE: u32 = 68;
    pub const QUEUE_SEND: u32 = 69;
    pub const SEMAPHORE_CEILING_PUT: u32 = 80;
    pub const SEMAPHORE_CREATE: u32 = 81;
    pub const SEMAPHORE_GET: u32 = 83;
    pub const SEMAPHORE_PUT: u32 = 88;
    pub const THREAD_CREATE: u32 = 100;
    pub const THREAD_DELETE: u32 = 101;
    pub const THREAD_PRIORITY_CHANGE: u32 = 108;
    pub const THREAD_RELINQUISH: u32 = 109;
    pub const THREAD_SLEEP: u32 = 112;
}

/// Thread execution states (tx_api.h), as THREAD_SUSPEND's I2 gives them.
mod state {
    pub const COMPLETED: u32 = 1;
    pub const TERMINATED: u32 = 2;
    pub const SUSPENDED: u32 = 3;
    pub const SLEEP: u32 = 4;
    pub const QUEUE_SUSP: u32 = 5;
    pub const SEMAPHORE_SUSP: u32 = 6;
    pub const EVENT_FLAG: u32 = 7;
    pub const BLOCK_MEMORY: u32 = 8;
    pub const TCP_IP: u32 = 12;
    pub const MUTEX_SUSP: u32 = 13;
}

/// A ThreadX buffer as its importer reads it, telling `progress` how many
/// of its bytes it has read.
pub struct ThreadxImport<'a> {
    pub buffer: Buffer<'a>,
    pub progress: ReadProgress<'a>,
}

impl Import for ThreadxImport<'_> {
    fn build_model(&self, info: TraceInfo, events: Option<EventSink<'_>>) -> Model {
        build_model_telling(&self.buffer, info.sources, events, self.progress)
    }
}

/// Builds the model of a ThreadX buffer, handing every entry to `events`
/// if given.
pub fn build_model(
    buffer: &Buffer<'_>,
    sources: Vec<String>,
    events: Option<EventSink<'_>>,
) -> Model {
    build_model_telling(buffer, sources, events, &|_| {})
}

/// [`build_model`], telling `progress` how far it has read.
fn build_model_telling(
    buffer: &Buffer<'_>,
    sources: Vec<String>,
    mut events: Option<EventSink<'_>>,
    progress: ReadProgress<'_>,
) -> Model {
    let mut importer = Importer::new(buffer, sources);
    let mut read = ReadTeller::new(1, progress);
    let mut entries = buffer.entries();
    let mut count = 0u64;
    for entry in entries.by_ref() {
        if let Some(events) = events.as_deref_mut() {
            hand_entry(events, buffer, &entry, importer.b.actor(0));
        }
        importer.entry(&entry);
        count += 1;
        read.read_to(0, count * ENTRY_SIZE as u64);
    }
    read.done(buffer.bytes.len() as u64);
    let problems = entries.finish();
    importer.finish(count, buffer.problems().iter().chain(&problems))
}

struct Importer<'b> {
    b: ModelBuilder,
    buffer: &'b Buffer<'b>,
    /// Ids given to addresses the registry does not know.
    unregistered: HashMap<u32, u32>,
    next_unregistered_id: u32,
    idle_declared: bool,
    /// Thread chosen to run by an event in interrupt context; the switch
    /// happens when the last ISR exits.
    pending_switch: Option<u32>,
    /// Time of the latest interrupt-context entry of a run that has no
    /// ISR enter event (its slice is still open).
    context_isr_last: Option<u64>,
    init_open: bool,
    /// The object the running task last operated on, and the reason it
    /// would block there: (task, reason, object).
    last_wait: Option<(u32, StateReason, Option<u32>)>,
    /// By object id.
    objects: Vec<ObjectState>,
    /// The last thread and the last other object looked up: (address, id).
    last_thread: Option<(u32, u32)>,
    last_object: Option<(u32, u32)>,
    named_user_markers: HashSet<u32>,
}

/// What the importer follows per object. Object ids are dense (registry
/// position + 1, then unregistered addresses in order of appearance), so
/// this is a vector indexed by id.
#[derive(Clone, Copy, Default)]
struct ObjectState {
    /// Queues: capacity in messages.
    capacity: Option<u32>,
    /// Queues: tasks blocked receiving from it.
    waiting_receivers: u32,
    /// Tasks: the queue it is blocked receiving from.
    receiving_from: Option<u32>,
    /// Tasks: the priority last recorded.
    priority: Option<u32>,
    /// Block pools: the size of a block in bytes.
    block_size: Option<u32>,
}

/// What an object the registry does not know is named as.
#[derive(Clone, Copy)]
enum Role {
    Thread,
    /// A queue, semaphore, mutex or event flags group.
    SyncObject,
    /// A byte or block pool: a heap of the model.
    Pool,
}

impl<'b> Importer<'b> {
    fn new(buffer: &'b Buffer<'b>, sources: Vec<String>) -> Importer<'b> {
        let tick_known = buffer.timer.tick_ns_given;
        let info = TraceInfo {
            format: "threadx".into(),
            priority_order: PriorityOrder::LowerIsMoreImportant,
            sources,
            // The model's tick length is whole ns; entry times use the exact one.
            ns_per_tick: (buffer.timer.tick_ns.round() as u64).max(1),
            ns_per_tick_known: tick_known,
            ..TraceInfo::default()
        };
        let mut importer = Importer {
            b: ModelBuilder::new(info),
            buffer,
            unregistered: HashMap::new(),
            // After the last registered object (not after the registry's
            // capacity, which a damaged header can make huge).
            next_unregistered_id: buffer
                .registry
                .entries
                .last()
                .map_or(1, |last| registry_id(last) + 1),
            idle_declared: false,
            pending_switch: None,
            context_isr_last: None,
            init_open: false,
            last_wait: None,
            objects: Vec::new(),
            last_thread: None,
            last_object: None,
            named_user_markers: HashSet::new(),
        };
        importer.b.core_seen(CORE);
        if !tick_known {
            importer.b.anomaly(
                0,
                0,
                None,
                AnomalyKind::NoTimerResolution,
                1,
                "ThreadX records no timer resolution; 1 ns per tick assumed (set --tick-ns)".into(),
            );
        }
        for entry in &buffer.registry.entries {
            importer.register(entry);
        }
        importer
    }

    fn register(&mut self, entry: &RegistryEntry) {
        let id = registry_id(entry);
        let name = entry.name.as_bytes();
        let queue_kind = match entry.kind() {
            ObjectKind::Thread => {
                self.b.set_task_name(id, name);
                self.b.set_task_stack_size(id, entry.param2);
                if entry.name == TIMER_THREAD_NAME {
                    self.b.set_task_kind(id, TaskKind::Timer);
                }
                if let Some(priority) = entry.thread_priority() {
                    self.set_priority(0, id, priority);
                }
                return;
            }
            ObjectKind::Queue => {
                // Storage bytes over message bytes; objects registered by
                // tx_trace_enable give capacity × 4 and no message size.
                let message_bytes = entry.param2.saturating_mul(4).max(4);
                self.set_capacity(id, entry.param1 / message_bytes);
                QueueKind::Queue
            }
            ObjectKind::Semaphore => QueueKind::CountingSemaphore,
            ObjectKind::Mutex => {
                self.set_capacity(id, 1);
                QueueKind::Mutex
            }
            ObjectKind::EventFlags => QueueKind::EventFlags,
            ObjectKind::BytePool => {
                self.b.set_heap(id, name, Some(entry.param1));
                return;
            }
            ObjectKind::BlockPool => {
                self.b.set_heap(id, name, Some(entry.param1));
                self.state_of(id).block_size = Some(entry.param2);
                return;
            }
            _ => return,
        };
        self.b.set_queue_name(id, name);
        self.b.set_queue_kind(id, queue_kind);
    }

    fn state_of(&mut self, id: u32) -> &mut ObjectState {
        let index = id as usize;
        if index >= self.objects.len() {
            self.objects.resize(index + 1, ObjectState::default());
        }
        &mut self.objects[index]
    }

    fn set_capacity(&mut self, queue: u32, items: u32) {
        self.b.set_queue_capacity(queue, items);
        self.state_of(queue).capacity = Some(items);
    }

    fn set_priority(&mut self, t: u64, task: u32, priority: u32) {
        let state = self.state_of(task);
        if state.priority.replace(priority) != Some(priority) {
            self.b.task_priority(t, task, priority, PriorityCause::Set);
        }
    }

    /// The model id of the object at `address`: its registry position + 1,
    /// or a fresh id (named after the address) for unregistered ones.
    fn object_id(&mut self, address: u32, role: Role) -> u32 {
        if let Some(entry) = self.buffer.registry.object(address) {
            return registry_id(entry);
        }
        if let Some(&id) = self.unregistered.get(&address) {
            return id;
        }
        let id = self.next_unregistered_id;
        self.next_unregistered_id += 1;
        self.unregistered.insert(address, id);
        let name = format!("0x{address:08X}");
        match role {
            Role::Thread => (self.b).set_task_name(id, format!("thread {name}").as_bytes()),
            Role::SyncObject => (self.b).set_queue_name(id, format!("object {name}").as_bytes()),
            Role::Pool => (self.b).set_heap(id, format!("pool {name}").as_bytes(), None),
        }
        id
    }

    fn thread_id(&mut self, address: u32) -> u32 {
        match self.last_thread {
            Some((last, id)) if last == address => id,
            _ => {
                let id = self.object_id(address, Role::Thread);
                self.last_thread = Some((address, id));
                id
            }
        }
    }

    /// A queue, semaphore, mutex or event flags group.
    fn sync_object_id(&mut self, address: u32) -> u32 {
        match self.last_object {
            Some((last, id)) if last == address => id,
            _ => {
                let id = self.object_id(address, Role::SyncObject);
                self.last_object = Some((address, id));
                id
            }
        }
    }

    fn switch_to(&mut self, t: u64, task: u32) {
        if task == IDLE_TASK_ID && !self.idle_declared {
            self.idle_declared = true;
            self.b.set_idle_task(CORE, IDLE_TASK_ID);
            self.b.set_task_name(IDLE_TASK_ID, b"idle");
        }
        if self.b.running_task(CORE) != Some(task) {
            self.b.task_switched_in(t, CORE, task);
        }
    }

    /// Closes the slice of a run of interrupt-context entries without an
    /// ISR enter event, at its last entry.
    fn close_context_isr(&mut self) {
        if let Some(last) = self.context_isr_last.take() {
            self.b.isr_exit(last, CORE, INTERRUPT_CONTEXT_ISR_ID);
        }
    }

    fn leave_init(&mut self, t: u64) {
        if self.init_open {
            self.init_open = false;
            self.b.marker_end(t, CORE, INIT_MARKER_ID, None);
        }
    }

    fn entry(&mut self, entry: &Entry) {
        let t = entry.time_ns;
        self.b.event_at(CORE, t);
        match entry.context() {
            Context::Initialization => {
                self.close_context_isr();
                if !self.init_open {
                    self.init_open = true;
                    self.b.set_marker_name(
                        INIT_MARKER_ID,
                        None,
                        MarkerKind::Event,
                        b"initialization",
                    );
                    self.b.marker_begin(t, INIT_MARKER_ID, None, StrId::EMPTY);
                }
            }
            Context::Thread { address } => {
                self.leave_init(t);
                self.close_context_isr();
                let task = self.thread_id(address);
                self.switch_to(t, task);
                self.pending_switch = None;
                if let Some((priority, _)) = entry.thread_priority() {
                    self.set_priority(t, task, priority);
                }
            }
            Context::Interrupt { interrupted_thread } => {
                self.leave_init(t);
                self.interrupt_entry(t, entry, interrupted_thread);
            }
        }
        self.event(entry);
    }

    fn interrupt_entry(&mut self, t: u64, entry: &Entry, interrupted_thread: u32) {
        let registered = self.buffer.registry.thread(interrupted_thread).is_some();
        if !self.b.in_isr(CORE) && registered {
            let task = self.thread_id(interrupted_thread);
            self.switch_to(t, task);
        }
        match entry.event_id {
            event::ISR_ENTER => {
                self.close_context_isr();
                self.b.isr_enter(t, CORE, entry.info[1]);
            }
            event::ISR_EXIT => {
                if self.context_isr_last.is_some() {
                    self.context_isr_last = Some(t);
                    self.close_context_isr();
                }
                // An exit ends the innermost ISR: older kernels do not
                // repeat the ISR id in it.
                let isr = self.b.current_isr(CORE).unwrap_or(entry.info[1]);
                self.b.isr_exit(t, CORE, isr);
                if !self.b.in_isr(CORE) {
                    if let Some(next) = self.pending_switch.take() {
                        self.switch_to(t, next);
                    }
                }
            }
            _ if self.context_isr_last.is_some() => self.context_isr_last = Some(t),
            _ if !self.b.in_isr(CORE) => {
                self.b
                    .set_isr_name(CORE, INTERRUPT_CONTEXT_ISR_ID, b"interrupt context");
                self.b.isr_enter(t, CORE, INTERRUPT_CONTEXT_ISR_ID);
                self.context_isr_last = Some(t);
            }
            _ => {}
        }
    }

    /// The scheduler chose the thread at `address` (0: none) to run next.
    fn next_thread(&mut self, t: u64, entry: &Entry, address: u32) {
        let next = if address == 0 {
            IDLE_TASK_ID
        } else {
            self.thread_id(address)
        };
        match entry.context() {
            Context::Thread { .. } => self.switch_to(t, next),
            Context::Interrupt { .. } => self.pending_switch = Some(next),
            // The first thread runs when the scheduler starts: the first
            // entry in thread context says which.
            Context::Initialization => {}
        }
    }

    /// Notes the object the running task works on, for the reason of a
    /// suspension that follows.
    fn may_wait(&mut self, entry: &Entry, reason: StateReason, object: Option<u32>) {
        if let Context::Thread { .. } = entry.context() {
            if let Some(task) = self.b.running_task(CORE) {
                self.last_wait = Some((task, reason, object));
            }
        }
    }

    fn suspend(&mut self, t: u64, task: u32, new_state: u32) {
        let (kind, mut reason) = match new_state {
            state::COMPLETED | state::TERMINATED | state::SUSPENDED => {
                (TaskStateKind::Suspended, StateReason::Suspend)
            }
            state::SLEEP => (TaskStateKind::Blocked, StateReason::Sleep),
            state::QUEUE_SUSP => (TaskStateKind::Blocked, StateReason::QueueReceive),
            state::SEMAPHORE_SUSP => (TaskStateKind::Blocked, StateReason::Semaphore),
            state::EVENT_FLAG => (TaskStateKind::Blocked, StateReason::EventFlags),
            state::MUTEX_SUSP => (TaskStateKind::Blocked, StateReason::Mutex),
            // Memory pools, I/O driver, FileX, NetX: no finer reason.
            state::BLOCK_MEMORY..=state::TCP_IP => (TaskStateKind::Blocked, StateReason::None),
            // Ready, a priority change's momentary suspension, or unknown.
            _ => return,
        };
        let mut object = None;
        if let Some((waiter, last_reason, last_object)) = self.last_wait {
            let queue_wait = matches!(
                last_reason,
                StateReason::QueueSend | StateReason::QueueReceive
            );
            if waiter == task
                && (last_reason == reason || (queue_wait && new_state == state::QUEUE_SUSP))
            {
                reason = last_reason;
                object = last_object;
            }
        }
        if let (StateReason::QueueReceive, Some(queue)) = (reason, object) {
            if self.state_of(task).receiving_from.replace(queue).is_none() {
                let queue = self.state_of(queue);
                queue.waiting_receivers = queue.waiting_receivers.saturating_add(1);
            }
        }
        if self.b.running_task(CORE) == Some(task) {
            self.b.current_task_announces(t, CORE, kind, reason, object);
        } else if kind == TaskStateKind::Suspended {
            self.b.task_suspended(t, task);
        }
    }

    fn queue_op(
        &mut self,
        t: u64,
        entry: &Entry,
        queue: u32,
        op: QueueOpKind,
        len_after: Option<u32>,
    ) {
        let from_isr = matches!(entry.context(), Context::Interrupt { .. });
        self.b.queue_op(t, CORE, queue, op, from_isr, len_after);
    }

    fn event(&mut self, entry: &Entry) {
        let t = entry.time_ns;
        let [i1, i2, i3, i4] = entry.info;
        match entry.event_id {
            event::THREAD_RESUME => {
                let task = self.thread_id(i1);
                if let Some(queue) = self.state_of(task).receiving_from.take() {
                    let queue = self.state_of(queue);
                    queue.waiting_receivers = queue.waiting_receivers.saturating_sub(1);
                }
                self.b.task_ready(t, CORE, task);
                // Older kernels leave the next-thread word 0 here.
                if i4 != 0 {
                    self.next_thread(t, entry, i4);
                }
            }
            event::THREAD_SUSPEND => {
                let task = self.thread_id(i1);
                self.suspend(t, task, i2);
                self.next_thread(t, entry, i4);
            }
            event::TIME_SLICE if i1 != 0 => self.next_thread(t, entry, i1),
            event::THREAD_RELINQUISH if i2 != 0 => self.next_thread(t, entry, i2),
            event::THREAD_CREATE => {
                let task = self.thread_id(i1);
                self.b.task_created(t, task);
                self.b.set_task_stack_size(task, i4);
                self.set_priority(t, task, i2);
            }
            event::THREAD_DELETE => {
                let task = self.thread_id(i1);
                self.b.task_deleted(t, task);
            }
            event::THREAD_PRIORITY_CHANGE => {
                let task = self.thread_id(i1);
                self.set_priority(t, task, i2);
            }
            event::THREAD_SLEEP => self.may_wait(entry, StateReason::Sleep, None),
            event::QUEUE_CREATE => {
                let queue = self.sync_object_id(i1);
                self.b.set_queue_kind(queue, QueueKind::Queue);
                if i2 != 0 {
                    self.set_capacity(queue, i4 / i2.saturating_mul(4));
                }
                self.queue_op(t, entry, queue, QueueOpKind::Level, Some(0));
            }
            event::QUEUE_SEND | event::QUEUE_FRONT_SEND => {
                let queue = self.sync_object_id(i1);
                let before = i4;
                let state = *self.state_of(queue);
                let receiver_waiting = state.waiting_receivers > 0;
                let full = state.capacity.is_some_and(|capacity| before >= capacity);
                // A message for a waiting receiver is handed over directly;
                // a send to a full queue waits (the level stays).
                let after = if (before == 0 && receiver_waiting) || full {
                    before
                } else {
                    before.saturating_add(1)
                };
                self.queue_op(t, entry, queue, QueueOpKind::Send, Some(after));
                self.may_wait(entry, StateReason::QueueSend, Some(queue));
            }
            event::QUEUE_RECEIVE => {
                let queue = self.sync_object_id(i1);
                self.queue_op(
                    t,
                    entry,
                    queue,
                    QueueOpKind::Receive,
                    Some(i4.saturating_sub(1)),
                );
                self.may_wait(entry, StateReason::QueueReceive, Some(queue));
            }
            event::QUEUE_FLUSH => {
                let queue = self.sync_object_id(i1);
                self.queue_op(t, entry, queue, QueueOpKind::Reset, Some(0));
            }
            event::SEMAPHORE_CREATE => {
                let semaphore = self.sync_object_id(i1);
                self.b
                    .set_queue_kind(semaphore, QueueKind::CountingSemaphore);
                self.queue_op(t, entry, semaphore, QueueOpKind::Level, Some(i2));
            }
            event::SEMAPHORE_GET => {
                let semaphore = self.sync_object_id(i1);
                self.queue_op(
                    t,
                    entry,
                    semaphore,
                    QueueOpKind::Receive,
                    Some(i3.saturating_sub(1)),
                );
                self.may_wait(entry, StateReason::Semaphore, Some(semaphore));
            }
            event::SEMAPHORE_PUT | event::SEMAPHORE_CEILING_PUT => {
                let semaphore = self.sync_object_id(i1);
                // With threads waiting the count goes straight to one of
                // them; at the ceiling the put fails.
                let at_ceiling = entry.event_id == event::SEMAPHORE_CEILING_PUT && i2 >= i4;
                let after = if i3 > 0 || at_ceiling {
                    i2
                } else {
                    i2.saturating_add(1)
                };
                self.queue_op(t, entry, semaphore, QueueOpKind::Send, Some(after));
            }
            event::MUTEX_CREATE => {
                let mutex = self.sync_object_id(i1);
                self.b.set_queue_kind(mutex, QueueKind::Mutex);
                self.set_capacity(mutex, 1);
                self.queue_op(t, entry, mutex, QueueOpKind::Level, Some(1));
            }
            event::MUTEX_GET => {
                let mutex = self.sync_object_id(i1);
                let owner = i3;
                let caller = match entry.context() {
                    Context::Thread { address } => address,
                    _ => 0,
                };
                // Free or already ours: taken. Owned by another: the caller waits.
                if owner == 0 || owner == caller {
                    self.queue_op(t, entry, mutex, QueueOpKind::Receive, Some(0));
                }
                self.may_wait(entry, StateReason::Mutex, Some(mutex));
            }
            event::MUTEX_PUT => {
                let mutex = self.sync_object_id(i1);
                // I3 is the ownership count before the put: 1 releases it.
                let after = u32::from(i3 <= 1);
                self.queue_op(t, entry, mutex, QueueOpKind::Send, Some(after));
            }
            event::EVENT_FLAGS_CREATE => {
                let flags = self.sync_object_id(i1);
                self.b.set_queue_kind(flags, QueueKind::EventFlags);
                self.b.queue_created(flags);
            }
            event::EVENT_FLAGS_SET => {
                let flags = self.sync_object_id(i1);
                self.queue_op(t, entry, flags, QueueOpKind::Send, None);
            }
            event::EVENT_FLAGS_GET => {
                let flags = self.sync_object_id(i1);
                self.queue_op(t, entry, flags, QueueOpKind::Receive, None);
                self.may_wait(entry, StateReason::EventFlags, Some(flags));
            }
            event::BYTE_POOL_CREATE => {
                let pool = self.object_id(i1, Role::Pool);
                self.b.set_heap_size(pool, i3);
            }
            event::BLOCK_POOL_CREATE => {
                let pool = self.object_id(i1, Role::Pool);
                // The registry gives the pool's bytes, its blocks' overhead
                // included; the event only what its blocks hold.
                if self.buffer.registry.object(i1).is_none() {
                    self.b.set_heap_size(pool, i3.saturating_mul(i4));
                }
                self.state_of(pool).block_size = Some(i4);
            }
            event::BYTE_ALLOCATE => {
                let pool = self.object_id(i1, Role::Pool);
                self.pool_allocate(t, pool, i2, i3, i4);
            }
            event::BLOCK_ALLOCATE => {
                let pool = self.object_id(i1, Role::Pool);
                let size = self.state_of(pool).block_size.unwrap_or(0);
                self.pool_allocate(t, pool, i2, size, i3);
            }
            event::BYTE_RELEASE | event::BLOCK_RELEASE => {
                let pool = self.object_id(i1, Role::Pool);
                self.b.heap_free(t, CORE, pool, i2.into(), None);
            }
            id @ USER_EVENT_FIRST..=USER_EVENT_LAST => self.user_event(t, id, entry.info),
            _ => {}
        }
    }

    /// An allocation from a byte or block pool: the kernel writes the
    /// block's address into the entry when the call gets one at once. A
    /// call that got none failed unless it could wait (`wait_option`
    /// not 0): then it suspended, and the block it got later is not in the
    /// trace.
    fn pool_allocate(&mut self, t: u64, pool: u32, address: u32, size: u32, wait_option: u32) {
        match (address, wait_option) {
            (0, 0) => self.b.heap_alloc_failed(t, CORE, pool, size),
            (0, _) => self.b.anomaly(
                t,
                t,
                Some(CORE),
                AnomalyKind::Inconsistent,
                1,
                format!(
                    "an allocation of {size} bytes waited for memory; the block it got is not in the trace"
                ),
            ),
            (address, _) => self.b.heap_alloc(t, CORE, pool, address.into(), size),
        }
    }

    fn user_event(&mut self, t: u64, id: u32, info: [u32; 4]) {
        if self.named_user_markers.insert(id) {
            let name = format!("user event {id}");
            self.b
                .set_marker_name(id, None, MarkerKind::Event, name.as_bytes());
        }
        // "0x%08X 0x%08X 0x%08X 0x%08X", without the formatting machinery:
        // user events can be most of a trace.
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let mut message = [b' '; 43];
        for (word, field) in info.into_iter().zip(message.chunks_mut(11)) {
            field[..2].copy_from_slice(b"0x");
            for (digit, byte) in field[2..10].iter_mut().enumerate() {
                *byte = HEX[(word >> (28 - 4 * digit) & 0xF) as usize];
            }
        }
        let msg = self.b.intern(&message);
        self.b.marker_instant(t, id, None, msg);
    }

    fn finish<'p>(mut self, entries: u64, problems: impl Iterator<Item = &'p Problem>) -> Model {
        self.close_context_isr();
        for problem in problems {
            let kind = match problem.kind {
                ProblemKind::UnknownEvent => AnomalyKind::UnknownEvent,
                ProblemKind::TimestampJump => AnomalyKind::TimeBackwards,
                ProblemKind::BufferTruncated => AnomalyKind::InvalidFrame,
                _ => AnomalyKind::Inconsistent,
            };
            let at = problem.time_ns.unwrap_or(0);
            let detail = format!(
                "{} (byte {}): {}",
                problem.kind, problem.position, problem.detail
            );
            self.b
                .anomaly(at, at, Some(CORE), kind, problem.count, detail);
        }
        let first_raw = self
            .buffer
            .entries()
            .next()
            .map_or(0, |e| e.timestamp & self.buffer.timer.mask);
        let info = self.b.info_mut();
        info.events = entries;
        info.first_ts_raw = u64::from(first_raw);
        self.b.finish()
    }
}

fn registry_id(entry: &RegistryEntry) -> u32 {
    // Registry positions are bounded by the file size over 16 bytes.
    entry.index as u32 + 1
}
