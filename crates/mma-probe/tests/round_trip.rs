//! Blind round trips: a unit's plain model, run as a black box on `probe emit` output, must
//! come back from `infer` — its own parameters among the fits, and every fit computing the same
//! as the unit on a fresh sample of inputs of those formats (so that the parameters the records
//! leave open are shown not to matter there).

use mma_core::{DotUnit, Formats, Model, NanStyle, Output, OutputRounding, Rounding};
mod common;
use common::{probe_set, round_trip};
use mma_probe::infer;
use std::collections::HashSet;
use std::time::Instant;

/// Every distinct unit of both catalogs with its instruction's K (blocks longer than K are one
/// block of K, so units that differ only there are one), CDNA4's OCP-format GTR-FDPA units
/// included (the `tie` probes separate their late-C width F2). The block-scaled GTR-FDPA units
/// (CDNA4's 50 `v_mfma_scale_*` rows, about 3 s each: every member of their groups is
/// evaluated on its own) come back too, but are checked on two of them
/// (`cdna4_block_scaled_units_come_back`) to keep this test within the CI's time. Sparse rows
/// are their dense siblings' units (`mma_core::sparse`).
fn distinct_units() -> Vec<(DotUnit, usize)> {
    let mut seen = HashSet::new();
    let scaled_gtr =
        |u: &DotUnit| matches!(u.model, Model::GtrFdpa(_)) && u.formats.scale.is_some();
    // A sparse row's unit is its dense sibling's, on half the logical K: the sibling's K.
    let nv = mma_nvidia::catalog()
        .iter()
        .filter(|i| i.sparse.is_none())
        .map(|i| (i.unit, i.k));
    let amd = mma_amd::catalog()
        .iter()
        .filter(|i| i.sparse.is_none())
        .map(|i| (i.unit, i.k));
    nv.chain(amd)
        .filter(|(u, _)| !scaled_gtr(u))
        .filter(|(u, k)| {
            let mut n = *u;
            n.block = n.block.min(*k);
            seen.insert((n, *k))
        })
        .collect()
}

