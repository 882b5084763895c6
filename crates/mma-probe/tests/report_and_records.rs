//! The report's grouping of fits, the look-up of catalog units among them, and the record lines
//! the inference refuses.
//!
//! `report::group` hashes "everything but one parameter" where it searched the merged list
//! (issue 56: one record, which up to hundreds of thousands of candidates explain, took
//! minutes): it must give exactly what the search gave (the same groups in the same order, each
//! with its values in the same order). The search is kept here, as it was, as the reference,
//! and both run on the fits of small record sets and on synthetic fit lists; so does
//! `infer::first_fits` against `fit_is` tried on every fit.

use mma_core::format;
use mma_core::models::t_fdpa::TFdpa;
use mma_core::unit_file::Param;
use mma_core::{DotUnit, Formats, Model, NanStyle, Output, OutputRounding, RoundOpts, Rounding};
use mma_probe::emit::{random, Spec};
use mma_probe::grid::{candidates, CUse};
use mma_probe::infer::{first_fits, fit_is, set_nan, NanSeen};
use mma_probe::records::{read_line, RecordError};
use mma_probe::report::{group, params, FitGroup, KEY_ORDER};
use mma_probe::{infer, Fit, RecordSet};
use rand::{Rng, SeedableRng};
use serde_json::{Map, Value as Json};

/// `report::group` before issue 56, unchanged: the reference the new grouping must reproduce.
fn reference_group(fits: &[Fit]) -> Vec<FitGroup> {
    let mut gs: Vec<FitGroup> = fits
        .iter()
        .map(|f| FitGroup {
            model: f.unit.model.name().to_string(),
            params: params(f).into_iter().map(|(k, v)| (k, vec![v])).collect(),
            explains: f.explains,
        })
        .collect();
    loop {
        let before = gs.len();
        for key in KEY_ORDER {
            let mut merged: Vec<FitGroup> = Vec::new();
            for g in gs {
                let same_rest = |h: &FitGroup| {
                    h.model == g.model
                        && h.explains == g.explains
                        && h.params.len() == g.params.len()
                        && h.params
                            .iter()
                            .all(|(k, v)| k == key || g.params.get(k) == Some(v))
                        && h.params.contains_key(key) == g.params.contains_key(key)
                };
                match merged.iter_mut().find(|h| same_rest(h)) {
                    Some(h) => {
                        if let (Some(hv), Some(gv)) = (h.params.get_mut(key), g.params.get(key)) {
                            for v in gv {
                                if !hv.contains(v) {
                                    hv.push(v.clone());
                                }
                            }
                            hv.sort_by_key(sort_key);
                        }
                    }
                    None => merged.push(g),
                }
            }
            gs = merged;
        }
        if gs.len() == before {
            break;
        }
    }
    for g in &mut gs {
        for v in g.params.values_mut() {
            v.sort_by_key(sort_key);
        }
    }
    gs
}

/// The reference's value order (as `report.rs` had it).
fn sort_key(p: &Param) -> (u8, i64, String) {
    match p {
        Param::Int(x) => (0, *x, String::new()),
        Param::Flag(x) => (1, i64::from(*x), String::new()),
        Param::Text(s) => (2, 0, s.clone()),
    }
}

fn fp16_to_fp32() -> Formats {
    Formats {
        a: format::FP16,
        b: format::FP16,
        c: format::FP32,
        d: format::FP32,
        scale: None,
    }
}

/// T-FDPA on `formats`: F = 24, blocks of 8, `mode` to `d`, e_zero -133: the device.
fn t_fdpa(formats: Formats, mode: Rounding) -> DotUnit {
    DotUnit {
        formats,
        block: 8,
        model: Model::TFdpa(TFdpa {
            f: 24,
            e_zero: -133,
            out: Output {
                rho: OutputRounding {
                    fmt: formats.d,
                    mode,
                    opts: RoundOpts::INF_ON_OVERFLOW,
                },
                nan: NanStyle::AllOnes,
                neg_zero_to_pos: false,
            },
        }),
    }
}

