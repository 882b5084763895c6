//! `cargo xtask review` end to end on a temporary `snapshots/`: pending snapshots are listed
//! with their diffs, then accepted or rejected (all, by name, or one by one as asked), and no
//! `.snap.new` is left behind.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use xtask::review::{diff, review, Action};

fn text(body: &str) -> String {
    xtask::snap_text("x", body)
}

/// A root whose snapshots `a` and `b` changed and `c` is new, as `vectors --pending` leaves it.
fn setup() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("snapshots");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("a.snap"), text("one\ntwo\nthree\n")).unwrap();
    fs::write(dir.join("b.snap"), text("b\n")).unwrap();
    let want: BTreeMap<String, String> = [
        ("a.snap", text("one\nTWO\nthree\n")),
        ("b.snap", text("b2\n")),
        ("c.snap", text("new\n")),
    ]
    .into_iter()
    .map(|(n, t)| (n.to_string(), t))
    .collect();
    xtask::write(root.path(), &want, true).unwrap();
    root
}

fn files(root: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(root.join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

fn run(root: &Path, action: Action, only: &[&str], answers: &str) -> (usize, String) {
    let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
    let mut out = Vec::new();
    let left = review(root, action, &only, &mut out, &mut answers.as_bytes()).unwrap();
    (left, String::from_utf8(out).unwrap())
}

#[test]
fn listing_shows_each_diff_and_changes_nothing() {
    let root = setup();
    let before = files(root.path());
    let (left, out) = run(root.path(), Action::List, &[], "");
    assert_eq!(left, 3);
    assert!(
        out.contains("[1/3] snapshots/a.snap (changed)\n@@ -1 +1 @@\n one\n-two\n+TWO\n three\n"),
        "{out}"
    );
    assert!(
        out.contains("[3/3] snapshots/c.snap (new)\n@@ -1 +1 @@\n+new\n"),
        "{out}"
    );
    assert!(out.contains("3 still pending"), "{out}");
    assert_eq!(files(root.path()), before);
}

#[test]
fn accept_all_then_nothing_is_pending() {
    let root = setup();
    let (left, out) = run(root.path(), Action::Accept, &[], "");
    assert_eq!(left, 0, "{out}");
    assert_eq!(files(root.path()), ["a.snap", "b.snap", "c.snap"]);
    let a = fs::read_to_string(root.path().join("snapshots/a.snap")).unwrap();
    assert_eq!(a, text("one\nTWO\nthree\n"));
    let (left, out) = run(root.path(), Action::List, &[], "");
    assert_eq!(
        (left, out.as_str()),
        (0, "no pending snapshots (snapshots/*.snap.new)\n")
    );
}

#[test]
fn reject_by_name_keeps_the_old_snapshot() {
    let root = setup();
    let (left, _) = run(root.path(), Action::Reject, &["a", "c.snap"], "");
    assert_eq!(left, 0);
    assert_eq!(files(root.path()), ["a.snap", "b.snap", "b.snap.new"]);
    let a = fs::read_to_string(root.path().join("snapshots/a.snap")).unwrap();
    assert_eq!(a, text("one\ntwo\nthree\n"));
    // An unknown name is an error, not a silent no-op.
    let mut out = Vec::new();
    let err = review(
        root.path(),
        Action::Accept,
        &["zz".into()],
        &mut out,
        &mut &b""[..],
    );
    assert!(err
        .unwrap_err()
        .to_string()
        .contains("no pending snapshot \"zz\""));
}

#[test]
fn asking_applies_each_answer() {
    let root = setup();
    // a: an unknown answer is asked again, then accepted; b: rejected; c: skipped.
    let (left, out) = run(root.path(), Action::Ask, &[], "x\na\nr\ns\n");
    assert_eq!(left, 1, "{out}");
    assert_eq!(files(root.path()), ["a.snap", "b.snap", "c.snap.new"]);
    assert!(out.contains("accepted snapshots/a.snap") && out.contains("rejected snapshots/b.snap"));
    // Rewriting the snapshots clears what is still pending.
    let want: BTreeMap<String, String> = [("a.snap".to_string(), text("one\nTWO\nthree\n"))].into();
    xtask::write(root.path(), &want, false).unwrap();
    assert_eq!(files(root.path()), ["a.snap"]);
}

#[test]
fn diff_marks_only_the_changed_lines_with_context() {
    let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\nten\n";
    assert_eq!(
        diff(old, new, 1),
        "@@ -4 +4 @@\n 4\n-5\n+five\n 6\n@@ -9 +9 @@\n 9\n+ten\n"
    );
    assert_eq!(diff(old, old, 2), "");
}
