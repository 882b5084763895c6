//! The unit file reader's checks of a model against its formats: parameter ranges the exact
//! arithmetic is written for, output formats D can store, group sums that fit their words,
//! and integer models on integer formats only (and the floating-point ones on none); and the
//! error every refusal of the reader is (here, below the reader, so that no circle runs
//! between the two files).

use crate::model::Formats;
use crate::models::e_fdpa::EFdpa;
use crate::models::gst_fdpa::GstFdpa;
use crate::models::gtr_fdpa::GtrFdpa;
use crate::models::sliced_fdpa::SlicedFdpa;
use crate::models::st_fdpa::StFdpa;
use crate::models::t_fdpa::TFdpa;
use crate::models::tr_fdpa::TrFdpa;
use crate::unit::Model;

/// Why a unit file does not describe a unit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UnitFileError {
    #[error("unknown format {0:?} (expected a name as `mma list` prints it: f16, bf16, e4m3, ue8m0, ...)")]
    Format(String),
    #[error("unknown model {0:?} (expected FMA, E-FDPA, T-FDPA, ST-FDPA, GST-FDPA, Sliced-FDPA, FTZ-MulAdd, TR-FDPA, GTR-FDPA or I-DPA)")]
    Model(String),
    #[error("{model}: missing parameter {key:?}")]
    Missing { model: String, key: &'static str },
    #[error("{model}: unknown parameter {key:?}")]
    Unknown { model: String, key: String },
    #[error("{model}: parameter {key:?} = {value}: {msg}")]
    Value {
        model: String,
        key: String,
        value: String,
        msg: String,
    },
    #[error("{0}")]
    Shape(String),
    #[error("\"layout\" {value:?}: {msg}")]
    Layout { value: String, msg: String },
}

/// Largest magnitude of an exponent parameter (`e_zero` and the like).
const MAX_EXP_PARAM: i32 = 4096;

/// Parameter ranges the models' exact arithmetic is written for: a unit outside them would
/// overflow the fixed-point sums, so it is refused when read rather than computed wrongly.
pub(super) fn check_ranges(m: &Model) -> Result<(), UnitFileError> {
    let bad = |key: &str, v: i64, msg: &str| UnitFileError::Value {
        model: m.name().into(),
        key: key.into(),
        value: v.to_string(),
        msg: msg.into(),
    };
    let f_ok = |f: u32| (1..=60).contains(&f);
    // Exponent parameters far beyond every format's range (f64 products reach 2^-2148) would
    // overflow the shifts of the exact sums.
    let exps: Vec<(&str, i32)> = match m {
        Model::GstFdpa(g) => {
            let mut v = vec![("e_zero", g.e_zero)];
            v.extend(g.group_floor.map(|x| ("group_floor", x)));
            v
        }
        Model::TFdpa(TFdpa { e_zero, .. })
        | Model::StFdpa(StFdpa { e_zero, .. })
        | Model::SlicedFdpa(SlicedFdpa {
            pass: TFdpa { e_zero, .. },
            ..
        }) => vec![("e_zero", *e_zero)],
        Model::TrFdpa(t) => {
            let mut v = vec![("e_zero_c", t.e_zero_c), ("e_norm_min", t.e_norm_min)];
            v.extend(t.product_inf_exp.map(|x| ("product_inf_exp", x)));
            v
        }
        Model::GtrFdpa(t) => vec![("e_zero_c", t.e_zero_c), ("e_norm_min", t.e_norm_min)],
        _ => Vec::new(),
    };
    if let Some((key, v)) = exps.into_iter().find(|(_, v)| v.abs() > MAX_EXP_PARAM) {
        return Err(bad(
            key,
            i64::from(v),
            &format!("must be between -{MAX_EXP_PARAM} and {MAX_EXP_PARAM}"),
        ));
    }
    match m {
        Model::TFdpa(TFdpa { f, .. })
        | Model::StFdpa(StFdpa { f, .. })
        | Model::GstFdpa(GstFdpa { f, .. })
        | Model::TrFdpa(TrFdpa { f, .. })
        | Model::GtrFdpa(GtrFdpa { f, .. })
            if !f_ok(*f) =>
        {
            Err(bad("F", i64::from(*f), "must be between 1 and 60"))
        }
        Model::SlicedFdpa(s) if !f_ok(s.pass.f) => {
            Err(bad("F", i64::from(s.pass.f), "must be between 1 and 60"))
        }
        Model::SlicedFdpa(s) if s.group == 0 || s.passes == 0 => Err(bad(
            "group",
            s.group as i64,
            "group and passes must be positive",
        )),
        // Each pass runs even when its slice is empty (it rounds the previous pass again), so
        // a pass count beyond a block's elements only costs time.
        Model::SlicedFdpa(s) if s.passes > crate::model::MAX_BLOCK => Err(bad(
            "passes",
            s.passes as i64,
            &format!("must be at most {}", crate::model::MAX_BLOCK),
        )),
        Model::GstFdpa(g) if g.g == 0 => Err(bad("G", 0, "must be positive")),
        Model::FtzMulAdd(p) if !p.p.is_power_of_two() => {
            Err(bad("P", p.p as i64, "must be a power of two"))
        }
        Model::TrFdpa(t) if t.f2 > 60 => Err(bad("F2", i64::from(t.f2), "must be at most 60")),
        Model::GtrFdpa(t) if t.f2 > 60 => Err(bad("F2", i64::from(t.f2), "must be at most 60")),
        Model::GtrFdpa(t) if t.c_drop > MAX_EXP_PARAM as u32 => Err(bad(
            "c_drop",
            i64::from(t.c_drop),
            &format!("must be at most {MAX_EXP_PARAM}"),
        )),
        _ => Ok(()),
    }
}

