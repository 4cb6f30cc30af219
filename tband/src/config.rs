//! Sizes and limits of the tracer, fixed at build time from `TBAND_*`
//! environment variables (see `build.rs`).

include!(concat!(env!("OUT_DIR"), "/config.rs"));
