//! The binary's non-interactive side: `--snapshot` output and clear errors.

use std::process::Command;

fn recording(name: &str) -> String {
    format!(
        "{}/../tests/corpus/tband/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn tui(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tband-tui"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn snapshot_prints_one_frame_of_the_range() {
    let trace = recording("freertos_small.bin");
    let (ok, out, err) = tui(&["--snapshot", "100x30", "--range", "10ms..12.5ms", &trace]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 30);
    assert!(out.lines().all(|l| l.chars().count() <= 100));
    let title = out.lines().next().unwrap();
    assert!(title.contains("10ms..12.5ms (2.5ms)"), "{title}");
    assert!(title.contains("cursor 0.010 000 000 s"), "{title}");
    assert!(out.contains("core 0") && out.contains("c0 SimIRQ"), "{out}");

    let (ok, out, _) = tui(&["--snapshot", "100x40", "--summary", &trace]);
    assert!(ok);
    assert!(
        out.contains("summary (t)") && out.contains("cpu %"),
        "{out}"
    );
}

#[test]
fn bad_input_gives_one_sentence_and_fails() {
    let trace = recording("freertos_small.bin");
    for (args, expected) in [
        (
            vec!["/nonexistent/trace.bin", "--snapshot", "80x24"],
            "/nonexistent/trace.bin",
        ),
        (
            vec![
                trace.as_str(),
                "--range",
                "10 parsecs..2ms",
                "--snapshot",
                "80x24",
            ],
            "is not a time",
        ),
        (vec![trace.as_str(), "--snapshot", "wide"], "is not a size"),
        (
            vec![trace.as_str(), "--range", "5ms..1ms", "--snapshot", "80x24"],
            "ends before it starts",
        ),
    ] {
        let (ok, out, err) = tui(&args);
        assert!(!ok, "{args:?} should fail");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Bytes that are no trace at all.
    let junk = std::env::temp_dir().join(format!("tband-tui-junk-{}.bin", std::process::id()));
    std::fs::write(&junk, [0xffu8; 64]).unwrap();
    let (ok, _, err) = tui(&[junk.to_str().unwrap(), "--snapshot", "80x24"]);
    std::fs::remove_file(&junk).unwrap();
    assert!(!ok);
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn other_rtos_formats_open_like_tband_traces() {
    let corpus = format!("{}/../tests/corpus", env!("CARGO_MANIFEST_DIR"));
    let cases = [
        (
            format!("{corpus}/threadx/threadx_demo_small.trx"),
            ["System Timer Thread", "thread 1", "c0 isr 0"],
        ),
        (
            format!("{corpus}/zephyr_ctf/workload"),
            ["sensor", "bg_load", "c0 isr"],
        ),
    ];
    for (trace, names) in &cases {
        let (ok, out, err) = tui(&["--snapshot", "120x30", "--summary", trace]);
        assert!(ok, "{trace}: {err}");
        assert_eq!(out.lines().count(), 30);
        for name in names {
            assert!(out.contains(name), "{trace}: no {name} in\n{out}");
        }
        assert!(out.contains("cpu %"), "{out}");
    }
}
