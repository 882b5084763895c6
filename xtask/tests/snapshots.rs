//! The snapshots in `snapshots/` are what `cargo xtask vectors` generates from the vector
//! files right now, compared through insta: none missing, none differing, none extra.

use std::collections::BTreeMap;
use xtask::{check, generate, repo_root, snapshot_dir, write, Snapshot};

#[test]
fn snapshots_are_current() {
    let want = generate(&repo_root()).expect("vector files read and run");
    assert!(want.len() > 500, "{} snapshots generated", want.len());
    let problems = check(&snapshot_dir(), &want).expect("snapshots/ readable");
    assert!(
        problems.is_empty(),
        "snapshots differ from the vector files:\n{}\nreview with `cargo insta review --workspace-root .` \
         (cargo-insta), or regenerate with `cargo xtask vectors` and read `git diff snapshots/`",
        problems.join("\n")
    );
}

/// The check itself, on a temporary folder (so that it does not depend on, or fail with, the
/// state of the real one): a differing, a missing and an extra snapshot are all reported, past
/// the first, and `write` repairs them.
#[test]
fn every_difference_is_reported_and_write_repairs_it() {
    let dir = tempfile::tempdir().unwrap();
    let snap = |body: &str| Snapshot {
        expression: "vectors/x.jsonl on a family".into(),
        body: body.into(),
    };
    let want: BTreeMap<String, Snapshot> = [
        ("a", snap("same\n")),
        ("b", snap("changed\n")),
        ("c", snap("missing\n")),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_string(), s))
    .collect();
    let file = |n: &str| dir.path().join(format!("{n}.snap"));
    std::fs::write(file("a"), snap("same\n").text()).unwrap();
    std::fs::write(file("b"), snap("before\n").text()).unwrap();
    std::fs::write(file("d"), snap("extra\n").text()).unwrap();
    assert_eq!(
        check(dir.path(), &want).unwrap(),
        [
            "b.snap: differs",
            "c.snap: missing",
            "d.snap: extra (no vector file produces it)"
        ]
    );
    // Only the header differs (insta quotes the expression only where YAML needs it): equal.
    std::fs::write(
        file("a"),
        "---\nsource: xtask/src/lib.rs\nexpression: vectors/x.jsonl on a family\n---\nsame\n",
    )
    .unwrap();
    assert_eq!(check(dir.path(), &want).unwrap().len(), 3);

    // Writing makes the folder equal to `want`, keeps the file that was current as it was and
    // leaves no pending `.snap.new` behind.
    assert_eq!(write(dir.path(), &want).unwrap(), (2, 1));
    assert!(check(dir.path(), &want).unwrap().is_empty());
    assert!(std::fs::read_to_string(file("a"))
        .unwrap()
        .contains("expression: vectors/x.jsonl"));
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["a.snap", "b.snap", "c.snap"]);
}