/// `n` random records of K = `k` (seed `seed`) with `unit`'s results.
fn records(unit: &DotUnit, k: usize, n: usize, seed: u64) -> RecordSet {
    let spec = Spec {
        formats: unit.formats,
        k,
    };
    let mut records = random(&spec, n, seed);
    for r in &mut records {
        r.d = unit.dot_plain_scaled(&r.a, &r.b, r.c, &r.scale_a, &r.scale_b);
    }
    RecordSet {
        source: unit.describe(),
        formats: unit.formats,
        k,
        records,
    }
}

/// `first_fits` against `fit_is` tried on every fit in turn (the search it replaces), for the
/// catalogs' distinct units (a few of other formats), the units of every 31st fit and a spread
/// of the grid's, half of them with the default quiet NaN; returns how many units some fit is.
fn check_first_fits(fits: &[Fit], formats: &Formats, k: usize) -> usize {
    let mut seen = std::collections::HashSet::new();
    let catalog = mma_nvidia::catalog().iter().map(|i| i.unit);
    let catalog = catalog.chain(mma_amd::catalog().iter().map(|i| i.unit));
    let (mine, other): (Vec<DotUnit>, Vec<DotUnit>) = catalog
        .filter(|u| seen.insert(*u))
        .partition(|u| u.formats == *formats);
    let mut units: Vec<DotUnit> = mine.into_iter().chain(other.into_iter().take(3)).collect();
    let grid = candidates(formats, k);
    let spread = grid.iter().flat_map(|g| &g.members).step_by(4999);
    let sample = fits.iter().step_by(31).map(|f| f.unit);
    for (j, mut u) in sample.chain(spread.map(|c| c.unit)).enumerate() {
        if j % 2 == 1 {
            set_nan(&mut u, NanStyle::DefaultQuiet);
        }
        units.push(u);
    }
    let want: Vec<Option<usize>> = units
        .iter()
        .map(|u| fits.iter().position(|f| fit_is(f, u, formats, k)))
        .collect();
    assert_eq!(first_fits(fits, &units, formats, k), want);
    want.iter().flatten().count()
}

/// The fits of few records: every model of the grid, many parameters left open, some
/// irregularly (F ranges that depend on F2, rounding modes on block lengths).
#[test]
fn group_matches_the_reference_on_the_fits_of_few_records() {
    let fp16_out = Formats {
        d: format::FP16,
        c: format::FP16,
        ..fp16_to_fp32()
    };
    let mut sizes = Vec::new();
    for (unit, k, n, seed) in [
        (t_fdpa(fp16_to_fp32(), Rounding::NearestEven), 16, 3, 2),
        (t_fdpa(fp16_out, Rounding::TowardZero), 8, 8, 4),
    ] {
        let inf = infer(&records(&unit, k, n, seed));
        let (got, want) = (group(&inf.fits), reference_group(&inf.fits));
        sizes.push((inf.fits.len(), want.len()));
        assert_eq!(got, want, "{} with {n} records", unit.describe());
        assert!(check_first_fits(&inf.fits, &unit.formats, k) > 0);
    }
    // Lists that group into many entries (6,402 fits in 36 groups and 10,216 in 136 when this
    // test was written; the reference takes seconds on them).
    assert!(sizes.iter().all(|&(f, g)| f > 1000 && g > 20), "{sizes:?}");
}

