//! The book's GitHub Actions workflow (`docs/examples/firmware-trace.yml`)
//! run here, step by step, as GitHub would run it: the `run:` script of
//! each step that does the work (build the FreeRTOS example firmware, run
//! it in QEMU, the reports, the diff with its budgets) is taken from the
//! file and run by `bash --noprofile --norc -eo pipefail` (the job's
//! `shell: bash`) in this repository as the checkout, with `RUNNER_TEMP`
//! a temporary folder, `GITHUB_STEP_SUMMARY` a file in it and this build's
//! `tband-query` first on `PATH`.
//!
//! The steps only GitHub can do are not run: the checkouts (this
//! repository is at hand; the kernel is `FREERTOS_KERNEL_PATH`), the
//! installation of the tools (the machine has them), the upload of the
//! trace and the download of main's (the test copies the trace of its own
//! run of the workflow for main). Three runs of the job: main's, a pull
//! request of the same sources (the same trace byte for byte: QEMU counts
//! time in instructions; the diff passes), and a pull request whose busy
//! task spins 30 ms of every 50 instead of 20 (the firmware built with
//! `CPPFLAGS=-DBUSY_SPIN_NS=30000000ull`): the diff step exits 3 with the
//! CPU-load budget broken by that task, which fails the job.
//!
//! Needs `qemu-system-arm` and the rustup target thumbv7m-none-eabi (else
//! skips; fails under `TBAND_REQUIRE_QEMU=1`), the FreeRTOS kernel named by
//! `FREERTOS_KERNEL_PATH`, `make` and `arm-none-eabi-gcc` (else skips;
//! fails under `TBAND_REQUIRE_FREERTOS=1`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_yaml::Value;

/// The steps of the workflow that GitHub does and this test does not,
/// named by their `name` (or `uses` when they have none), with what stands
/// in for them here.
const GITHUB_ONLY: [(&str, &str); 5] = [
    ("actions/checkout@v4", "this repository"),
    ("Check out the FreeRTOS kernel", "FREERTOS_KERNEL_PATH"),
    (
        "Install the tools",
        "the machine's tools and this build's tband-query",
    ),
    ("Keep the trace", "the trace left in the run's folder"),
    (
        "Fetch the main branch's trace",
        "a copy of the trace of the test's run for main",
    ),
];

const BUILD: &str = "Build the firmware";
const RECORD: &str = "Run the firmware in QEMU";
const REPORTS: &str = "Reports";
const COMPARE: &str = "Compare with the main branch";

/// The condition of the steps that run for a pull request only.
const PULL_REQUEST_ONLY: &str = "github.event_name == 'pull_request'";

/// Where the build step leaves the firmware's trace, in `RUNNER_TEMP`, and
/// where the fetch step puts main's.
const TRACE: &str = "build/trace.bin";
const MAIN_TRACE: &str = "main-trace/trace.bin";
/// The name of the artifact that holds main's trace.
const ARTIFACT: &str = "firmware-trace";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A step's `run:` script and whether it runs for pull requests only.
struct Step {
    name: String,
    script: String,
    pull_request_only: bool,
}

/// The job's steps that this test runs, in the workflow's order, after
/// checking that the others are those of [`GITHUB_ONLY`] and that the job
/// asks for nothing the test does not provide.
fn steps() -> Vec<Step> {
    let path = repo().join("docs/examples/firmware-trace.yml");
    let text = std::fs::read_to_string(&path).unwrap();
    let workflow: Value = serde_yaml::from_str(&text).unwrap();
    let jobs = workflow["jobs"].as_mapping().unwrap();
    assert_eq!(jobs.len(), 1, "one job");
    let job = &workflow["jobs"]["trace"];
    assert_eq!(job["defaults"]["run"]["shell"].as_str(), Some("bash"));
    let env: Vec<&str> = (job["env"].as_mapping().unwrap().keys())
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(env, ["FREERTOS_KERNEL_PATH"], "the job's environment");

    let mut github_only = Vec::new();
    let mut run_here = Vec::new();
    for step in job["steps"].as_sequence().unwrap() {
        let name = step_name(step);
        if GITHUB_ONLY.iter().any(|(n, _)| *n == name) {
            github_only.push(step);
            continue;
        }
        let keys: Vec<&str> = (step.as_mapping().unwrap().keys())
            .map(|k| k.as_str().unwrap())
            .collect();
        assert!(
            keys.iter().all(|k| ["name", "if", "run"].contains(k)),
            "step `{name}` has keys this test does not apply: {keys:?}"
        );
        let condition = step["if"].as_str();
        assert!(
            condition.is_none_or(|c| c == PULL_REQUEST_ONLY),
            "step `{name}`: a condition this test does not evaluate: {condition:?}"
        );
        run_here.push(Step {
            name: name.to_string(),
            script: step["run"].as_str().unwrap().to_string(),
            pull_request_only: condition.is_some(),
        });
    }
    let expected: Vec<&str> = GITHUB_ONLY.iter().map(|(n, _)| *n).collect();
    let names: Vec<&str> = github_only.iter().map(|s| step_name(s)).collect();
    assert_eq!(names, expected, "the steps only GitHub does");
    check_stand_ins(job, &github_only);
    let names: Vec<&str> = run_here.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [BUILD, RECORD, REPORTS, COMPARE],
        "the steps run here"
    );
    run_here
}

