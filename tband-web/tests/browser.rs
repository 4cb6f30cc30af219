//! The web page end to end in headless Chromium: built by `build.sh`,
//! served by `tband-web`, given real traces through its file picker
//! (`drive_page.mjs`). What it shows and downloads must be what
//! `tband-decode --summary` prints and `tband-perfetto --threads 1` writes
//! for the same files, and its errors the tools' error sentences.
//!
//! Needs node with `npm ci` run here, Chromium and wasm-bindgen-cli; skips
//! without them unless `TBAND_REQUIRE_CHROMIUM=1`.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};
use tband_cli::{open_options, FormatArgs};
use tband_perfetto::cli::OutputFormat;
use tband_perfetto::ExportOptions;

const WEB: &str = env!("CARGO_MANIFEST_DIR");

fn chromium() -> PathBuf {
    std::env::var_os("TBAND_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// What the test needs that is not here, if anything.
fn missing_tool() -> Option<String> {
    let runs = |program: &str| {
        Command::new(program)
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !chromium().is_file() {
        return Some(format!("no Chromium at {}", chromium().display()));
    }
    if !runs("node") {
        return Some("no node".into());
    }
    if !Path::new(WEB).join("node_modules/playwright-core").is_dir() {
        return Some("no playwright-core (run `npm ci` in tband-web/)".into());
    }
    if !runs("wasm-bindgen") {
        return Some("no wasm-bindgen on the PATH".into());
    }
    None
}

/// A job for the page: its files (path, core), run from `dir` by the
/// tools with the same names.
struct Job {
    dir: PathBuf,
    files: Vec<(&'static str, Option<u32>)>,
    /// The tools' arguments, when they differ from the files (a CTF trace:
    /// its stream, with the metadata beside it).
    cli_args: Option<Vec<&'static str>>,
}

impl Job {
    fn new(dir: &Path, files: &[(&'static str, Option<u32>)]) -> Job {
        Job {
            dir: dir.to_path_buf(),
            files: files.to_vec(),
            cli_args: None,
        }
    }

    fn cli_args(&self) -> Vec<String> {
        match &self.cli_args {
            Some(args) => args.iter().map(|a| a.to_string()).collect(),
            None => self
                .files
                .iter()
                .map(|(name, core)| match core {
                    Some(core) => format!("{name}@{core}"),
                    None => name.to_string(),
                })
                .collect(),
        }
    }
}

/// `tband-decode --summary`, run in the job's folder: the text, or the
/// error sentence.
fn cli_summary(job: &Job, out: &Path) -> Result<String, String> {
    std::env::set_current_dir(&job.dir).unwrap();
    let options = tband_cli::decode::Options {
        inputs: job.cli_args(),
        input: open_options(&FormatArgs::default()),
        summary: true,
        output: Some(out.to_path_buf()),
        ..tband_cli::decode::Options::default()
    };
    tband_cli::decode::run(&options)?;
    Ok(fs::read_to_string(out).unwrap())
}

/// `tband-perfetto --threads 1 -o OUT`, run in the job's folder.
fn cli_perfetto(job: &Job, out: &Path) -> Vec<u8> {
    std::env::set_current_dir(&job.dir).unwrap();
    let options = tband_perfetto::cli::Options {
        inputs: job.cli_args(),
        input: open_options(&FormatArgs::default()),
        output: Some(out.to_path_buf()),
        gzip: false,
        format: OutputFormat::Perfetto,
        export: ExportOptions::default(),
        serve: None,
        window: Default::default(),
    };
    tband_perfetto::cli::run(&options).unwrap();
    fs::read(out).unwrap()
}

/// `tband-web FOLDER --port 0`, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(site: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tband-web"))
            .arg(site)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        Server {
            child,
            url: url.trim().to_string(),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn build_page(site: &Path) {
    let status = Command::new(Path::new(WEB).join("build.sh"))
        .arg(site)
        .status()
        .unwrap();
    assert!(status.success(), "tband-web/build.sh failed");
}

/// Runs the jobs in the page; the reports, in order.
fn drive(url: &str, jobs: &[Value], work: &Path) -> Vec<Value> {
    let jobs_file = work.join("jobs.json");
    fs::write(&jobs_file, serde_json::to_vec(jobs).unwrap()).unwrap();
    let out = Command::new("node")
        .current_dir(WEB)
        .arg("tests/drive_page.mjs")
        .arg(url)
        .arg(&jobs_file)
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(out.status.success(), "the browser driver failed");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_page_converts_and_summarises_as_the_tools_do() {
    if let Some(missing) = missing_tool() {
        assert!(
            std::env::var("TBAND_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
            "{missing}, and TBAND_REQUIRE_CHROMIUM=1"
        );
        eprintln!("skipped: {missing} (TBAND_REQUIRE_CHROMIUM=1 makes this a failure)");
        return;
    }
    let root = Path::new(WEB).parent().unwrap();
    let work = tempfile::tempdir().unwrap();
    let work = work.path();
    let site = work.join("site");
    build_page(&site);
    let server = Server::start(&site);

    let samples = root.join("samples");
    let damaged = work.join("damaged");
    fs::create_dir(&damaged).unwrap();
    let demo = fs::read(samples.join("demo.bin")).unwrap();
    // Cut inside a frame, so the end is damaged.
    fs::write(
        damaged.join("demo_cut.bin"),
        &demo[..demo.len() * 2 / 3 + 1],
    )
    .unwrap();
    fs::write(damaged.join("empty.bin"), b"").unwrap();
    fs::write(
        damaged.join("notes.txt"),
        "Trace notes: the demo ran for ten seconds.\n",
    )
    .unwrap();
    fs::copy(
        root.join("tests/corpus/zephyr_ctf/hello_sem/channel0_0"),
        damaged.join("channel0_0"),
    )
    .unwrap();

    // Large enough for progress within each stage and a trace of many
    // chunks.
    let simulated = tband_sim::Config {
        size: 8 << 20,
        ..tband_sim::Config::default()
    };
    let (streams, _) = tband_sim::generate(&simulated).unwrap();
    fs::write(work.join("sim.bin"), &streams[0]).unwrap();

    let ctf = Job {
        cli_args: Some(vec!["channel0_0"]),
        ..Job::new(
            &root.join("tests/corpus/zephyr_ctf/hello_sem"),
            &[("metadata", None), ("channel0_0", None)],
        )
    };
    let converted = [
        Job::new(&samples, &[("demo.bin", None)]),
        Job::new(
            &samples,
            &[
                ("demo_2core.c0.bin", Some(0)),
                ("demo_2core.c1.bin", Some(1)),
            ],
        ),
        Job::new(
            &root.join("tests/corpus/threadx"),
            &[("threadx_demo_small.trx", None)],
        ),
        ctf,
        Job::new(&damaged, &[("demo_cut.bin", None)]),
        Job::new(work, &[("sim.bin", None)]),
    ];
    let refused = [
        Job::new(&damaged, &[("notes.txt", None)]),
        Job::new(&damaged, &[("empty.bin", None)]),
        Job::new(&damaged, &[("channel0_0", None)]),
    ];

    let page_jobs: Vec<Value> = converted
        .iter()
        .chain(&refused)
        .enumerate()
        .map(|(i, job)| {
            let files: Vec<Value> = job
                .files
                .iter()
                .map(|(name, core)| json!({ "path": job.dir.join(name), "core": core }))
                .collect();
            let mut page_job =
                json!({ "files": files, "download": work.join(format!("page{i}.pftrace")) });
            if i == 0 {
                page_job["screenshot"] = json!(work.join("page.png"));
            }
            page_job
        })
        .collect();
    let reports = drive(&server.url, &page_jobs, work);

    for (i, job) in converted.iter().enumerate() {
        let report = &reports[i];
        let what = job.cli_args().join(" ");
        assert_eq!(report["pageErrors"], json!([]), "{what}: the page threw");
        let expected = cli_summary(job, &work.join("summary.txt")).unwrap();
        assert_eq!(
            report["summary"].as_str(),
            Some(expected.as_str()),
            "{what}: summary"
        );
        let expected = cli_perfetto(job, &work.join("cli.pftrace"));
        let downloaded = fs::read(work.join(format!("page{i}.pftrace"))).unwrap();
        assert!(
            downloaded == expected,
            "{what}: the downloaded .pftrace differs from tband-perfetto's"
        );
        assert_eq!(
            report["downloadName"],
            json!(format!("{}.pftrace", job.files[0].0))
        );
    }
    let cut = &reports[4]["summary"];
    assert!(
        !cut.as_str().unwrap().contains(", 0 invalid frames,"),
        "the cut trace shows its damage: {cut}"
    );
    let sim = &reports[5]["progress"];
    for stage in ["reading sim.bin", "decoding", "writing the Perfetto trace"] {
        let percents = shown_percents(sim, stage);
        assert!(
            percents.len() >= 5 && percents.windows(2).all(|w| w[0] < w[1]),
            "{stage}: the progress shown rises step by step: {sim}"
        );
    }
    for (i, format) in [(2, "ThreadX"), (3, "CTF"), (5, "tband")] {
        let shown = &reports[i]["progress"];
        assert_eq!(
            shown_percents(shown, "decoding").last(),
            Some(&100),
            "{format}: the decoding's progress is shown to its end: {shown}"
        );
    }
    for (i, job) in refused.iter().enumerate() {
        let report = &reports[converted.len() + i];
        let what = job.cli_args().join(" ");
        let expected = cli_summary(job, &work.join("summary.txt")).unwrap_err();
        assert_eq!(
            report["error"].as_str(),
            Some(expected.as_str()),
            "{what}: error"
        );
    }
    assert!(fs::metadata(work.join("page.png")).unwrap().len() > 0);
    if let Some(keep) = std::env::var_os("TBAND_WEB_SCREENSHOT") {
        fs::copy(work.join("page.png"), keep).unwrap();
    }
}

/// The percents the page showed for `stage`, in order, from its progress
/// lines ("STAGE: N%").
fn shown_percents(lines: &Value, stage: &str) -> Vec<u32> {
    lines
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|line| line.as_str()?.strip_prefix(stage)?.strip_prefix(": "))
        .map(|percent| percent.strip_suffix('%').unwrap().parse().unwrap())
        .collect()
}
