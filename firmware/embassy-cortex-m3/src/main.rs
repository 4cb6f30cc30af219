//! An embassy application on QEMU's lm3s6965evb (Cortex-M3), traced
//! through embassy-executor's own trace hooks (tband's `embassy` feature)
//! into a snapshot that it writes to `trace.bin` by semihosting.
//!
//! SysTick interrupts every millisecond (traced as an ISR) and signals a
//! tick. On the thread-mode executor `ticker` waits for each tick and
//! `worker` computes in short polls, yielding between them; on an
//! interrupt executor (a spare interrupt line, pended by the executor)
//! `fast` waits for a signal SysTick gives every other tick, and runs
//! before the thread-mode tasks, in the middle of their polls. Every task
//! counts its polls; `report` prints the counts when the others are done.
//!
//! The tasks and SysTick log through defmt, whose global logger is tband's
//! (feature `defmt`): each line is an event of the trace. The host test
//! knows the text of every line.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use cortex_m::interrupt::InterruptNumber;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::{SCB, SYST};
use cortex_m_rt::{entry, exception};
use cortex_m_semihosting::{hprintln, syscall};
use embassy_executor::{Executor, InterruptExecutor, SendSpawner, SpawnToken, Spawner};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use tband_embassy_cortex_m3::{counted, exit, yield_once};

/// SysTick counts core clock cycles; QEMU runs this board at 12 MHz.
const CLOCK_HZ: u32 = 12_000_000;
/// One SysTick interrupt per millisecond.
const RELOAD: u32 = CLOCK_HZ / 1000 - 1;
/// SysTick is exception 15; tband ISR ids are ours to choose.
const SYSTICK_ISR: u32 = 15;
/// Ticks the application runs for.
const TICKS: u32 = 30;
/// `ticker` logs every tenth tick; SysTick logs this one.
const LOGGED_TICK: u32 = 15;

/// The interrupt line of the interrupt executor: one the board leaves
/// unused, which only the executor pends.
#[derive(Clone, Copy)]
struct SpareIrq;

const SPARE_IRQ: u16 = 30;

// SAFETY: 30 is an interrupt line of the LM3S6965's NVIC.
unsafe impl InterruptNumber for SpareIrq {
    fn number(self) -> u16 {
        SPARE_IRQ
    }
}

static TICK_COUNT: AtomicU32 = AtomicU32::new(0);
static TICK: Signal<CriticalSectionRawMutex, u32> = Signal::new();
static FAST: Signal<CriticalSectionRawMutex, u32> = Signal::new();
static STOP: AtomicBool = AtomicBool::new(false);
static DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

static TICKER_POLLS: AtomicU32 = AtomicU32::new(0);
static WORKER_POLLS: AtomicU32 = AtomicU32::new(0);
static FAST_POLLS: AtomicU32 = AtomicU32::new(0);
/// Tasks still running that `report` waits for.
static RUNNING: AtomicU32 = AtomicU32::new(3);

static INTERRUPT_EXECUTOR: InterruptExecutor = InterruptExecutor::new();

/// Time in clock cycles since start: whole SysTick periods plus the
/// current count. Called with interrupts masked (inside tband's critical
/// section), so a wrap since the last interrupt shows as a pending SysTick
/// and is counted here; the handler counts its own wrap before it traces.
fn cycles() -> u64 {
    let ticks = TICK_COUNT.load(Ordering::Relaxed);
    let mut current = SYST::get_current();
    let mut periods = u64::from(ticks);
    if SCB::is_pendst_pending() {
        current = SYST::get_current();
        if current != 0 {
            periods += 1;
        }
    }
    periods * u64::from(RELOAD + 1) + u64::from(RELOAD - current)
}

struct QemuPort;

impl tband::Port for QemuPort {
    fn ts_resolution_ns() -> u64 {
        u64::from(1_000_000_000 / CLOCK_HZ)
    }

    fn timestamp() -> u64 {
        cycles()
    }
}

tband::set_port!(QemuPort);

#[exception]
fn SysTick() {
    let tick = TICK_COUNT.fetch_add(1, Ordering::Relaxed) + 1;
    tband::isr_enter(SYSTICK_ISR);
    if tick == LOGGED_TICK {
        defmt::trace!("SysTick: tick {=u32}", tick);
    }
    TICK.signal(tick);
    if tick.is_multiple_of(2) {
        FAST.signal(tick);
    }
    tband::isr_exit(SYSTICK_ISR);
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    if irqn == SPARE_IRQ as i16 {
        // SAFETY: the executor was started on this line before it was pended.
        unsafe { INTERRUPT_EXECUTOR.on_interrupt() };
    }
}

