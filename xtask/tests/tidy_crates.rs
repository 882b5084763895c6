//! The rules about crates and files that `ARCHITECTURE.md` states and a machine can check:
//! every client finds instructions through the one catalog door, no source file grows past
//! about 800 lines, every dependency a manifest declares is used, the core's entry points
//! that reach every model stay out of line for the crates that call them, the core's ground
//! floor (values, formats, rounding) names nothing above it, and no crate's files name each
//! other in a circle (`common/module_graph.rs` reads the arrows).

mod common;
use common::module_graph::{arrows, circles, module_files, Arrow};
use common::{code, declared, files, rel, root, rust_sources, ALL_DEPENDENCIES};
use std::fs;
use std::path::{Path, PathBuf};

/// Where a source outside the catalog crates enumerates a vendor's catalog or resolves a name
/// in it instead of asking the one door (`mma-catalog`): `(line, text)` of each.
fn around_the_door(text: &str) -> Vec<(usize, String)> {
    const CALLS: &[&str] = &["::catalog()", "::find(", "::find_in(", "::parse_arch("];
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let c = code(line);
        let vendor_path = c.contains("nvidia::") || c.contains("amd::");
        let named = CALLS.iter().any(|k| c.contains(k))
            // An import of the look-ups: `use mma_nvidia::{find_in, parse_arch, ...}`.
            || (c.trim_start().starts_with("use ")
                && ["catalog", "find", "find_in", "parse_arch"]
                    .iter()
                    .any(|f| c.split(|ch: char| !ch.is_alphanumeric() && ch != '_').any(|w| w == *f)));
        if vendor_path && named {
            out.push((i + 1, line.trim().to_string()));
        }
    }
    out
}

/// Sources that may go around the door, and why.
const AROUND_THE_DOOR: &[(&str, &str)] = &[
    (
        "xtask/src/fuzz/inputs.rs",
        "the fuzz target feeds each vendor's own look-ups as well as the door",
    ),
    (
        "crates/mma-io/src/hw.rs",
        "NVIDIA's hardware records name NVIDIA instructions by NVIDIA's names",
    ),
    (
        "crates/mma-py/src/lib.rs",
        "AMD's documented differences from mmasim take AMD's row (`amd_known_difference`)",
    ),
];

