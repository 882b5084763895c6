//! What `ARCHITECTURE.md` promises and a machine can check: where `unsafe` may appear and that
//! each use carries its safety argument, that the core knows no vendor, that the vendor crates
//! and the core build without GMP/MPFR, that no test is skipped by attribute, that the
//! repository holds no machine paths, that the paths, links and code the documents cite exist,
//! that the README links every page of `docs/`, that the kernel is layered, that the inference
//! runs the plain model only, and that the lane layer's functions are inlined into their entry
//! points while no routine compiled per key takes a copy of the whole model. The rules about
//! crates and files are in `tidy_crates.rs`.

use std::fs;
use std::path::{Path, PathBuf};

mod common;
use common::citations::{checked_pages, Defined, CITED_AS_ABSENT};
use common::{code, declared, documents, files, rel, root, rust_sources, ROOTS};

/// Files allowed to hold `unsafe` (ARCHITECTURE.md, "Invariants"): the architecture leaves of
/// the kernel (x86-64 and AArch64 vector routines), the wrappers that hold their routines
/// (`lanes/mod.rs`), the CLI's SIGPIPE reset (`main.rs`) and its bench's thread clock, native
/// FMA baseline and `matrixmultiply::sgemm` reference (`bench.rs`), and the native integer
/// baseline's AVX2/AVX-512 copies (`bench/native_int.rs`).
const UNSAFE_ALLOWED: &[&str] = &[
    "crates/mma-core/src/kernel/x86/",
    "crates/mma-core/src/kernel/aarch64/",
    "crates/mma-core/src/kernel/lanes/mod.rs",
    "crates/mma-cli/src/main.rs",
    "crates/mma-cli/src/bench.rs",
    "crates/mma-cli/src/bench/native_int.rs",
];