/// Random subsets of the grid: windows of consecutive candidate groups (which differ in F,
/// rho, the block length, ...), each kept or not, their members (which differ in e_zero and
/// the conventions) kept densely or sparsely, with the NaN outcomes, C uses and record counts
/// mixed. Whatever the list, the same groups in the same order.
#[test]
fn group_matches_the_reference_on_synthetic_fit_lists() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(56);
    let (mut sizes, mut found) = (Vec::new(), 0);
    for (formats, k) in [
        (fp16_to_fp32(), 8),
        (
            Formats {
                a: format::E4M3,
                b: format::E5M2,
                ..fp16_to_fp32()
            },
            32,
        ),
    ] {
        let grid = candidates(&formats, k);
        for trial in 0..10 {
            let mut fits = Vec::new();
            let member_p = if trial % 2 == 0 { 0.9 } else { 0.3 };
            for _ in 0..3 {
                let len = rng.random_range(10..60);
                let start = rng.random_range(0..grid.len() - len);
                for g in &grid[start..start + len] {
                    if !rng.random_bool(0.8) {
                        continue;
                    }
                    let nan = match rng.random_range(0..6) {
                        0 => NanSeen::Varied,
                        1 => NanSeen::Bits(NanStyle::DefaultQuiet.bits(&formats.d)),
                        2 => NanSeen::Bits(0x7f80_0001),
                        _ => NanSeen::Unseen,
                    };
                    for cand in &g.members {
                        if !rng.random_bool(member_p) {
                            continue;
                        }
                        fits.push(Fit {
                            unit: cand.unit,
                            c: if trial % 3 == 0 {
                                CUse::Ignored
                            } else {
                                cand.c
                            },
                            nan,
                            explains: 40 + usize::from(trial >= 6 && rng.random_bool(0.2)),
                            misses: Vec::new(),
                        });
                    }
                }
            }
            // Duplicates merge too.
            if trial == 5 {
                let again: Vec<Fit> = fits.iter().step_by(3).cloned().collect();
                fits.extend(again);
            }
            let (got, want) = (group(&fits), reference_group(&fits));
            assert_eq!(got, want, "trial {trial} on {} fits", fits.len());
            found += check_first_fits(&fits, &formats, k);
            sizes.push((fits.len(), want.len()));
        }
    }
    // Lists that merge, not one group per fit nor one in all (20 lists of 300 to 5,000 fits in
    // 150 to 900 groups when this test was written).
    let (fits, groups) = sizes.iter().fold((0, 0), |(f, g), x| (f + x.0, g + x.1));
    assert!(sizes.iter().all(|&(f, g)| 1 < g && g < f), "{sizes:?}");
    assert!(groups * 3 < fits, "{sizes:?}");
    assert!(found > 0, "no unit among the fits: first_fits not tried");
}

/// The fields of a probe line of f16 → f32 (`mma probe emit`'s form) with `a`, `b` and `k`.
fn line(a: &[&str], b: &[&str], k: Json) -> Map<String, Json> {
    let v = serde_json::json!({
        "a_format": "f16", "b_format": "f16", "c_format": "f32", "d_format": "f32",
        "k": k, "a": a, "b": b, "c": "00000000", "d": "3f800000",
    });
    let Json::Object(m) = v else { unreachable!() };
    m
}

fn error(m: &Map<String, Json>) -> RecordError {
    read_line(m, &fp16_to_fp32(), "probe.jsonl:7".into()).unwrap_err()
}

/// K = 0 is no dot product, and a `k` must be the operands' length: each an error that names
/// its field (the command line prefixes the file and line, `case_file` in `probe.rs`).
#[test]
fn record_lines_with_no_elements_or_a_wrong_k_are_refused() {
    let k0 = error(&line(&[], &[], 0.into()));
    assert_eq!(
        k0.to_string(),
        "field \"a\": no elements: K = 0 is not a dot product (A and B need K >= 1 elements)"
    );
    let one = ["3c00"];
    let huge = error(&line(&one, &one, 1_000_000_000_000_000_000u64.into()));
    assert_eq!(
        huge.to_string(),
        "field \"k\": 1000000000000000000, but a and b have 1 elements (k is the operands' length)"
    );
    let two = error(&line(&one, &one, 2.into()));
    assert_eq!(
        two,
        RecordError::Field {
            field: "k",
            msg: "2, but a and b have 1 elements (k is the operands' length)".into()
        }
    );
    for (k, shown) in [
        (Json::from(-1), "-1"),
        (Json::from(1.5), "1.5"),
        (Json::from("1"), "\"1\""),
    ] {
        assert_eq!(
            error(&line(&one, &one, k)).to_string(),
            format!("field \"k\": {shown} is not a number of elements (a and b have 1)")
        );
    }
    // Unequal lengths name b, as before.
    assert_eq!(
        error(&line(&one, &["3c00", "3c00"], 1.into())).to_string(),
        "field \"b\": 2 elements, but a has 1"
    );
    // A right k, and no k at all (lines naming a catalog instruction have none), are read.
    let (r, has_d) = read_line(&line(&one, &one, 1.into()), &fp16_to_fp32(), "x".into()).unwrap();
    assert_eq!(
        (r.a, r.b, r.d, has_d),
        (vec![0x3c00], vec![0x3c00], 0x3f80_0000, true)
    );
    let mut no_k = line(&one, &one, 1.into());
    no_k.remove("k");
    assert!(read_line(&no_k, &fp16_to_fp32(), "x".into()).is_ok());
}
