//! What the example and the cost program share: a future that counts its
//! polls, one yield to the executor, and the end of a run by semihosting.
#![no_std]

use core::future::{poll_fn, Future};
use core::pin::Pin;
use core::sync::atomic::{AtomicU32, Ordering};
use core::task::{Context, Poll};

use cortex_m_semihosting::debug;

/// A future that counts its polls: the application's own count of the
/// polls of the task it is the body of.
pub struct Counted<F> {
    polls: &'static AtomicU32,
    inner: F,
}

pub fn counted<F: Future>(polls: &'static AtomicU32, inner: F) -> Counted<F> {
    Counted { polls, inner }
}

impl<F: Future> Future for Counted<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is never moved out of the pinned `Counted`.
        let this = unsafe { self.get_unchecked_mut() };
        this.polls.fetch_add(1, Ordering::Relaxed);
        unsafe { Pin::new_unchecked(&mut this.inner) }.poll(cx)
    }
}

/// Gives the executor back once: wakes its own task and returns pending.
pub async fn yield_once() {
    let mut yielded = false;
    poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}

/// Ends QEMU: success or failure.
pub fn exit(success: bool) -> ! {
    debug::exit(if success {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    exit(false)
}
