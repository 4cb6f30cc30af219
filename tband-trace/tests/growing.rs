//! A trace file read as it grows, as `tband-tui --follow` reads it: cut
//! anywhere, mid-frame too, and completed later, it ends as the same model
//! as the whole file, with no invalid frame counted for a cut; the lifetime
//! rules make the same objects of what is there at each look as opening it.

#[path = "../../tests/lifetimes/requests.rs"]
mod requests;

use std::fs::{File, OpenOptions as FileOptions};
use std::io::Write;
use std::path::Path;

use tband::Event;
use tband_decode::encode::encode_stream;
use tband_model::{Actor, Anomaly, AnomalyKind, Model};
use tband_trace::input::Input;
use tband_trace::{GrowingFile, OpenOptions, Trace};

fn recording(name: &str) -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");
    std::fs::read(format!("{dir}{name}")).unwrap()
}

/// A simulated one-core trace of about `size` bytes with lost events.
fn simulated(size: u64) -> Vec<u8> {
    let config = tband_sim::Config {
        size,
        drops: Some(tband_sim::DropConfig::default()),
        wide_values: true,
        ..tband_sim::Config::default()
    };
    tband_sim::generate(&config).unwrap().0.remove(0)
}

/// The model `Trace::build` makes of the whole file, as text to compare.
fn whole_model(path: &Path) -> String {
    let args = [path.display().to_string()];
    format!(
        "{:?}",
        Trace::open(&args, &OpenOptions::default()).unwrap().model
    )
}

fn append(path: &Path, bytes: &[u8]) {
    let mut file = FileOptions::new().append(true).open(path).unwrap();
    file.write_all(bytes).unwrap();
}

fn follow(path: &Path) -> GrowingFile {
    GrowingFile::open(&[path.display().to_string()], &OpenOptions::default()).unwrap()
}

#[test]
fn a_file_cut_mid_frame_and_completed_is_the_whole_files_model() {
    let bytes = recording("tband/freertos_small.bin");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.bin");
    // Cut inside the frame that names the task `tmpB`.
    let name = bytes.windows(4).position(|w| w == b"tmpB").unwrap();
    let cut = name - 2;
    assert_ne!(bytes[cut - 1], 0, "the cut is inside a frame");
    std::fs::write(&path, &bytes[..cut]).unwrap();

    let mut file = follow(&path);
    let mut model = Model::default();
    let growth = file.look(&mut model, u64::MAX).unwrap();
    assert!(growth.changed && !growth.behind && !growth.started_again);
    let frame_start = bytes[..cut].iter().rposition(|&b| b == 0).unwrap() + 1;
    assert_eq!(file.read_to(), frame_start as u64);
    assert_eq!(model.info.invalid_frames, 0);
    assert_eq!(model.anomaly_count(AnomalyKind::InvalidFrame), 0);
    assert!(model.info.events > 0);
    assert!(model.tasks.iter().any(|t| t.name == "tmpA"));
    assert!(!model.tasks.iter().any(|t| t.name == "tmpB"));
    // Nothing more: the model is left as it was.
    let events = model.info.events;
    assert!(!file.look(&mut model, u64::MAX).unwrap().changed);
    assert_eq!(model.info.events, events);

    append(&path, &bytes[cut..]);
    assert!(file.look(&mut model, u64::MAX).unwrap().changed);
    assert!(model.tasks.iter().any(|t| t.name == "tmpB"));
    assert_eq!(model.info.invalid_frames, 0);
    assert_eq!(
        format!("{:?}", file.finish(model).unwrap()),
        whole_model(&path)
    );
}

