//! The candidate grid: every unit of the model family that could have produced a record set
//! of given formats and K.
//!
//! Candidates come in groups whose members differ only in parameters that matter on few
//! inputs: the exponent given to zero terms (`e_zero`, `e_zero_c`), the overflow rule (Inf
//! always, or IEEE) and whether a -0 result is returned as +0. A member's result equals the
//! group's first member's whenever no zero term's exponent could decide an alignment and the
//! result is neither NaN, ±Inf nor -0 (see [`crate::infer`](mod@crate::infer)), so a group costs one evaluation
//! on most records. NaN payloads are not part of the grid: a NaN result matches a NaN record, and the
//! records' NaN bits then name the NaN style.
//!
//! The grid, for output format `d` (rounding targets: `d`, and E8M13 when `d` is fp32; modes
//! RNE, RZ, RD, RU) and block lengths `L_max` in {1, 2, 4, ..., 64} up to K, and K itself:
//!
//! | model | parameters searched |
//! | --- | --- |
//! | FMA | rounding mode (blocks: K) |
//! | FTZ-MulAdd | P in {1, 2, 4, ...} up to K, fp32 accumulation (fp32 output only) |
//! | E-FDPA | L_max, rho |
//! | T-FDPA (ST-FDPA with block scales) | F in 1..=40, L_max, rho |
//! | GST-FDPA (block scales) | G in {8, 16, 32}, F in 20..=40, L_max, rho |
//! | Sliced-FDPA | passes in {2, 4}, group in {1, 2, 4}, F in 1..=40, L_max in {16, 32, K}, rho, C added by RNE or RZ |
//! | TR-FDPA | F in 16..=32, F2 in F+1..=F+12, L_max, product overflow to Inf or not, rho |
//! | GTR-FDPA (also with ue8m0 scales per 32 at K >= 64: CDNA4's scaled MFMA) | F in 16..=32, F2 in F+1..=F+12, L_max, C dropped below F, F+1, F+2 bits or never, rho |
//!
//! Each also with C ignored (the records match C = +0). Members: `e_zero` in
//! `emin(C) - 16 ..= emin(C)` and "never" (-10000); for the block-scaled models `e_zero` in
//! {emin(C) - 7, emin(C) - 13, -10000}; for TR/GTR `e_zero_c` in {emin(d), -10000}, and
//! the product-overflow rule (TR) or the C-drop rule (GTR); for Sliced-FDPA `e_zero` in
//! {emin(d) - 7, -10000}.

use mma_core::format::{self, Format};
use mma_core::model::MAX_BLOCK;
use mma_core::models::e_fdpa::EFdpa;
use mma_core::models::fma::Fma;
use mma_core::models::ftz_mul_add::FtzMulAdd;
use mma_core::models::gst_fdpa::GstFdpa;
use mma_core::models::gtr_fdpa::GtrFdpa;
use mma_core::models::int_dpa::{IDpa, IntOp};
use mma_core::models::sliced_fdpa::SlicedFdpa;
use mma_core::models::st_fdpa::StFdpa;
use mma_core::models::t_fdpa::TFdpa;
use mma_core::models::tr_fdpa::TrFdpa;
use mma_core::{DotUnit, Formats, Model, NanStyle, Output, Overflow, Rounding};

/// Where C enters: as given, or not at all (the records match C = +0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CUse {
    Applied,
    Ignored,
}

/// One candidate: a unit and how C reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Candidate {
    pub unit: DotUnit,
    pub c: CUse,
}

/// The exponent a candidate gives zero terms (`e_zero`, `e_zero_c`), `i32::MIN` for models
/// without one.
pub fn e_zero_of(m: &Model) -> i32 {
    match m {
        Model::TFdpa(t) => t.e_zero,
        Model::StFdpa(t) => t.e_zero,
        Model::GstFdpa(t) => t.e_zero,
        Model::SlicedFdpa(t) => t.pass.e_zero,
        Model::TrFdpa(t) => t.e_zero_c,
        Model::GtrFdpa(t) => t.e_zero_c,
        Model::Fma(_) | Model::FtzMulAdd(_) | Model::EFdpa(_) | Model::IDpa(_) => i32::MIN,
    }
}

/// Candidates that differ only in `e_zero`, the overflow rule and the -0 convention (and, for
/// TR-FDPA and GTR-FDPA, the product-overflow or C-drop rule).
#[derive(Clone, Debug)]
pub struct Group {
    pub members: Vec<Candidate>,
    /// Whether members may share the first member's result where their `e_zero` cannot matter
    /// (see [`crate::infer`](mod@crate::infer)).
    pub shares: bool,
}

/// The fraction bits F searched for T-FDPA, ST-FDPA and Sliced-FDPA (the catalogs use 13 to
/// 25).
const F_RANGE: std::ops::RangeInclusive<u32> = 1..=40;
/// The fraction bits F searched for TR-FDPA and GTR-FDPA (the catalogs: 24), narrower than
/// [`F_RANGE`] because each F has [`F2_ABOVE`] late-C widths and, for GTR-FDPA, four C-drop
/// rules: the full range would make these two models 90% of the grid and quadruple the time.
const TR_F_RANGE: std::ops::RangeInclusive<u32> = 16..=32;
/// TR/GTR-FDPA: the late-C width F2 is searched from F + 1 to F + F2_ABOVE (the catalogs:
/// F + 7).
const F2_ABOVE: u32 = 12;

