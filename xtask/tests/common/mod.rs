//! What the tidy tests share: the repository's Rust sources and how a line's code is read.

#![allow(dead_code)] // each test binary uses a part

pub mod citations;
pub mod module_graph;

use std::fs;
use std::path::{Path, PathBuf};

pub fn root() -> PathBuf {
    xtask::repo_root()
}

/// Every tracked-looking source file under `dir` with extension `ext` (target/ excluded).
pub fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                files(&p, ext, out);
            }
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

pub fn rust_sources() -> Vec<PathBuf> {
    let mut v = Vec::new();
    files(&root().join("crates"), "rs", &mut v);
    files(&root().join("xtask"), "rs", &mut v);
    v.sort();
    v
}

/// Every file of the repository (target/ and hidden folders excluded), as paths relative to
/// the root.
pub fn all_paths() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for e in fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if name == "target" || name.starts_with('.') {
                continue;
            }
            if e.path().is_dir() {
                walk(&e.path(), out);
            } else {
                out.push(rel(&e.path()));
            }
        }
    }
    let mut v = Vec::new();
    walk(&root(), &mut v);
    v.sort();
    v
}

/// The folders of the root that a path the documents cite starts with (the tidy test
/// `cited_paths_exist` checks those paths; `cited_code_exists` the rest).
pub const ROOTS: &[&str] = &[
    "crates/",
    "xtask/",
    "vectors/",
    "snapshots/",
    "docs/",
    ".ci/",
    ".cargo/",
];

/// The documents: the root's Markdown files and every page of `docs/`, as paths relative to
/// the root.
pub fn documents() -> Vec<String> {
    let mut v: Vec<String> = [
        "README.md",
        "CONTRIBUTING.md",
        "ARCHITECTURE.md",
        "CHANGELOG.md",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut pages = Vec::new();
    files(&root().join("docs"), "md", &mut pages);
    pages.sort();
    v.extend(pages.iter().map(|p| rel(p)));
    v
}

pub fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// The code of a line, without a `//` comment (good enough for this code base: no `//` inside
/// string literals on lines that also hold `unsafe`).
pub fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// Every dependency section of a manifest.
pub const ALL_DEPENDENCIES: &[&str] = &[
    "[dependencies]",
    "[dev-dependencies]",
    "[build-dependencies]",
];

/// The names a manifest declares in `sections` (`name = ...` and `name.workspace = true`
/// lines).
pub fn declared(manifest: &str, sections: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            inside = sections.contains(&t);
        } else if inside && !t.starts_with('#') {
            if let Some((name, _)) = t.split_once('=') {
                let name = name.trim();
                out.push(name.strip_suffix(".workspace").unwrap_or(name).to_string());
            }
        }
    }
    out
}
