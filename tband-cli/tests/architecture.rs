//! The layout the book's architecture page describes is the code's: its
//! list of crate dependencies is what the manifests say, sinks read only
//! the model, and clap stays in the command line.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The workspace members' folders, from the root manifest.
fn members() -> Vec<String> {
    let manifest = fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).expect("root manifest");
    let list = manifest
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .expect("a members list")
        .0;
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// A manifest's package name and the workspace crates among its normal
/// (not dev-, not build-) dependencies.
fn crate_and_dependencies(folder: &str) -> (String, Vec<String>) {
    let manifest = fs::read_to_string(Path::new(ROOT).join(folder).join("Cargo.toml"))
        .unwrap_or_else(|e| panic!("{folder}/Cargo.toml: {e}"));
    let mut name = None;
    let mut deps = Vec::new();
    let mut section = "";
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_end_matches(".workspace");
        if section == "[package]" && key == "name" {
            name = Some(value.trim().trim_matches('"').to_string());
        }
        let normal = section == "[dependencies]"
            || (section.starts_with("[target.") && section.ends_with(".dependencies]"));
        if normal && key.starts_with("tband") {
            deps.push(key.to_string());
        }
    }
    deps.sort();
    (name.expect("a package name"), deps)
}

/// The graph as the page lists it: `crate -> dep, dep` lines between the
/// `crate-graph` markers.
fn graph_in_book() -> BTreeMap<String, Vec<String>> {
    let page = fs::read_to_string(Path::new(ROOT).join("docs/src/architecture.md"))
        .expect("the architecture page");
    let block = page
        .split_once("<!-- crate-graph -->")
        .and_then(|(_, rest)| rest.split_once("<!-- /crate-graph -->"))
        .expect("the crate-graph markers")
        .0;
    block
        .lines()
        .filter_map(|line| line.split_once("->"))
        .map(|(name, deps)| {
            let deps = deps
                .split(',')
                .map(|d| d.trim().to_string())
                .filter(|d| !d.is_empty());
            (name.trim().to_string(), deps.collect())
        })
        .collect()
}

#[test]
fn the_book_lists_the_crate_dependencies_the_manifests_have() {
    let in_code: BTreeMap<String, Vec<String>> = members()
        .iter()
        .filter(|folder| !folder.ends_with("host-tests"))
        .map(|folder| crate_and_dependencies(folder))
        .collect();
    let in_book = graph_in_book();
    for (name, deps) in &in_code {
        assert_eq!(
            in_book.get(name),
            Some(deps),
            "docs/src/architecture.md: {name} -> {}",
            deps.join(", ")
        );
    }
    for name in in_book.keys() {
        assert!(
            in_code.contains_key(name),
            "the book lists {name}, which is no crate"
        );
    }
}

/// The `.rs` files under `dir`, with their text up to the first
/// `#[cfg(test)]` (what the library compiles; tests may open traces).
fn library_sources(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            found.extend(library_sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).expect("a source file");
            let library = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            let name = path
                .strip_prefix(ROOT)
                .unwrap_or(&path)
                .display()
                .to_string();
            found.push((name, library));
        }
    }
    found
}

/// A sink's library reads the model; only the tool's own front (what its
/// `main.rs` calls, and what opens a trace for it) reaches the front door
/// or the decoder.
#[test]
fn sinks_read_only_the_model() {
    let tool_fronts = [
        "/src/main.rs",
        "/src/cli.rs",
        "tband-query/src/error.rs",
        "tband-tui/src/load.rs",
    ];
    for sink in ["tband-perfetto", "tband-query", "tband-tui"] {
        for (name, text) in library_sources(&Path::new(ROOT).join(sink).join("src")) {
            let name = name.trim_start_matches("../");
            if tool_fronts.iter().any(|front| name.ends_with(front)) {
                continue;
            }
            for below in ["tband_trace", "tband_decode"] {
                assert!(
                    !text.contains(below),
                    "{name} names {below}: a sink reads the model only"
                );
            }
        }
    }
}

/// clap is in the tools' `main.rs` and in this crate, nowhere else.
#[test]
fn only_the_command_line_uses_clap() {
    for folder in members() {
        if folder == "tband-cli" {
            continue;
        }
        let src = Path::new(ROOT).join(&folder).join("src");
        for (name, text) in library_sources(&src) {
            if !name.ends_with("/main.rs") {
                assert!(!text.contains("clap::"), "{name} uses clap");
            }
        }
    }
}