/// Some work for a poll, so that polls have a length.
fn work(rounds: u32) -> u32 {
    let mut x = rounds;
    for i in 0..rounds * 50 {
        x = x.wrapping_mul(1_664_525).wrapping_add(i);
    }
    core::hint::black_box(x)
}

fn finished() {
    if RUNNING.fetch_sub(1, Ordering::Relaxed) == 1 {
        DONE.signal(());
    }
}

/// Waits for every tick; then stops the others.
#[embassy_executor::task]
async fn ticker() {
    counted(&TICKER_POLLS, async {
        loop {
            let tick = TICK.wait().await;
            if tick.is_multiple_of(10) {
                defmt::info!("ticker: tick {=u32} of {=u32}", tick, TICKS);
            }
            if tick >= TICKS {
                break;
            }
        }
        STOP.store(true, Ordering::Relaxed);
        FAST.signal(0);
    })
    .await;
    finished();
}

/// Computes in short polls until stopped.
#[embassy_executor::task]
async fn worker() {
    counted(&WORKER_POLLS, async {
        while !STOP.load(Ordering::Relaxed) {
            work(40);
            yield_once().await;
        }
        defmt::debug!("worker: stopped, {=str} is {=i32}", "offset", -7);
    })
    .await;
    finished();
}

/// On the interrupt executor: waits for every other tick.
#[embassy_executor::task]
async fn fast() {
    // SAFETY: called from a task of an embassy executor.
    let spawner = unsafe { Spawner::for_current_executor() }.await;
    tband::embassy::executor_name(spawner.executor_id() as u32, "interrupt");
    counted(&FAST_POLLS, async {
        while FAST.wait().await != 0 {
            work(10);
        }
        defmt::warn!("fast: done at {=u16:#x}", 0xcafe_u16);
    })
    .await;
    finished();
}

/// When the others are done: prints their polls, writes the trace, exits.
#[embassy_executor::task]
async fn report() {
    DONE.wait().await;
    defmt::error!("report: {=u8} tasks done, {=bool}", 3, true);
    hprintln!(
        "polls: ticker={} worker={} fast={}",
        TICKER_POLLS.load(Ordering::Relaxed),
        WORKER_POLLS.load(Ordering::Relaxed),
        FAST_POLLS.load(Ordering::Relaxed)
    );
    let recording = tband::snapshot_state(0) == Some(tband::SnapshotState::Recording);
    tband::embassy::stop();
    exit(recording && write_host_file(b"trace.bin\0"));
}

fn spawn_named<S>(spawner: Spawner, name: &str, token: SpawnToken<S>) {
    tband::embassy::task_name(token.id(), name);
    spawner.spawn(token);
}

fn send_named<S: Send>(spawner: SendSpawner, name: &str, token: SpawnToken<S>) {
    tband::embassy::task_name(token.id(), name);
    spawner.spawn(token);
}

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("taken once at start");
    // The clock runs before anything is traced.
    cp.SYST.set_clock_source(SystClkSource::Core);
    cp.SYST.set_reload(RELOAD);
    cp.SYST.clear_current();
    cp.SYST.enable_interrupt();
    cp.SYST.enable_counter();
    tband::embassy::start();
    tband::isr_name(SYSTICK_ISR, "SysTick");

    let interrupt = INTERRUPT_EXECUTOR.start(SpareIrq);
    send_named(interrupt, "fast", fast().unwrap());

    static mut THREAD_EXECUTOR: Option<Executor> = None;
    // SAFETY: main runs once and never returns; nothing else uses it.
    let executor = unsafe { (*core::ptr::addr_of_mut!(THREAD_EXECUTOR)).insert(Executor::new()) };
    executor.run(|spawner| {
        tband::embassy::executor_name(spawner.executor_id() as u32, "thread");
        spawn_named(spawner, "ticker", ticker().unwrap());
        spawn_named(spawner, "worker", worker().unwrap());
        spawn_named(spawner, "report", report().unwrap());
    })
}

/// Writes metadata buffer + snapshot to a host file (NUL-terminated name).
fn write_host_file(name: &[u8]) -> bool {
    const MODE_WRITE_BINARY: usize = 5;
    // SAFETY: semihosting calls with valid pointers and lengths.
    let fd = unsafe { syscall!(OPEN, name.as_ptr(), MODE_WRITE_BINARY, name.len() - 1) };
    if fd as isize == -1 {
        return false;
    }
    let mut ok = true;
    tband::read_snapshot(0, |part| {
        // SAFETY: as above; WRITE returns the number of bytes not written.
        ok &= unsafe { syscall!(WRITE, fd, part.as_ptr(), part.len()) } == 0;
    });
    // SAFETY: as above.
    ok & (unsafe { syscall!(CLOSE, fd) } == 0)
}
