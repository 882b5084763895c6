//! The NVIDIA catalog against mmasim 2.1.1, the published reference model.
//!
//! `vectors/mmasim/nvidia/*.jsonl` are case files whose `"d"` is mmasim's result; they and
//! `vectors/mmasim/nvidia/instructions.txt` (every NVIDIA instruction mmasim accepts) are written
//! by `xtask/scripts/mmasim_nvidia_cases.py` (not run in CI; see its header).
//!
//! Every line must match bit for bit, with one documented exclusion (see `mma_nvidia`'s
//! "Differences from mmasim"): on the fp64 FMA path (`Model::Fma`) mmasim's NaN bits come from
//! the host CPU's `std::fma` (x86: sign set, default payload 0xFFF8..., input payloads
//! propagated), not from the GPU. Those lines only have to give a NaN here, and the NaN must be
//! the project's all-ones NaN; `fp64_nan_results_are_all_ones` checks that choice with
//! hand-derived bits.

use mma::cases::{self, Case, Target};
use mma::nvidia::{self, Op};
use mma::{format::Format, Model};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors/mmasim/nvidia")
}

fn is_nan(bits: u64, fmt: &Format) -> bool {
    matches!(fmt.decode(bits), mma::Value::Nan)
}

/// Lines whose mmasim result depends on the host rather than the model: a NaN out of the FMA
/// path (fp64 `mma.sync`). The rule looks only at the model and at mmasim's result.
fn host_dependent(t: &Target, expected: u64) -> bool {
    matches!(t.unit.model, Model::Fma(_)) && is_nan(expected, &t.unit.formats.d)
}

#[derive(Default)]
struct Tally {
    passed: usize,
    excluded: usize,
    failed: Vec<String>,
}

/// The cases of one instruction, for a second evaluation through `Kernel::dots`.
#[derive(Default)]
struct Batch {
    unit: Option<&'static mma::DotUnit>,
    k: usize,
    ops: Vec<cases::Operands>,
    want: Vec<u64>,
    at: Vec<String>,
}

fn check_file(path: &Path) -> Tally {
    let text = std::fs::read_to_string(path).unwrap();
    let mut t = Tally::default();
    let mut batches: std::collections::BTreeMap<(String, &'static str), Batch> = Default::default();
    for (n, line) in text.lines().enumerate() {
        if cases::is_comment(line) {
            continue;
        }
        let at = format!("{}:{}", path.display(), n + 1);
        let case: Case = match cases::parse_line(line) {
            Ok(c) => c,
            Err(e) => {
                t.failed.push(format!("{at}: {e}"));
                continue;
            }
        };
        let Some(want_hex) = case.d().map(str::to_string) else {
            t.failed.push(format!("{at}: no \"d\""));
            continue;
        };
        let (target, got) = match cases::evaluate(&case) {
            Ok(x) => x,
            Err(e) => {
                t.failed.push(format!("{at}: {e}"));
                continue;
            }
        };
        let d = &target.unit.formats.d;
        let want = u64::from_str_radix(&want_hex, 16).unwrap();
        if host_dependent(&target, want) {
            if got == d.all_ones_nan() {
                t.excluded += 1;
            } else {
                t.failed.push(format!(
                    "{at}: {} {}: mmasim's host NaN {want_hex}, model gives {} (want the all-ones NaN)",
                    case.arch,
                    case.instr,
                    cases::hex(got, d)
                ));
            }
        } else if got == want {
            t.passed += 1;
            let key = (case.arch.clone(), target.name);
            let batch = batches.entry(key).or_default();
            batch.unit = Some(target.unit);
            batch.k = target.k;
            batch.ops.push(cases::operands(&case, &target).unwrap());
            batch.want.push(want);
            batch.at.push(at);
        } else {
            t.failed.push(format!(
                "{at}: {} {} ({}): mmasim {want_hex}, model {}",
                case.arch,
                case.instr,
                case.fields
                    .get("sampler")
                    .and_then(|s| s.as_str())
                    .unwrap_or("?"),
                cases::hex(got, d)
            ));
        }
    }
    // The lines that matched, again through the batch evaluation (eight dot products across
    // vector lanes where the kernel has it).
    for ((arch, name), batch) in batches {
        let unit = batch.unit.unwrap();
        let cat = |f: fn(&cases::Operands) -> &Vec<u64>| -> Vec<u64> {
            batch
                .ops
                .iter()
                .flat_map(|o| f(o).iter().copied())
                .collect()
        };
        let (a, b) = (cat(|o| &o.a), cat(|o| &o.b));
        let (sa, sb) = (cat(|o| &o.scale_a), cat(|o| &o.scale_b));
        let c: Vec<u64> = batch.ops.iter().map(|o| o.c).collect();
        let mut d = vec![0u64; c.len()];
        if let Err(e) = unit
            .kernel()
            .dots_scaled(batch.k, &a, &b, &c, &sa, &sb, &mut d)
        {
            t.failed.push(format!("{arch} {name}: Kernel::dots: {e}"));
            continue;
        }
        for ((got, want), at) in d.iter().zip(&batch.want).zip(&batch.at) {
            if got != want {
                t.failed.push(format!(
                    "{at}: {arch} {name} through Kernel::dots: mmasim {want:x}, model {got:x}"
                ));
            }
        }
    }
    t
}

#[test]
fn every_mmasim_vector_matches() {
    let dir = vectors_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 7,
        "expected one file per architecture, found {files:?}"
    );
    let mut total = Tally::default();
    for f in &files {
        let t = check_file(f);
        println!(
            "{}: {} passed, {} failed, {} excluded (fp64 host NaN)",
            f.file_name().unwrap().to_string_lossy(),
            t.passed,
            t.failed.len(),
            t.excluded
        );
        assert!(t.passed > 0, "{}: no case passed", f.display());
        total.passed += t.passed;
        total.excluded += t.excluded;
        total.failed.extend(t.failed);
    }
    println!(
        "total: {} passed, {} failed, {} excluded",
        total.passed,
        total.failed.len(),
        total.excluded
    );
    assert!(
        total.failed.is_empty(),
        "{} mismatches, first:\n{}",
        total.failed.len(),
        total.failed[..total.failed.len().min(20)].join("\n")
    );
}

