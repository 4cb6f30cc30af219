//! Futures that count the polls of the task they are the body of, and a
//! yield to the executor: the same code in the QEMU firmware and in the
//! host tests on embassy's std platform.
#![no_std]

use core::future::{poll_fn, Future};
use core::pin::Pin;
use core::sync::atomic::{AtomicU32, Ordering};
use core::task::{Context, Poll};

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
