//! The layout the book's architecture page describes is the code's: its
//! list of crate dependencies is what the manifests say, sinks read only
//! the model, clap stays in the command line, and no two modules of a
//! crate import each other.

use std::collections::{BTreeMap, BTreeSet};
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

/// The top-level module a source file of a crate is part of
/// (`tband-tui/src/rows/tracked.rs`: `rows`); `None` for the crate roots.
fn top_level_module(file: &str) -> Option<&str> {
    let (_, in_src) = file.split_once("/src/")?;
    let first = in_src.split('/').next()?;
    match first {
        "lib.rs" | "main.rs" => None,
        _ => Some(first.trim_end_matches(".rs")),
    }
}

/// The name a path starts with (`load` in `load::Follower`).
fn first_name(path: &str) -> &str {
    let end = path
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(path.len());
    &path[..end]
}

/// The items of a `{...}` group, `group` being what follows its `{`.
fn group_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}

/// The first name after `crate::` of every path in `code` that starts
/// there: `a` for `crate::a::B`, `a` and `b` for `crate::{a::B, b}`.
fn crate_path_names(code: &str) -> Vec<&str> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let path = &code[at + "crate::".len()..];
        match path.strip_prefix('{') {
            Some(group) => names.extend(
                group_items(group)
                    .into_iter()
                    .map(|item| first_name(item.trim_start())),
            ),
            None => names.push(first_name(path)),
        }
    }
    names
}

/// Code without its comments (an intra-doc link imports nothing).
fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Which top-level modules of the crate in `folder` each one imports,
/// from its library code's `crate::` paths; a name the crate root
/// re-exports (`pub use module::Name`) counts as its module.
fn module_imports(folder: &str) -> BTreeMap<String, BTreeSet<String>> {
    let sources: Vec<(String, String)> = library_sources(&Path::new(ROOT).join(folder).join("src"))
        .into_iter()
        .map(|(name, text)| (name, without_comments(&text)))
        .collect();
    let modules: BTreeSet<&str> = sources
        .iter()
        .filter_map(|(name, _)| top_level_module(name))
        .collect();
    let mut reexported = BTreeMap::new();
    for (_, root) in sources
        .iter()
        .filter(|(name, _)| name.ends_with("/src/lib.rs"))
    {
        for (at, _) in root.match_indices("pub use ") {
            let statement = &root[at + "pub use ".len()..];
            let statement = &statement[..statement.find(';').unwrap_or(statement.len())];
            let module = first_name(statement);
            if modules.contains(module) {
                for name in statement.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                    reexported.insert(name, module);
                }
            }
        }
    }
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, code) in &sources {
        let Some(module) = top_level_module(name) else {
            continue;
        };
        let imported = imports.entry(module.to_string()).or_default();
        for used in crate_path_names(code) {
            let used = reexported.get(used).copied().unwrap_or(used);
            if used != module && modules.contains(used) {
                imported.insert(used.to_string());
            }
        }
    }
    imports
}

/// A circle of imports in `imports`, as the modules along it with the
/// first one again at the end.
fn import_circle(imports: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn walk(
        module: &str,
        imports: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut circle = path[at..].to_vec();
            circle.push(module.to_string());
            return Some(circle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_string());
        for next in imports.get(module).into_iter().flatten() {
            if let Some(circle) = walk(next, imports, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(module.to_string());
        None
    }
    let mut done = BTreeSet::new();
    imports
        .keys()
        .find_map(|module| walk(module, imports, &mut Vec::new(), &mut done))
}

#[test]
fn crate_paths_and_import_circles_are_found() {
    let imports = BTreeMap::from([
        ("cli".to_string(), BTreeSet::from(["source".to_string()])),
        ("source".to_string(), BTreeSet::from(["stream".to_string()])),
        ("stream".to_string(), BTreeSet::from(["source".to_string()])),
    ]);
    assert_eq!(
        import_circle(&imports),
        Some(vec!["source".into(), "stream".into(), "source".into()])
    );
    assert_eq!(
        crate_path_names("use crate::{a::{B, C}, d};\nlet x = crate::e::f();"),
        ["a", "d", "e"]
    );
}

/// Each crate's top-level modules import one another in layers: what two
/// modules both need lives in a third below them, never in a circle.
#[test]
fn no_modules_of_a_crate_import_each_other_in_a_circle() {
    for folder in members() {
        if let Some(circle) = import_circle(&module_imports(&folder)) {
            panic!(
                "in {folder}/src, these modules import each other in a circle: {}; move what \
                 they share into the lowest of them, or a module of its own",
                circle.join(" -> ")
            );
        }
    }
}
