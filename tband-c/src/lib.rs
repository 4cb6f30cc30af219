//! The tband tracer as a C static library: the `tband_*` functions of
//! `tband/include/tband.h`. Build with one backend feature, e.g.
//! `cargo build --release --manifest-path tband-c/Cargo.toml --features snapshot,isr,markers,metadata-buf`.
//! On bare-metal targets the library is `no_std`; on hosted ones (tests,
//! simulators) it links the standard library for its runtime support.
#![cfg_attr(target_os = "none", no_std)]

pub use tband::ffi;

/// Tracing never panics; this only satisfies `no_std`.
#[cfg(target_os = "none")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
