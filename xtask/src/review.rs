//! `cargo xtask review`: the pending snapshots that `cargo xtask vectors --pending` wrote
//! (`snapshots/<name>.snap.new`), each shown as a line diff against the committed
//! `<name>.snap`, then accepted (the `.snap.new` replaces the `.snap`) or rejected (the
//! `.snap.new` is deleted). Either way no `.snap.new` is left behind.
//!
//! insta's own `cargo insta review` looks for pending snapshots inside each package's folder,
//! not in this workspace's root `snapshots/`, hence this command.

use anyhow::{bail, Context, Result};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// One pending snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    /// The snapshot's file name, `<name>.snap`.
    pub name: String,
    /// The committed text, if the snapshot exists.
    pub old: Option<String>,
    /// The text of `<name>.snap.new`.
    pub new: String,
}

fn dir(root: &Path) -> PathBuf {
    root.join("snapshots")
}

/// Every `snapshots/*.snap.new`, by name.
pub fn pending(root: &Path) -> Result<Vec<Pending>> {
    let dir = dir(root);
    let mut out = Vec::new();
    if !dir.exists() {
        return Ok(out);
    }
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = entry?.path();
        let Some(name) = p
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".new"))
            .filter(|n| n.ends_with(".snap"))
        else {
            continue;
        };
        let old = dir.join(name);
        out.push(Pending {
            name: name.to_string(),
            old: old
                .exists()
                .then(|| std::fs::read_to_string(&old))
                .transpose()?,
            new: std::fs::read_to_string(&p)?,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Makes the pending text the snapshot.
pub fn accept(root: &Path, p: &Pending) -> Result<()> {
    let d = dir(root);
    let from = d.join(format!("{}.new", p.name));
    std::fs::rename(&from, d.join(&p.name)).with_context(|| format!("accepting {}", p.name))
}

/// Drops the pending text; the snapshot stays as it was.
pub fn reject(root: &Path, p: &Pending) -> Result<()> {
    let from = dir(root).join(format!("{}.new", p.name));
    std::fs::remove_file(&from).with_context(|| format!("rejecting {}", p.name))
}

/// A unified-style line diff of `old` and `new` (`-` old only, `+` new only), with `context`
/// unchanged lines around each change and `@@ -l +l @@` lines (1-based) opening each hunk.
pub fn diff(old: &str, new: &str, context: usize) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    // Longest common subsequence table, from the ends (snapshots are a few hundred lines).
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (tag, old line index, new line index, text).
    let mut ops: Vec<(char, usize, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', i, j, a[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // Deletions first, as diff(1) prints them.
            ops.push(('-', i, j, a[i]));
            i += 1;
        } else {
            ops.push(('+', i, j, b[j]));
            j += 1;
        }
    }
    // Keep the changes and `context` lines either side; a gap opens a new hunk.
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let keep = |k: usize| {
        changed
            .iter()
            .any(|&c| k + context >= c && k <= c + context)
    };
    let mut out = String::new();
    let mut last: Option<usize> = None;
    for (k, &(tag, oi, nj, text)) in ops.iter().enumerate() {
        if !keep(k) {
            continue;
        }
        if last.is_none_or(|l| l + 1 != k) {
            out += &format!("@@ -{} +{} @@\n", oi + 1, nj + 1);
        }
        out += &format!("{tag}{text}\n");
        last = Some(k);
    }
    out
}

/// What to do with each pending snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Show the diffs and change nothing.
    List,
    Accept,
    Reject,
    /// Ask for each one on the terminal: accept, reject or skip.
    Ask,
}

/// Shows the pending snapshots (all, or those named in `only`, with or without `.snap`) and
/// applies `action`; writes to `out`, reads answers from `answers` (for [`Action::Ask`]).
/// Returns how many are still pending afterwards among those selected.
pub fn review(
    root: &Path,
    action: Action,
    only: &[String],
    out: &mut impl Write,
    answers: &mut impl BufRead,
) -> Result<usize> {
    let all = pending(root)?;
    let wanted = |p: &Pending| {
        only.is_empty()
            || only
                .iter()
                .any(|o| p.name == *o || p.name.strip_suffix(".snap") == Some(o.as_str()))
    };
    for o in only {
        if !all
            .iter()
            .any(|p| p.name == *o || p.name.strip_suffix(".snap") == Some(o))
        {
            let file = if o.ends_with(".snap") {
                o.clone()
            } else {
                format!("{o}.snap")
            };
            bail!("no pending snapshot {o:?} (snapshots/{file}.new does not exist)");
        }
    }
    let selected: Vec<&Pending> = all.iter().filter(|p| wanted(p)).collect();
    if selected.is_empty() {
        writeln!(out, "no pending snapshots (snapshots/*.snap.new)")?;
        return Ok(0);
    }
    let mut left = 0;
    for (n, p) in selected.iter().enumerate() {
        let what = if p.old.is_some() { "changed" } else { "new" };
        writeln!(
            out,
            "[{}/{}] snapshots/{} ({what})",
            n + 1,
            selected.len(),
            p.name
        )?;
        let body = |t: &str| crate::snap_body(t).to_string();
        out.write_all(
            diff(
                &p.old.as_deref().map(body).unwrap_or_default(),
                &body(&p.new),
                2,
            )
            .as_bytes(),
        )?;
        let act = match action {
            Action::Ask => loop {
                write!(out, "accept, reject or skip? [a/r/s] ")?;
                out.flush()?;
                let mut line = String::new();
                if answers.read_line(&mut line)? == 0 {
                    break Action::List;
                }
                match line.trim() {
                    "a" => break Action::Accept,
                    "r" => break Action::Reject,
                    "s" => break Action::List,
                    _ => continue,
                }
            },
            a => a,
        };
        match act {
            Action::Accept => {
                accept(root, p)?;
                writeln!(out, "accepted snapshots/{}", p.name)?;
            }
            Action::Reject => {
                reject(root, p)?;
                writeln!(out, "rejected snapshots/{}", p.name)?;
            }
            Action::List | Action::Ask => left += 1,
        }
    }
    if left > 0 {
        writeln!(
            out,
            "{left} still pending: `cargo xtask review --accept` or `--reject` (all, or the names given)"
        )?;
    }
    Ok(left)
}
