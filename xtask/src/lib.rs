//! `cargo xtask vectors`: runs the feature-probe vector files (`vectors/*.jsonl`) through every
//! applicable instruction family and keeps the results as insta snapshots in `snapshots/`.
//!
//! - [`families`]: the catalog grouped into families that differ only in M or N.
//! - [`vectors`]: reading vector files and running a vector on a family.
//! - [`render`]: the text of one snapshot.
//!
//! One snapshot per (vector file, family) with at least one applicable vector, named
//! `<file stem>__<vendor>_<arch>_<op>_<family>`. [`generate`] computes them all in memory;
//! [`check`] compares them through insta (`assert_snapshot!`, so that `cargo insta test`,
//! `cargo insta review` and `cargo insta accept` work on them as on any insta snapshot);
//! [`write()`] is `cargo xtask vectors`, the one command that regenerates the folder. The crate
//! has no features; it is a development tool (`cargo xtask ...`), not published.
//!
//! # Example
//!
//! ```
//! let s = xtask::Snapshot { expression: "vectors/a.jsonl on nvidia Hopper".into(), body: "d = 41880000\n".into() };
//! // insta's file format: a header (source, expression), then the body.
//! assert_eq!(s.text(), "---\nsource: xtask/src/lib.rs\nexpression: \"vectors/a.jsonl on nvidia Hopper\"\n---\nd = 41880000\n");
//! ```

pub mod families;
pub mod fuzz;
pub mod render;
pub mod vectors;

use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The repository root (the xtask crate's parent folder).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the repository root")
        .to_path_buf()
}

/// The folder of the snapshots, `snapshots/` at the repository root where the design puts
/// them (insta is told the folder with `Settings::set_snapshot_path`; `cargo insta review
/// --workspace-root .` reviews pending snapshots there).
pub fn snapshot_dir() -> PathBuf {
    repo_root().join("snapshots")
}

/// One snapshot: what insta calls the expression (which vector file on which family) and the
/// body (the rendered results).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub expression: String,
    pub body: String,
}

impl Snapshot {
    /// The full `.snap` text as insta writes it (the expression always quoted: insta reads
    /// either form).
    pub fn text(&self) -> String {
        let expr = self.expression.replace('\\', "\\\\").replace('"', "\\\"");
        format!(
            "---\nsource: xtask/src/lib.rs\nexpression: \"{expr}\"\n---\n{}",
            self.body
        )
    }
}

/// Every snapshot the vector files produce: name (the file name without `.snap`) → snapshot.
pub fn generate(root: &Path) -> Result<BTreeMap<String, Snapshot>> {
    let files = vectors::load_all(root)?;
    let fams = families::families();
    let mut out = BTreeMap::new();
    for file in &files {
        for fam in &fams {
            if let Some(body) = render::snapshot_body(file, fam) {
                let name = format!("{}__{}", file.stem, fam.slug());
                let expression = format!("{} on {}", file.rel, fam.title());
                let prev = out.insert(name.clone(), Snapshot { expression, body });
                anyhow::ensure!(prev.is_none(), "two families give the snapshot name {name}");
            }
        }
    }
    Ok(out)
}

/// The names of the `.snap` files in `dir` (without `.snap`).
fn on_disk(dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    if !dir.exists() {
        return Ok(out);
    }
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = entry?.path();
        if let Some(name) = p
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".snap"))
        {
            out.push(name.to_string());
        }
    }
    out.sort();
    Ok(out)
}

/// Compares every snapshot of `want` with its file in `dir` through insta, going on past a
/// mismatch so that all are reported (and, where insta writes pending files, all are
/// pending: `<name>.snap.new`, never under `CI`), and lists the `.snap` files that no vector
/// file produces. Returns one line per problem; empty when the folder is current.
///
/// insta shows each difference and leaves the pending file for `cargo insta review`; whether
/// a snapshot is current is decided here as well, by the body as insta compares it (trailing
/// whitespace aside), so that `INSTA_FORCE_PASS` (which `cargo insta test` sets) cannot turn
/// the check off.
pub fn check(dir: &Path, want: &BTreeMap<String, Snapshot>) -> Result<Vec<String>> {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir);
    settings.set_prepend_module_to_snapshot(false);
    let mut problems = Vec::new();
    settings.bind(|| {
        for (name, s) in want {
            // Read before insta runs: with `INSTA_UPDATE=always` it rewrites the file.
            let before = std::fs::read_to_string(dir.join(format!("{name}.snap")));
            let insta_agrees = std::panic::catch_unwind(|| {
                insta::assert_snapshot!(name.as_str(), s.body.as_str(), s.expression.as_str())
            })
            .is_ok();
            let state = match before {
                Err(_) => Some("missing"),
                Ok(t) if snap_body(&t).trim_end() != s.body.trim_end() => Some("differs"),
                Ok(_) if !insta_agrees => Some("differs (as insta reads it)"),
                Ok(_) => None,
            };
            if let Some(state) = state {
                problems.push(format!("{name}.snap: {state}"));
            }
        }
    });
    for name in on_disk(dir)? {
        if !want.contains_key(&name) {
            problems.push(format!("{name}.snap: extra (no vector file produces it)"));
        }
    }
    Ok(problems)
}

/// `cargo xtask vectors`: makes `dir` equal to `want`, writing every snapshot that is missing or
/// differs, deleting the `.snap` files no vector produces and any pending `.snap.new`. Returns
/// the numbers written and deleted.
pub fn write(dir: &Path, want: &BTreeMap<String, Snapshot>) -> Result<(usize, usize)> {
    std::fs::create_dir_all(dir)?;
    let (mut written, mut deleted) = (0, 0);
    for entry in std::fs::read_dir(dir)? {
        let p = entry?.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.ends_with(".snap.new") {
            std::fs::remove_file(&p)?;
        }
    }
    for (name, s) in want {
        let p = dir.join(format!("{name}.snap"));
        let text = s.text();
        // A file whose body is current stays as it is, whatever its header's quoting.
        let current = std::fs::read_to_string(&p)
            .is_ok_and(|t| snap_body(&t).trim_end() == s.body.trim_end());
        if !current {
            std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?;
            written += 1;
        }
    }
    for name in on_disk(dir)? {
        if !want.contains_key(&name) {
            std::fs::remove_file(dir.join(format!("{name}.snap")))?;
            deleted += 1;
        }
    }
    Ok((written, deleted))
}

/// The body of a `.snap` text (what follows the header).
fn snap_body(text: &str) -> &str {
    let rest = text.strip_prefix("---\n").unwrap_or(text);
    match rest.find("\n---\n") {
        Some(i) => &rest[i + 5..],
        None => text,
    }
}
