//! Differential test against mmasim 2.1.1: every line of `vectors/mmasim/amd/<arch>.jsonl`
//! (written by `xtask/scripts/mmasim_amd_cases.py`) is evaluated with the catalog and must give
//! mmasim's bits. Two documented relaxations:
//! - where mmasim's result is a NaN, only NaN-ness is compared, because mmasim's AMD NaN
//!   payloads come from the host CPU or from NVIDIA's convention, not from AMD hardware;
//! - lines that [`mma_amd::known_difference`] names are checked against the IEEE result that
//!   the crate docs (DIFFERENCES) justify, instead of against mmasim.
//!
//! Set `MMA_AMD_EXTRA_VECTORS` to a directory of further `*.jsonl` files (for example a large
//! corpus written with `--per-instr 5000 --out /tmp/amd`) to check them as well.

use mma_amd::{find, known_difference, Instruction, KnownDifference};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn hex(v: &serde_json::Value) -> u64 {
    u64::from_str_radix(v.as_str().expect("hex string"), 16).expect("valid hex")
}

fn hexes(v: &serde_json::Value) -> Vec<u64> {
    v.as_array().expect("array").iter().map(hex).collect()
}

#[derive(Default, Debug)]
struct Tally {
    compared: usize,
    passed: usize,
    nan_only: usize,
    differences: usize,
    /// Documented-difference lines where mmasim's bits do differ.
    mmasim_differs: usize,
}

/// The result the DIFFERENCES section prescribes: for a GTR-FDPA block with a non-finite C,
/// NaN if any operand or C is NaN, otherwise Inf of C's sign; for a GTR-FDPA NaN operand
/// before the last block, NaN; for a CDNA1 sum of negative zeros, -0.
fn ieee_expectation(
    ins: &Instruction,
    diff: KnownDifference,
    a: &[u64],
    b: &[u64],
    c: u64,
) -> Result<(), String> {
    let f = &ins.unit.formats;
    let got = f.d.decode(ins.dot(a, b, c));
    let any_nan = a.iter().any(|&x| f.a.decode(x).is_nan())
        || b.iter().any(|&x| f.b.decode(x).is_nan())
        || f.c.decode(c).is_nan();
    let want = match diff {
        KnownDifference::NonFiniteCDropped if any_nan => mma_core::Value::Nan,
        KnownDifference::NonFiniteCDropped => f.c.decode(c),
        KnownDifference::NegativeZeroSum => mma_core::Value::Zero { neg: true },
        KnownDifference::NanOperandDropped => mma_core::Value::Nan,
    };
    if got == want {
        Ok(())
    } else {
        Err(format!("got {got:?}, IEEE gives {want:?}"))
    }
}

/// The compared lines of one instruction: A rows, B rows, C, and the per-dot results, for a
/// second evaluation through `Kernel::dots`.
type Batch = (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>);

fn check_file(path: &Path, tallies: &mut BTreeMap<String, Tally>, failures: &mut Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut batches: BTreeMap<(String, String), Batch> = BTreeMap::new();
    for (lineno, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let rec: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let arch = rec["arch"].as_str().expect("arch");
        let instr = rec["instr"].as_str().expect("instr");
        let ins =
            find(arch, None, instr).unwrap_or_else(|e| panic!("{path:?}:{}: {e}", lineno + 1));
        let (a, b, c, d) = (
            hexes(&rec["a"]),
            hexes(&rec["b"]),
            hex(&rec["c"]),
            hex(&rec["d"]),
        );
        let t = tallies.entry(ins.arch.name().to_string()).or_default();
        let where_ = || format!("{}:{} {arch} {instr}", path.display(), lineno + 1);
        if let Some(diff) = known_difference(ins, &a, &b, c) {
            t.differences += 1;
            let dfmt = &ins.unit.formats.d;
            let ours = ins.dot(&a, &b, c);
            let same = ours == d || (dfmt.decode(d).is_nan() && dfmt.decode(ours).is_nan());
            t.mmasim_differs += usize::from(!same);
            if let Err(e) = ieee_expectation(ins, diff, &a, &b, c) {
                failures.push(format!("{} ({}): {e}", where_(), diff.reason()));
            }
            continue;
        }
        t.compared += 1;
        let ours = ins.dot(&a, &b, c);
        if a.len() == ins.k && b.len() == ins.k {
            let x = batches
                .entry((arch.to_string(), instr.to_string()))
                .or_default();
            x.0.extend(&a);
            x.1.extend(&b);
            x.2.push(c);
            x.3.push(ours);
        }
        let dfmt = &ins.unit.formats.d;
        let ok = if dfmt.decode(d).is_nan() {
            t.nan_only += 1;
            dfmt.decode(ours).is_nan()
        } else {
            ours == d
        };
        if ok {
            t.passed += 1;
        } else {
            failures.push(format!(
                "{}: a={:?} b={:?} c={c:x} mmasim={d:x} ours={ours:x}",
                where_(),
                rec["a"],
                rec["b"]
            ));
        }
    }
    // Every compared line again through the batch evaluation (eight dot products across vector
    // lanes where the kernel has it): the same bits as one at a time.
    for ((arch, instr), (a, b, c, ours)) in batches {
        let ins = find(&arch, None, &instr).expect("found above");
        let mut d = vec![0u64; c.len()];
        ins.unit
            .kernel()
            .dots(ins.k, &a, &b, &c, &mut d)
            .expect("rows of K words");
        for (i, (got, want)) in d.iter().zip(&ours).enumerate() {
            if got != want {
                failures.push(format!(
                    "{}: {arch} {instr} case {i} through Kernel::dots: {got:x}, one at a time {want:x}",
                    path.display()
                ));
            }
        }
    }
}

#[test]
fn catalog_matches_mmasim_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors/mmasim/amd");
    let mut files: Vec<PathBuf> = ["CDNA1", "CDNA2", "CDNA3"]
        .iter()
        .map(|a| dir.join(format!("{a}.jsonl")))
        .collect();
    if let Ok(extra) = std::env::var("MMA_AMD_EXTRA_VECTORS") {
        let mut more: Vec<PathBuf> = std::fs::read_dir(&extra)
            .expect("MMA_AMD_EXTRA_VECTORS is a directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        more.sort();
        files.extend(more);
    }
    let mut tallies = BTreeMap::new();
    let mut failures = Vec::new();
    for f in &files {
        check_file(f, &mut tallies, &mut failures);
    }
    for (arch, t) in &tallies {
        println!(
            "{arch}: {} passed / {} compared ({} NaN-only), {} lines of documented difference \
             classes checked against IEEE ({} of them differ from mmasim)",
            t.passed, t.compared, t.nan_only, t.differences, t.mmasim_differs
        );
    }
    for arch in ["CDNA1", "CDNA2", "CDNA3"] {
        assert!(
            tallies.get(arch).is_some_and(|t| t.compared > 500),
            "{arch}: too few corpus lines"
        );
    }
    let shown: Vec<&String> = failures.iter().take(25).collect();
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
