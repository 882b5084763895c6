//! One dot product of a whole unit against the oracle, with the Table V bound block by block.
//!
//! [`evaluate`] runs the unit (`DotUnit::dot`), computes the exact result and its
//! [`ErrorReport`], and walks the blocks the unit chains: block `i` is checked against the exact
//! value of *its own* inputs (its A/B slice and the C it actually received, the previous block's
//! rounded result) with [`bound_for`]. Since a block adds its incoming C exactly before its own
//! errors, the error of the whole dot product is at most the sum of the blocks' limits, which is
//! what [`Evaluation::bound`] holds and what the whole result is checked against too.
//!
//! Per model: an FMA chain is checked one FMA at a time (one rounding each); E-FDPA, T-FDPA and
//! FTZ-MulAdd use their [`ModelKind`]; ST-FDPA is T-FDPA with the scales
//! folded into the products (as [`bound_for`] does); GST-FDPA is T-FDPA over group sums of `G`
//! products, bounded here by T-FDPA over the single products with `F − ceil(log2 G)` (a group sum
//! lies at most `log2 G` binades above its largest product, and `L + 1` single terms outnumber
//! the `L/G + 1` group terms); Sliced-FDPA is bounded pass by pass (each pass a T-FDPA on the
//! previous pass's rounded result) plus one rounding of the final addition of C.
//! TR-FDPA and GTR-FDPA (AMD CDNA3) are bounded as T-FDPA with 4 and 5 fraction bits fewer
//! (see [`model_kind`]). For these and FTZ-MulAdd, a block whose `sum |terms|` reaches the
//! largest finite output value may overflow inside (TR/GTR-FDPA make a product of 2^128 Inf,
//! FTZ-MulAdd adds in fp32) and gets no finite bound and no check. The output rounding's ulp is taken in the rounding format of the model (E8M13 for the NVIDIA fp8 paths
//! that round there before storing fp32).

use crate::bounds::{bound_for, bound_for_scaled, rounding_ulps, Bound, ModelKind};
use crate::exact::{exact_dot, exact_dot_scaled, ExactResult};
use crate::report::{error_report, ErrorReport};
use crate::rounding::{max_finite, quantum};
use crate::sample::Inputs;
use mma_core::model::{BlockIn, BlockModel};
use mma_core::{DotUnit, ExactDot, Format, Formats, Model, Value};
use rug::Rational;

/// The Table V kind of a (non-composite) model of a unit with output format `d`, and the format
/// its output rounding targets. `None` for Sliced-FDPA (bounded pass by pass in [`evaluate`]).
pub fn model_kind(model: &Model, d: &Format) -> Option<(ModelKind, Format)> {
    let t_fdpa = |f: u32, e_zero: i32, out: &mma_core::Output| {
        let kind = ModelKind::TFdpa {
            f,
            e_zero,
            mode: out.rho.mode,
        };
        Some((kind, out.rho.fmt))
    };
    match model {
        Model::Fma(m) => Some((ModelKind::Fma { mode: m.mode }, *d)),
        Model::EFdpa(e) => Some((
            ModelKind::EFdpa {
                mode: e.out.rho.mode,
            },
            e.out.rho.fmt,
        )),
        Model::TFdpa(t) => t_fdpa(t.f, t.e_zero, &t.out),
        Model::StFdpa(t) => t_fdpa(t.f, t.e_zero, &t.out),
        Model::GstFdpa(g) => {
            let lg = usize::BITS - (g.g.max(1) - 1).leading_zeros();
            t_fdpa(g.f.saturating_sub(lg), g.e_zero, &g.out)
        }
        // TR-FDPA: L products truncated to F bits below their largest exponent, then the
        // product sum (at most log2 L + 1 binades higher) rounded down to F2 + 1 bits, C down to
        // F bits and the sum down to F2 bits: all within (L + 1)·2^(e_max − (F − 4)) for
        // L <= 8, before the RNE rounding. GTR-FDPA (two such sums and a dropped C below
        // e_max − c_drop, L <= 16): one bit more.
        Model::TrFdpa(t) => Some((
            ModelKind::TFdpa {
                f: t.f.saturating_sub(4),
                e_zero: t.e_zero_c,
                mode: mma_core::Rounding::NearestEven,
            },
            *d,
        )),
        Model::GtrFdpa(t) => Some((
            ModelKind::TFdpa {
                f: t.f.saturating_sub(5),
                e_zero: t.e_zero_c,
                mode: mma_core::Rounding::NearestEven,
            },
            *d,
        )),
        Model::FtzMulAdd(_) => Some((ModelKind::FtzMulAdd, *d)),
        Model::SlicedFdpa(_) | Model::IDpa(_) => None,
    }
}

