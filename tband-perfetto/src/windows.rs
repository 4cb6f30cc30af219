//! Windows and pieces of an export: `--from`/`--to` write the model of a
//! stretch of time ([`Model::window`]), `--split` writes consecutive
//! windows of about a size each, every one self-contained.

use std::io;
use std::path::{Path, PathBuf};

use tband_model::summary::format_ns;
use tband_model::Model;

/// What `--from`, `--to` and `--split` ask for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowOptions {
    /// The window's bounds, in ns.
    pub from: Option<u64>,
    pub to: Option<u64>,
    /// The size of the pieces, in bytes.
    pub split: Option<u64>,
}

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

/// Whether `--split` can be done as asked, writing to `output` and
/// serving or not (checked before the trace is read).
pub fn check_split(options: &WindowOptions, output: &Path, serve: bool) -> Result<(), String> {
    match options.split {
        None => Ok(()),
        Some(_) if output.as_os_str() == "-" => {
            Err("--split writes files named after -o FILE; give a file name, not -".into())
        }
        Some(0) => Err("--split needs a size above 0, e.g. 100M".into()),
        Some(_) if serve => Err("--serve and --open serve one file; leave out --split".into()),
        Some(_) => Ok(()),
    }
}

/// Writes `model` from `start` on as consecutive pieces of about `size`
/// bytes each, named after `output` ([`piece_path`]), each written by
/// `write`; `export_bytes` tells how many bytes a model's export takes.
pub fn write_pieces(
    model: &Model,
    start: u64,
    size: u64,
    output: &Path,
    export_bytes: impl Fn(&Model) -> io::Result<u64>,
    mut write: impl FnMut(&Model, &Path) -> Result<(), String>,
) -> Result<(), String> {
    let end = model.info.duration_ns;
    let measure =
        |model: &Model| export_bytes(model).map_err(|e| format!("cannot measure the export: {e}"));
    let bytes = measure(model)?;
    // What every piece repeats: the tracks, and the state at its start (as
    // much as there is at the end of the trace).
    let overhead = measure(&model.window(end, None))?;
    if size <= overhead && bytes > size {
        return Err(format!(
            "pieces of {size} bytes cannot hold what every piece repeats (its tracks and the \
             state at its start, {overhead} bytes); give a larger --split"
        ));
    }
    let rows = rows_per_piece(
        model,
        bytes.saturating_sub(overhead),
        size - overhead.min(size),
    );
    let starts = piece_starts(model, start, rows);
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

/// The rows of the model that `size` bytes of a piece hold, when the
/// rows of the whole model take `bytes`.
fn rows_per_piece(model: &Model, bytes: u64, size: u64) -> u64 {
    let rows = model.rows_before(u64::MAX);
    let rows = u128::from(rows) * u128::from(size) / u128::from(bytes.max(1));
    u64::try_from(rows).unwrap_or(u64::MAX).max(1)
}

/// The start times of consecutive pieces, from `first` on, of `rows` rows
/// of the model each (counted by [`Model::rows_before`]; the last holds the
/// rest): each piece after the first starts at the time of its first row,
/// and the rows of one instant are never split between pieces.
fn piece_starts(model: &Model, first: u64, rows: u64) -> Vec<u64> {
    let total = model.rows_before(u64::MAX);
    let mut starts = vec![first];
    loop {
        let start = *starts.last().unwrap_or(&first);
        // The number of the next piece's first row (from 0, in time order).
        let next = model
            .rows_before(start)
            .saturating_add(rows)
            .max(model.rows_before(start.saturating_add(1)));
        if next >= total {
            return starts;
        }
        // Its time: the least time `t` with more than `next` rows up to it.
        let (mut low, mut high) = (start, u64::MAX);
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if model.rows_before(mid.saturating_add(1)) > next {
                high = mid;
            } else {
                low = mid;
            }
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
    use tband_model::{MarkerInstant, StrId};

    /// A model of one marker instant at each of `times`.
    fn instants(times: impl IntoIterator<Item = u64>) -> Model {
        let mut m = Model::default();
        for ts_ns in times {
            m.marker_instants.push(MarkerInstant {
                ts_ns,
                marker: 0,
                msg: StrId::EMPTY,
            });
            m.info.duration_ns = ts_ns;
        }
        m
    }

    #[test]
    fn pieces_hold_their_share_of_the_rows() {
        let m = instants((0..100).map(|i| i * 10));
        assert_eq!(piece_starts(&m, 0, 25), [0, 250, 500, 750]);
        assert_eq!(piece_starts(&m, 0, 30), [0, 300, 600, 900]);
        assert_eq!(piece_starts(&m, 0, 100), [0]);
        // A window from 500 on.
        assert_eq!(piece_starts(&m.window(500, None), 500, 25), [500, 750]);
        // 80 bytes of rows in pieces of 20 bytes: 25 rows each.
        assert_eq!(rows_per_piece(&m, 80, 20), 25);
    }

    #[test]
    fn the_rows_of_one_instant_are_in_one_piece() {
        // The rows of one instant stay together, however many.
        let m = instants([0, 5].into_iter().chain([9; 10]));
        assert_eq!(piece_starts(&m, 0, 4), [0, 9]);
        let m = instants([0; 10].into_iter().chain([5, 9]));
        assert_eq!(piece_starts(&m, 0, 4), [0, 5]);
    }

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