fn step_name(step: &Value) -> &str {
    step["name"].as_str().or(step["uses"].as_str()).unwrap()
}

/// That the test's stand-ins for the steps only GitHub does are what those
/// steps do: the kernel where the job's environment says, main's trace
/// kept and fetched where the other steps look for it.
fn check_stand_ins(job: &Value, github_only: &[&Value]) {
    let step = |name: &str| *github_only.iter().find(|s| step_name(s) == name).unwrap();
    let kernel = &step("Check out the FreeRTOS kernel")["with"]["path"];
    assert_eq!(
        job["env"]["FREERTOS_KERNEL_PATH"].as_str(),
        Some(format!("${{{{ github.workspace }}}}/{}", kernel.as_str().unwrap()).as_str())
    );
    let keep = &step("Keep the trace")["with"];
    assert_eq!(keep["name"].as_str(), Some(ARTIFACT));
    let kept = format!("${{{{ runner.temp }}}}/{TRACE}");
    assert_eq!(keep["path"].as_str(), Some(kept.as_str()));
    let fetch = step("Fetch the main branch's trace")["run"]
        .as_str()
        .unwrap();
    let folder = Path::new(MAIN_TRACE).parent().unwrap().to_str().unwrap();
    for part in [
        "--workflow firmware-trace.yml".to_string(),
        format!("--name {ARTIFACT}"),
        format!("--dir \"$RUNNER_TEMP/{folder}\""),
    ] {
        assert!(fetch.contains(&part), "the fetch step: {part}");
    }
}

/// Why the workflow cannot run here, and the variable that makes that a
/// failure; `None` when it can.
fn missing() -> Option<(String, &'static str)> {
    let runs = |program: &str| {
        Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !runs("qemu-system-arm") {
        return Some((
            "qemu-system-arm is not installed".into(),
            "TBAND_REQUIRE_QEMU",
        ));
    }
    let targets = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    if !targets.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("thumbv7m-none-eabi")) {
        return Some((
            "the rustup target thumbv7m-none-eabi is not installed".into(),
            "TBAND_REQUIRE_QEMU",
        ));
    }
    for program in ["make", "arm-none-eabi-gcc"] {
        if !runs(program) {
            return Some((
                format!("{program} is not installed"),
                "TBAND_REQUIRE_FREERTOS",
            ));
        }
    }
    let kernel = std::env::var_os("FREERTOS_KERNEL_PATH").map(PathBuf::from);
    if !kernel.is_some_and(|k| k.join("tasks.c").is_file()) {
        return Some((
            "FREERTOS_KERNEL_PATH names no FreeRTOS kernel (tasks.c)".into(),
            "TBAND_REQUIRE_FREERTOS",
        ));
    }
    None
}

fn tools_present() -> bool {
    let Some((why, require)) = missing() else {
        return true;
    };
    assert!(
        std::env::var(require).as_deref() != Ok("1"),
        "{require}=1 but {why}"
    );
    println!("skipped: {why}");
    false
}

/// One run of the job: its `RUNNER_TEMP` and its summary file.
struct Job {
    temp: tempfile::TempDir,
    summary: PathBuf,
    pull_request: bool,
    /// Further environment of every step (the firmware's build flags).
    env: Vec<(&'static str, &'static str)>,
}