/// The exact value the unit approximates: the core's one exact sum of what the model sums
/// ([`ExactDot::of_unit`]: products, or the XORs of a `.xor.popc` unit), as a rational.
fn exact_of(
    model: &Model,
    f: &Formats,
    a: &[u64],
    b: &[u64],
    c: u64,
    scale_a: &[u64],
    scale_b: &[u64],
) -> ExactResult {
    let unit = DotUnit {
        formats: *f,
        block: a.len().max(1),
        model: *model,
    };
    ExactResult::from_exact_dot(&ExactDot::of_unit(&unit, a, b, c, scale_a, scale_b))
}

/// An I-DPA block: exact (no bound to speak of) until the sum leaves the s32 range, where
/// the result must be the exact sum wrapped modulo 2^32 or clamped, as the unit says; the
/// limit is zero where the exact sum fits and absent where it does not.
fn check_integer(
    m: &mma_core::models::int_dpa::IDpa,
    f: &Formats,
    x: &BlockIn<'_>,
    out: u64,
) -> Step {
    let exact = exact_of(&Model::IDpa(*m), f, x.a, x.b, x.c, x.scale_a, x.scale_b);
    let Some(value) = exact.value() else {
        return Step {
            ok: false,
            limit: None,
        };
    };
    let got = Rational::from(f.d.int_value(out).unwrap_or(0));
    let (lo, hi) =
        f.d.int_range()
            .unwrap_or((i64::from(i32::MIN), i64::from(i32::MAX)));
    let (lo, hi) = (Rational::from(lo), Rational::from(hi));
    if *value >= lo && *value <= hi {
        return Step {
            ok: got == *value,
            limit: Some(Rational::new()),
        };
    }
    let want = if m.saturate {
        if *value < lo {
            lo
        } else {
            hi
        }
    } else {
        // The residue modulo 2^width, as the two's-complement word holds it.
        let modulus = Rational::from(rug::Integer::from(1) << f.d.width());
        let diff = Rational::from(value - &got) / &modulus;
        return Step {
            ok: diff.is_integer(),
            limit: None,
        };
    };
    Step {
        ok: got == want,
        limit: None,
    }
}

/// Whether the block's magnitudes `sum |a_k·b_k| + |c|` reach the output's largest finite
/// value, so that the intermediate sums of a multi-step model may overflow (TR/GTR-FDPA turn a
/// product of 2^128 into Inf, FTZ-MulAdd adds in fp32) although the exact result is finite.
fn may_overflow(f: &Formats, x: &BlockIn<'_>) -> bool {
    let mut sum = ExactResult::from_bits(x.c_fmt, x.c)
        .value()
        .map_or(Rational::new(), |v| v.clone().abs());
    for k in 0..x.a.len() {
        let p = exact_dot(f, &x.a[k..=k], &x.b[k..=k], 0);
        sum += p.value().map_or(Rational::new(), |v| v.clone().abs());
    }
    sum >= max_finite(&f.d)
}

/// Whether `model` (a word of `d`) lies within `limit` of `exact`. Specials must match; an
/// infinite result is admitted for a finite exact value only where `|exact| + limit` passes the
/// largest finite value `max` of the rounding format.
fn within(model: u64, d: &Format, exact: &ExactResult, limit: &Rational, max: &Rational) -> bool {
    let mv = d.decode(model);
    match exact {
        ExactResult::Nan => mv.is_nan(),
        ExactResult::Inf { neg } => mv == Value::Inf { neg: *neg },
        ExactResult::Finite { value, .. } => match mv {
            Value::Nan => false,
            Value::Inf { neg } => neg == value.is_negative() && value.clone().abs() + limit > *max,
            _ => {
                let m = ExactResult::from_value(mv);
                let err = Rational::from(m.value().expect("finite") - value).abs();
                err <= *limit
            }
        },
    }
}

/// One checked step: whether it is within its bound, and its absolute limit (`None` when the
/// step's exact or model result is not finite).
struct Step {
    ok: bool,
    limit: Option<Rational>,
}

