//! The snapshots under `snapshots/` are what `cargo xtask vectors` generates from the vector
//! files right now: none missing, none stale, none extra.

use xtask::{compare, generate, repo_root};

#[test]
fn snapshots_are_current() {
    let root = repo_root();
    let want = generate(&root).expect("vector files read and run");
    assert!(!want.is_empty(), "no snapshots generated");
    let drift = compare(&root, &want).expect("snapshots/ readable");
    assert!(
        drift.is_clean(),
        "snapshots differ from the vector files:\n{drift}run `cargo xtask vectors` and review `git diff snapshots/`"
    );
}

/// The comparison itself, on a temporary `snapshots/` (so that it does not depend on, or fail
/// with, the state of the real ones): a changed, a missing and an extra snapshot are all
/// reported, and `write` repairs them.
#[test]
fn drift_is_detected_and_repaired() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("snapshots");
    std::fs::create_dir_all(&dir).unwrap();
    let text = |body: &str| xtask::snap_text("x", body);
    let want: std::collections::BTreeMap<String, String> = [
        ("a.snap", text("same\n")),
        ("b.snap", text("changed\n")),
        ("c.snap", text("missing\n")),
    ]
    .into_iter()
    .map(|(n, t)| (n.to_string(), t))
    .collect();
    std::fs::write(dir.join("a.snap"), text("same\n")).unwrap();
    std::fs::write(dir.join("b.snap"), text("before\n")).unwrap();
    std::fs::write(dir.join("d.snap"), text("extra\n")).unwrap();
    let drift = compare(root.path(), &want).unwrap();
    assert_eq!(drift.stale, ["b.snap"]);
    assert_eq!(drift.missing, ["c.snap"]);
    assert_eq!(drift.extra, ["d.snap"]);

    // Pending: the changes go to .snap.new, nothing else moves.
    let again = xtask::write(root.path(), &want, true).unwrap();
    assert_eq!(again, drift);
    assert_eq!(
        std::fs::read_to_string(dir.join("b.snap.new")).unwrap(),
        text("changed\n")
    );
    assert!(dir.join("c.snap.new").exists() && !dir.join("a.snap.new").exists());
    assert_eq!(compare(root.path(), &want).unwrap(), drift);

    // Writing makes the folder equal to `want` and leaves no .snap.new behind.
    xtask::write(root.path(), &want, false).unwrap();
    assert!(compare(root.path(), &want).unwrap().is_clean());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["a.snap", "b.snap", "c.snap"]);
}

#[test]
fn snap_header_round_trips() {
    let t = xtask::snap_text("vectors/a.jsonl on \"x\"", "body\n---\nmore\n");
    assert!(t.starts_with("---\nsource: "));
    assert_eq!(xtask::snap_body(&t), "body\n---\nmore\n");
}