/// The exponent that stands for "a zero term never decides the alignment".
pub const NEVER: i32 = -10_000;

const MODES: [Rounding; 4] = [
    Rounding::NearestEven,
    Rounding::TowardZero,
    Rounding::Down,
    Rounding::Up,
];

/// The rounding targets worth trying for output format `d`.
fn rhos(d: &Format) -> Vec<Output> {
    let mut fmts = vec![*d];
    if *d == format::FP32 {
        fmts.push(format::E8M13);
    }
    fmts.iter()
        .flat_map(|f| MODES.map(|m| Output::fused(*f, m, false)))
        .collect()
}

/// Block lengths worth trying for K.
pub fn block_lengths(k: usize) -> Vec<usize> {
    let mut v: Vec<usize> = [1, 2, 4, 8, 16, 32, 64]
        .into_iter()
        .filter(|&l| l < k)
        .collect();
    v.push(k.min(MAX_BLOCK));
    v.dedup();
    v
}

/// The member variants of an [`Output`]: overflow to Inf or IEEE, -0 kept or made +0.
fn out_variants(o: Output) -> [Output; 4] {
    let mut v = [o; 4];
    for (i, x) in v.iter_mut().enumerate() {
        x.rho.opts.overflow = if i & 1 == 0 {
            Overflow::Infinity
        } else {
            Overflow::Ieee
        };
        x.neg_zero_to_pos = i & 2 != 0;
    }
    v
}

/// A group of a fused model: `make(e_zero, output)` for every member.
fn fused(
    formats: Formats,
    block: usize,
    c: CUse,
    e_zeros: &[i32],
    rho: Output,
    make: impl Fn(i32, Output) -> Model,
) -> Group {
    let mut members = Vec::new();
    for o in out_variants(rho) {
        for &e in e_zeros {
            members.push(Candidate {
                unit: DotUnit {
                    formats,
                    block,
                    model: make(e, o),
                },
                c,
            });
        }
    }
    Group {
        members,
        shares: true,
    }
}

/// The candidates of integer records: I-DPA wrapping or saturating, over every block length
/// (a saturating unit clamps once per block, so the length matters there), the products
/// multiplied or, for single bits, XORed; C applied or ignored. Integer results have no NaN
/// or signed zero, so no output variants.
fn integer_candidates(f: &Formats, k: usize) -> Vec<Group> {
    let ops: &[IntOp] = if f.a.width() == 1 && f.b.width() == 1 {
        &[IntOp::Mul, IntOp::Xor]
    } else {
        &[IntOp::Mul]
    };
    let mut groups = Vec::new();
    for c in [CUse::Applied, CUse::Ignored] {
        for &op in ops {
            for saturate in [false, true] {
                for block in block_lengths(k) {
                    groups.push(Group {
                        members: vec![Candidate {
                            unit: DotUnit {
                                formats: *f,
                                block,
                                model: Model::IDpa(IDpa { op, saturate }),
                            },
                            c,
                        }],
                        shares: true,
                    });
                }
            }
        }
    }
    groups
}