/// Every distinct unit comes back from its own probes and 300 random records (the inference
/// runs its candidate groups on every core; about 30 seconds on two).
#[test]
fn every_distinct_catalog_unit_comes_back() {
    let units = distinct_units();
    let t = Instant::now();
    let mut failures = Vec::new();
    for (u, k) in &units {
        let t1 = Instant::now();
        match round_trip(u, *k, 300) {
            Ok(n) => eprintln!("{} K={k}: {n} fits, {:?}", u.describe(), t1.elapsed()),
            Err(e) => failures.push(e.chars().take(600).collect::<String>()),
        }
    }
    eprintln!("{} units in {:?}", units.len(), t.elapsed());
    // 190 when this test was written: a catalog change that loses units shows here.
    assert!(units.len() >= 190, "{} distinct units", units.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A T-FDPA unit no GPU has: f16 → fp32, F = `f`, blocks of `block`, `e_zero` -133, RNE to
/// fp32 with Inf on overflow, all-ones NaN, -0 returned as +0.
fn fp16_t_fdpa(f: u32, block: usize) -> DotUnit {
    DotUnit {
        formats: Formats {
            a: mma_core::format::FP16,
            b: mma_core::format::FP16,
            c: mma_core::format::FP32,
            d: mma_core::format::FP32,
            scale: None,
        },
        block,
        model: Model::TFdpa(mma_core::models::t_fdpa::TFdpa {
            f,
            e_zero: -133,
            out: Output {
                rho: OutputRounding {
                    fmt: mma_core::format::FP32,
                    mode: Rounding::NearestEven,
                    opts: mma_core::RoundOpts::INF_ON_OVERFLOW,
                },
                nan: NanStyle::AllOnes,
                neg_zero_to_pos: true,
            },
        }),
    }
}

/// A unit no GPU has: F = 20, blocks of 8, RNE to fp32, on f16 with K = 16.
#[test]
fn a_unit_no_gpu_has_comes_back_exactly() {
    let unit = fp16_t_fdpa(20, 8);
    round_trip(&unit, 16, 500).unwrap();
    // The core parameters are fixed: every fit is T-FDPA with F = 20, blocks of 8, RNE-FP32.
    let inf = infer(&probe_set(&unit, 16, 500, 1));
    for f in &inf.fits {
        let Model::TFdpa(t) = f.unit.model else {
            panic!("not T-FDPA: {}", f.unit.describe());
        };
        assert_eq!((t.f, f.unit.block), (20, 8), "{}", f.unit.describe());
        assert_eq!(
            t.out.rho.mode,
            Rounding::NearestEven,
            "{}",
            f.unit.describe()
        );
        assert_eq!(t.out.rho.fmt, mma_core::format::FP32);
        assert_eq!(
            t.out.nan,
            NanStyle::AllOnes,
            "the NaN probes name the style"
        );
    }
}

/// Records no candidate explains (one result changed in its last bit): no fit, and the best
/// fits have the unit's model and core parameters, explain every record but that one, and name
/// it as the miss.
#[test]
fn a_wrong_record_leaves_best_fits_that_name_it() {
    let ins = mma_nvidia::find("H100", None, "m64n8k16.f32.bf16.bf16").unwrap();
    let mut set = probe_set(&ins.unit, 16, 300, 3);
    let n = set.records.len();
    let bad = n - 10;
    set.records[bad].d ^= 1;
    set.records[bad].label = "the changed record".into();
    let inf = infer(&set);
    assert!(inf.fits.is_empty());
    let best = &inf.best[0];
    assert_eq!(best.explains, n - 1);
    assert_eq!(best.misses, vec!["the changed record".to_string()]);
    // The records fix the core parameters (e_zero and the conventions tie, and any of the tied
    // candidates may come first).
    let Model::TFdpa(t) = best.unit.model else {
        panic!("{}", best.unit.describe());
    };
    let Model::TFdpa(want) = ins.unit.model else {
        panic!("Hopper bf16 is T-FDPA");
    };
    assert_eq!(
        (t.f, best.unit.block, t.out.rho),
        (want.f, ins.unit.block, want.out.rho),
        "{}",
        best.unit.describe()
    );
}

/// How far `e_zero` may move, worked out by hand (T-FDPA, fp16 → fp32, blocks of 4, K = 8;
/// fp16 words 0x3C00 = 1, 0x4000 = 2, 0x4200 = 3, 0 = +0; fp32 0x3F000000 = 0.5). A term's
/// exponent is that of its leading bit: 1·1 = 1 has 0, 2·1 = 2 and 3·1 = 3 have 1, C = 0.5 has
/// -1. A zero term decides nothing while `e_zero` is at most the largest exponent of its block's
/// non-zero terms; blocks without a zero term (C included) leave the bound open.
#[test]
fn zero_floor_is_the_largest_exponent_of_a_block_with_a_zero_term() {
    use mma_probe::grid::{CUse, Candidate};
    use mma_probe::infer::evaluate;
    use mma_probe::Record;
    let unit = fp16_t_fdpa(24, 4);
    let cand = Candidate {
        unit,
        c: CUse::Applied,
    };
    let record = |a: [u64; 8], c: u64| Record {
        label: String::new(),
        a: a.to_vec(),
        b: vec![0x3C00; 8],
        c,
        scale_a: Vec::new(),
        scale_b: Vec::new(),
        d: 0,
    };
    let (one, two, three) = (0x3C00, 0x4000, 0x4200);
    // Block 0 has a zero product and C = 0.5: max(0, 1, 1, -1) = 1. Block 1 (C = 6.5 from
    // block 0, no zero) leaves it.
    let r = record([one, 0, two, three, one, one, one, one], 0x3F00_0000);
    assert_eq!(evaluate(&cand, &r).zero_floor, 1);
    // C = +0 is the zero term of block 0: the products' max(0, 0, 1, 1) = 1.
    let r = record([one, one, two, three, one, one, one, one], 0);
    assert_eq!(evaluate(&cand, &r).zero_floor, 1);
    // A zero in block 1 only: block 0 sums 1 + 1 + 2 + 3 + 0.5 = 7.5 (exponent 2), the C of
    // block 1, whose non-zero products are 1 (exponent 0): max(2, 0) = 2.
    let r = record([one, one, two, three, one, 0, one, one], 0x3F00_0000);
    assert_eq!(evaluate(&cand, &r).zero_floor, 2);
    // No zero term anywhere: open.
    let r = record([one; 8], 0x3F00_0000);
    assert_eq!(evaluate(&cand, &r).zero_floor, i32::MAX);
}

/// The members of a TR-FDPA or GTR-FDPA group that differ in the product-overflow or the C-drop
/// rule share the first member's result only on records where the rule cannot matter: the
/// inference with sharing finds exactly the fits (and, where none fits, the same best) as with
/// every member evaluated on every record. The devices are units of each rule, on records
/// (targeted probes and random ones, two blocks chained) where the rules do matter: bf16
/// products past 2^128 for fp32 output and f16 products past 2^16 for fp16 output, Cs far below
/// the products.
#[test]
fn shared_rules_give_what_every_member_computes() {
    use mma_core::format::{BF16, FP16, FP32};
    use mma_core::models::gtr_fdpa::GtrFdpa;
    use mma_core::models::tr_fdpa::TrFdpa;
    use mma_core::RoundOpts;
    use mma_probe::grid::candidates;
    use mma_probe::infer::infer_groups;
    let out = |d: mma_core::Format| Output {
        rho: OutputRounding {
            fmt: d,
            mode: Rounding::NearestEven,
            opts: RoundOpts::INF_ON_OVERFLOW,
        },
        nan: NanStyle::AllOnes,
        neg_zero_to_pos: false,
    };
    let formats = |ab, d| Formats {
        a: ab,
        b: ab,
        c: d,
        d,
        scale: None,
    };
    let mut devices = Vec::new();
    for (ab, d) in [(BF16, FP32), (FP16, FP16)] {
        for inf in [Some(d.emax() + 1), None] {
            devices.push(DotUnit {
                formats: formats(ab, d),
                block: 4,
                model: Model::TrFdpa(TrFdpa {
                    f: 24,
                    f2: 31,
                    e_zero_c: d.emin(),
                    e_norm_min: d.emin(),
                    product_inf_exp: inf,
                    out: out(d),
                }),
            });
        }
        for c_drop in [24, 26, 10_000] {
            devices.push(DotUnit {
                formats: formats(ab, d),
                block: 4,
                model: Model::GtrFdpa(GtrFdpa {
                    f: 24,
                    f2: 31,
                    e_zero_c: d.emin(),
                    e_norm_min: d.emin(),
                    c_drop,
                    out: out(d),
                }),
            });
        }
    }
    let mut rules_told_apart = 0;
    for unit in &devices {
        let set = probe_set(unit, 8, 300, 3);
        // The groups of the unit's model and F (the rest of the grid shares nothing new here).
        let grid: Vec<_> = candidates(&set.formats, set.k)
            .into_iter()
            .filter(|g| match (&g.members[0].unit.model, &unit.model) {
                (Model::TrFdpa(x), Model::TrFdpa(y)) => x.f == y.f,
                (Model::GtrFdpa(x), Model::GtrFdpa(y)) => x.f == y.f,
                _ => false,
            })
            .collect();
        assert!(grid.iter().all(|g| g.shares && g.members.len() > 8));
        // The members in reverse too: a first member without the product-overflow rule returns
        // a finite result where its siblings' products overflow (with it first, its Inf result
        // already stops the sharing), so the rule's own condition is what is tested.
        let reversed: Vec<_> = grid
            .iter()
            .cloned()
            .map(|mut g| {
                g.members.reverse();
                g
            })
            .collect();
        let every = grid
            .iter()
            .cloned()
            .map(|mut g| {
                g.shares = false;
                g
            })
            .collect();
        let (with, without) = (infer_groups(&set, grid), infer_groups(&set, every));
        let with_reversed = infer_groups(&set, reversed);
        let names = |fits: &[mma_probe::infer::Fit]| -> Vec<String> {
            fits.iter()
                .map(|f| format!("{} {:?} {}", f.unit.describe(), f.c, f.explains))
                .collect()
        };
        assert!(!without.fits.is_empty(), "{}", unit.describe());
        assert_eq!(
            names(&with.fits),
            names(&without.fits),
            "{}",
            unit.describe()
        );
        assert_eq!(
            names(&with.best),
            names(&without.best),
            "{}",
            unit.describe()
        );
        let sorted = |fits: &[mma_probe::infer::Fit]| {
            let mut v = names(fits);
            v.sort();
            v
        };
        assert_eq!(
            sorted(&with_reversed.fits),
            sorted(&without.fits),
            "{}",
            unit.describe()
        );
        // Whether the records told the rules apart: a rule of the device's F2 left no fit.
        let rule = |m: &Model| match m {
            Model::TrFdpa(t) => Some((t.f2, t.product_inf_exp.map_or(0, |t| t as u32))),
            Model::GtrFdpa(t) => Some((t.f2, t.c_drop)),
            _ => None,
        };
        let f2 = rule(&unit.model).expect("TR or GTR").0;
        let rules: HashSet<u32> = without
            .fits
            .iter()
            .filter_map(|f| rule(&f.unit.model))
            .filter(|r| r.0 == f2)
            .map(|r| r.1)
            .collect();
        let all = if matches!(unit.model, Model::TrFdpa(_)) {
            2
        } else {
            4
        };
        rules_told_apart += usize::from(rules.len() < all);
    }
    // On most devices the records decide the rule, so sharing was tested where it must not
    // happen.
    assert!(
        rules_told_apart >= 6,
        "{rules_told_apart} of {}",
        devices.len()
    );
}

/// Integer units come back too: s8 × u8 saturating once per block of 16 on K = 32 (a unit
/// no GPU has: two clamps per instruction), and wrapping; b1 counting XORs.
#[test]
fn integer_units_come_back() {
    use mma_core::format::{B1, S32, S8, U8};
    use mma_core::models::int_dpa::{IDpa, IntOp};
    let int = |a, b, block, op, saturate| DotUnit {
        formats: Formats {
            a,
            b,
            c: S32,
            d: S32,
            scale: None,
        },
        block,
        model: Model::IDpa(IDpa { op, saturate }),
    };
    round_trip(&int(S8, U8, 16, IntOp::Mul, true), 32, 300).unwrap();
    round_trip(&int(S8, S8, 32, IntOp::Mul, false), 32, 300).unwrap();
    round_trip(&int(B1, B1, 64, IntOp::Xor, false), 128, 300).unwrap();
}

/// Two of CDNA4's block-scaled GTR-FDPA units (`v_mfma_scale_f32_16x16x128_f8f6f4` with fp8
/// A and B, K = 128; `32x32x64` with fp4 A and B, K = 64) come back from their probes.
#[test]
fn cdna4_block_scaled_units_come_back() {
    for name in [
        "scale_f32_16x16x128_f8f6f4_fp8_fp8",
        "scale_f32_32x32x64_f8f6f4_fp4_fp4",
    ] {
        let row = mma_amd::catalog()
            .iter()
            .find(|i| i.name == name)
            .expect("the row is in the AMD catalog");
        assert!(row.unit.formats.scale.is_some(), "{name}");
        let mut u = row.unit;
        u.block = u.block.min(row.k);
        let back = round_trip(&u, row.k, 300).map_err(|e| format!("{name}: {e}"));
        assert!(back.is_ok(), "{back:?}");
    }
}
