//! `tband-capture --flight-recorder`: reads the post-mortem rings of a
//! halted or crashed target (through a GDB server, or from a RAM image),
//! writes each core's trace file, and says what was read, what was
//! damaged and, when the firmware faulted, who crashed, where and why.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use tband_model::summary::{crash_line, format_ns};
use tband_trace::symbols::Symbols;
use tband_trace::{OpenOptions, Trace};

use crate::flight_recorder::{read, RamImage, Readout, Table};
use crate::gdb::Gdb;
use crate::rtt_stream::Attached;

/// Where the target's memory is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Through the GDB server at this `HOST:PORT`.
    Gdb(String),
    /// From a file of RAM starting at `base` (none: where the ELF file's
    /// writable data starts).
    RamImage { path: PathBuf, base: Option<u32> },
    /// Through a debug probe attached to `chip` (`probe`: which one, as
    /// `VID:PID[:SERIAL]`; none: the only one).
    Probe { chip: String, probe: Option<String> },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The firmware's ELF file.
    pub elf: PathBuf,
    pub memory: Memory,
    /// The trace file; with more than one core, core N's is this name
    /// with `_cN` before its extension.
    pub output: PathBuf,
}

/// Reads the rings and writes the trace; the report goes to `out`.
pub fn run(options: &Options, out: &mut impl Write) -> Result<(), String> {
    let table = Table::from_elf(&options.elf)?;
    let readout = match &options.memory {
        Memory::Gdb(address) => {
            let started = Instant::now();
            let mut gdb = Gdb::connect(address).map_err(|e| {
                format!(
                    "cannot attach to the GDB server at {address} ({e}); check that QEMU (-gdb), \
                     OpenOCD or the J-Link GDB server is listening there"
                )
            })?;
            let readout = read(&mut gdb, &table);
            gdb.release();
            let halted = started.elapsed();
            let readout = readout?;
            say(
                out,
                &format!(
                    "read {} bytes through the GDB server at {address}; the target was halted \
                     for {:.0} ms to read them and runs on",
                    readout.bytes(),
                    halted.as_secs_f64() * 1e3
                ),
            )?;
            readout
        }
        #[cfg(feature = "probe")]
        Memory::Probe { chip, probe } => {
            let started = Instant::now();
            let mut probe = crate::probe::Probe::attach(chip, probe.as_deref())?;
            let readout = probe.halted(|memory| read(memory, &table))??;
            say(
                out,
                &format!(
                    "read {} bytes through the probe on the {chip}; the target was halted for \
                     {:.0} ms to read them and runs on",
                    readout.bytes(),
                    started.elapsed().as_secs_f64() * 1e3
                ),
            )?;
            readout
        }
        #[cfg(not(feature = "probe"))]
        Memory::Probe { .. } => {
            return Err(
                "this tband-capture was built without probe-rs; install it with \
                        `cargo install --path tband-capture --features probe`"
                    .into(),
            )
        }
        Memory::RamImage { path, base } => {
            let base = base.or(table.ram.map(|(start, _)| start)).ok_or_else(|| {
                format!(
                    "{} has no writable data section to place the image by; give its address \
                     with --ram-base",
                    options.elf.display()
                )
            })?;
            let readout = read(&mut RamImage::open(path, base, &table)?, &table)?;
            say(
                out,
                &format!(
                    "read {} bytes from {} (RAM from {base:#010x})",
                    readout.bytes(),
                    path.display()
                ),
            )?;
            readout
        }
    };
    let files = write_files(&options.output, &readout)?;
    for (core, (trace, file)) in readout.cores.iter().zip(&files).enumerate() {
        say(
            out,
            &format!(
                "core {core}: {} bytes of metadata, {} bytes of events (a ring of {} bytes), \
                 {} event(s) overwritten before the oldest kept; written to {}",
                trace.metadata_bytes,
                trace.ring_bytes,
                readout.ring_size,
                trace.overwritten,
                file.display()
            ),
        )?;
    }
    for damage in &readout.damage {
        say(out, &format!("damage: {damage}"))?;
    }
    report_crash(&files, &options.elf, out)
}

/// Each core's trace file.
fn write_files(output: &Path, readout: &Readout) -> Result<Vec<PathBuf>, String> {
    let several = readout.cores.len() > 1;
    let mut files = Vec::new();
    for (core, trace) in readout.cores.iter().enumerate() {
        let file = if several {
            core_file(output, core)
        } else {
            output.to_path_buf()
        };
        std::fs::write(&file, &trace.bytes)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        files.push(file);
    }
    Ok(files)
}

/// `trace.bin` → `trace_c1.bin` for core 1.
fn core_file(output: &Path, core: usize) -> PathBuf {
    let stem = output.file_stem().unwrap_or_default().to_string_lossy();
    let name = match output.extension() {
        Some(ext) => format!("{stem}_c{core}.{}", ext.to_string_lossy()),
        None => format!("{stem}_c{core}"),
    };
    output.with_file_name(name)
}

/// Decodes what was written and says how it ends: the crash, with its PC
/// and LR as function and line, or the last event.
fn report_crash(files: &[PathBuf], elf: &Path, out: &mut impl Write) -> Result<(), String> {
    let args: Vec<String> = (files.iter().enumerate())
        .map(|(core, file)| format!("{}@{core}", file.display()))
        .collect();
    let mut trace = Trace::open(&args, &OpenOptions::default()).map_err(|e| e.to_string())?;
    let model = &mut trace.model;
    match Symbols::read(elf) {
        Ok(symbols) => {
            if !symbols.has_lines() {
                say(
                    out,
                    &format!(
                        "{} has no line information: functions are named without their lines",
                        elf.display()
                    ),
                )?;
            }
            symbols.locate_faults(model);
        }
        Err(e) => say(out, &format!("no functions or lines: {e}"))?,
    }
    match model.faults.last() {
        Some(fault) => say(out, &format!("crash: {}", crash_line(model, fault))),
        None => say(
            out,
            &format!(
                "no fault recorded: {} events, the last at {}",
                model.info.events,
                format_ns(model.info.duration_ns)
            ),
        ),
    }
}

fn say(out: &mut impl Write, line: &str) -> Result<(), String> {
    writeln!(out, "{line}").map_err(|e| format!("cannot write the report: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_core_has_its_file() {
        let path = Path::new("out/trace.bin");
        assert_eq!(core_file(path, 1), Path::new("out/trace_c1.bin"));
        assert_eq!(core_file(Path::new("t"), 0), Path::new("t_c0"));
    }
}