/// GST-FDPA keeps a group's scaled product sum in one 64-bit term (`gst_fdpa.rs`): exact
/// only while the largest product times `G`, kept to `F` fraction bits, fits in 64 bits
/// (`P_top + log2 G + 1 + F <= 64`, `P_top` the exponent just above the largest product), and
/// the group sum in fixed point while the products span at most 120 bits. The hardware's fp4
/// groups need 46 bits (P_top = 6, G = 16, F = 35); formats much wider than fp8 do not fit
/// and are refused here rather than summed wrongly.
pub(super) fn check_group_sums(m: &Model, f: &Formats) -> Result<(), UnitFileError> {
    let Model::GstFdpa(g) = m else {
        return Ok(());
    };
    // A group takes one scale pair (its first element's): it must lie within one scale block.
    if let Some((_, per)) = f.scale {
        if !per.is_multiple_of(g.g) {
            return Err(UnitFileError::Value {
                model: m.name().into(),
                key: "G".into(),
                value: g.g.to_string(),
                msg: format!(
                    "a group takes one scale pair, so G must divide the elements per scale factor ({per})"
                ),
            });
        }
    }
    let p_top = f.a.emax() + f.b.emax() + 2;
    let p_lsb = f.a.min_lsb_exp() + f.b.min_lsb_exp();
    let log_g = (usize::BITS - (g.g.max(1) - 1).leading_zeros()) as i32;
    let need = p_top + log_g + 1 + g.f as i32;
    if need <= 64 && p_top + log_g - p_lsb <= 120 {
        return Ok(());
    }
    Err(UnitFileError::Value {
        model: m.name().into(),
        key: "F".into(),
        value: g.f.to_string(),
        msg: format!(
            "a group sum of {} x {} products (up to 2^{p_top}, last bits at 2^{p_lsb}) times G = {} \
             with F fraction bits needs {need} bits; GST-FDPA keeps 64 (fp4, fp6 and most fp8 \
             element formats fit)",
            f.a.name, f.b.name, g.g
        ),
    })
}

/// The format a model rounds to (`rho`, or FTZ-MulAdd's `acc`) must hold only values D can
/// store: a result rounded to a wider format would be encoded into a word wider than D's.
pub(super) fn check_output_formats(m: &Model, f: &Formats) -> Result<(), UnitFileError> {
    let (key, fmt) = match m {
        Model::Fma(_) | Model::IDpa(_) => return Ok(()),
        Model::FtzMulAdd(p) => ("acc", p.acc),
        Model::EFdpa(EFdpa { out })
        | Model::TFdpa(TFdpa { out, .. })
        | Model::StFdpa(StFdpa { out, .. })
        | Model::GstFdpa(GstFdpa { out, .. })
        | Model::TrFdpa(TrFdpa { out, .. })
        | Model::GtrFdpa(GtrFdpa { out, .. })
        | Model::SlicedFdpa(SlicedFdpa {
            pass: TFdpa { out, .. },
            ..
        }) => ("rho", out.rho.fmt),
    };
    if fmt.values_within(&f.d) {
        return Ok(());
    }
    Err(UnitFileError::Value {
        model: m.name().into(),
        key: key.into(),
        value: fmt.name.into(),
        msg: format!(
            "{} holds values that D ({}) cannot store; use D's format or a narrower one",
            fmt.name, f.d.name
        ),
    })
}

/// I-DPA sums integers: A, B, C and D must be integer formats, D the 32-bit accumulator
/// (the model wraps or clamps into it); every other model reads floating-point words and
/// would decode an integer's bits as a float.
pub(super) fn check_integer_formats(m: &Model, f: &Formats) -> Result<(), UnitFileError> {
    let all = [("a", f.a), ("b", f.b), ("c", f.c), ("d", f.d)];
    let shape = |msg: String| Err(UnitFileError::Shape(msg));
    match m {
        Model::IDpa(_) => {
            if let Some((which, g)) = all.iter().find(|(_, g)| !g.integer) {
                return shape(format!(
                    "I-DPA sums integers, but \"{which}\" is {} (expected s8, u8, s4, u4, b1 or s32)",
                    g.name
                ));
            }
            if f.c.width() != 32 || f.d.width() != 32 || !f.d.signed {
                return shape(format!(
                    "I-DPA accumulates in s32: \"c\" and \"d\" must be s32 (they are {} and {})",
                    f.c.name, f.d.name
                ));
            }
            if f.scale.is_some() {
                return shape("I-DPA takes no block scale factors".into());
            }
            Ok(())
        }
        _ => match all.iter().find(|(_, g)| g.integer) {
            Some((which, g)) => shape(format!(
                "{} reads floating-point words, but \"{which}\" is the integer format {} (integer units use I-DPA)",
                m.name(),
                g.name
            )),
            None => Ok(()),
        },
    }
}
