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

#[test]
fn drift_is_detected() {
    // A changed, a missing and an extra snapshot are all reported.
    let root = repo_root();
    let mut want = generate(&root).expect("generated");
    let first = want.keys().next().cloned().expect("one snapshot");
    want.insert(first.clone(), xtask::snap_text("x", "changed\n"));
    want.insert("zz_not_on_disk.snap".into(), xtask::snap_text("x", "new\n"));
    let last = want.keys().rev().nth(1).cloned().expect("two snapshots");
    want.remove(&last);
    let drift = compare(&root, &want).expect("compared");
    assert_eq!(drift.stale, vec![first]);
    assert_eq!(drift.missing, vec!["zz_not_on_disk.snap".to_string()]);
    assert_eq!(drift.extra, vec![last]);
}

#[test]
fn snap_header_round_trips() {
    let t = xtask::snap_text("vectors/a.jsonl on \"x\"", "body\n---\nmore\n");
    assert!(t.starts_with("---\nsource: "));
    assert_eq!(xtask::snap_body(&t), "body\n---\nmore\n");
}