#[test]
fn unsafe_only_where_allowed_and_always_argued() {
    let mut bad = Vec::new();
    for p in rust_sources() {
        let r = rel(&p);
        if r.contains("/tests/") || r.ends_with("tidy.rs") {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let c = code(l);
            let is_unsafe = c
                .split(|ch: char| !ch.is_alphanumeric() && ch != '_')
                .any(|w| w == "unsafe");
            if !is_unsafe || c.contains("forbid(unsafe") || c.contains("deny(unsafe") {
                continue;
            }
            if !UNSAFE_ALLOWED.iter().any(|a| r.starts_with(a)) {
                bad.push(format!("{r}:{}: unsafe outside the allowed files", i + 1));
                continue;
            }
            // A `// SAFETY:` comment or a `# Safety` doc section within the lines above.
            let above = &lines[i.saturating_sub(10)..=i];
            if !above
                .iter()
                .any(|x| x.contains("SAFETY") || x.contains("# Safety"))
            {
                bad.push(format!("{r}:{}: unsafe without a SAFETY argument", i + 1));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The kernel is crate-private: `mod kernel;` in the core's `lib.rs`, and its public face is
/// exactly what `lib.rs` re-exports from it (ARCHITECTURE.md, "Crates").
#[test]
fn kernel_internals_stay_private() {
    let lib = fs::read_to_string(root().join("crates/mma-core/src/lib.rs")).unwrap();
    let mut decl = Vec::new();
    let mut uses = Vec::new();
    let mut checks = Vec::new();
    for l in lib.lines().map(code) {
        let l = l.trim();
        if l.ends_with("mod kernel;") {
            decl.push(l.to_string());
        }
        if l.starts_with("pub use kernel::") {
            uses.push(l.to_string());
        }
        if l.starts_with("pub use crate::kernel::") {
            checks.push(l.to_string());
        }
    }
    // Besides the face, only the kernel's checks (functions that assert, behind the
    // `internal-checks` feature that the crate's own tests turn on; src/lib.rs).
    assert_eq!(
        checks,
        ["pub use crate::kernel::checks as kernel;"],
        "only the kernel's checks may be re-exported besides its face"
    );
    assert_eq!(decl, ["mod kernel;"], "the kernel module must be private");
    assert_eq!(
        uses,
        ["pub use kernel::{Isa, Kernel, Rows, Word};"],
        "the kernel's public face changed: update ARCHITECTURE.md and this list"
    );
    // Machine-specific code in the leaves, behind one gate in `kernel/mod.rs`.
    let mut gates = Vec::new();
    for p in rust_sources() {
        let r = rel(&p);
        if r.ends_with("tidy.rs") {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        for (i, l) in text.lines().enumerate() {
            let leaf = ["x86/", "aarch64/"]
                .iter()
                .any(|d| r.starts_with(&format!("crates/mma-core/src/kernel/{d}")));
            if code(l).contains("core::arch::") && !leaf {
                gates.push(format!(
                    "{r}:{}: intrinsics outside kernel/x86/ and kernel/aarch64/",
                    i + 1
                ));
            }
            let gate = code(l).trim_start().starts_with("mod x86")
                || code(l).trim_start().starts_with("mod aarch64");
            if gate && r != "crates/mma-core/src/kernel/mod.rs" {
                gates.push(format!(
                    "{r}:{}: an architecture leaf declared outside kernel/mod.rs",
                    i + 1
                ));
            }
        }
    }
    assert!(gates.is_empty(), "{}", gates.join("\n"));
}

/// `c` without the contents of its string literals (`target_arch = "aarch64"` names no
/// module).
fn without_strings(c: &str) -> String {
    c.split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join("\"\"")
}

/// The kernel's layers (ARCHITECTURE.md, "mma-core"), ground to roof: `words.rs`, `table.rs`,
/// `round.rs`, `isa.rs`, `plan.rs`; then `scalar/` (portable per-block functions); then
/// `lanes/` (the lane routines over the trait `Vector`, naming no architecture; the trait in
/// `lanes/vector.rs` knows no model); then the architecture leaves `x86/` and `aarch64/` (their
/// vector widths, `x86/ymm.rs`, `x86/zmm.rs`, `aarch64/neon.rs`, know nothing of `lanes/` but the
/// trait); then `mod.rs` and `dots.rs`. No file names a layer above its own, so the kernel has
/// no cycle; no routine under `lanes/` or a leaf holds methods of the kernel.
#[test]
fn the_kernel_is_layered() {
    let kernel = root().join("crates/mma-core/src/kernel");
    let mut sources = Vec::new();
    files(&kernel, "rs", &mut sources);
    let ground = ["words.rs", "table.rs", "round.rs", "isa.rs", "plan.rs"];
    let widths = ["x86/ymm.rs", "x86/zmm.rs", "aarch64/neon.rs"];
    // Names as words, and module names as path segments (`lanes::batch`, `super::stage`).
    let leaves = ["x86", "aarch64", "arch", "Ymm", "Zmm", "Neon", "dots"];
    let mut bad = Vec::new();
    for p in sources {
        let r = rel(&p);
        let name = r.rsplit('/').next().unwrap_or("").to_string();
        let in_kernel = r.trim_start_matches("crates/mma-core/src/kernel/");
        let (words_out, modules_out): (&[&str], &[&str]) = if ground.contains(&in_kernel) {
            (
                &["x86", "aarch64", "scalar", "dots", "Kernel"],
                &["lanes", "arch"],
            )
        } else if in_kernel.starts_with("scalar/") {
            (&["x86", "aarch64", "dots", "Kernel"], &["lanes", "arch"])
        } else if in_kernel == "lanes/vector.rs" || widths.contains(&in_kernel) {
            (
                &["Kernel", "dots"],
                &[
                    "batch", "stage", "steps", "e_fdpa", "tr_late", "gemm", "plan", "dec",
                ],
            )
        } else if in_kernel.starts_with("lanes/") {
            (&leaves, &[])
        } else {
            (&[], &[])
        };
        let text = fs::read_to_string(&p).unwrap();
        for (i, l) in text.lines().enumerate() {
            let c = &without_strings(code(l));
            // The routines per key hold no methods of the kernel: the batch drivers and the
            // way back to `Kernel::dot` live in `dots.rs`.
            let routines = ["x86/", "aarch64/", "lanes/"];
            if routines.iter().any(|d| in_kernel.starts_with(d))
                && c.trim_start().starts_with("impl Kernel")
            {
                bad.push(format!(
                    "{r}:{}: `impl Kernel` below the kernel's roof",
                    i + 1
                ));
            }
            let words: Vec<&str> = c
                .split(|ch: char| !ch.is_alphanumeric() && ch != '_')
                .collect();
            let named = words_out.iter().filter(|f| words.contains(f));
            // `std::arch` and `core::arch` are not the kernel's leaf `arch`.
            let c_mod = c.replace("std::arch::", "").replace("core::arch::", "");
            let segment = modules_out
                .iter()
                .filter(|f| c_mod.contains(&format!("::{f}")) || c_mod.contains(&format!("{f}::")));
            for f in named.chain(segment) {
                bad.push(format!(
                    "{r}:{}: {name} names `{f}`, a layer above its own",
                    i + 1
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_core_knows_no_vendor_and_builds_without_gmp() {
    let manifest = |c: &str| fs::read_to_string(root().join(c).join("Cargo.toml")).unwrap();
    let deps = |m: &str| declared(m, &["[dependencies]"]);
    let core = deps(&manifest("crates/mma-core"));
    for forbidden in [
        "mma-nvidia",
        "mma-amd",
        "mma-oracle",
        "rug",
        "gmp-mpfr-sys",
        "mma",
    ] {
        assert!(
            !core.iter().any(|d| d == forbidden),
            "mma-core depends on {forbidden}"
        );
    }
    for vendor in ["crates/mma-nvidia", "crates/mma-amd"] {
        let d = deps(&manifest(vendor));
        for forbidden in [
            "mma-oracle",
            "rug",
            "gmp-mpfr-sys",
            "mma-nvidia",
            "mma-amd",
            "mma",
        ] {
            if vendor.ends_with(forbidden) {
                continue;
            }
            assert!(
                !d.iter().any(|x| x == forbidden),
                "{vendor} depends on {forbidden}"
            );
        }
    }
    // The core's code names no vendor's crate either.
    let mut v = Vec::new();
    files(&root().join("crates/mma-core/src"), "rs", &mut v);
    for p in v {
        let t = fs::read_to_string(&p).unwrap();
        for word in ["mma_nvidia", "mma_amd", "mma_oracle"] {
            assert!(!t.contains(word), "{} mentions {word}", rel(&p));
        }
    }
}

/// The inference (`mma-probe`, and the CLI's `mma infer` in `probe.rs`) evaluates candidate
/// units through the plain model only, never through the kernel: `.ci/run` therefore leaves
/// its tests out of the run with the portable kernels (they would run the same code twice).
#[test]
fn the_inference_runs_the_plain_model() {
    let mut v = Vec::new();
    files(&root().join("crates/mma-probe"), "rs", &mut v);
    v.push(root().join("crates/mma-cli/src/probe.rs"));
    v.push(root().join("crates/mma-cli/tests/infer_hw.rs"));
    let mut bad = Vec::new();
    for p in v {
        let t = fs::read_to_string(&p).unwrap();
        for (i, l) in t.lines().enumerate() {
            let c = code(l);
            for word in [
                "Kernel",
                ".kernel(",
                ".dot(",
                ".dots(",
                "dots_threaded",
                "gemm",
            ] {
                if c.contains(word) {
                    bad.push(format!("{}:{}: names {word}", rel(&p), i + 1));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn no_test_is_skipped_by_attribute() {
    let mut bad = Vec::new();
    for p in rust_sources() {
        if p.ends_with("tidy.rs") {
            continue;
        }
        let t = fs::read_to_string(&p).unwrap();
        for (i, l) in t.lines().enumerate() {
            let c = code(l);
            if c.contains("#[ignore") || c.contains("#[should_panic") {
                bad.push(format!("{}:{}", rel(&p), i + 1));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "skipped or panic-expecting tests:\n{}",
        bad.join("\n")
    );
}

/// Text files the repository ships (sources, manifests, documents, scripts).
fn text_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for ext in ["rs", "toml", "md", "sh", "py", "cu", "cpp", "txt"] {
        for dir in ["crates", "xtask", ".ci", ".cargo"] {
            files(&root().join(dir), ext, &mut v);
        }
    }
    files(&root().join("docs"), "md", &mut v);
    v.extend(
        [
            "README.md",
            "CONTRIBUTING.md",
            "ARCHITECTURE.md",
            "CHANGELOG.md",
            "Cargo.toml",
            ".ci/run",
        ]
        .iter()
        .map(|f| root().join(f))
        .filter(|p| p.is_file()),
    );
    v
}

/// The pages the README's documentation list promises; each must exist and be linked.
const DOC_PAGES: &[&str] = &[
    "docs/cli.md",
    "docs/models.md",
    "docs/probing.md",
    "docs/library-gemm.md",
    "docs/vectors.md",
    "docs/performance.md",
    "docs/python.md",
    "docs/dask.md",
];

#[test]
fn no_machine_paths() {
    let needles = ["/work/", "/home/", "/root/", "C:\\Users"];
    let mut bad = Vec::new();
    for p in text_files() {
        if p.ends_with("tidy.rs") {
            continue;
        }
        let t = fs::read_to_string(&p).unwrap_or_default();
        for (i, l) in t.lines().enumerate() {
            if needles.iter().any(|n| l.contains(n)) {
                bad.push(format!("{}:{}: {}", rel(&p), i + 1, l.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "machine paths:\n{}", bad.join("\n"));
}

#[test]
fn cited_paths_exist() {
    let mut bad = Vec::new();
    let docs = documents();
    for doc in ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"] {
        assert!(docs.iter().any(|d| d == doc), "{doc} is missing");
    }
    for doc in &docs {
        let t = fs::read_to_string(root().join(doc)).unwrap();
        // Markdown link targets are relative to the document's folder (`../crates/...` from
        // `docs/`); anchors and web addresses are not files.
        let folder = Path::new(doc).parent().unwrap_or(Path::new(""));
        for (i, l) in t.lines().enumerate() {
            for target in l.split("](").skip(1) {
                let target = target.split(')').next().unwrap_or("");
                let path = target.split('#').next().unwrap_or("");
                if path.is_empty() || path.contains("://") || path.starts_with("mailto:") {
                    continue;
                }
                if !root().join(folder).join(path).exists() {
                    bad.push(format!("{doc}:{}: link {target}", i + 1));
                }
            }
        }
        // Paths in backticks or in Markdown link targets.
        for (i, l) in t.lines().enumerate() {
            for piece in l.split(['`', '(', ')', ' ']) {
                let piece = piece.trim_end_matches([',', '.', ':', ';']);
                if !ROOTS.iter().any(|p| piece.starts_with(p)) {
                    continue;
                }
                // Globs and placeholders are not paths.
                if piece.contains(['*', '<', '{', '…']) || piece.contains("...") {
                    continue;
                }
                let path = piece.split('#').next().unwrap_or(piece);
                if !root().join(path).exists() {
                    bad.push(format!("{doc}:{}: {path}", i + 1));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "cited paths that do not exist:\n{}",
        bad.join("\n")
    );
}

/// The code the documents and the crates' pages cite in backticks exists (`common/citations.rs`
/// reads it): a module file or folder without a root prefix (`lanes/e_fdpa_sum3.rs`) ends some
/// file's path, and a Rust path (`model::Decoded::fill`) names, segment by segment, what the
/// sources define. Not the changelog's: history, what it cites was true when written.
#[test]
fn cited_code_exists() {
    // The check itself, on a planted source and document.
    let src = "pub struct Decoded;\nimpl Decoded {\n    fn fill() {}\n}\n";
    let planted = Defined::read(&[("crates/c/src/model.rs".into(), src.into())], &[]);
    let doc = "`src/model.rs`: `model::Decoded::fill()`, `crate::Decoded`\n\
               `x/model.rs` `model::Decoded::finite` `Bogus::x` `crate::bogus`";
    let want = [
        "d.md:2: `x/model.rs` is no file or folder",
        "d.md:2: `model::Decoded::finite`: `Decoded` has no `finite`",
        "d.md:2: `Bogus::x`: `Bogus` is no module, type or trait",
        "d.md:2: `crate::bogus`: no module holds `bogus`",
    ];
    assert_eq!(planted.offenders("d.md", doc, ROOTS), want);
    let defined = Defined::of_workspace();
    assert_eq!(defined.why_not("model::Decoded::fill"), None);
    assert!(defined.why_not("model::Decoded::finite").is_some());
    assert!(defined.why_not("Kernel::dots_bogus").is_some());
    let mut bad = Vec::new();
    for doc in checked_pages() {
        let t = fs::read_to_string(root().join(&doc)).unwrap();
        bad.extend(defined.offenders(&doc, &t, ROOTS));
    }
    for a in CITED_AS_ABSENT
        .iter()
        .filter(|a| defined.why_not(a).is_none())
    {
        bad.push(format!("`{a}` is cited as absent but exists"));
    }
    assert!(
        bad.is_empty(),
        "cited code that does not exist:\n{}",
        bad.join("\n")
    );
}

/// The README is the front door: every page of `docs/` exists, is one the README's list names,
/// and is linked from the README.
#[test]
fn the_readme_links_every_docs_page() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let mut pages = Vec::new();
    files(&root().join("docs"), "md", &mut pages);
    let mut pages: Vec<String> = pages.iter().map(|p| rel(p)).collect();
    pages.sort();
    let mut want: Vec<String> = DOC_PAGES.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(
        pages, want,
        "the pages of docs/ changed: update DOC_PAGES and the README"
    );
    for page in DOC_PAGES {
        assert!(
            readme.contains(&format!("]({page})")),
            "README.md does not link {page}"
        );
    }
}

/// The CLI is thin (ARCHITECTURE.md, `crates/mma-cli`): every subcommand's arguments live in
/// its own module, `main.rs` only names the subcommands, and the flag groups several commands
/// share (`--a/--b/--c/--scale-a/--scale-b/--round`, `--vendor/--arch/--op/--instr/--unit`) are
/// declared once, in `flags.rs`, so that they cannot drift apart again.
#[test]
fn the_cli_declares_each_shared_flag_once() {
    let src = root().join("crates/mma-cli/src");
    let mut bad = Vec::new();
    let main = fs::read_to_string(src.join("main.rs")).unwrap();
    let main_lines = main.lines().count();
    if main_lines > 200 {
        bad.push(format!(
            "main.rs: {main_lines} lines; a subcommand's code belongs in its module"
        ));
    }
    // One argument only: the build without the oracle keeps `error-report`'s arguments there.
    if main.matches("#[arg(").count() > 1 {
        bad.push("main.rs: declares flags; they belong in the subcommand's module".into());
    }
    // Fields of the shared groups, as their declarations read in `flags.rs`.
    let shared = [
        "pub a: String",
        "pub b: String",
        "pub c: String",
        "pub round: Option<Rounding>",
        "pub op: Option<String>",
    ];
    let flags = fs::read_to_string(src.join("flags.rs")).unwrap();
    for s in shared {
        assert!(flags.contains(s), "flags.rs should declare {s:?}");
    }
    let mut v = Vec::new();
    files(&src, "rs", &mut v);
    for p in v {
        let name = rel(&p);
        if name.ends_with("/flags.rs") {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        for s in shared {
            if text.contains(s) {
                bad.push(format!(
                    "{name}: declares {s:?}; flatten flags::OperandFlags or flags::TargetFlags"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The facade is curated (ARCHITECTURE.md, `crates/mma`): re-exports only, named one by one, one
/// path to each name: no glob of `mma-core` and no `mma::core` beside the top level.
#[test]
fn the_facade_gives_one_path_to_each_name() {
    let lib = fs::read_to_string(root().join("crates/mma/src/lib.rs")).unwrap();
    let mut bad = Vec::new();
    for (i, l) in lib.lines().enumerate() {
        let c = code(l).trim();
        if c.is_empty() || c.starts_with("//") || c.starts_with('#') {
            continue;
        }
        if c.contains("::*") || c.contains(" as core") {
            bad.push(format!("crates/mma/src/lib.rs:{}: {c}", i + 1));
        }
        if c.starts_with("pub ") && !c.starts_with("pub use ") {
            bad.push(format!(
                "crates/mma/src/lib.rs:{}: not a re-export: {c}",
                i + 1
            ));
        }
        if c.starts_with("fn ") || c.starts_with("struct ") || c.starts_with("impl ") {
            bad.push(format!(
                "crates/mma/src/lib.rs:{}: code in the facade: {c}",
                i + 1
            ));
        }
    }
    for p in rust_sources() {
        let text = fs::read_to_string(&p).unwrap();
        if text.contains(&format!("mma::{}::", "core")) {
            bad.push(format!(
                "{}: uses mma::core (the names are at mma's top level)",
                rel(&p)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Files of the lane layer whose functions must be inlined into their callers: the routines
/// of `kernel/lanes/` (but its `mod.rs`, which holds the tables and wrappers) and the widths'
/// operations and steps. Their callers are the entry points compiled with `#[target_feature]`;
/// a function of theirs that is not inlined is compiled without those features, so every
/// intrinsic in it becomes a call (measured: a trait default method without
/// `#[inline(always)]` made CDNA1's fp16 E-FDPA sixty times slower under AVX2).
const INLINED: &[&str] = &[
    "crates/mma-core/src/kernel/lanes/",
    "crates/mma-core/src/kernel/x86/ymm.rs",
    "crates/mma-core/src/kernel/x86/zmm.rs",
    "crates/mma-core/src/kernel/x86/steps.rs",
    "crates/mma-core/src/kernel/aarch64/neon.rs",
    "crates/mma-core/src/kernel/aarch64/gst.rs",
];

/// The 1-based lines of `text` that start a function with a body (not a `const fn`, not a
/// declaration ending in `;`, not a one-expression `fn f() -> T = e;` of a macro) whose
/// attributes above it lack `#[inline(always)]`.
fn not_inlined(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let mut bad = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let c = code(l).trim_start();
        let words: Vec<&str> = c.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| *w == "fn") else {
            continue;
        };
        // `fn` must follow only visibility and qualifiers, and name a function (not `$name`).
        let before_ok = words[..at]
            .iter()
            .all(|w| w.starts_with("pub") || *w == "unsafe" || *w == "extern");
        let named = words
            .get(at + 1)
            .is_some_and(|n| n.starts_with(|ch: char| ch.is_alphabetic() || ch == '_'));
        if !before_ok || !named {
            continue;
        }
        // The signature ends at the first line ending in `{` (a body) or `;` (none).
        let has_body = lines[i..]
            .iter()
            .map(|s| code(s).trim_end())
            .find(|s| s.ends_with('{') || s.ends_with(';'))
            .is_some_and(|s| s.ends_with('{'));
        if !has_body {
            continue;
        }
        let attrs = lines[..i]
            .iter()
            .rev()
            .map(|s| s.trim())
            .take_while(|s| s.starts_with("#[") || s.starts_with("//"));
        if !attrs.into_iter().any(|s| s == "#[inline(always)]") {
            bad.push(i + 1);
        }
    }
    bad
}

#[test]
fn the_lane_layer_inlines_into_its_entry_points() {
    // The check itself, on planted functions: only the two without the attribute are named.
    let planted = "\
#[inline(always)]
fn kept(a: u32) -> u32 {
    a
}
/// Missing.
fn lost<V: Vector>(
    a: V::I,
) -> V::I {
    a
}
fn declared(a: u32) -> u32;
const fn constant() -> u32 {
    0
}
    fn one() -> u32 = 1;
#[cfg(test)]
pub(super) fn also_lost() {
}
";
    assert_eq!(not_inlined(planted), [6, 17]);
    let bad = offending_lines(
        |r| {
            INLINED.iter().any(|d| r.starts_with(d))
                && r != "crates/mma-core/src/kernel/lanes/mod.rs"
        },
        not_inlined,
        "a lane-layer function without #[inline(always)]",
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `rule`'s lines in every Rust source whose repository path `chosen` accepts, as
/// `path:line: what`.
fn offending_lines(
    chosen: impl Fn(&str) -> bool,
    rule: fn(&str) -> Vec<usize>,
    what: &str,
) -> Vec<String> {
    let mut bad = Vec::new();
    for p in rust_sources() {
        let r = rel(&p);
        if !chosen(&r) {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        bad.extend(
            rule(&text)
                .into_iter()
                .map(|line| format!("{r}:{line}: {what}")),
        );
    }
    bad
}

/// The ways into the whole model (every model's block, the K-chaining around it): a routine
/// compiled per key reaches them only through a call to one out-of-line function
/// (`x86/per_dot.rs`: `chain_any`, `plain`; `Kernel::redo`). Inlined into each of the ~120
/// per-dot routines, they were about 85% of LLVM's work on `mma-core` (docs/performance.md,
/// "Build time").
const WHOLE_MODEL: &[&str] = &[
    "block_any(",
    "dot_any(",
    ".model.block(",
    ".chain(",
    ".chain_in(",
];

/// The 1-based lines of `text` that name one of [`WHOLE_MODEL`] inside a generic function
/// (the innermost `fn` item around the line has generic parameters, its own or its `impl`'s:
/// it is compiled once per key, closures in it included).
fn whole_model_in_generic(text: &str) -> Vec<usize> {
    let mut bad = Vec::new();
    // The items open around the line: (an `impl`, generic, brace depth inside their body).
    let mut open: Vec<(bool, bool, i64)> = Vec::new();
    let mut pending: Option<(bool, bool)> = None;
    let mut depth = 0i64;
    for (i, l) in text.lines().enumerate() {
        let c = without_strings(code(l));
        let words: Vec<&str> = c.split_whitespace().collect();
        if let Some(at) = words.iter().position(|w| *w == "fn") {
            if let Some(name) = words.get(at + 1) {
                if name.starts_with(|ch: char| ch.is_alphabetic() || ch == '_') {
                    let in_generic_impl = open.last().is_some_and(|&(imp, g, _)| imp && g);
                    pending = Some((false, name.contains('<') || in_generic_impl));
                }
            }
        } else if words
            .first()
            .is_some_and(|w| *w == "impl" || w.starts_with("impl<"))
        {
            pending = Some((true, words[0].starts_with("impl<")));
        }
        if let Some(&(false, true, _)) = open.last() {
            if WHOLE_MODEL.iter().any(|n| c.contains(n)) {
                bad.push(i + 1);
            }
        }
        let mut square = 0;
        for ch in c.chars() {
            match ch {
                '{' => {
                    depth += 1;
                    if let Some((imp, g)) = pending.take() {
                        open.push((imp, g, depth));
                    }
                }
                '}' => {
                    if open.last().is_some_and(|&(_, _, d)| d == depth) {
                        open.pop();
                    }
                    depth -= 1;
                }
                '[' => square += 1,
                ']' => square -= 1,
                // A declaration without a body (not the `;` of an array type `[T; N]`).
                ';' if square == 0 => pending = None,
                _ => {}
            }
        }
    }
    bad
}

#[test]
fn no_routine_per_key_inlines_the_whole_model() {
    // The check itself, on planted functions: only the lines inside generic functions.
    let planted = "\
fn once(k: &Kernel, x: &BlockIn) -> u64 {
    k.block_any(x)
}
fn per_key<const N: usize>(k: &Kernel, a: &[u64]) -> u64 {
    let f = |x| k.block_any(x);
    k.unit.chain(a, a, 0, &[], &[], f)
}
unsafe fn per_type<A: Dec>(k: &Kernel) -> u64 {
    fn inner(k: &Kernel) -> u64 {
        k.dot_any(&[], &[], 0, &[], &[])
    }
    inner(k) + k.unit.model.block(f, x)
}
impl<V: Vector> Lanes for Blocks<V> {
    fn group(k: &Kernel, x: &BlockIn) -> u64 {
        k.block_any(x)
    }
}
impl Kernel {
    fn dot(&self, a: &[u64]) -> u64 {
        self.dot_any(a, a, 0, &[], &[])
    }
}
";
    assert_eq!(whole_model_in_generic(planted), [5, 6, 12, 16]);
    let bad = offending_lines(
        |r| {
            ["x86/", "lanes/", "aarch64/"]
                .iter()
                .any(|d| r.starts_with(&format!("crates/mma-core/src/kernel/{d}")))
        },
        whole_model_in_generic,
        "a generic routine names the whole model; call an out-of-line function",
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
