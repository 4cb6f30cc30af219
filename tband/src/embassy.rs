//! embassy-executor's own trace hooks (its `trace` feature): the
//! `_embassy_trace_*` functions the executor calls are defined here, so a
//! firmware only enables the feature, names its tasks and calls [`start`].
//!
//! What the model shows:
//! - every embassy task is a task under the executor's id for it;
//! - a poll is a running slice; a task whose poll ended without it being
//!   woken waits (blocked) until a waker makes it ready;
//! - every executor is a task of its own under its executor id, running
//!   while it picks the next task, ready while one of its tasks is polled,
//!   blocked while it has nothing to do;
//! - a core on which no executor polls is in its idle task
//!   ([`idle_task_id`]).
//!
//! An interrupt executor polls inside its interrupt, on top of what it
//! interrupted: the executors polling on a core form a stack, and when the
//! top one is done the one below (its task, or itself) runs again.

use core::cell::UnsafeCell;

use crate::config::CORES;
use crate::freertos;

pub use crate::freertos::idle_task_id;

/// The most executors that can be polling at once on one core (a thread
/// executor and the interrupt executors that nest on it).
pub const MAX_NESTED_EXECUTORS: usize = 8;
/// The most executors whose names are kept apart: an executor the firmware
/// did not name gets the name `executor` at its first poll.
pub const MAX_EXECUTORS: usize = 16;

/// The wait of a task or an executor with nothing to do: no timeout.
const WAITS_FOREVER: u32 = u32::MAX;

/// Names a task: `task_id` is the executor's id of it, e.g.
/// `SpawnToken::id()` before the token is spawned.
pub fn task_name(task_id: u32, name: impl AsRef<[u8]>) {
    freertos::task_name(task_id, name);
}

/// Names an executor (`Spawner::executor_id()`); unnamed ones are called
/// `executor`.
pub fn executor_name(executor_id: u32, name: impl AsRef<[u8]>) {
    with_state(|state, _| {
        state.name_executor(executor_id);
        freertos::task_name(executor_id, name);
    });
}

/// Records the idle task's name and starts the backend (streaming: start;
/// snapshot: trigger; post-mortem: start). Call once on each core before
/// its executor runs.
pub fn start() {
    freertos::record_idle_task_of_this_core();
    crate::start_recording();
}

/// Stops the backend (streaming: stop; snapshot: stop; post-mortem: freeze).
pub fn stop() {
    crate::stop_recording();
}

/// An executor that is polling on a core, and its poll of a task. Every
/// field starts at zero, so that the state needs no initial values in
/// flash; no task or executor is at address 0.
#[derive(Clone, Copy)]
struct Polling {
    executor: u32,
    /// The task being polled, 0 between polls.
    task: u32,
    /// A waker made the task ready while it was polled.
    woken: bool,
    /// The task's future finished.
    ended: bool,
}

#[derive(Clone, Copy)]
struct CoreStack {
    levels: [Polling; MAX_NESTED_EXECUTORS],
    depth: usize,
}

impl CoreStack {
    const EMPTY: CoreStack = CoreStack {
        levels: [Polling {
            executor: 0,
            task: 0,
            woken: false,
            ended: false,
        }; MAX_NESTED_EXECUTORS],
        depth: 0,
    };

    fn polling(&self) -> &[Polling] {
        &self.levels[..self.depth]
    }

    fn level_of(&mut self, executor: u32) -> Option<&mut Polling> {
        self.levels[..self.depth]
            .iter_mut()
            .rfind(|level| level.executor == executor)
    }

    /// What runs on `core` when nothing above `depth` polls: the task of
    /// the executor below, or that executor itself, or the idle task.
    fn running_below(&self, core: usize) -> u32 {
        match self.polling().last() {
            Some(level) if level.task != 0 => level.task,
            Some(level) => level.executor,
            None => idle_task_id(core),
        }
    }
}

struct State {
    cores: [CoreStack; CORES],
    /// The executors named so far (by the firmware or by default); 0: free.
    named: [u32; MAX_EXECUTORS],
}

