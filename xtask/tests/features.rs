//! Each feature-probe file does what its header says: its hand-derived expectations hold on
//! every applicable instruction family, and it separates the architectures (or arithmetic
//! models) that the papers say differ. Where an AMD model is needed before the AMD catalog
//! exists, a stand-in unit built from `mma-core` with that model's documented parameters is
//! used; once `mma_amd::catalog()` exists its families are checked through the `"expect"`
//! fields as well.

use mma_core::format::{FP16, FP32};
use mma_core::models::e_fdpa::EFdpa;
use mma_core::{DotUnit, Model, NanStyle, Output, OutputRounding, RoundOpts, Rounding, Value};
use mma_oracle::{correctly_rounded, exact_dot, ExactResult};
use xtask::families::{families, Family};
use xtask::vectors::{expect_keys, expectation, load_all, matches, run, Vector, VectorFile};

fn file(stem: &str) -> VectorFile {
    load_all(&xtask::repo_root())
        .expect("vector files")
        .into_iter()
        .find(|f| f.stem == stem)
        .unwrap_or_else(|| panic!("vectors/{stem}.jsonl missing"))
}

/// Result of vector `v` on the first family of `arch`/`op` whose label contains `label`.
fn d_on(v: &Vector, arch: &str, op: &str, label: &str) -> u64 {
    let fams = families();
    let (unit, ops) = v.resolved.as_ref().expect("vector resolves");
    fams.iter()
        .filter(|f| f.arch == arch && f.op == op && f.label.contains(label))
        .find_map(|f| run(unit, ops, f))
        .unwrap_or_else(|| panic!("line {}: no {arch} {op} {label} family applies", v.line))
        .d
}

/// Results of `v` on every applicable NVIDIA family.
fn nvidia_results(v: &Vector) -> Vec<(Family, u64)> {
    let (unit, ops) = v.resolved.as_ref().expect("vector resolves");
    families()
        .into_iter()
        .filter(|f| f.vendor == "nvidia")
        .filter_map(|f| run(unit, ops, &f).map(|r| (f, r.d)))
        .collect()
}

/// A stand-in family: the formats of `v`'s instruction with an exact fused block of 4 (E-FDPA,
/// the CDNA1 model) whose single rounding is `mode`.
fn exact_unit_family(v: &Vector, mode: Rounding) -> Family {
    let (unit, ops) = v.resolved.as_ref().expect("vector resolves");
    let d = unit.formats.d;
    let u = DotUnit {
        formats: unit.formats,
        block: 4,
        model: Model::EFdpa(EFdpa {
            out: Output {
                rho: OutputRounding {
                    fmt: d,
                    mode,
                    opts: RoundOpts::IEEE,
                },
                nan: NanStyle::DefaultQuiet,
                neg_zero_to_pos: false,
            },
        }),
    };
    Family {
        vendor: "amd",
        arch: format!("stand-in E-FDPA {}", mode.short_name()),
        op: "MFMA".into(),
        label: "stand-in".into(),
        rep: "stand-in".into(),
        members: 1,
        k: ops.a.len(),
        unit: Box::leak(Box::new(u)),
    }
}

fn on(v: &Vector, fam: &Family) -> u64 {
    let (unit, ops) = v.resolved.as_ref().expect("vector resolves");
    run(unit, ops, fam).expect("stand-in applies").d
}

fn f32_of(bits: u64) -> f64 {
    FP32.decode(bits).to_f64()
}

#[test]
fn every_file_has_a_header_and_every_case_a_reason() {
    let files = load_all(&xtask::repo_root()).expect("vector files");
    assert!(files.len() >= 12, "{} vector files", files.len());
    let fams = families();
    for f in &files {
        assert!(
            f.header.first().is_some_and(|h| h.starts_with("Feature:")),
            "{}: header must start with `# Feature:`",
            f.rel
        );
        assert!(
            f.header.iter().any(|h| h.contains("How to read")),
            "{}: header must say how to read the result",
            f.rel
        );
        assert!(!f.vectors.is_empty(), "{}: no cases", f.rel);
        for v in &f.vectors {
            assert!(
                v.why.first().is_some_and(|w| w.starts_with("why:")),
                "{}:{}: a `# why: ...` comment must precede the case",
                f.rel,
                v.line
            );
            match (&v.resolved, v.case.vendor.as_str()) {
                (Ok((unit, ops)), _) => assert!(
                    fams.iter().any(|fam| run(unit, ops, fam).is_some()),
                    "{}:{}: runs on no family",
                    f.rel,
                    v.line
                ),
                (Err(e), _) => panic!("{}:{}: {e}", f.rel, v.line),
            }
        }
    }
}

