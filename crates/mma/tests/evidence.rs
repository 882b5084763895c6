//! Every catalog row's evidence class (`Row::evidence`, decided by the vendor crates' evidence
//! tables) against the data it claims, both ways, so that neither the tables nor the data can
//! drift apart:
//! - `hardware` exactly on the instructions that `mma::hw::instruction_for` maps a record folder
//!   of `../shared/hw` to (`MMA_HW_DIR` and `MMA_ALLOW_MISSING_HW` as in `mma-io`'s
//!   `tests/hw_records.rs`, which checks that the records are reproduced);
//! - `reference` only on rows whose unit has lines in mmasim's corpora
//!   (`vectors/mmasim/nvidia/*.jsonl`, `vectors/mmasim/amd/CDNA{1,2,3}.jsonl`, the files
//!   `mmasim_nvidia.rs` and `mma-amd`'s `tests/mmasim_corpus.rs` check), and no such row
//!   `unverified`. A unit is the arithmetic of one dot product (architecture, operation,
//!   formats, K, model and parameters): `wgmma`'s and `tcgen05.mma`'s widths N tile the same
//!   dot products, and the corpus samples three of them.
//!
//! Every failure message carries the count of each class per vendor.

use mma::catalog::{self, Evidence, Row, Vendor};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A row as the checks name it: vendor, architecture, operation, instruction.
type Key = (Vendor, &'static str, &'static str, &'static str);

fn key(r: &Row) -> Key {
    (r.vendor, r.arch, r.op, r.name)
}

/// A row's unit as the checks compare it: vendor, architecture, operation, K, the formats and
/// the model with its parameters (what decides the bits of one dot product; M and N do not).
type UnitKey = (Vendor, &'static str, &'static str, usize, String);

fn unit_key(r: &Row) -> UnitKey {
    let f = &r.unit.formats;
    let scale = f
        .scale
        .map_or("-".to_string(), |(s, n)| format!("{}/{n}", s.name));
    let formats = format!(
        "{} {} {} {} {scale}",
        f.a.name, f.b.name, f.c.name, f.d.name
    );
    (
        r.vendor,
        r.arch,
        r.op,
        r.k,
        format!("{formats} | {}", r.unit.describe()),
    )
}

fn rows() -> Vec<Row> {
    catalog::instructions().collect()
}

/// The count of each class per vendor, for the failure messages.
fn counts(rows: &[Row]) -> String {
    let mut n: BTreeMap<(Vendor, Evidence), usize> = BTreeMap::new();
    for r in rows {
        *n.entry((r.vendor, r.evidence)).or_default() += 1;
    }
    Vendor::ALL
        .iter()
        .map(|&v| {
            let per: Vec<String> = Evidence::ALL
                .iter()
                .map(|&e| format!("{} {}", n.get(&(v, e)).copied().unwrap_or(0), e))
                .collect();
            format!("{v}: {}", per.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The corpus files the mmasim tests read.
fn corpus_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors/mmasim");
    let nvidia = root.join("nvidia");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&nvidia)
        .unwrap_or_else(|e| panic!("{}: {e}", nvidia.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files.extend(["CDNA1", "CDNA2", "CDNA3"].map(|a| root.join(format!("amd/{a}.jsonl"))));
    files
}

/// The corpus lines of each row, every line resolved through the catalog door.
fn corpus_lines() -> BTreeMap<Key, usize> {
    let mut lines = BTreeMap::new();
    for path in corpus_files() {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (n, line) in text.lines().enumerate() {
            if mma::cases::is_comment(line) {
                continue;
            }
            let at = || format!("{}:{}", path.display(), n + 1);
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{}: {e}", at()));
            let field = |f: &str| {
                v[f].as_str()
                    .unwrap_or_else(|| panic!("{}: no {f:?}", at()))
            };
            let vendor = Vendor::parse(field("vendor")).unwrap();
            let row = catalog::find(
                Some(vendor),
                field("arch"),
                Some(field("op")),
                field("instr"),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", at()));
            *lines.entry(key(&row)).or_default() += 1;
        }
    }
    lines
}

#[test]
fn reference_claims_are_the_rows_the_corpora_check() {
    let rows = rows();
    let lines = corpus_lines();
    // The corpus lines of each unit: the lines of every row that shares it.
    let mut unit_lines: BTreeMap<UnitKey, usize> = BTreeMap::new();
    for r in &rows {
        *unit_lines.entry(unit_key(r)).or_default() += lines.get(&key(r)).copied().unwrap_or(0);
    }
    let mut bad = Vec::new();
    for r in &rows {
        let has = unit_lines[&unit_key(r)];
        match (r.evidence, has) {
            (Evidence::Reference, 0) => bad.push(format!(
                "{} {} {} {}: claimed reference, but no corpus line of its unit",
                r.vendor, r.arch, r.op, r.name
            )),
            (Evidence::Unverified, n) if n > 0 => bad.push(format!(
                "{} {} {} {}: {n} corpus lines of its unit, but claimed unverified",
                r.vendor, r.arch, r.op, r.name
            )),
            _ => {}
        }
    }
    println!("{} rows with corpus lines; {}", lines.len(), counts(&rows));
    assert!(
        bad.is_empty(),
        "{} rows claim what the corpora do not say ({}):\n{}",
        bad.len(),
        counts(&rows),
        bad[..bad.len().min(30)].join("\n")
    );
    // Every vendor has rows the corpora check: an empty listing would pass the loop above.
    for v in Vendor::ALL {
        assert!(
            rows.iter()
                .any(|r| r.vendor == v && r.evidence == Evidence::Reference),
            "{v}: no reference row ({})",
            counts(&rows)
        );
    }
}

/// `../shared/hw` beside the repository, or the folder `MMA_HW_DIR` names (as `mma-io`'s
/// `tests/hw_records.rs` finds it).
fn hw_root() -> Option<PathBuf> {
    let p = match std::env::var_os("MMA_HW_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/hw"),
    };
    p.is_dir().then_some(p)
}

/// The instructions the record folders under `root` measured, as `hw::instruction_for` maps
/// each folder and output (what `hw::load_dir` does for every set it loads).
fn recorded(root: &Path) -> BTreeSet<Key> {
    let (sets, errors) = mma::hw::load_dir(root);
    assert!(
        errors.is_empty(),
        "record folders failed to load: {errors:#?}"
    );
    assert!(!sets.is_empty(), "{}: no record set", root.display());
    sets.iter()
        .map(|s| {
            let i = s.instruction;
            let row = catalog::find(
                Some(Vendor::Nvidia),
                i.arch.name(),
                Some(i.op.name()),
                &i.name,
            )
            .unwrap_or_else(|e| panic!("{}: {e}", s.dir.display()));
            key(&row)
        })
        .collect()
}

#[test]
fn hardware_claims_are_the_instructions_the_records_measured() {
    let rows = rows();
    let Some(root) = hw_root() else {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let allowed = std::env::var("MMA_ALLOW_MISSING_HW").is_ok_and(|v| v == "1");
        assert!(
            allowed && !ci,
            "no hardware records at ../shared/hw (or MMA_HW_DIR): the hardware claims cannot be \
             checked ({}). Outside CI, set MMA_ALLOW_MISSING_HW=1 to skip this test knowingly \
             (CI=true never skips).",
            counts(&rows)
        );
        eprintln!(
            "SKIPPED: no hardware records and MMA_ALLOW_MISSING_HW=1: no hardware claim checked"
        );
        return;
    };
    let measured = recorded(&root);
    let claimed: BTreeSet<Key> = rows
        .iter()
        .filter(|r| r.evidence == Evidence::Hardware)
        .map(key)
        .collect();
    let show = |ks: Vec<&Key>| -> String {
        ks.iter()
            .map(|(v, a, o, n)| format!("{v} {a} {o} {n}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let unmeasured = show(claimed.difference(&measured).collect());
    let unclaimed = show(measured.difference(&claimed).collect());
    println!(
        "{} instructions measured by the records; {}",
        measured.len(),
        counts(&rows)
    );
    assert!(
        unmeasured.is_empty() && unclaimed.is_empty(),
        "hardware claims and records disagree ({}).\nclaimed hardware, no record:\n{unmeasured}\n\
         recorded, not claimed hardware:\n{unclaimed}",
        counts(&rows)
    );
}

/// The evidence tables' pattern language: `*` any run of characters, anything else itself, the
/// whole name matched (N = 8 must not take N = 88 or 248).
#[test]
fn the_rule_patterns_read_as_documented() {
    let fits = Evidence::pattern_matches;
    for (pattern, name, want) in [
        ("*", "", true),
        ("*", "m64n8k16.f32.f16.f16", true),
        ("m8n8k4.f16.f16.f16.f16", "m8n8k4.f16.f16.f16.f16", true),
        ("m8n8k4.f16.f16.f16.f16", "m8n8k4.f16.f16.f16.f16x", false),
        ("m8n8k4.f16.f16.f16.f16", "xm8n8k4.f16.f16.f16.f16", false),
        ("m64n8k*", "m64n8k16.f32.f16.f16", true),
        ("m64n8k*", "m64n88k16.f32.f16.f16", false),
        ("m*n8k*", "m128n8k32.kind::f8f6f4.f32.e4m3.e4m3", true),
        ("m*n8k*", "m128n88k32.kind::f8f6f4.f32.e4m3.e4m3", false),
        ("m*n8k*", "m128n248k32.kind::f8f6f4.f32.e4m3.e4m3", false),
        ("*.e*", "m16n8k32.f32.e4m3.e5m2.f32", true),
        ("*.e*", "m16n8k16.f32.bf16.bf16.f32", false),
        ("*.s32.*", "m16n8k32.satfinite.s32.s8.u8.s32", true),
        ("*.s32.*", "m128n8k32.kind::i8.s32.s8.s8", true),
        ("*.s32.*", "m64n8k256.s32.b1.b1.and.popc", true),
        ("*.s32.*", "m16n8k16.f32.f16.f16.f32", false),
        ("a*b*c", "abbc", true),
        ("a*b*c", "ac", false),
        ("ab*ba", "aba", false),
    ] {
        assert_eq!(fits(pattern, name), want, "{pattern:?} on {name:?}");
    }
}