#[test]
fn a_file_grown_in_pieces_of_every_size_is_the_whole_files_model() {
    let bytes = simulated(300_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.bin");
    File::create(&path).unwrap();
    let mut file = follow(&path);
    let mut model = Model::default();
    let (mut written, mut size) = (0, 1);
    while written < bytes.len() {
        let end = (written + size).min(bytes.len());
        append(&path, &bytes[written..end]);
        written = end;
        size = size * 7 % 20_011 + 1;
        // Looks of a few kB at a time: several for a large piece.
        while file.look(&mut model, 4096).unwrap().behind {}
        assert_eq!(model.info.invalid_frames, 0, "after {written} bytes");
        let ends = bytes[..written]
            .iter()
            .rposition(|&b| b == 0)
            .map_or(0, |z| z + 1);
        assert_eq!(file.read_to(), ends as u64);
    }
    let dropped = model.anomaly_count(AnomalyKind::DroppedEvents);
    assert!(dropped > 0, "the trace lost events");
    assert_eq!(
        format!("{:?}", file.finish(model).unwrap()),
        whole_model(&path)
    );
}

/// The anomalies the lifetime rules report.
fn rule_anomalies(model: &Model) -> Vec<&Anomaly> {
    let by_rules = [AnomalyKind::EndWithoutBegin, AnomalyKind::Inconsistent];
    let anomalies = model.anomalies.iter();
    anomalies.filter(|a| by_rules.contains(&a.kind)).collect()
}

/// Follows a file that `bytes` are written to in pieces of many sizes,
/// with the requests' rules, checking at each look that the objects and
/// the rules' anomalies are those of opening the bytes read, and at the end
/// that the file's model is the whole file's. Returns the last look's model.
fn followed_with_rules(bytes: &[u8]) -> Model {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.toml");
    std::fs::write(&rules, requests::RULES).unwrap();
    let options = OpenOptions {
        rules: Some(rules),
        ..OpenOptions::default()
    };
    let path = dir.path().join("growing.bin");
    File::create(&path).unwrap();
    let args = [path.display().to_string()];
    let mut file = GrowingFile::open(&args, &options).unwrap();
    let mut model = Model::default();
    let (mut written, mut size, mut looks) = (0, 1, 0);
    while written < bytes.len() {
        let end = (written + size).min(bytes.len());
        append(&path, &bytes[written..end]);
        written = end;
        size = size * 7 % 2003 + 1;
        let mut behind = true;
        while behind {
            behind = file.look(&mut model, 512).unwrap().behind;
            let read = &bytes[..file.read_to() as usize];
            if read.is_empty() {
                continue;
            }
            let inputs = Input::per_core("growing.bin", vec![read.to_vec()]);
            let opened = Trace::from_inputs(inputs, &options).unwrap().model;
            let at = format!("after {} bytes", read.len());
            assert_eq!(
                format!("{:?}", model.tracked),
                format!("{:?}", opened.tracked),
                "{at}"
            );
            assert_eq!(rule_anomalies(&model), rule_anomalies(&opened), "{at}");
            looks += 1;
        }
    }
    assert!(looks > 10, "{looks} looks");
    assert_eq!(
        format!("{:?}", file.finish(model.clone()).unwrap()),
        format!("{:?}", Trace::open(&args, &options).unwrap().model)
    );
    model
}

#[test]
fn a_followed_file_applies_the_lifetime_rules_as_opening_it_does() {
    let model = followed_with_rules(&requests::stream(300));
    let tracked = &model.tracked;
    assert_eq!(tracked.lifetimes.len(), 300);
    let by_isr = |a: &Option<Actor>| matches!(a, Some(Actor::Isr(_)));
    let ended_by_isr = tracked.lifetimes.iter().filter(|l| by_isr(&l.ended_by));
    assert_eq!(ended_by_isr.count(), 75);
    assert_eq!(tracked.pools[0].slots, requests::MOST_LIVE);
    let live = tracked.lifetimes.iter().filter(|l| l.truncated);
    assert!(live.map(|l| l.end_ns).eq([model.info.duration_ns; 3]));
    let ended = rule_anomalies(&model);
    assert_eq!(ended.len(), 1, "{ended:?}");
}

/// Time that runs backwards (the start of the stream written again after
/// it) makes no look's objects differ from opening the file.
#[test]
fn a_followed_file_whose_time_runs_backwards_applies_the_rules_as_opening_it_does() {
    let bytes = [requests::stream(60), requests::stream(30)].concat();
    let model = followed_with_rules(&bytes);
    assert!(model.anomaly_count(AnomalyKind::TimeBackwards) > 0);
    assert_eq!(model.tracked.lifetimes.len(), 90);
}

#[test]
fn a_timer_resolution_stated_late_makes_the_model_again() {
    let first = encode_stream(&[
        (100, Event::IsrEnter { isr_id: 1 }),
        (130, Event::IsrExit { isr_id: 1 }),
    ]);
    let second = encode_stream(&[
        (0, Event::TsResolutionNs { ns_per_ts: 10 }),
        (150, Event::IsrEnter { isr_id: 1 }),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late.bin");
    std::fs::write(&path, &first).unwrap();
    let mut file = follow(&path);
    let mut model = Model::default();
    file.look(&mut model, u64::MAX).unwrap();
    assert_eq!(model.info.duration_ns, 30);
    assert_eq!(model.anomaly_count(AnomalyKind::NoTimerResolution), 1);

    append(&path, &second);
    let mut growth = file.look(&mut model, u64::MAX).unwrap();
    assert!(growth.started_again && growth.behind);
    while growth.behind {
        growth = file.look(&mut model, u64::MAX).unwrap();
    }
    assert_eq!(model.info.duration_ns, 500);
    assert_eq!(model.anomaly_count(AnomalyKind::NoTimerResolution), 0);
    assert_eq!(
        format!("{:?}", file.finish(model).unwrap()),
        whole_model(&path)
    );
}

#[test]
fn a_file_written_again_from_its_start_is_read_again() {
    let bytes = recording("tband/freertos_small.bin");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("again.bin");
    std::fs::write(&path, &bytes).unwrap();
    let mut file = follow(&path);
    let mut model = Model::default();
    file.look(&mut model, u64::MAX).unwrap();
    let whole_events = model.info.events;
    std::fs::write(&path, &bytes[..bytes.len() / 3]).unwrap();
    let growth = file.look(&mut model, u64::MAX).unwrap();
    assert!(growth.started_again && growth.changed);
    assert!(model.info.events < whole_events);
    assert_eq!(
        format!("{:?}", file.finish(model).unwrap()),
        whole_model(&path)
    );
}

#[test]
fn an_empty_file_waits_for_its_first_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.bin");
    File::create(&path).unwrap();
    let mut file = follow(&path);
    let mut model = Model::default();
    assert!(file.look(&mut model, u64::MAX).unwrap().changed);
    assert_eq!(model.info.events, 0);
    assert!(!file.look(&mut model, u64::MAX).unwrap().changed);
    append(&path, &recording("tband/freertos_small.bin"));
    assert!(file.look(&mut model, u64::MAX).unwrap().changed);
    assert!(model.info.events > 0);
}

#[test]
fn only_one_binary_tband_file_can_be_followed() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");
    let dir = tempfile::tempdir().unwrap();
    let hex = dir.path().join("trace.hex");
    std::fs::write(&hex, "02 04 00\n").unwrap();
    let cases = [
        (
            vec![
                format!("{corpus}tband/baremetal_2core_c0.bin@0"),
                format!("{corpus}tband/baremetal_2core_c1.bin@1"),
            ],
            "several inputs",
        ),
        (vec!["-".to_string()], "standard input is not a file"),
        (vec![hex.display().to_string()], "it is hex text"),
        (
            vec![format!("{corpus}threadx/threadx_demo_small.trx")],
            "it is a threadx trace",
        ),
        (
            vec![format!("{corpus}zephyr_ctf/hello_sem")],
            "it is a ctf trace",
        ),
    ];
    for (args, reason) in cases {
        let error = GrowingFile::open(&args, &OpenOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{args:?} opened"))
            .to_string();
        assert!(error.contains(reason), "{error}");
        assert!(
            error.ends_with("only one binary tband stream file can be followed as it grows"),
            "{error}"
        );
        assert_eq!(error.lines().count(), 1);
    }
}