#[test]
fn hand_derived_expectations_hold() {
    let files = load_all(&xtask::repo_root()).expect("vector files");
    let fams = families();
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in &files {
        for v in &f.vectors {
            // Every key names something: a family, an architecture, an operation, a vendor
            // or (`~text`) a text some family's name contains.
            for key in v.expect.keys() {
                let known = fams.iter().any(|fam| match key.strip_prefix('~') {
                    Some(text) => fam.label.contains(text),
                    None => expect_keys(fam).contains(key),
                });
                assert!(
                    known,
                    "{}:{}: expectation key {key:?} names nothing",
                    f.rel, v.line
                );
            }
            let Ok((unit, ops)) = &v.resolved else {
                continue;
            };
            for fam in &fams {
                let (Some(want), Some(r)) = (expectation(v, fam), run(unit, ops, fam)) else {
                    continue;
                };
                checked += 1;
                if !matches(r.d, fam, want).expect("expectation parses") {
                    failures.push(format!(
                        "{}:{}: {}: d = {:#x} ({}), expected {want}",
                        f.rel,
                        v.line,
                        fam.title(),
                        r.d,
                        xtask::render::dec(&fam.unit.formats.d, r.d)
                    ));
                }
            }
        }
    }
    assert!(checked > 200, "only {checked} expectations checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Table IV of the first paper, by architecture, input format and operation.
fn table_iv(fam: &Family) -> Option<f64> {
    let a = fam.unit.formats.a.name;
    let volta_path = fam.arch == "Volta" || fam.label.starts_with("m8n8k4.f32.f16");
    match a {
        "f64" => Some(-0.875),
        "f16" | "bf16" | "tf32" => Some(match fam.arch.as_str() {
            _ if volta_path => 0.0,
            "Turing" | "Ampere" | "Ada Lovelace" => -0.5,
            _ => -0.75,
        }),
        "e5m2" => match (fam.arch.as_str(), fam.op.as_str()) {
            ("Ada Lovelace" | "Hopper", _) => Some(0.0),
            ("Blackwell", "TCGen05MMA") | ("RTX Blackwell", _) => Some(-0.75),
            _ => None,
        },
        _ => None,
    }
}

#[test]
fn table_iv_vector_gives_the_papers_values() {
    let f = file("table_iv");
    let mut cells = std::collections::BTreeSet::new();
    for v in &f.vectors {
        let (unit, ops) = v.resolved.as_ref().expect("resolves");
        let exact = exact_dot(&unit.formats, &ops.a, &ops.b, ops.c);
        assert_eq!(
            exact.value(),
            ExactResult::from_f64(-0.875).value(),
            "line {}",
            v.line
        );
        for (fam, d) in nvidia_results(v) {
            let Some(want) = table_iv(&fam) else { continue };
            let got = fam.unit.formats.d.decode(d).to_f64();
            assert_eq!(got, want, "line {}: {}", v.line, fam.title());
            cells.insert((fam.arch.clone(), fam.unit.formats.a.name));
        }
    }
    for (arch, fmt) in [
        ("Volta", "f16"),
        ("Turing", "f16"),
        ("Ampere", "f16"),
        ("Ampere", "bf16"),
        ("Ampere", "tf32"),
        ("Ada Lovelace", "e5m2"),
        ("Hopper", "f16"),
        ("Hopper", "tf32"),
        ("Hopper", "e5m2"),
        ("Blackwell", "bf16"),
        ("Blackwell", "e5m2"),
        ("Ampere", "f64"),
    ] {
        assert!(
            cells.contains(&(arch.to_string(), fmt)),
            "Table IV cell {arch} {fmt} not covered"
        );
    }
}

#[test]
fn fraction_bits_probe_separates_volta_ampere_hopper() {
    let f = file("fraction_bits");
    let v = &f.vectors[0];
    let volta = d_on(v, "Volta", "MMA", "m8n8k4.f32.f16.f16.f32");
    let ampere = d_on(v, "Ampere", "MMA", "m16n8k16.f32.f16.f16.f32");
    let hopper = d_on(v, "Hopper", "WGMMA", "k16.f32.f16.f16");
    assert_eq!(f32_of(volta), 2f64.powi(-23));
    assert_eq!(f32_of(ampere), 1.5 * 2f64.powi(-23));
    assert_eq!(f32_of(hopper), 1.75 * 2f64.powi(-23));
    // fp8: F = 13 (Ada) against F = 25 (Blackwell tcgen05).
    let v8 = &f.vectors[3];
    let ada = d_on(v8, "Ada Lovelace", "MMA", "m16n8k32.f32.e4m3.e4m3.f32");
    let bw = d_on(v8, "Blackwell", "TCGen05MMA", "f32.e4m3.e4m3");
    assert_ne!(ada, bw);
}

#[test]
fn block_size_probe_separates_block_lengths() {
    let f = file("block_size");
    let ds = |v: &Vector| {
        [
            d_on(v, "Volta", "MMA", "m8n8k4.f32.f16.f16.f32"),
            d_on(v, "Ampere", "MMA", "m16n8k16.f32.f16.f16.f32"),
            d_on(v, "Hopper", "WGMMA", "k16.f32.f16.f16"),
        ]
        .map(f32_of)
    };
    assert_eq!(ds(&f.vectors[0]), [12.0, 14.0, 14.0]);
    assert_eq!(ds(&f.vectors[1]), [8.0, 14.0, 14.0]);
    assert_eq!(ds(&f.vectors[2]), [4.0, 13.0, 14.0]);
}

#[test]
fn e_zero_probe_differs_between_fp16_and_fp32_output() {
    let f = file("e_zero");
    // Same fp16 products; fp16 output (e_zero -21) drops the tiny product, fp32 output
    // (e_zero -133) keeps it.
    let (v16, v32) = (&f.vectors[2], &f.vectors[3]);
    let d16 = d_on(v16, "Hopper", "WGMMA", "k16.f16.f16.f16");
    let d32 = d_on(v32, "Hopper", "WGMMA", "k16.f32.f16.f16");
    assert_eq!(d16, 0x0002);
    assert_eq!(d32, 0x33bf_ffff);
    // The fp16 result is not the fp16 rounding of what the fp32 path computes: rounding the
    // fp32 result to fp16 gives 0x0001, as correct rounding of the exact value does.
    let from32 = correctly_rounded(
        &ExactResult::from_bits(&FP32, d32),
        &FP16,
        Rounding::NearestEven,
    );
    assert_eq!(from32, 0x0001);
    let (unit, ops) = v16.resolved.as_ref().expect("resolves");
    let exact = exact_dot(&unit.formats, &ops.a, &ops.b, ops.c);
    assert_eq!(
        correctly_rounded(&exact, &FP16, Rounding::NearestEven),
        0x0001
    );
    // bf16: Ampere's and Hopper's fp32-output e_zero (-132, -133) give different results.
    let vb = &f.vectors[0];
    assert_ne!(
        d_on(vb, "Ampere", "MMA", "m16n8k16.f32.bf16"),
        d_on(vb, "Hopper", "WGMMA", "k16.f32.bf16")
    );
}

#[test]
fn rounding_probe_separates_rz_rne_rd() {
    let f = file("rounding");
    let (lo, hi) = (4.5, 4.5 + 2f64.powi(-21));
    let vs = &f.vectors[..3];
    let pattern = |fam: &Family| vs.iter().map(|v| f32_of(on(v, fam))).collect::<Vec<_>>();
    let rz = vec![lo, -lo, -lo];
    let rne = vec![hi, -hi, -lo];
    let rd = vec![lo, -hi, -hi];
    for (fam, _) in nvidia_results(&vs[0]) {
        assert_eq!(pattern(&fam), rz, "{}", fam.title());
    }
    assert_eq!(
        pattern(&exact_unit_family(&vs[0], Rounding::NearestEven)),
        rne
    );
    assert_eq!(pattern(&exact_unit_family(&vs[0], Rounding::Down)), rd);
    // NVIDIA fp16 output rounds to nearest: 4.5 + 3/4 ulp goes up.
    let d16 = d_on(&f.vectors[3], "Ampere", "MMA", "m16n8k16.f16.f16.f16.f16");
    assert_eq!(FP16.decode(d16).to_f64(), 4.5 + 2f64.powi(-8));
    {
        let cdna1: Vec<Family> = families()
            .into_iter()
            .filter(|f| {
                f.arch == "CDNA1" && f.unit.formats == vs[0].resolved.as_ref().unwrap().0.formats
            })
            .collect();
        assert!(!cdna1.is_empty());
        for fam in &cdna1 {
            assert_eq!(pattern(fam), rne, "{}", fam.title());
        }
    }
}

#[test]
fn rd_asymmetry_probe_detects_round_down() {
    let f = file("rd_asymmetry");
    let pairs: Vec<(&Vector, &Vector)> = f.vectors.chunks(2).map(|p| (&p[0], &p[1])).collect();
    assert_eq!(pairs.len(), 3);
    let neg = |fam: &Family, d: u64| fam.unit.formats.d.decode(d).negate();
    for (p, n) in &pairs {
        for (fam, d) in nvidia_results(p) {
            let dn = on(n, &fam);
            assert_eq!(
                fam.unit.formats.d.decode(dn),
                neg(&fam, d),
                "{}",
                fam.title()
            );
        }
    }
    // A unit that rounds down is caught: 1 + 1.5·2^-26 gives 1, its negation -(1 + 2^-23).
    let rd = exact_unit_family(pairs[0].0, Rounding::Down);
    let (dp, dn) = (on(pairs[0].0, &rd), on(pairs[0].1, &rd));
    assert_ne!(FP32.decode(dn), FP32.decode(dp).negate());
    {
        let (unit, _) = pairs[0].0.resolved.as_ref().expect("resolves");
        let cdna3: Vec<Family> = families()
            .into_iter()
            .filter(|f| f.arch == "CDNA3" && f.unit.formats == unit.formats)
            .collect();
        assert!(!cdna3.is_empty());
        for fam in &cdna3 {
            let asym = pairs
                .iter()
                .any(|(p, n)| FP32.decode(on(n, fam)) != FP32.decode(on(p, fam)).negate());
            assert!(asym, "{}: no asymmetry", fam.title());
        }
    }
}

#[test]
fn c_order_probe_separates_early_and_late_c() {
    let f = file("c_order");
    let v = &f.vectors[0];
    for (fam, d) in nvidia_results(v) {
        assert_eq!(f32_of(d), 16777216.0, "{}", fam.title());
    }
    let exact = exact_unit_family(v, Rounding::NearestEven);
    assert_eq!(f32_of(on(v, &exact)), 16777218.0);
}

#[test]
fn signed_zero_probe_sees_nvidia_positive_zero() {
    let f = file("signed_zero");
    let v = &f.vectors[0];
    let (unit, ops) = v.resolved.as_ref().expect("resolves");
    let exact = exact_dot(&unit.formats, &ops.a, &ops.b, ops.c);
    assert_eq!(exact, ExactResult::zero(true));
    for (fam, d) in nvidia_results(v) {
        assert_eq!(
            fam.unit.formats.d.decode(d),
            Value::Zero { neg: false },
            "{}",
            fam.title()
        );
    }
    let ieee = exact_unit_family(v, Rounding::NearestEven);
    assert_eq!(FP32.decode(on(v, &ieee)), Value::Zero { neg: true });
}

#[test]
fn overflow_probe_keeps_products_exact() {
    let f = file("overflow");
    let v = &f.vectors[1];
    let (unit, ops) = v.resolved.as_ref().expect("resolves");
    let exact = exact_dot(&unit.formats, &ops.a, &ops.b, ops.c);
    assert_eq!(exact.value(), ExactResult::from_f64(1.0).value());
    let res = nvidia_results(v);
    assert!(!res.is_empty());
    for (fam, d) in res {
        assert_eq!(f32_of(d), 0.0, "{}", fam.title());
    }
}
