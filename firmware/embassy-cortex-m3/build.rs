//! Puts memory.x where cortex-m-rt's link.x finds it, and links defmt's
//! table into the binaries that log through a defmt global logger.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy("memory.x", out.join("memory.x")).expect("memory.x is readable");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    let trace = env::var_os("CARGO_FEATURE_TRACE").is_some();
    if trace {
        println!("cargo:rustc-link-arg-bin=tband-embassy-cortex-m3=-Tdefmt.x");
    }
    if trace || env::var_os("CARGO_FEATURE_DEFMT_RTT").is_some() {
        println!("cargo:rustc-link-arg-bin=defmt_cost=-Tdefmt.x");
    }
}
