//! Units no GPU has, one per model whose search is not the T-FDPA one: TR-FDPA and GTR-FDPA
//! with widths outside every catalog unit's, Sliced-FDPA with four passes, and the two
//! block-scaled models (ST-FDPA on mxfp8, GST-FDPA on nvfp4). Records made by each unit's
//! plain model must come back as that unit: the unit is among the fits, every fit computes
//! the unit's results on fresh inputs (`common::round_trip`), and, after at most three rounds
//! of the closed loop (inputs from `suggest::separating` run on the unit and added), every fit
//! has the unit's model and core parameters (F, F2, groups, passes, blocks, rounding),
//! differing at most in what the records cannot see (the exponent of zero terms, the overflow
//! and -0 conventions, the NaN style).

mod common;
use common::{measured, probe_set, round_trip};
use mma_core::format::{self, Format};
use mma_core::models::{
    gst_fdpa::GstFdpa, gtr_fdpa::GtrFdpa, sliced_fdpa::SlicedFdpa, st_fdpa::StFdpa, t_fdpa::TFdpa,
    tr_fdpa::TrFdpa,
};
use mma_core::{DotUnit, Formats, Model, NanStyle, Output, OutputRounding, RoundOpts, Rounding};
use mma_probe::infer;
use mma_probe::suggest::separating;

fn out(mode: Rounding) -> Output {
    Output {
        rho: OutputRounding {
            fmt: format::FP32,
            mode,
            opts: RoundOpts::INF_ON_OVERFLOW,
        },
        nan: NanStyle::AllOnes,
        neg_zero_to_pos: false,
    }
}

fn formats(a: Format, scale: Option<(Format, usize)>) -> Formats {
    Formats {
        a,
        b: a,
        c: format::FP32,
        d: format::FP32,
        scale,
    }
}

/// The unit with what the records cannot fix set to one value: zero-term exponents, the
/// overflow rule, the -0 convention and the NaN style.
fn core(u: &DotUnit, k: usize) -> DotUnit {
    let mut n = *u;
    n.block = n.block.min(k);
    let (e_zero, o) = match &mut n.model {
        Model::TFdpa(m) => (&mut m.e_zero, &mut m.out),
        Model::StFdpa(m) => (&mut m.e_zero, &mut m.out),
        Model::GstFdpa(m) => (&mut m.e_zero, &mut m.out),
        Model::SlicedFdpa(m) => (&mut m.pass.e_zero, &mut m.pass.out),
        Model::TrFdpa(m) => {
            // Products of f16 or narrower never reach 2^128: the product overflow rule is a
            // convention the records cannot see, like the output's.
            m.product_inf_exp = None;
            (&mut m.e_zero_c, &mut m.out)
        }
        Model::GtrFdpa(m) => (&mut m.e_zero_c, &mut m.out),
        other => panic!("not a model of this test: {other:?}"),
    };
    *e_zero = 0;
    o.rho.opts = RoundOpts::INF_ON_OVERFLOW;
    o.neg_zero_to_pos = false;
    o.nan = NanStyle::AllOnes;
    n
}

/// Runs the round trip, then the closed loop of `mma infer --suggest`: while the fits differ
/// in their core, inputs that separate them are run on the unit and added to the records (at
/// most three rounds). Every fit must end with the unit's core.
fn comes_back(unit: DotUnit, k: usize, n: usize) {
    round_trip(&unit, k, n).unwrap();
    let mut set = probe_set(&unit, k, n, 1);
    let mut rounds = 0;
    let fits = loop {
        let fits = infer(&set).fits;
        assert!(!fits.is_empty(), "{}", unit.describe());
        if rounds == 3 || fits.iter().all(|f| core(&f.unit, k) == core(&unit, k)) {
            break fits;
        }
        let next = separating(&set, &fits, 50, 5000);
        assert!(
            !next.is_empty(),
            "no input separates the fits of {}: {:?}",
            unit.describe(),
            fits.iter()
                .filter(|f| core(&f.unit, k) != core(&unit, k))
                .take(3)
                .map(|f| f.unit.describe())
                .collect::<Vec<_>>()
        );
        set.records.extend(measured(&unit, next));
        rounds += 1;
    };
    for f in &fits {
        assert_eq!(
            core(&f.unit, k),
            core(&unit, k),
            "fit {} for {} after {rounds} rounds of separating inputs",
            f.unit.describe(),
            unit.describe()
        );
    }
}

