//! Windows and pieces of an export: `--from`/`--to` write the model of a
//! stretch of time ([`Model::window`]), `--split` writes consecutive
//! windows of about a size each, every one self-contained.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tband_model::summary::format_ns;
use tband_model::Model;

use crate::chrome_json::write_chrome_json;
use crate::cli::{Options, OutputFormat};

/// The window `from`..`to` of `model` (either bound may be left out), or
/// `None` when both are; an error sentence for bounds outside the trace.
pub fn window(model: &Model, from: Option<u64>, to: Option<u64>) -> Result<Option<Model>, String> {
    if from.is_none() && to.is_none() {
        return Ok(None);
    }
    let end = model.info.duration_ns;
    if let Some(from) = from.filter(|&from| from > 0 && from >= end) {
        return Err(format!(
            "--from {} is not before the end of the trace ({}); give an earlier time",
            format_ns(from),
            format_ns(end)
        ));
    }
    if let Some(to) = to {
        if to > end {
            return Err(format!(
                "--to {} is after the end of the trace ({}); leave --to out to go to the end",
                format_ns(to),
                format_ns(end)
            ));
        }
        if to <= from.unwrap_or(0) {
            return Err(format!(
                "--to {} is not after --from {}; give a later --to",
                format_ns(to),
                format_ns(from.unwrap_or(0))
            ));
        }
    }
    Ok(Some(model.window(from.unwrap_or(0), to)))
}

/// Whether `--split` can be done as asked (checked before the trace is read).
pub fn check_split(cli: &Options, output: &Path) -> Result<(), String> {
    match cli.split {
        None => Ok(()),
        Some(_) if output.as_os_str() == "-" => {
            Err("--split writes files named after -o FILE; give a file name, not -".into())
        }
        Some(0) => Err("--split needs a size above 0, e.g. 100M".into()),
        Some(_) if cli.serve || cli.open => {
            Err("--serve and --open serve one file; leave out --split".into())
        }
        Some(_) => Ok(()),
    }
}

/// Writes `model` as consecutive pieces of about `size` bytes each, named
/// after `output` ([`piece_path`]), each written by `write`.
pub fn write_pieces(
    model: &Model,
    size: u64,
    cli: &Options,
    output: &Path,
    mut write: impl FnMut(&Model, &Path) -> Result<(), String>,
) -> Result<(), String> {
    let end = model.info.duration_ns;
    let measure = |model: &Model| {
        export_bytes(model, cli).map_err(|e| format!("cannot measure the export: {e}"))
    };
    let bytes = measure(model)?;
    // What every piece repeats: the tracks, and the state at its start (as
    // much as there is at the end of the trace).
    let overhead = measure(&model.window(end, None))?;
    if size <= overhead && bytes > size {
        return Err(format!(
            "--split {size} is not above what every piece repeats (its tracks and the state at \
             its start, {overhead} bytes); give a larger size"
        ));
    }
    let rows = rows_per_piece(
        model,
        bytes.saturating_sub(overhead),
        size - overhead.min(size),
    );
    let starts = piece_starts(model, rows);
    for (i, &from) in starts.iter().enumerate() {
        let to = starts.get(i + 1).copied();
        let path = piece_path(output, i + 1, starts.len());
        eprintln!(
            "piece {} of {}: {} to {}",
            i + 1,
            starts.len(),
            format_ns(from),
            format_ns(to.unwrap_or(end))
        );
        write(&model.window(from, to), &path)?;
    }
    Ok(())
}

/// Bytes of the whole export (before compression) in the format asked for.
fn export_bytes(model: &Model, cli: &Options) -> io::Result<u64> {
    let mut counter = ByteCounter(0);
    match cli.format {
        OutputFormat::Perfetto => Ok(crate::export(model, cli.export, &mut counter)?.bytes),
        OutputFormat::ChromeJson => {
            write_chrome_json(&mut counter, model)?;
            Ok(counter.0)
        }
    }
}

/// A writer that keeps only the number of bytes written.
struct ByteCounter(u64);

impl Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The rows of the model that `size` bytes of a piece hold, when the
/// rows of the whole model take `bytes`.
fn rows_per_piece(model: &Model, bytes: u64, size: u64) -> u64 {
    let rows = model.rows_before(u64::MAX);
    let rows = u128::from(rows) * u128::from(size) / u128::from(bytes.max(1));
    u64::try_from(rows).unwrap_or(u64::MAX).max(1)
}

/// The start times of consecutive pieces of `rows` rows of the model each
/// (by [`Model::rows_before`]; the last holds the rest): a piece starts at
/// the first time before which the one before it has its rows, and no
/// piece starts after the trace's end.
fn piece_starts(model: &Model, rows: u64) -> Vec<u64> {
    let total = model.rows_before(u64::MAX);
    let mut starts = vec![0];
    loop {
        let start = *starts.last().unwrap_or(&0);
        let target = model.rows_before(start).saturating_add(rows);
        if target >= total {
            return starts;
        }
        // The least time after `start` with `target` rows before it.
        let (mut low, mut high) = (start, u64::MAX);
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if model.rows_before(mid) >= target {
                high = mid;
            } else {
                low = mid;
            }
        }
        // Rows at the trace's last instant stay in the piece before them.
        if high > model.info.duration_ns {
            return starts;
        }
        starts.push(high);
    }
}

/// The file of piece `n` (from 1) of `count`: `out.pftrace` becomes
/// `out.001.pftrace` (and `out.pftrace.gz` `out.001.pftrace.gz`), with as
/// many digits as `count` needs, at least three.
pub fn piece_path(output: &Path, n: usize, count: usize) -> PathBuf {
    let width = count.to_string().len().max(3);
    let name = output
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let (name, gz) = match name.strip_suffix(".gz") {
        Some(stem) => (stem, ".gz"),
        None => (name.as_str(), ""),
    };
    let (stem, extension) = match name.rfind('.').filter(|&dot| dot > 0) {
        Some(dot) => name.split_at(dot),
        None => (name, ""),
    };
    output.with_file_name(format!("{stem}.{n:0width$}{extension}{gz}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_numbered_before_the_extension() {
        let path = |p: &str, n, count| piece_path(Path::new(p), n, count);
        assert_eq!(path("out.pftrace", 1, 3), Path::new("out.001.pftrace"));
        assert_eq!(
            path("d/t.bin.pftrace.gz", 2, 3),
            Path::new("d/t.bin.002.pftrace.gz")
        );
        assert_eq!(path("out.json", 12, 1200), Path::new("out.0012.json"));
        assert_eq!(path("out", 1, 1), Path::new("out.001"));
        assert_eq!(path(".hidden", 1, 1), Path::new(".hidden.001"));
    }
}
