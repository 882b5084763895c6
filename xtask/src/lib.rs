//! `cargo xtask vectors`: runs the feature-probe vector files (`vectors/*.jsonl`) through every
//! applicable instruction family and keeps the results as insta snapshots in `snapshots/`.
//!
//! - [`families`]: the catalog grouped into families that differ only in M or N.
//! - [`vectors`]: reading vector files and running a vector on a family.
//! - [`render`]: the text of one snapshot.
//!
//! One snapshot per (vector file, family) with at least one applicable vector, named
//! `<file stem>__<vendor>_<arch>_<op>_<family>`. [`generate`] computes them all in memory;
//! [`check`] compares them through insta (`assert_snapshot!`, with insta's diff of each
//! change); [`write()`] is `cargo xtask vectors`, the one command that regenerates the folder,
//! through the same assertion with insta writing in place. The crate has no features; it is a
//! development tool (`cargo xtask ...`), not published.
//!
//! # Example
//!
//! ```
//! use xtask::{check, Snapshot};
//! let dir = tempfile::tempdir().unwrap();
//! let want = [("a".to_string(), Snapshot { expression: "vectors/a.jsonl on a family".into(), body: "d = 1\n".into() })];
//! // An empty folder: insta finds no snapshot, and the check says so.
//! assert_eq!(check(dir.path(), &want.into()).unwrap(), ["a.snap: missing"]);
//! ```

pub mod families;
pub mod fuzz;
pub mod render;
pub mod vectors;

use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// The repository root (the xtask crate's parent folder).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the repository root")
        .to_path_buf()
}

/// The folder of the snapshots, `snapshots/` at the repository root where the design puts
/// them (insta is told the folder with `Settings::set_snapshot_path`). cargo-insta's
/// `review` does not reach it (it looks for pending files in package folders only): changes
/// are reviewed as `git diff snapshots/` after `cargo xtask vectors` (CONTRIBUTING.md).
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
pub fn check(dir: &Path, want: &BTreeMap<String, Snapshot>) -> Result<Vec<String>> {
    let mut problems: Vec<String> = assert_each(dir, want)
        .into_iter()
        .filter(|(_, state)| *state != State::Current)
        .map(|(name, state)| format!("{name}.snap: {}", state.says()))
        .collect();
    for name in on_disk(dir)? {
        if !want.contains_key(&name) {
            problems.push(format!("{name}.snap: extra (no vector file produces it)"));
        }
    }
    Ok(problems)
}

/// `cargo xtask vectors`: makes `dir` equal to `want`. insta writes every snapshot that is
/// missing or differs (the assertion of [`check`], in a process whose insta configuration says
/// `INSTA_UPDATE=always`: insta reads it once, at its first assertion in the process, so
/// `main` sets it before anything runs); this deletes the `.snap` files no vector produces and
/// any pending `.snap.new`. Returns the numbers written and deleted, and fails when a snapshot
/// is still not current afterwards (insta was not told to write).
pub fn write(dir: &Path, want: &BTreeMap<String, Snapshot>) -> Result<(usize, usize)> {
    std::fs::create_dir_all(dir)?;
    for entry in std::fs::read_dir(dir)? {
        let p = entry?.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.ends_with(".snap.new") {
            std::fs::remove_file(&p)?;
        }
    }
    let written = assert_each(dir, want)
        .iter()
        .filter(|(_, state)| *state != State::Current)
        .count();
    let mut deleted = 0;
    for name in on_disk(dir)? {
        if !want.contains_key(&name) {
            std::fs::remove_file(dir.join(format!("{name}.snap")))?;
            deleted += 1;
        }
    }
    let left = check(dir, want)?;
    anyhow::ensure!(
        left.is_empty(),
        "insta did not write the snapshots (run with INSTA_UPDATE=always set before insta's \
         first assertion in the process, as `cargo xtask vectors` does):\n{}",
        left.join("\n")
    );
    Ok((written, deleted))
}

/// What insta found for one snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Current,
    Differs,
    Missing,
    /// The file is there but insta cannot read it as a snapshot.
    Unreadable,
}

impl State {
    fn says(self) -> &'static str {
        match self {
            State::Current => "current",
            State::Differs => "differs",
            State::Missing => "missing",
            State::Unreadable => "unreadable (not an insta snapshot)",
        }
    }
}

/// Runs `assert_snapshot!` on every snapshot of `want` against `dir` and returns what insta
/// found for each, in `want`'s order. insta does the comparing and, as its configuration
/// says, the writing (`.snap.new`, in place, or nothing).
///
/// The verdict is read from insta's comparator ([`Verdict`]), not from whether the assertion
/// panicked: with `INSTA_FORCE_PASS` (which `cargo insta test` sets, and which insta honours by
/// not panicking on a mismatch: `finalize` in insta 1.49's `runtime.rs`) a stale snapshot
/// would pass, and the test suite's check would be off. The panic of a mismatch is caught so
/// that the loop goes on and every one is reported, not only the first.
fn assert_each(dir: &Path, want: &BTreeMap<String, Snapshot>) -> Vec<(String, State)> {
    let verdict = Verdict::default();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir);
    settings.set_prepend_module_to_snapshot(false);
    settings.set_comparator(Box::new(verdict.clone()));
    settings.bind(|| {
        want.iter()
            .map(|(name, s)| {
                verdict.0.store(Verdict::NOT_COMPARED, Ordering::SeqCst);
                // Before insta runs: with `INSTA_UPDATE=always` it writes a missing one.
                let existed = dir.join(format!("{name}.snap")).exists();
                // The panic of a mismatch has been printed by the hook, with insta's diff.
                let _ = std::panic::catch_unwind(|| {
                    insta::assert_snapshot!(name.as_str(), s.body.as_str(), s.expression.as_str())
                });
                let state = match verdict.0.load(Ordering::SeqCst) {
                    Verdict::MATCHES => State::Current,
                    Verdict::DIFFERS => State::Differs,
                    // insta compares nothing when it finds no snapshot, or cannot read it.
                    _ if existed => State::Unreadable,
                    _ => State::Missing,
                };
                (name.clone(), state)
            })
            .collect()
    })
}

/// insta's own comparison ([`insta::DefaultComparator`]: the bodies, trailing whitespace aside,
/// or with `INSTA_REQUIRE_FULL_MATCH` the header too), keeping its last verdict for
/// [`assert_each`]. Clones share it (insta clones its settings).
#[derive(Clone, Default)]
struct Verdict(Arc<AtomicU8>);

impl Verdict {
    const NOT_COMPARED: u8 = 0;
    const MATCHES: u8 = 1;
    const DIFFERS: u8 = 2;

    fn keep(&self, matches: bool) -> bool {
        let v = if matches {
            Self::MATCHES
        } else {
            Self::DIFFERS
        };
        self.0.store(v, Ordering::SeqCst);
        matches
    }
}

impl insta::Comparator for Verdict {
    fn matches(&self, reference: &insta::Snapshot, test: &insta::Snapshot) -> bool {
        self.keep(insta::DefaultComparator.matches(reference, test))
    }

    fn matches_fully(&self, reference: &insta::Snapshot, test: &insta::Snapshot) -> bool {
        self.keep(insta::DefaultComparator.matches_fully(reference, test))
    }

    fn dyn_clone(&self) -> Box<dyn insta::Comparator> {
        Box::new(self.clone())
    }
}