/// TR-FDPA with F = 17 and F2 = 26 (CDNA3: 24 and 31; F = 17 lies below the grid's range before
/// it was widened), blocks of 8, on f16.
#[test]
fn tr_fdpa_with_other_widths() {
    let unit = DotUnit {
        formats: formats(format::FP16, None),
        block: 8,
        model: Model::TrFdpa(TrFdpa {
            f: 17,
            f2: 26,
            e_zero_c: format::FP32.emin(),
            e_norm_min: format::FP32.emin(),
            product_inf_exp: Some(format::FP32.emax() + 1),
            out: out(Rounding::NearestEven),
        }),
    };
    comes_back(unit, 16, 500);
}

/// GTR-FDPA with F = 23, F2 = 24 and C dropped below F + 1 bits (CDNA3: 24, 31, 25), blocks
/// of 16, on e4m3. The widths are chosen so that each shows: with F = 20 and F2 = 28, no input
/// of the suggest search separated F2 = 27 from 28 (the group sums and C are all multiples of
/// `2^(e_max - F)`, so a wide F2 seldom or never rounds), and with F2 below 24 the
/// intermediate fits fp32 exactly, so the final rounding mode cannot show.
#[test]
fn gtr_fdpa_with_other_widths() {
    let unit = DotUnit {
        formats: formats(format::E4M3, None),
        block: 16,
        model: Model::GtrFdpa(GtrFdpa {
            f: 23,
            f2: 24,
            e_zero_c: format::FP32.emin(),
            e_norm_min: format::FP32.emin(),
            c_drop: 24,
            out: out(Rounding::NearestEven),
        }),
    };
    comes_back(unit, 32, 500);
}

/// Sliced-FDPA with four passes over single elements, F = 12, RZ passes and C added by RNE
/// (Hopper fp8 `mma.sync`: two passes of pairs, F = 25).
#[test]
fn sliced_fdpa_with_four_passes() {
    let unit = DotUnit {
        formats: formats(format::E4M3, None),
        block: 32,
        model: Model::SlicedFdpa(SlicedFdpa {
            pass: TFdpa {
                f: 30,
                e_zero: format::FP32.emin() - 7,
                out: out(Rounding::TowardZero),
            },
            group: 1,
            passes: 4,
            last: Rounding::NearestEven,
            last_format: None,
        }),
    };
    comes_back(unit, 32, 500);
}

/// ST-FDPA on e4m3 with ue8m0 scales per 32 elements, F = 20, RNE (Blackwell mxf8: F = 25,
/// RZ).
#[test]
fn st_fdpa_with_other_width_and_rounding() {
    let unit = DotUnit {
        formats: formats(format::E4M3, Some((format::UE8M0, 32))),
        block: 32,
        model: Model::StFdpa(StFdpa {
            f: 20,
            e_zero: format::FP32.emin() - 7,
            out: out(Rounding::NearestEven),
        }),
    };
    comes_back(unit, 32, 500);
}

/// GST-FDPA on e2m1 with ue4m3 scales per 16 elements, groups of 8, F = 30, RD (Blackwell
/// nvf4: groups of 16, F = 35, RZ).
#[test]
fn gst_fdpa_with_other_groups_and_rounding() {
    let unit = DotUnit {
        formats: formats(format::E2M1, Some((format::UE4M3, 16))),
        block: 64,
        model: Model::GstFdpa(GstFdpa {
            g: 8,
            f: 20,
            e_zero: format::FP32.emin() - 13,
            group_floor: None,
            out: out(Rounding::Down),
        }),
    };
    comes_back(unit, 64, 500);
}