impl State {
    /// Remembers that `executor` has a name; false if it had one already.
    fn name_executor(&mut self, executor: u32) -> bool {
        if self.named.contains(&executor) {
            return false;
        }
        if let Some(free) = self.named.iter_mut().find(|id| **id == 0) {
            *free = executor;
        }
        true
    }
}

struct Global(UnsafeCell<State>);

// SAFETY: only reached inside a critical section (see `with_state`).
unsafe impl Sync for Global {}

static STATE: Global = Global(UnsafeCell::new(State {
    cores: [CoreStack::EMPTY; CORES],
    named: [0; MAX_EXECUTORS],
}));

/// Runs `f` on the executors' state and the running core's index inside
/// one critical section, so that what it records is in the order it
/// decided it (the tracer's own critical section nests in it).
fn with_state<R>(f: impl FnOnce(&mut State, usize) -> R) -> R {
    critical_section::with(|_| {
        // SAFETY: the critical section excludes every other access.
        let state = unsafe { &mut *STATE.0.get() };
        f(state, crate::port::core_id())
    })
}

fn core_stack(state: &mut State, core: usize) -> Option<&mut CoreStack> {
    state.cores.get_mut(core)
}

#[no_mangle]
fn _embassy_trace_task_new(_executor_id: u32, task_id: u32) {
    freertos::task_created_with_id(task_id);
}

#[no_mangle]
fn _embassy_trace_task_end(executor_id: u32, task_id: u32) {
    with_state(|state, core| {
        let level = core_stack(state, core).and_then(|stack| stack.level_of(executor_id));
        if let Some(level) = level.filter(|level| level.task == task_id) {
            level.ended = true;
        }
        freertos::task_deleted(task_id);
    });
}

#[no_mangle]
fn _embassy_trace_poll_start(executor_id: u32) {
    with_state(|state, core| {
        if state.name_executor(executor_id) {
            freertos::task_name(executor_id, "executor");
        }
        if let Some(stack) = core_stack(state, core) {
            let top = stack.polling().last().map(|level| level.executor);
            if top != Some(executor_id) && stack.depth < MAX_NESTED_EXECUTORS {
                stack.levels[stack.depth] = Polling {
                    executor: executor_id,
                    ..CoreStack::EMPTY.levels[0]
                };
                stack.depth += 1;
            }
        }
        freertos::task_switched_in(executor_id);
    });
}

#[no_mangle]
fn _embassy_trace_task_exec_begin(executor_id: u32, task_id: u32) {
    with_state(|state, core| {
        if let Some(level) = core_stack(state, core).and_then(|s| s.level_of(executor_id)) {
            level.task = task_id;
            level.woken = false;
            level.ended = false;
        }
        freertos::task_switched_in(task_id);
    });
}

#[no_mangle]
fn _embassy_trace_task_exec_end(executor_id: u32, task_id: u32) {
    with_state(|state, core| {
        let mut waits = true;
        if let Some(level) = core_stack(state, core).and_then(|s| s.level_of(executor_id)) {
            waits = level.task != task_id || !(level.woken || level.ended);
            level.task = 0;
        }
        if waits {
            freertos::curtask_block_on_notify(WAITS_FOREVER);
        }
        freertos::task_switched_in(executor_id);
    });
}

#[no_mangle]
fn _embassy_trace_task_ready_begin(executor_id: u32, task_id: u32) {
    with_state(|state, _| {
        // The task may be being polled on any core, and be woken from any.
        let polled = state
            .cores
            .iter_mut()
            .filter_map(|stack| stack.level_of(executor_id))
            .find(|level| level.task == task_id);
        if let Some(level) = polled {
            level.woken = true;
        }
        freertos::task_to_rdy_state(task_id);
    });
}

#[no_mangle]
fn _embassy_trace_executor_idle(executor_id: u32) {
    with_state(|state, core| {
        let Some(stack) = core_stack(state, core) else {
            return;
        };
        if let Some(at) = stack
            .polling()
            .iter()
            .rposition(|level| level.executor == executor_id)
        {
            stack.depth = at;
        }
        freertos::curtask_block_on_notify(WAITS_FOREVER);
        freertos::task_switched_in(stack.running_below(core));
    });
}