impl Job {
    fn new(pull_request: bool, env: Vec<(&'static str, &'static str)>) -> Job {
        let temp = tempfile::tempdir().unwrap();
        let summary = temp.path().join("step-summary.md");
        Job {
            temp,
            summary,
            pull_request,
            env,
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.temp.path().join(relative)
    }

    /// Runs `step` as GitHub would; its output.
    fn run(&self, step: &Step) -> Output {
        assert!(self.pull_request || !step.pull_request_only);
        let tband_query = Path::new(env!("CARGO_BIN_EXE_tband-query"));
        let mut path = vec![tband_query.parent().unwrap().to_path_buf()];
        path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
        Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
            .arg(&step.script)
            .current_dir(repo())
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("RUNNER_TEMP", self.temp.path())
            .env("GITHUB_STEP_SUMMARY", &self.summary)
            .envs(self.env.iter().copied())
            .output()
            .unwrap()
    }

    /// Runs the steps for the job's event, up to (not including) `COMPARE`,
    /// each of which must succeed.
    fn run_until_compare(&self, steps: &[Step]) {
        for step in steps.iter().take_while(|s| s.name != COMPARE) {
            if step.pull_request_only && !self.pull_request {
                continue;
            }
            let out = self.run(step);
            assert!(
                out.status.success(),
                "step `{}`: {}\n{}{}",
                step.name,
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// Stands in for the fetch of main's trace: a copy of `main`'s.
    fn fetch_main_trace(&self, main: &Job) {
        std::fs::create_dir_all(self.path(MAIN_TRACE).parent().unwrap()).unwrap();
        std::fs::copy(main.path(TRACE), self.path(MAIN_TRACE)).unwrap();
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(&self.summary).unwrap()
    }
}

fn find<'a>(steps: &'a [Step], name: &str) -> &'a Step {
    steps.iter().find(|s| s.name == name).unwrap()
}

/// The cells of a Markdown table's row.
fn cells(line: &str) -> Vec<&str> {
    let inner = line.strip_prefix("| ").and_then(|l| l.strip_suffix(" |"));
    inner.map_or_else(Vec::new, |l| l.split(" | ").collect())
}

/// The Markdown the reports step writes: its heading, then each report of
/// `queries/` as a table, among them the busy task's CPU load.
fn check_reports(job: &Job) {
    let summary = job.summary();
    assert!(summary.starts_with("## Trace reports\n"), "{summary}");
    let reports = std::fs::read_dir(repo().join("queries")).unwrap();
    let mut names: Vec<String> = reports
        .flatten()
        .map(|e| e.file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".sql"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    for name in &names {
        let table = format!("\n### queries/{name}\n\n| ");
        assert!(summary.contains(&table), "{name} in\n{summary}");
    }
    let cpu_load = summary
        .split("### queries/cpu_load.sql\n\n")
        .nth(1)
        .unwrap();
    let mut rows = cpu_load.lines().map(cells);
    let header = rows.next().unwrap();
    assert_eq!(
        header,
        [
            "core_id",
            "task_id",
            "task_name",
            "kind",
            "run_ns",
            "isr_ns",
            "load_pct"
        ]
    );
    assert!(rows.next().unwrap().is_empty(), "the table's rule");
    let busy = rows
        .take_while(|row| !row.is_empty())
        .find(|row| row[2] == "busy")
        .expect("busy's row in cpu_load");
    // It spins 20 ms of every 50.
    let load: f64 = busy[6].parse().unwrap();
    assert!((39.0..41.0).contains(&load), "{busy:?}");
}

#[test]
fn the_book_workflow_records_reports_and_fails_a_regression() {
    let steps = steps();
    if !tools_present() {
        return;
    }
    for (name, stand_in) in GITHUB_ONLY {
        println!("not run here: `{name}` (instead: {stand_in})");
    }

    // main's run: the trace a pull request is compared with.
    let main = Job::new(false, Vec::new());
    main.run_until_compare(&steps);
    check_reports(&main);
    assert!(!main.summary().contains("## Changes since main"));

    // A pull request that changes nothing the firmware does.
    let same = Job::new(true, Vec::new());
    same.run_until_compare(&steps);
    check_reports(&same);
    assert_eq!(
        std::fs::read(same.path(TRACE)).unwrap(),
        std::fs::read(main.path(TRACE)).unwrap(),
        "one firmware, one trace"
    );
    same.fetch_main_trace(&main);
    let before = same.summary();
    let out = same.run(find(&steps, COMPARE));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(diff.contains("### cpu_load.sql\n\n| core_id |"), "{diff}");
    assert!(!diff.contains("| changed |"), "{diff}");
    assert_eq!(
        same.summary(),
        format!("{before}## Changes since main\n{diff}")
    );

    // A pull request whose busy task does half as much again.
    let slower = Job::new(true, vec![("CPPFLAGS", "-DBUSY_SPIN_NS=30000000ull")]);
    slower.run_until_compare(&steps);
    slower.fetch_main_trace(&main);
    let before = slower.summary();
    let out = slower.run(find(&steps, COMPARE));
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let diff = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        slower.summary(),
        format!("{before}## Changes since main\n{diff}")
    );
    // core_id, task_id, task_name, kind, column, old, new, change, ...
    let busy_load = (diff.lines().map(cells))
        .find(|row| row.len() == 10 && row[2] == "busy" && row[4] == "load_pct")
        .expect("busy's load in the diff");
    let change: f64 = busy_load[7].parse().unwrap();
    assert!((19.0..21.0).contains(&change), "{busy_load:?}");
    assert_eq!(busy_load[9], "changed");
    let err = String::from_utf8(out.stderr).unwrap();
    let broken: Vec<&str> = (err.lines())
        .filter(|l| l.starts_with("tband-query: budget"))
        .collect();
    // The busy task and its core's total; the longest SysTick of this
    // firmware is longer too, which the ISR budget may catch as well.
    assert_eq!(
        broken[0], "tband-query: budget `cpu_load.load_pct > +2` broken by 2 row(s):",
        "{err}"
    );
    assert!(
        broken[1..]
            .iter()
            .all(|l| l.starts_with("tband-query: budget `isr_latency.max_ns > +10%` broken by ")),
        "{err}"
    );
    assert!(
        err.contains(" task_name=busy kind=normal: load_pct "),
        "{err}"
    );
    assert!(
        err.contains(" task_name=(core total) kind=total: load_pct "),
        "{err}"
    );
}
