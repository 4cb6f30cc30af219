//! The book's architecture page is drawn from the code: its list of crate
//! dependencies must be what the manifests say.

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