#[test]
fn every_client_asks_the_one_catalog_door() {
    // The check itself, on planted lines.
    let planted = "let i = mma::nvidia::find(arch, None, n)?;\n\
                   // mma::amd::catalog() in a comment\n\
                   use mma_nvidia::{find_in, Arch};\n\
                   let r = mma::catalog::find(None, arch, None, n)?;\n\
                   for i in mma_amd::catalog() {}\n";
    let lines: Vec<usize> = around_the_door(planted).iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [1, 3, 5]);
    let mut bad = Vec::new();
    for p in rust_sources() {
        let r = rel(&p);
        let catalogs = [
            "crates/mma-catalog/",
            "crates/mma-nvidia/",
            "crates/mma-amd/",
        ];
        if !r.contains("/src/") || catalogs.iter().any(|c| r.starts_with(c)) {
            continue;
        }
        if AROUND_THE_DOOR.iter().any(|(f, _)| *f == r) {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        for (l, line) in around_the_door(&text) {
            bad.push(format!(
                "{r}:{l}: `{line}`: ask `mma::catalog` (mma-catalog) instead"
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    for (f, why) in AROUND_THE_DOOR {
        let text = fs::read_to_string(root().join(f)).unwrap();
        assert!(
            !around_the_door(&text).is_empty(),
            "{f} is excused ({why}) but needs no excuse"
        );
    }
}

/// The longest a source file may grow (the house style: "files under about 800 lines").
const MAX_LINES: usize = 800;

#[test]
fn no_source_file_grows_past_800_lines() {
    let mut long: Vec<String> = rust_sources()
        .iter()
        .filter_map(|p| {
            let n = fs::read_to_string(p).ok()?.lines().count();
            (n > MAX_LINES).then(|| format!("{}: {n} lines", rel(p)))
        })
        .collect();
    long.sort();
    assert!(long.is_empty(), "split these files:\n{}", long.join("\n"));
}

/// Dependencies no source names, and why they are there.
const USED_WITHOUT_A_NAME: &[(&str, &str, &str)] = &[(
    "crates/mma-oracle",
    "gmp-mpfr-sys",
    "chooses GMP/MPFR's build features (MPFR only, no C tests) for rug, which links them",
)];

#[test]
fn every_declared_dependency_is_used() {
    // The check itself, on a planted manifest.
    let planted = "[package]\nname = \"x\"\n[dependencies]\nserde.workspace = true\n\
                   # a comment = no\nrug = { version = \"1\" }\n[features]\nf = []\n";
    assert_eq!(declared(planted, ALL_DEPENDENCIES), ["serde", "rug"]);
    let mut packages: Vec<_> = fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    packages.push(root().join("xtask"));
    packages.sort();
    let mut unused = Vec::new();
    for pkg in packages {
        let Ok(manifest) = fs::read_to_string(pkg.join("Cargo.toml")) else {
            continue;
        };
        let mut sources = Vec::new();
        files(&pkg, "rs", &mut sources);
        let code_text: String = sources
            .iter()
            .flat_map(|p| {
                let t = fs::read_to_string(p).unwrap_or_default();
                t.lines().map(|l| code(l).to_string()).collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
            .join("\n");
        let words: std::collections::HashSet<&str> = code_text
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .collect();
        for dep in declared(&manifest, ALL_DEPENDENCIES) {
            let excused = USED_WITHOUT_A_NAME
                .iter()
                .any(|(p, d, _)| rel(&pkg) == *p && dep == *d);
            if !excused && !words.contains(dep.replace('-', "_").as_str()) {
                unused.push(format!("{}: {dep}", rel(&pkg)));
            }
        }
    }
    assert!(
        unused.is_empty(),
        "declared but never named in the package's code (remove, or excuse with a reason):\n{}",
        unused.join("\n")
    );
}

/// The only sources whose code the `oracle` feature changes, and what it changes there. Every
/// other source compiles the same with and without it, so `.ci/run` runs the tests of code
/// outside these (the inference's: `mma infer`, `mma probe`) only once, in the build with it.
const ORACLE_CHANGES: &[(&str, &str)] = &[
    (
        "crates/mma-cli/src/main.rs",
        "`mma error-report`, or its stub",
    ),
    ("crates/mma-cli/src/gemm.rs", "`mma gemm --report`"),
    ("crates/mma-io/src/lib.rs", "the module `error_report`"),
    (
        "crates/mma/src/lib.rs",
        "the re-exports `oracle` and `error_report`",
    ),
];

#[test]
fn the_oracle_feature_stays_in_its_files() {
    let names = |text: &str| {
        text.lines()
            .any(|l| code(l).contains("feature = \"oracle\""))
    };
    assert!(names("#[cfg(not(feature = \"oracle\"))]\n") && !names("// feature = \"oracle\"\n"));
    let mut bad = Vec::new();
    for p in rust_sources() {
        let r = rel(&p);
        let known = ORACLE_CHANGES.iter().any(|(f, _)| *f == r);
        if r.contains("/src/") && !known && names(&fs::read_to_string(&p).unwrap()) {
            bad.push(r);
        }
    }
    assert!(
        bad.is_empty(),
        "the oracle feature changes these too (list them in ORACLE_CHANGES, and check that \
         .ci/run's test-without-oracle step still runs their tests):\n{}",
        bad.join("\n")
    );
    for (f, what) in ORACLE_CHANGES {
        let text = fs::read_to_string(root().join(f)).unwrap();
        assert!(
            names(&text),
            "{f} is listed ({what}) but the feature no longer reaches it"
        );
    }
}

/// The modules `tests/all.rs` declares (`mod name;`, behind a `#[cfg]` or not).
fn declared_modules(all_rs: &str) -> Vec<String> {
    all_rs
        .lines()
        .filter_map(|l| code(l).trim().strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

/// A crate whose tests are one binary (`autotests = false`, `tests/all.rs`) runs a file under
/// `tests/` only when `all.rs` names it: a test file added without that line would compile
/// nowhere and pass in silence.
#[test]
fn every_test_file_is_in_its_crates_one_binary() {
    assert_eq!(
        declared_modules("//! doc\nmod common;\n#[cfg(feature = \"x\")]\nmod b;\n// mod c;\n"),
        ["common", "b"]
    );
    let mut missing = Vec::new();
    let mut crates = 0;
    for entry in fs::read_dir(root().join("crates")).unwrap() {
        let tests = entry.unwrap().path().join("tests");
        let Ok(all) = fs::read_to_string(tests.join("all.rs")) else {
            continue;
        };
        crates += 1;
        let manifest = fs::read_to_string(tests.parent().unwrap().join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains("autotests = false"),
            "{}: tests/all.rs without `autotests = false`: every file would also be a binary",
            rel(&tests)
        );
        let declared = declared_modules(&all);
        for f in fs::read_dir(&tests).unwrap() {
            let p = f.unwrap().path();
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            let module = p.extension().is_some_and(|e| e == "rs") || p.join("mod.rs").exists();
            if module && name != "all" && !declared.contains(&name) {
                missing.push(format!("{}: add `mod {name};`", rel(&tests.join("all.rs"))));
            }
        }
    }
    assert!(crates >= 5, "{crates} crates with one test binary");
    assert!(
        missing.is_empty(),
        "test files that run nowhere:\n{}",
        missing.join("\n")
    );
}

/// Whether the function whose line contains `signature` carries `#[inline]` or
/// `#[inline(always)]` among the attributes and comments above it; `None` when no line has it.
fn inline_above(text: &str, signature: &str) -> Option<bool> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.contains(signature))?;
    let above = lines[..at].iter().rev().map(|l| l.trim());
    let attrs = above.take_while(|l| l.starts_with("#[") || l.starts_with("//"));
    Some(
        attrs
            .into_iter()
            .any(|l| l.starts_with("#[inline") && l != "#[inline(never)]"),
    )
}

/// The entry points of `mma-core` that reach every model's block (the portable kernel, or the
/// plain models' match), which other crates call: an inline copy of one made each calling crate
/// compile all of it again (docs/performance.md, "Build time").
const OUT_OF_LINE: &[(&str, &str)] = &[
    ("crates/mma-core/src/kernel/mod.rs", "pub fn dot_scaled("),
    ("crates/mma-core/src/kernel/mod.rs", "pub fn block("),
    (
        "crates/mma-core/src/unit.rs",
        "fn block(&self, f: &Formats, x: &BlockIn<'_>) -> u64 {",
    ),
];

#[test]
fn the_core_entry_points_that_reach_every_model_are_out_of_line() {
    // The check itself, on planted functions.
    let planted = "/// Doc.\n#[inline]\n#[track_caller]\npub fn a() {}\n\n\
                   #[inline(never)]\npub fn b() {}\n// Why.\n#[track_caller]\npub fn c() {}\n";
    let found: Vec<Option<bool>> = ["fn a(", "fn b(", "fn c(", "fn d("]
        .iter()
        .map(|s| inline_above(planted, s))
        .collect();
    assert_eq!(found, [Some(true), Some(false), Some(false), None]);
    for (file, signature) in OUT_OF_LINE {
        let text = fs::read_to_string(root().join(file)).unwrap();
        match inline_above(&text, signature) {
            None => panic!("{file}: no `{signature}`: update OUT_OF_LINE"),
            Some(inline) => assert!(
                !inline,
                "{file}: `{signature}` is inline; keep it out of line"
            ),
        }
    }
}

/// The core's ground floor, each file naming only the ones below it, so that no circle runs
/// through them: `value.rs` (a decoded datum, no other module of the crate), `format.rs` (the
/// descriptors, decode and encode of values: `value`), `round.rs` (the one rounding routine:
/// `format` and `value`). Everything else of the crate stands on these three.
#[test]
fn the_core_ground_floor_names_only_what_is_below_it() {
    let src = root().join("crates/mma-core/src");
    let floors: [(&str, &[&str]); 3] = [
        ("value.rs", &[]),
        ("format.rs", &["value"]),
        ("round.rs", &["format", "value"]),
    ];
    let mut bad = Vec::new();
    for (file, below) in floors {
        let text = fs::read_to_string(src.join(file)).unwrap();
        for (i, l) in text.lines().enumerate() {
            let c = code(l);
            for prefix in ["crate::", "super::"] {
                for (at, _) in c.match_indices(prefix) {
                    let rest = &c[at + prefix.len()..];
                    let module: String = rest
                        .chars()
                        .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
                        .collect();
                    if !below.contains(&module.as_str()) {
                        bad.push(format!(
                            "crates/mma-core/src/{file}:{}: names `{prefix}{module}`, not below it",
                            i + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The roots of every crate of the house: each crate's `src/lib.rs` and `src/main.rs`, and
/// xtask's.
fn crate_roots() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("src"))
        .collect();
    dirs.push(root().join("xtask/src"));
    dirs.sort();
    dirs.iter()
        .flat_map(|d| [d.join("lib.rs"), d.join("main.rs")])
        .filter(|f| f.exists())
        .collect()
}

/// Arrows that close a circle on purpose, and why: `(file or folder, named file, last segment
/// of the path)`. The test fails when one of them is gone, so that the list only shrinks.
const CIRCLE_ALLOWED: &[(&str, &str, &str, &str)] = &[
    (
        "crates/mma-core/src/kernel/x86/",
        "crates/mma-core/src/kernel/mod.rs",
        "Kernel",
        "the way back: a routine per key hands the lanes it flags to the kernel's per-dot path, \
         and `x86/per_dot.rs` is that path (`Kernel::dot_any`) compiled under AVX2",
    ),
    (
        "crates/mma-core/src/kernel/aarch64/",
        "crates/mma-core/src/kernel/mod.rs",
        "Kernel",
        "the way back, as in `x86/`",
    ),
    (
        "crates/mma-core/src/kernel/no_vector.rs",
        "crates/mma-core/src/kernel/mod.rs",
        "Kernel",
        "the stand-in leaf has the leaves' signatures",
    ),
    (
        "crates/mma-core/src/kernel/lanes/",
        "crates/mma-core/src/kernel/mod.rs",
        "Kernel",
        "the lane routines take the plan and the unit from the kernel, and give it back the \
         lanes they flag (`Kernel::redo`)",
    ),
];

fn allowed(a: &Arrow) -> Option<usize> {
    let (from, to) = (rel(&a.from), rel(&a.to));
    CIRCLE_ALLOWED.iter().position(|(f, t, last, _)| {
        from.starts_with(f) && to == *t && a.path.rsplit("::").next() == Some(*last)
    })
}

/// The circles of the crate at `root_file` with the allowed arrows left out, one line each
/// (the arrows in it); the allowed arrows it has are counted into `used`.
fn circles_of(root_file: &Path, used: &mut [usize]) -> Vec<String> {
    let all = arrows(root_file);
    let mut kept = Vec::new();
    for a in all {
        match allowed(&a) {
            Some(i) => used[i] += 1,
            None => kept.push(a),
        }
    }
    circles(&kept)
        .iter()
        .map(|c| {
            let at: Vec<String> = c
                .iter()
                .map(|a| format!("{}:{} -> {} ({})", rel(&a.from), a.line, rel(&a.to), a.path))
                .collect();
            format!("a circle: {}", at.join(", "))
        })
        .collect()
}

/// No crate's files name each other in a circle (ARCHITECTURE.md: each file names only those
/// below it): an arrow is a `use` or a path (`crate::…`, `super::…`, a child module) to the file
/// that defines what it names. The kernel's way back (`CIRCLE_ALLOWED`) is the one exception.
#[test]
fn no_circle_among_a_crates_files() {
    // The reading itself, on a planted crate: `a.rs` and `b.rs` name each other (through the
    // re-export `pub use b::B` in lib.rs, and `super::`); `c.rs` names `a` and `d` names `c`
    // from an inline test module; strings, comments, lifetimes and visibilities name nothing.
    let planted = std::env::temp_dir().join(format!("mma-tidy-circle-{}", std::process::id()));
    let _ = fs::remove_dir_all(&planted);
    fs::create_dir_all(planted.join("d")).unwrap();
    let write = |f: &str, text: &str| fs::write(planted.join(f), text).unwrap();
    write(
        "lib.rs",
        "mod a;\nmod b;\nmod c;\npub(in crate) mod d;\npub use b::B;\n",
    );
    write("a.rs", "use crate::B;\npub struct A<'a>(&'a B);\n");
    write(
        "b.rs",
        "pub struct B;\nfn f() -> usize { std::mem::size_of::<super::a::A<'static>>() }\n",
    );
    write(
        "c.rs",
        "// crate::d::D\npub(in crate::d) fn c() -> &'static str { \"crate::d::D\" }\nfn g(x: &crate::a::A) {}\n",
    );
    write(
        "d/mod.rs",
        "pub struct D;\n#[cfg(test)]\nmod tests {\n    use super::D;\n    use crate::c::c;\n}\n",
    );
    let all = arrows(&planted.join("lib.rs"));
    let found = circles(&all);
    let mut planted_circles: Vec<Vec<String>> = found
        .iter()
        .map(|c| {
            let set: std::collections::BTreeSet<String> = c
                .iter()
                .flat_map(|a| [&a.from, &a.to])
                .map(|p| p.strip_prefix(&planted).unwrap().display().to_string())
                .collect();
            set.into_iter().collect()
        })
        .collect();
    planted_circles.sort();
    fs::remove_dir_all(&planted).unwrap();
    assert_eq!(
        planted_circles,
        [vec!["a.rs".to_string(), "b.rs".to_string()]],
        "arrows: {all:?}"
    );

    // Every source file is read: each is a module of a crate root.
    let mut read: Vec<PathBuf> = crate_roots()
        .iter()
        .flat_map(|r| module_files(r).into_values())
        .collect();
    read.sort();
    let mut on_disk = Vec::new();
    for r in crate_roots() {
        files(r.parent().unwrap(), "rs", &mut on_disk);
    }
    on_disk.sort();
    on_disk.dedup();
    let unread: Vec<String> = on_disk
        .iter()
        .filter(|f| read.binary_search(f).is_err())
        .map(|f| rel(f))
        .collect();
    assert!(
        unread.is_empty(),
        "not reached from a crate root: {unread:?}"
    );

    let mut used = vec![0; CIRCLE_ALLOWED.len()];
    let mut bad: Vec<String> = crate_roots()
        .iter()
        .flat_map(|r| circles_of(r, &mut used))
        .collect();
    for (i, n) in used.iter().enumerate() {
        if *n == 0 {
            bad.push(format!(
                "CIRCLE_ALLOWED[{i}] ({} -> {}) is not needed any more: remove it",
                CIRCLE_ALLOWED[i].0, CIRCLE_ALLOWED[i].1
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