/// The project's fp64 NaN: every fp64 `mma.sync` NaN is 0x7FFFFFFFFFFFFFFF, whatever the
/// operands' payloads, like the fused paths' 0x7FFFFFFF. mmasim would give 0xFFF8000000000000
/// for the invalid operations below (x86's default NaN) and the quieted input payload for the
/// NaN operands (0x7FF8000000000001 for the first).
#[test]
fn fp64_nan_results_are_all_ones() {
    const INF: &str = "7ff0000000000000";
    const NINF: &str = "fff0000000000000";
    const ONE: &str = "3ff0000000000000";
    const Z: &str = "0000000000000000";
    let cases: [(&str, [&str; 4], [&str; 4], &str); 6] = [
        // 0 * Inf
        ("Inf*0", [INF, Z, Z, Z], [Z, Z, Z, Z], Z),
        // Inf - Inf between two products
        ("Inf-Inf", [INF, NINF, Z, Z], [ONE, ONE, Z, Z], Z),
        // product Inf against C = -Inf
        ("Inf+C(-Inf)", [INF, Z, Z, Z], [ONE, Z, Z, Z], NINF),
        // signalling NaN in A with payload 1
        ("sNaN A", ["7ff0000000000001", Z, Z, Z], [ONE, Z, Z, Z], Z),
        // negative quiet NaN in C
        (
            "-qNaN C",
            [ONE, Z, Z, Z],
            [ONE, Z, Z, Z],
            "fff8000000000123",
        ),
        // NaN in B times zero
        ("NaN*0", [Z, Z, Z, Z], ["7ff4000000000000", Z, Z, Z], ONE),
    ];
    for arch in [
        "Ampere",
        "Ada Lovelace",
        "Hopper",
        "Blackwell",
        "RTX Blackwell",
    ] {
        let i = nvidia::find(arch, Some("MMA"), "m8n8k4.f64.f64.f64.f64").unwrap();
        assert!(matches!(i.unit.model, Model::Fma(_)));
        for (what, a, b, c) in cases {
            let h = |x: &str| u64::from_str_radix(x, 16).unwrap();
            let a: Vec<u64> = a.iter().map(|x| h(x)).collect();
            let b: Vec<u64> = b.iter().map(|x| h(x)).collect();
            let d = i.unit.dot(&a, &b, h(c));
            assert_eq!(d, 0x7fff_ffff_ffff_ffff, "{arch} {what}: got {d:016x}");
        }
    }
    // Not NaN: the same path keeps IEEE signed zeros and infinities (mmasim agrees).
    let i = nvidia::find("Hopper", Some("MMA"), "m16n8k4.f64.f64.f64.f64").unwrap();
    let inf = 0x7ff0_0000_0000_0000;
    assert_eq!(i.unit.dot(&[inf, 0, 0, 0], &[inf, 0, 0, 0], 0), inf);
    let neg0 = 0x8000_0000_0000_0000;
    // fma(-0, 0, -0) = -0, then the three padded +0·+0 products give -0 + +0 = +0.
    assert_eq!(i.unit.dot(&[neg0, 0, 0, 0], &[0; 4], neg0), 0);
}

