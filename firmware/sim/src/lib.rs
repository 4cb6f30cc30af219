//! A deterministic simulator of FreeRTOS-style firmware that writes the
//! tband trace the reference tracer would record, of any size, and can
//! report what it actually scheduled ([`GroundTruth`]) so tests can check a
//! trace model against reality.
//!
//! ```
//! use tband_sim::{Config, generate};
//!
//! let config = Config { size: 64 << 10, record_truth: true, ..Config::default() };
//! let (streams, truth) = generate(&config).unwrap();
//! assert!(streams[0].len() as u64 >= config.size);
//! assert!(!truth.unwrap().run_slices.is_empty());
//! ```

mod config;
mod kernel;
mod program;
mod rng;
mod stream;
mod system;
mod truth;

pub use config::{Config, ConfigError, DropConfig, Layout, WorkScale};
pub use kernel::{Output, RunStats, Simulator};
pub use truth::*;

use std::path::{Path, PathBuf};

/// Runs `config` into one byte vector per core.
pub fn generate(config: &Config) -> Result<(Vec<Vec<u8>>, Option<GroundTruth>), Error> {
    let sinks = vec![Vec::new(); config.cores as usize];
    let out = Simulator::new(config.clone(), sinks)?.run()?;
    Ok((out.sinks, out.truth))
}

/// Why a simulation could not run.
#[derive(Debug)]
pub enum Error {
    Config(ConfigError),
    Io(std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Config(e) => e.fmt(f),
            Error::Io(e) => write!(f, "cannot write the trace: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

/// The file of `core`'s stream: `path` itself for a single core, else
/// `path` with `.c<core>` before its extension (`trace.bin` →
/// `trace.c1.bin`).
pub fn core_file_name(path: &Path, core: u32, cores: u32) -> PathBuf {
    if cores <= 1 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let name = match (stem, path.extension()) {
        (Some(stem), Some(ext)) => format!("{stem}.c{core}.{}", ext.to_string_lossy()),
        (Some(stem), None) => format!("{stem}.c{core}"),
        (None, _) => format!("trace.c{core}"),
    };
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_file_names() {
        let p = Path::new("out/trace.bin");
        assert_eq!(core_file_name(p, 0, 1), Path::new("out/trace.bin"));
        assert_eq!(core_file_name(p, 1, 2), Path::new("out/trace.c1.bin"));
        assert_eq!(
            core_file_name(Path::new("trace"), 0, 4),
            Path::new("trace.c0")
        );
    }

    #[test]
    fn one_task_works_more_and_an_unknown_one_is_refused() {
        let run = |task: &str, percent| {
            let config = Config {
                size: 128 << 10,
                record_truth: true,
                work_scale: Some(WorkScale {
                    task: task.into(),
                    percent,
                }),
                ..Config::default()
            };
            generate(&config)
        };
        let busy = |truth: &GroundTruth, name: &str| -> u64 {
            let id = truth.tasks.iter().find(|t| t.name == name).unwrap().task_id;
            truth
                .run_slices
                .iter()
                .filter(|s| s.task_id == id)
                .map(|s| s.end - s.start)
                .sum()
        };
        let (_, same) = run("mtxlo0", 100).unwrap();
        let (_, more) = run("mtxlo0", 300).unwrap();
        let (same, more) = (same.unwrap(), more.unwrap());
        assert!(busy(&more, "mtxlo0") > 2 * busy(&same, "mtxlo0"));
        let e = run("IDLE", 200).unwrap_err().to_string();
        assert!(e.contains("no application task named `IDLE`"), "{e}");
        assert_eq!(
            "cons0=150%".parse(),
            Ok(WorkScale {
                task: "cons0".into(),
                percent: 150
            })
        );
        assert!("cons0".parse::<WorkScale>().is_err());
    }
}
