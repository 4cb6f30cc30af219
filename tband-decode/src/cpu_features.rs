//! The one place that looks at the CPU's features: the ways this host can
//! join a varint's 7-bit groups ([`JoinGroups`]), and
//! [`with_best_join_groups`], which picks the best one the CPU has.
//!
//! `tband` (the firmware crate) has [`Portable`], which runs anywhere;
//! this crate adds [`Bmi2`] for x86-64 CPUs with BMI2. The frame loop is
//! written once, generic over [`JoinGroups`] (a [`WithJoinGroups`]), and
//! [`with_best_join_groups`] runs it: on a CPU with BMI2 a copy compiled
//! for BMI2, with the whole loop inlined into it, and elsewhere the same
//! loop with [`Portable`].

#[cfg(target_arch = "x86_64")]
use tband::varint::CONTINUATION_BITS;
use tband::varint::{JoinGroups, Portable};

/// Work that is generic over the [`JoinGroups`] it decodes with: a frame
/// loop and what it needs. [`with_best_join_groups`] calls [`run`](Self::run)
/// once, with the best [`JoinGroups`] the CPU has.
pub trait WithJoinGroups {
    type Output;

    /// Does the work, joining varints' groups with `join`. Mark it
    /// `#[inline(always)]`, so that the loop is inlined into the copy that
    /// [`with_best_join_groups`] compiles for the CPU's instructions.
    fn run<J: JoinGroups>(self, join: J) -> Self::Output;
}

/// Runs `work` with the best [`JoinGroups`] this CPU has. This is the one
/// place that looks at the CPU's features.
///
/// On x86-64 CPUs with BMI2 (checked each call; the standard library keeps
/// the answer) it calls a copy of `work` compiled for BMI2, with [`Bmi2`];
/// elsewhere it runs `work` with [`Portable`]. Each type of `work` gets its
/// own BMI2 copy, so two loops dispatched through here are compiled apart.
#[inline(always)]
pub fn with_best_join_groups<W: WithJoinGroups>(work: W) -> W::Output {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("bmi2") {
        // SAFETY: `run_bmi2` only needs the CPU to have BMI2, which it has,
        // as just detected.
        return unsafe { run_bmi2(work) };
    }
    work.run(Portable)
}

/// `work` compiled for BMI2 (its `run` inlined here), joining with [`Bmi2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn run_bmi2<W: WithJoinGroups>(work: W) -> W::Output {
    work.run(Bmi2::new())
}

/// Joins the 7-bit groups with `bzhi` and one `pext` (x86-64 BMI2). A
/// value of this type is the proof that the CPU has BMI2: [`Bmi2::new`] is
/// compiled for BMI2, so safe code can only call it from code compiled for
/// BMI2, and other code must check the CPU first.
///
/// The instructions are inlined only where the reader is inlined into
/// code compiled for BMI2 (`#[target_feature(enable = "bmi2")]`, as
/// [`with_best_join_groups`] does); elsewhere they are a call.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Bmi2 {
    _proof: (),
}

#[cfg(target_arch = "x86_64")]
impl Bmi2 {
    /// The proof that the CPU has BMI2.
    ///
    /// # Safety
    ///
    /// Safe to call from code compiled for BMI2. Elsewhere the caller
    /// must know that the CPU has BMI2 (`std::is_x86_feature_detected!`).
    #[target_feature(enable = "bmi2")]
    #[inline]
    pub fn new() -> Bmi2 {
        Bmi2 { _proof: () }
    }
}

#[cfg(target_arch = "x86_64")]
impl JoinGroups for Bmi2 {
    #[inline(always)]
    fn join_groups(self, word: u64, stop_bit: u32) -> u64 {
        // SAFETY: `self` exists, so the CPU has BMI2 (see `Bmi2::new`).
        unsafe { join_groups_bmi2(word, stop_bit) }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
fn join_groups_bmi2(word: u64, stop_bit: u32) -> u64 {
    use std::arch::x86_64::{_bzhi_u64, _pext_u64};
    _pext_u64(_bzhi_u64(word, stop_bit + 1), !CONTINUATION_BITS)
}

// The varint readers' own tests (in `tband`) run with `Portable` and check
// it against a byte-at-a-time reader; these run the same checks with
// `Bmi2` and compare it with `Portable`.
#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use tband::varint::{read_u32, read_u64, MAX_U64_LEN};

    /// `Bmi2`, if this CPU has BMI2 (the tests pass trivially without).
    fn bmi2() -> Option<Bmi2> {
        // SAFETY: the CPU has BMI2, as just detected.
        std::is_x86_feature_detected!("bmi2").then(|| unsafe { Bmi2::new() })
    }

    /// Every varint length up to one past the longest, with each last byte
    /// that decides a limit (the largest value of a length, the smallest,
    /// the 5th byte of a `u32` and the 10th of a `u64` at and past their
    /// bits, a last byte that continues), read whole, cut short and with
    /// more bytes in view: `Bmi2` reads each as `Portable` does (whose
    /// limits `tband`'s tests check).
    #[test]
    fn reads_the_boundaries_as_portable_does() {
        let Some(w) = bmi2() else { return };
        for n in 1..=MAX_U64_LEN + 1 {
            for filler in [0x80u8, 0xFF] {
                for last in [0x00u8, 0x01, 0x02, 0x0F, 0x10, 0x1F, 0x7F, 0x80, 0xFF] {
                    let mut data = [0x80u8; 2 * MAX_U64_LEN + 2];
                    data[..n - 1].fill(filler);
                    data[n - 1] = last;
                    for view in [&data[..n], &data[..]] {
                        for len in 0..=n {
                            assert_eq!(read_u32(w, view, len), read_u32(Portable, view, len));
                            assert_eq!(read_u64(w, view, len), read_u64(Portable, view, len));
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        /// Reading `data[..len]` from all of `data` (with the bytes after
        /// it in view) or from just those bytes gives what `Portable` gives.
        fn word_readers_agree_with_portable(data in proptest::collection::vec(
            proptest::prop_oneof![proptest::num::u8::ANY, 0x80u8..=0xFF], 0..13)
        ) {
            let Some(w) = bmi2() else { return Ok(()) };
            for len in 0..=data.len() {
                let d = &data[..len];
                let u32_ref = read_u32(Portable, d, len);
                let u64_ref = read_u64(Portable, d, len);
                proptest::prop_assert_eq!(read_u32(w, d, len), u32_ref);
                proptest::prop_assert_eq!(read_u32(w, &data, len), u32_ref);
                proptest::prop_assert_eq!(read_u64(w, d, len), u64_ref);
                proptest::prop_assert_eq!(read_u64(w, &data, len), u64_ref);
            }
        }

        #[test]
        /// The join itself meets the contract of [`JoinGroups`]: what
        /// `Portable` gives, for every word and every continuation bit
        /// as the stop bit.
        fn join_agrees_with_portable(word in proptest::num::u64::ANY, byte in 0u32..8) {
            let Some(w) = bmi2() else { return Ok(()) };
            let stop_bit = 8 * byte + 7;
            proptest::prop_assert_eq!(
                w.join_groups(word, stop_bit),
                Portable.join_groups(word, stop_bit)
            );
        }
    }
}