fn step(bound: &Bound, rho: &Format, d: &Format, model: u64, exact: &ExactResult) -> Step {
    let Some(value) = exact.value() else {
        let ok = within(model, d, exact, &Rational::new(), &max_finite(rho));
        return Step { ok, limit: None };
    };
    let limit = bound.limit(value, rho);
    let ok = within(model, d, exact, &limit, &max_finite(rho));
    let finite = matches!(d.decode(model), Value::Zero { .. } | Value::Finite { .. });
    Step {
        ok,
        limit: finite.then_some(limit),
    }
}

/// One block: its formats (C in the format it arrives in), operands and the model's output.
struct Block<'a> {
    f: Formats,
    x: BlockIn<'a>,
    out: u64,
}

fn check_block(unit: &DotUnit, blk: &Block<'_>) -> Step {
    let (f, x) = (&blk.f, &blk.x);
    if let Model::SlicedFdpa(s) = &unit.model {
        return check_sliced(s, f, x, blk.out);
    }
    if let Model::IDpa(m) = &unit.model {
        return check_integer(m, f, x, blk.out);
    }
    if let (Model::Fma(m), true) = (&unit.model, x.a.len() > 1) {
        return check_fma_chain(m, f, x, blk.out);
    }
    let multi_step = matches!(
        unit.model,
        Model::TrFdpa(_) | Model::GtrFdpa(_) | Model::FtzMulAdd(_)
    );
    if multi_step && may_overflow(f, x) {
        return Step {
            ok: true,
            limit: None,
        };
    }
    let (kind, rho) = model_kind(&unit.model, &f.d).expect("non-composite model");
    let exact = exact_dot_scaled(f, x.a, x.b, x.c, x.scale_a, x.scale_b);
    let bound = bound_for_scaled(&kind, f, x.a, x.b, x.c, x.scale_a, x.scale_b);
    step(&bound, &rho, &f.d, blk.out, &exact)
}

/// An FMA chain, one fused multiply-add at a time (each within one rounding of its own exact
/// result), so that an intermediate overflow is judged where it happens.
fn check_fma_chain(m: &mma_core::models::fma::Fma, f: &Formats, x: &BlockIn<'_>, out: u64) -> Step {
    let kind = ModelKind::Fma { mode: m.mode };
    let mut acc = x.c;
    let mut c_fmt = *x.c_fmt;
    let mut ok = true;
    let mut total = Some(Rational::new());
    for k in 0..x.a.len() {
        let sf = Formats { c: c_fmt, ..*f };
        let (a, b) = (&x.a[k..=k], &x.b[k..=k]);
        let one = BlockIn {
            a,
            b,
            c: acc,
            c_fmt: &c_fmt,
            scale_a: &[],
            scale_b: &[],
        };
        let r = m.block(f, &one);
        let exact = exact_dot(&sf, a, b, acc);
        let st = step(&bound_for(&kind, &sf, a, b, acc), &f.d, &f.d, r, &exact);
        ok &= st.ok;
        total = total.zip(st.limit).map(|(t, l)| t + l);
        acc = r;
        c_fmt = f.d;
    }
    debug_assert_eq!(acc, out, "FMA chain walk differs from the block");
    Step {
        ok: ok && acc == out,
        limit: total,
    }
}

/// Sliced-FDPA: every pass is a T-FDPA step on the previous pass's rounded result, then C is
/// added with one rounding.
fn check_sliced(
    s: &mma_core::models::sliced_fdpa::SlicedFdpa,
    f: &Formats,
    x: &BlockIn<'_>,
    out: u64,
) -> Step {
    let kind = ModelKind::TFdpa {
        f: s.pass.f,
        e_zero: s.pass.e_zero,
        mode: s.pass.out.rho.mode,
    };
    let rho = s.pass.out.rho.fmt;
    let pf = Formats { c: f.d, ..*f };
    let mut acc = f.d.encode(Value::POS_ZERO, 0);
    let mut ok = true;
    let mut total = Some(Rational::new());
    for p in 0..s.passes {
        let (mut ga, mut gb) = (Vec::new(), Vec::new());
        for k in 0..x.a.len() {
            if (k / s.group) % s.passes == p {
                ga.push(x.a[k]);
                gb.push(x.b[k]);
            }
        }
        let step_in = BlockIn {
            a: &ga,
            b: &gb,
            c: acc,
            c_fmt: &f.d,
            scale_a: &[],
            scale_b: &[],
        };
        let r = s.pass.block(&pf, &step_in);
        let exact = exact_dot(&pf, &ga, &gb, acc);
        let st = step(&bound_for(&kind, &pf, &ga, &gb, acc), &rho, &f.d, r, &exact);
        ok &= st.ok;
        total = total.zip(st.limit).map(|(t, l)| t + l);
        acc = r;
    }
    let exact = ExactResult::from_bits(&f.d, acc).add(&ExactResult::from_bits(x.c_fmt, x.c));
    let last = Bound {
        abs: Rational::new(),
        out_ulps: rounding_ulps(s.last),
    };
    let st = step(&last, &rho, &f.d, out, &exact);
    Step {
        ok: ok && st.ok,
        limit: total.zip(st.limit).map(|(t, l)| t + l),
    }
}

