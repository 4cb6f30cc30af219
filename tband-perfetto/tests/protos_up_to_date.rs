//! The Rust types in src/protos.rs are generated from proto/perfetto_subset.proto
//! and checked in, so building the crate needs no protobuf compiler. This test
//! regenerates them with a pure-Rust compiler and fails if they differ.
//! `TBAND_REGENERATE_PROTOS=1 cargo test -p tband-perfetto --test protos_up_to_date`
//! rewrites the checked-in file.

use std::fs;
use std::path::Path;

const GENERATED_HEADER: &str =
    "// Generated from proto/perfetto_subset.proto by tests/protos_up_to_date.rs; do not edit.\n\n";

#[test]
fn generated_code_matches_the_proto_file() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let proto_dir = crate_dir.join("proto");
    let descriptors = protox::compile(["perfetto_subset.proto"], [&proto_dir])
        .expect("proto/perfetto_subset.proto compiles");
    let out_dir =
        std::env::temp_dir().join(format!("tband-perfetto-protos-{}", std::process::id()));
    fs::create_dir_all(&out_dir).unwrap();
    prost_build::Config::new()
        .out_dir(&out_dir)
        .compile_fds(descriptors)
        .expect("prost generates code");
    let generated = format!(
        "{GENERATED_HEADER}{}",
        fs::read_to_string(out_dir.join("perfetto.protos.rs")).unwrap()
    );
    fs::remove_dir_all(&out_dir).unwrap();

    let checked_in_path = crate_dir.join("src/protos.rs");
    if std::env::var_os("TBAND_REGENERATE_PROTOS").is_some() {
        fs::write(&checked_in_path, &generated).unwrap();
    }
    let checked_in = fs::read_to_string(&checked_in_path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "src/protos.rs is out of date with proto/perfetto_subset.proto; rerun this test with TBAND_REGENERATE_PROTOS=1"
    );
}