/// Every candidate group for record sets of `formats` and `k`.
pub fn candidates(formats: &Formats, k: usize) -> Vec<Group> {
    if formats.d.integer {
        return integer_candidates(formats, k);
    }
    let f = *formats;
    let (c_fmt, d) = (f.c, f.d);
    let mut groups = Vec::new();
    // NEVER first: the first member of a group is the one whose result the others share.
    let mut e_zeros: Vec<i32> = vec![NEVER];
    e_zeros.extend((c_fmt.emin() - 16..=c_fmt.emin()).rev());
    if d.emin() != c_fmt.emin() {
        e_zeros.extend((d.emin() - 16..=d.emin()).rev());
    }
    // Block-scaled models evaluate every member on records with zeros: fewer e_zero values.
    let scaled_e_zeros = [NEVER, c_fmt.emin() - 7, c_fmt.emin() - 13];
    let wide_inputs = f.a.man_bits > 23 || f.b.man_bits > 23;
    let ls = block_lengths(k);
    for c in [CUse::Applied, CUse::Ignored] {
        for mode in MODES {
            groups.push(Group {
                members: vec![Candidate {
                    unit: DotUnit {
                        formats: f,
                        block: k.min(MAX_BLOCK),
                        model: Model::Fma(Fma {
                            mode,
                            nan: NanStyle::AllOnes,
                        }),
                    },
                    c,
                }],
                shares: true,
            });
        }
        if wide_inputs {
            continue;
        }
        if d == format::FP32 && f.scale.is_none() {
            let mut p = 1;
            while p <= k {
                groups.push(Group {
                    members: vec![Candidate {
                        unit: DotUnit {
                            formats: f,
                            block: k.min(MAX_BLOCK),
                            model: Model::FtzMulAdd(FtzMulAdd {
                                p,
                                acc: format::FP32,
                                nan: NanStyle::AllOnes,
                            }),
                        },
                        c,
                    }],
                    shares: true,
                });
                p *= 2;
            }
        }
        for &l in &ls {
            for rho in rhos(&d) {
                if f.scale.is_none() {
                    groups.push(fused(f, l, c, &[NEVER], rho, |_, out| {
                        Model::EFdpa(EFdpa { out })
                    }));
                }
                let ez: &[i32] = if f.scale.is_some() {
                    &scaled_e_zeros
                } else {
                    &e_zeros
                };
                for fb in F_RANGE {
                    groups.push(fused(f, l, c, ez, rho, |e_zero, out| match f.scale {
                        None => Model::TFdpa(TFdpa { f: fb, e_zero, out }),
                        Some(_) => Model::StFdpa(StFdpa { f: fb, e_zero, out }),
                    }));
                }
                if f.scale.is_some() {
                    for g in [8usize, 16, 32].into_iter().filter(|&g| g <= k) {
                        for fb in 20..=40u32 {
                            groups.push(fused(f, l, c, &scaled_e_zeros, rho, |e_zero, out| {
                                Model::GstFdpa(GstFdpa {
                                    g,
                                    f: fb,
                                    e_zero,
                                    group_floor: None,
                                    out,
                                })
                            }));
                        }
                    }
                    // GTR-FDPA with ue8m0 scales per 32 (CDNA4's `v_mfma_scale_*`, K of 64
                    // and 128): only those shapes, to keep the other scaled sets' search short.
                    let cdna4 = matches!(f.scale, Some((s, 32)) if s == format::UE8M0) && k >= 64;
                    if !cdna4 {
                        continue;
                    }
                }
                tr_groups(&mut groups, f, l, c, rho);
            }
        }
        if f.scale.is_none() && k >= 4 {
            sliced_groups(&mut groups, f, k, c);
        }
    }
    groups
}

fn tr_groups(groups: &mut Vec<Group>, f: Formats, l: usize, c: CUse, rho: Output) {
    let d = f.d;
    // The scaled GTR-FDPA is AMD's, whose outputs round to nearest even (the AMD paper): the
    // other modes would only lengthen the search of every ue8m0 record set.
    if rho.rho.fmt != d || (f.scale.is_some() && rho.rho.mode != Rounding::NearestEven) {
        return;
    }
    let e_zero_cs = [NEVER, d.emin()];
    // One group per (F, F2): the product-overflow rules (TR) and the C-drop rules (GTR) are
    // members, which share the first member's result where the rule cannot matter.
    let merged = |parts: Vec<Group>| Group {
        members: parts.into_iter().flat_map(|g| g.members).collect(),
        shares: true,
    };
    // TR-FDPA has no block scales; GTR-FDPA scales each product exactly (CDNA4's
    // `v_mfma_scale_*`), so a scaled record set is tried on GTR-FDPA only.
    for fb in TR_F_RANGE.filter(|_| f.scale.is_none()) {
        for f2 in fb + 1..=fb + F2_ABOVE {
            groups.push(merged(
                [Some(d.emax() + 1), None]
                    .into_iter()
                    .map(|inf| {
                        fused(f, l, c, &e_zero_cs, rho, |e_zero_c, out| {
                            Model::TrFdpa(TrFdpa {
                                f: fb,
                                f2,
                                e_zero_c,
                                e_norm_min: d.emin(),
                                product_inf_exp: inf,
                                out,
                            })
                        })
                    })
                    .collect(),
            ));
        }
    }
    if l < 2 {
        return;
    }
    for fb in TR_F_RANGE {
        for f2 in fb + 1..=fb + F2_ABOVE {
            groups.push(merged(
                [fb, fb + 1, fb + 2, 10_000]
                    .into_iter()
                    .map(|c_drop| {
                        fused(f, l, c, &e_zero_cs, rho, |e_zero_c, out| {
                            Model::GtrFdpa(GtrFdpa {
                                f: fb,
                                f2,
                                e_zero_c,
                                e_norm_min: d.emin(),
                                c_drop,
                                out,
                            })
                        })
                    })
                    .collect(),
            ));
        }
    }
}

fn sliced_groups(groups: &mut Vec<Group>, f: Formats, k: usize, c: CUse) {
    let e_zeros = [NEVER, f.d.emin() - 7];
    let ls: Vec<usize> = [16, 32, k.min(MAX_BLOCK)]
        .into_iter()
        .filter(|&l| l <= k)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    for l in ls {
        for passes in [2usize, 4] {
            for group in [1usize, 2, 4] {
                if passes * group > l {
                    continue;
                }
                for fb in F_RANGE {
                    for rho in rhos(&f.d) {
                        for last in [Rounding::NearestEven, Rounding::TowardZero] {
                            groups.push(fused(f, l, c, &e_zeros, rho, |e_zero, out| {
                                Model::SlicedFdpa(SlicedFdpa {
                                    pass: TFdpa { f: fb, e_zero, out },
                                    group,
                                    passes,
                                    last,
                                    last_format: None,
                                })
                            }));
                        }
                    }
                }
            }
        }
    }
}