fn mmasim_instructions() -> Vec<(String, String, String)> {
    let p = vectors_dir().join("instructions.txt");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .filter(|l| !cases::is_comment(l))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3, "{}: bad line {l:?}", p.display());
            (f[0].to_string(), f[1].to_string(), f[2].to_string())
        })
        .collect()
}

#[test]
fn every_mmasim_instruction_is_in_the_catalog() {
    let list = mmasim_instructions();
    assert_eq!(
        list.len(),
        4935,
        "mmasim 2.1.1 lists 4935 NVIDIA instructions"
    );
    let mut missing = Vec::new();
    let mut seen = BTreeSet::new();
    for (arch, op, name) in &list {
        match nvidia::find(arch, Some(op), name) {
            Ok(i) => {
                assert_eq!(i.op, Op::parse(op).unwrap());
                assert_eq!(&i.name, name);
                seen.insert((i.arch, i.op, i.name.clone()));
            }
            Err(e) => missing.push(format!("{arch} {op} {name}: {e}")),
        }
    }
    assert!(
        missing.is_empty(),
        "not in the catalog:\n{}",
        missing.join("\n")
    );
    // The rest of the catalog is the documented additions (instructions with a note).
    for i in nvidia::catalog() {
        if !seen.contains(&(i.arch, i.op, i.name.clone())) {
            assert!(
                i.note.is_some(),
                "{} {} {} is neither in mmasim nor a documented addition",
                i.arch.name(),
                i.op,
                i.name
            );
        }
    }
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A random valid encoding of `fmt`.
    fn word(&mut self, fmt: &Format) -> u64 {
        loop {
            let bits = if fmt.storage_bits == 8 && fmt.width() < 8 {
                self.next() & ((1 << (fmt.lsb + fmt.width())) - 1)
            } else {
                self.next() & fmt.storage_mask()
            };
            if fmt.is_valid_encoding(bits) {
                return bits;
            }
        }
    }
}

#[test]
fn every_catalog_instruction_evaluates() {
    let mut rng = Rng(0x6d6d_615f_6e76);
    let mut count = 0;
    for i in nvidia::catalog() {
        let f = &i.unit.formats;
        let ns = i.unit.scales_for(i.k);
        for _ in 0..4 {
            let a: Vec<u64> = (0..i.k).map(|_| rng.word(&f.a)).collect();
            let b: Vec<u64> = (0..i.k).map(|_| rng.word(&f.b)).collect();
            let c = rng.word(&f.c);
            let (sa, sb): (Vec<u64>, Vec<u64>) = match &f.scale {
                Some((s, _)) => (
                    (0..ns).map(|_| rng.word(s)).collect(),
                    (0..ns).map(|_| rng.word(s)).collect(),
                ),
                None => (Vec::new(), Vec::new()),
            };
            i.unit
                .check_scaled(&a, &b, c, &sa, &sb)
                .unwrap_or_else(|e| panic!("{} {}: {e}", i.arch.name(), i.name));
            let d = i.unit.dot_scaled(&a, &b, c, &sa, &sb);
            assert!(
                f.d.is_valid_encoding(d),
                "{} {}: result {d:x} is not a {} word",
                i.arch.name(),
                i.name,
                f.d.name
            );
            let _ = f.d.decode(d);
            count += 1;
        }
    }
    assert!(count >= 4 * 4935);
}
