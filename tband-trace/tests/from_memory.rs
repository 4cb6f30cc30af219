//! Files held in memory (the web page's) open as the same files named on a
//! command line: a CTF trace is found by its metadata among them.

use tband_trace::input::{Bytes, Input};
use tband_trace::{InputFormat, OpenOptions, Source, Trace};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");

fn in_memory(files: &[(&str, &str)]) -> Vec<Input> {
    files
        .iter()
        .map(|(name, path)| {
            let bytes = std::fs::read(format!("{CORPUS}{path}")).unwrap();
            Input::from_bytes(name.to_string(), None, Bytes::Owned(bytes)).unwrap()
        })
        .collect()
}

fn model_text(source: Source) -> String {
    format!(
        "{:?}",
        Trace::build(source, &OpenOptions::default()).unwrap().model
    )
}

#[test]
fn a_ctf_trace_in_memory_is_its_directory_read_from_disk() {
    let stream = format!("{CORPUS}zephyr_ctf/workload/channel0_0");
    let from_disk = Source::open(std::slice::from_ref(&stream), &OpenOptions::default()).unwrap();
    let mut from_disk = model_text(from_disk);
    from_disk = from_disk.replace(&stream, "channel0_0");
    for files in [
        [
            ("metadata", "zephyr_ctf/workload/metadata"),
            ("channel0_0", "zephyr_ctf/workload/channel0_0"),
        ],
        [
            ("channel0_0", "zephyr_ctf/workload/channel0_0"),
            ("metadata", "zephyr_ctf/workload/metadata"),
        ],
    ] {
        let source = Source::from_memory(in_memory(&files), &OpenOptions::default()).unwrap();
        assert_eq!(source.format(), InputFormat::Ctf);
        assert_eq!(model_text(source), from_disk);
    }
}

#[test]
fn ctf_metadata_alone_is_refused_in_a_sentence() {
    let files = in_memory(&[("metadata", "zephyr_ctf/workload/metadata")]);
    let error = Source::from_memory(files, &OpenOptions::default())
        .err()
        .unwrap();
    assert_eq!(
        error.to_string(),
        "metadata holds CTF metadata but no stream files"
    );
}

#[test]
fn other_formats_are_recognised_as_from_files() {
    let files = in_memory(&[("t.trx", "threadx/threadx_demo_small.trx")]);
    let source = Source::from_memory(files, &OpenOptions::default()).unwrap();
    assert_eq!(source.format(), InputFormat::Threadx);
    let forced = OpenOptions {
        format: Some(InputFormat::Tband),
        ..OpenOptions::default()
    };
    let files = in_memory(&[
        ("metadata", "zephyr_ctf/workload/metadata"),
        ("s", "zephyr_ctf/workload/channel0_0"),
    ]);
    let source = Source::from_memory(files, &forced).unwrap();
    assert_eq!(source.format(), InputFormat::Tband);
}