/// A unit's result for one input, against the oracle and the Table V bound.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The model's output word.
    pub model: u64,
    pub exact: ExactResult,
    pub report: ErrorReport,
    /// (model − exact) in ulps, signed (`report.ulps` with the error's sign; ±Inf for a special
    /// mismatch).
    pub signed_ulps: f64,
    /// Sum of the blocks' absolute limits; `None` where a block's result is not finite.
    pub bound: Option<Rational>,
    /// [`Evaluation::bound`] in ulps of the output format at the exact value (as `report.ulps`).
    pub bound_ulps: Option<f64>,
    /// Whether every block and the whole result lie within their bounds.
    pub within: bool,
}

/// Runs `unit` on `x` and checks it against the oracle, block by block (module docs).
pub fn evaluate(unit: &DotUnit, x: &Inputs) -> Evaluation {
    let f = &unit.formats;
    let model = unit.dot_scaled(&x.a, &x.b, x.c, &x.scale_a, &x.scale_b);
    let exact = exact_of(&unit.model, f, &x.a, &x.b, x.c, &x.scale_a, &x.scale_b);
    let report = error_report(model, &exact, &f.d);
    let signed_ulps = match &report.exact_error {
        Some(e) if e.is_negative() => -report.ulps,
        Some(_) => report.ulps,
        None => f64::INFINITY,
    };
    // Walk the blocks as DotUnit::dot does.
    let per_scale = f.scale.map_or(usize::MAX, |(_, n)| n);
    let mut acc = x.c;
    let mut c_fmt = f.c;
    let mut k0 = 0;
    let mut ok = true;
    let mut total = Some(Rational::new());
    let mut rho_max = max_finite(&f.d);
    loop {
        let k1 = (k0 + unit.block).min(x.a.len());
        let (s0, s1) = if f.scale.is_some() {
            (k0 / per_scale, k1.div_ceil(per_scale))
        } else {
            (0, 0)
        };
        let bf = Formats { c: c_fmt, ..*f };
        let bx = BlockIn {
            a: &x.a[k0..k1],
            b: &x.b[k0..k1],
            c: acc,
            c_fmt: &c_fmt,
            scale_a: &x.scale_a[s0..s1],
            scale_b: &x.scale_b[s0..s1],
        };
        let out = unit.model.block(f, &bx);
        let st = check_block(unit, &Block { f: bf, x: bx, out });
        ok &= st.ok;
        total = total.zip(st.limit).map(|(t, l)| t + l);
        acc = out;
        c_fmt = f.d;
        k0 = k1;
        if k1 >= x.a.len() {
            break;
        }
    }
    debug_assert_eq!(acc, model, "block walk differs from DotUnit::dot");
    if let Some((_, rho)) = model_kind(&unit.model, &f.d) {
        rho_max = max_finite(&rho);
    }
    if let Some(t) = &total {
        ok &= within(model, &f.d, &exact, t, &rho_max);
    }
    let bound_ulps = match (&total, exact.value()) {
        (Some(t), Some(v)) => Some(to_f64(&(t / quantum(&f.d, v)))),
        _ => None,
    };
    Evaluation {
        model,
        exact,
        report,
        signed_ulps,
        bound: total,
        bound_ulps,
        within: ok,
    }
}

fn to_f64(x: &Rational) -> f64 {
    rug::Float::with_val(53, x).to_f64()
}
