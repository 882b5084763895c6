//! `cargo xtask vectors`: runs the feature-probe vector files (`vectors/*.jsonl`) through every
//! applicable instruction family and keeps the results as insta snapshots under `snapshots/`.
//!
//! - [`families`]: the catalog grouped into families that differ only in M or N.
//! - [`vectors`]: reading vector files and running a vector on a family.
//! - [`render`]: the text of one snapshot.
//! - [`review`]: `cargo xtask review`, accepting or rejecting pending `.snap.new` files.
//!
//! Snapshots are written in insta's `.snap` format (a `---` header, then the body), one per
//! (vector file, family) with at least one applicable vector, named
//! `<file stem>__<vendor>_<arch>_<op>_<family>.snap`. The crate has no features; it is a
//! development tool (`cargo xtask ...`), not published.
//!
//! # Example
//!
//! ```
//! // The snapshots compare by body: the header (source, expression) may differ.
//! let text = xtask::snap_text("vectors/a.jsonl on nvidia Hopper", "d = 41880000\n");
//! assert!(text.starts_with("---\nsource: xtask/src/lib.rs\n"));
//! assert_eq!(xtask::snap_body(&text), "d = 41880000\n");
//! ```

pub mod families;
pub mod fuzz;
pub mod render;
pub mod review;
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

/// The full `.snap` text: insta's header and the body.
pub fn snap_text(expression: &str, body: &str) -> String {
    let expr = expression.replace('\\', "\\\\").replace('"', "\\\"");
    format!("---\nsource: xtask/src/lib.rs\nexpression: \"{expr}\"\n---\n{body}")
}

/// The body of a `.snap` text (what follows the header).
pub fn snap_body(text: &str) -> &str {
    let rest = text.strip_prefix("---\n").unwrap_or(text);
    match rest.find("\n---\n") {
        Some(i) => &rest[i + 5..],
        None => text,
    }
}

/// Every snapshot the vector files produce: file name → full `.snap` text.
pub fn generate(root: &Path) -> Result<BTreeMap<String, String>> {
    let files = vectors::load_all(root)?;
    let fams = families::families();
    let mut out = BTreeMap::new();
    for file in &files {
        for fam in &fams {
            if let Some(body) = render::snapshot_body(file, fam) {
                let name = format!("{}__{}.snap", file.stem, fam.slug());
                let expr = format!("{} on {}", file.rel, fam.title());
                let prev = out.insert(name.clone(), snap_text(&expr, &body));
                anyhow::ensure!(prev.is_none(), "two families give the snapshot name {name}");
            }
        }
    }
    Ok(out)
}

/// What differs between the generated snapshots and `snapshots/` on disk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drift {
    pub missing: Vec<String>,
    pub stale: Vec<String>,
    pub extra: Vec<String>,
}

impl Drift {
    pub fn is_clean(&self) -> bool {
        self.missing.is_empty() && self.stale.is_empty() && self.extra.is_empty()
    }
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (what, list) in [
            ("missing", &self.missing),
            ("stale", &self.stale),
            ("extra (no vector file produces it)", &self.extra),
        ] {
            for n in list {
                writeln!(f, "snapshots/{n}: {what}")?;
            }
        }
        Ok(())
    }
}

fn on_disk(dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    if !dir.exists() {
        return Ok(out);
    }
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = entry?.path();
        let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if name.ends_with(".snap") {
            out.insert(name.to_string(), std::fs::read_to_string(&p)?);
        }
    }
    Ok(out)
}

/// Compares `want` with the `.snap` files in `root/snapshots` (bodies only, as insta does,
/// ignoring a trailing newline difference).
pub fn compare(root: &Path, want: &BTreeMap<String, String>) -> Result<Drift> {
    let have = on_disk(&root.join("snapshots"))?;
    let mut d = Drift::default();
    for (name, text) in want {
        match have.get(name) {
            None => d.missing.push(name.clone()),
            Some(h) if snap_body(h).trim_end() != snap_body(text).trim_end() => {
                d.stale.push(name.clone())
            }
            Some(_) => {}
        }
    }
    d.extra = have
        .keys()
        .filter(|n| !want.contains_key(*n))
        .cloned()
        .collect();
    Ok(d)
}

/// Makes `root/snapshots` equal to `want`: writes new and changed files, deletes extra ones.
/// With `pending`, writes `<name>.snap.new` next to each missing or stale snapshot instead
/// (for `cargo xtask review`) and deletes no `.snap`. Either way, `.snap.new` files from an
/// earlier run are removed first, so only what differs now is pending. Returns what differed.
pub fn write(root: &Path, want: &BTreeMap<String, String>, pending: bool) -> Result<Drift> {
    let dir = root.join("snapshots");
    std::fs::create_dir_all(&dir)?;
    for p in review::pending(root)? {
        std::fs::remove_file(dir.join(format!("{}.new", p.name)))?;
    }
    let drift = compare(root, want)?;
    for name in drift.missing.iter().chain(&drift.stale) {
        let target = if pending {
            dir.join(format!("{name}.new"))
        } else {
            dir.join(name)
        };
        std::fs::write(&target, &want[name])
            .with_context(|| format!("writing {}", target.display()))?;
    }
    if !pending {
        for name in &drift.extra {
            std::fs::remove_file(dir.join(name))?;
        }
    }
    Ok(drift)
}
