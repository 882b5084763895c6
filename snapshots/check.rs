//! The snapshots in `snapshots/` are what `cargo xtask vectors` generates from the vector
//! files right now, compared through insta: none missing, none differing, none extra.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use xtask::{check, generate, repo_root, snapshot_dir, write, Snapshot};

#[test]
fn snapshots_are_current() {
    let want = generate(&repo_root()).expect("vector files read and run");
    assert!(want.len() > 500, "{} snapshots generated", want.len());
    let problems = check(&snapshot_dir(), &want).expect("snapshots/ readable");
    assert!(
        problems.is_empty(),
        "snapshots differ from the vector files:\n{}\nregenerate with `cargo xtask vectors` and \
         review `git diff snapshots/`",
        problems.join("\n")
    );
}

const EXPRESSION: &str = "vectors/x.jsonl on a family";

/// Three snapshots: one current, one changed and one missing in [`seeded`] folders.
fn want() -> BTreeMap<String, Snapshot> {
    [("a", "same\n"), ("b", "changed\n"), ("c", "missing\n")]
        .into_iter()
        .map(|(n, body)| {
            let s = Snapshot {
                expression: EXPRESSION.into(),
                body: body.into(),
            };
            (n.to_string(), s)
        })
        .collect()
}

/// A folder with `a` current (its header in the form the files had before insta wrote them),
/// `b` differing and `d` extra.
fn seeded() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, body: &str| {
        let text =
            format!("---\nsource: xtask/src/lib.rs\nexpression: \"{EXPRESSION}\"\n---\n{body}");
        std::fs::write(dir.path().join(format!("{name}.snap")), text).unwrap();
    };
    file("a", "same\n");
    file("b", "before\n");
    file("d", "extra\n");
    dir
}

/// The check itself, on a temporary folder (so that it does not depend on, or fail with, the
/// state of the real one): a differing, a missing and an extra snapshot are all reported, past
/// the first, whatever `INSTA_FORCE_PASS` says (a child process runs the check with it).
#[test]
fn every_difference_is_reported() {
    if let Some(dir) = CHECKS.dir() {
        // The child: the check's lines on stdout, for the parent to compare.
        for line in check(&dir, &want()).unwrap() {
            println!("problem: {line}");
        }
        return;
    }
    let expected = [
        "b.snap: differs",
        "c.snap: missing",
        "d.snap: extra (no vector file produces it)",
    ];
    let dir = seeded();
    assert_eq!(check(dir.path(), &want()).unwrap(), expected);
    // Only the header differs (insta quotes the expression only where YAML needs it): equal.
    // A fresh folder: with `INSTA_UPDATE=always` the check above had insta write `b` and `c`.
    let dir = seeded();
    std::fs::write(
        dir.path().join("a.snap"),
        format!("---\nsource: xtask/src/lib.rs\nexpression: {EXPRESSION}\n---\nsame\n"),
    )
    .unwrap();
    assert_eq!(check(dir.path(), &want()).unwrap(), expected);

    // insta does not panic on a mismatch under `INSTA_FORCE_PASS` (what `cargo insta test`
    // sets): the check still reports every one.
    let dir = seeded();
    let stdout = passed(CHECKS.run(dir.path(), ("INSTA_FORCE_PASS", "1")));
    let lines: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("problem: "))
        .collect();
    assert_eq!(lines, expected, "the child's output:\n{stdout}");
}

/// `write` as `cargo xtask vectors` runs it: insta writes in place (`INSTA_UPDATE=always`,
/// which insta reads once per process, so a child process runs it), the extra file and pending
/// `.snap.new` files go, the current file stays as it was, and the folder is then current.
#[test]
fn write_repairs_every_difference() {
    if let Some(dir) = WRITES.dir() {
        let (written, deleted) = write(&dir, &want()).unwrap();
        println!("written {written}, deleted {deleted}");
        return;
    }
    let dir = seeded();
    std::fs::write(dir.path().join("b.snap.new"), "pending\n").unwrap();
    let before_a = std::fs::read_to_string(dir.path().join("a.snap")).unwrap();
    let stdout = passed(WRITES.run(dir.path(), ("INSTA_UPDATE", "always")));
    assert!(
        stdout.contains("written 2, deleted 1"),
        "the child's output:\n{stdout}"
    );
    let a = std::fs::read_to_string(dir.path().join("a.snap")).unwrap();
    assert_eq!(a, before_a, "a current snapshot is left as it was");
    assert!(check(dir.path(), &want()).unwrap().is_empty());
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["a.snap", "b.snap", "c.snap"]);

    // Without insta told to write, `write` fails rather than leave the folder stale.
    let out = WRITES.run(seeded().path(), ("INSTA_UPDATE", "no"));
    assert!(!out.status.success(), "write succeeded without writing");
}

/// A test of this binary run again in a child process, on a folder, with one variable of
/// insta's configuration set (insta reads it once per process, at its first assertion).
struct Child {
    test: &'static str,
    /// Names the folder, in the child only.
    var: &'static str,
}

const CHECKS: Child = Child {
    test: "every_difference_is_reported",
    var: "XTASK_TEST_CHILD_CHECKS",
};
const WRITES: Child = Child {
    test: "write_repairs_every_difference",
    var: "XTASK_TEST_CHILD_WRITES",
};

impl Child {
    /// In the child, the folder to work on.
    fn dir(&self) -> Option<PathBuf> {
        std::env::var_os(self.var).map(PathBuf::from)
    }

    fn run(&self, dir: &Path, (var, value): (&str, &str)) -> Output {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["--exact", self.test, "--nocapture", "--test-threads=1"]);
        // Only what the test sets: not the caller's insta settings, nor `CI`.
        for v in [
            "INSTA_FORCE_PASS",
            "INSTA_UPDATE",
            "INSTA_REQUIRE_FULL_MATCH",
            "CI",
        ] {
            cmd.env_remove(v);
        }
        cmd.env(self.var, dir).env(var, value).output().unwrap()
    }
}

/// The stdout of a child that passed.
fn passed(out: Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
