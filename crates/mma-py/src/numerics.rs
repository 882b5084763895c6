//! The numbers the Python half used to compute itself, computed here so that every number the
//! package returns comes from the engine (issue 57, "Numerics only in Rust"): the `mma.torch`
//! epilogue (the library's binary32 addition and narrowing, `mma::library::{Fp32, Narrow}`)
//! and the error campaign's exact sums and errors in ulps (`mma::codec::exact`). Python
//! converts types and shapes only. The table of formats is `format_table` (lib.rs), the
//! rounding of samples and the reading of scales `round_values` and `parse_f32_exact`
//! (values.rs).
//!
//! Exact values cross into Python as `fractions.Fraction` (the type the campaign's report
//! documents) or, inside the campaign's partial reports, as `(mantissa, exponent)` pairs of
//! Python ints meaning `mantissa · 2^exponent`: dyadic rationals, which is all an exact dot
//! product of binary floating-point words can be.
//!
//! The exact sum is the codec's (`mma::codec::exact::exact_dot_scaled`: the core's `ExactDot`
//! as one big integer); the error in ulps is the codec's too, kept exact (`ulps_exact`, the
//! one ulp-error function; the command line rounds it to `f64`), so that a campaign's histogram
//! bins, its count of correctly rounded results and its mean come from exact values.

use std::cmp::Ordering;

use mma::catalog::Vendor;
use mma::codec::exact::{exact_dot_scaled, ulps_exact, ExactSum};
use mma::format::{FP32, FP64};
use mma::library::{Fp32, Narrow};
use mma::round::{round, Exact, RoundOpts, Rounding};
use mma::{Format, Formats, NanStyle, Value};
use num_bigint::{BigInt, Sign};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::formats::{check_valid, format_named, valid_words};
use crate::unit::PyUnit;

// The mma.torch epilogue -------------------------------------------------------------------

/// The NaN a vendor's library writes (assumed, unverified for AMD: `mma.torch`'s module
/// documents it): NVIDIA's cuBLASLt every bit but the sign, as `mma::library` writes it; AMD
/// the IEEE default quiet NaN.
fn vendor_nan(vendor: &str) -> PyResult<NanStyle> {
    match Vendor::parse(vendor) {
        Ok(Vendor::Nvidia) => Ok(NanStyle::AllOnes),
        Ok(Vendor::Amd) => Ok(NanStyle::DefaultQuiet),
        _ => Err(PyValueError::new_err(format!(
            "vendor: {vendor:?} has no epilogue NaN (nvidia or amd)"
        ))),
    }
}

/// A word of `f` as the binary32 word of the same value: exact, as the caller takes f32, f16
/// and bf16 only, whose values binary32 holds (a NaN is binary32's default NaN; the result's
/// NaN is the vendor's anyway). Anything else would be a NaN too, never a panic.
fn to_fp32(f: &Format, w: u64) -> u32 {
    FP32.encode_exact(f.decode(w)).unwrap_or(FP32.default_nan()) as u32
}

/// The epilogue `mma.torch` assumes after a product's D: each D word (of `d_fmt`: f32, f16 or
/// bf16) plus, when given, the bias/C word (of `out_fmt`) in one binary32 addition rounded to
/// nearest even, then rounded to nearest even into `out_fmt` (f32, bf16 or f16; overflow to
/// Inf, gradual underflow); a NaN result is `vendor`'s NaN. Integer arithmetic throughout
/// (`mma::library`'s steps), so no floating-point mode of the host changes it. Returns the
/// output words (uint64).
#[pyfunction]
#[pyo3(signature = (vendor, d_fmt, d, out_fmt, add=None))]
pub(crate) fn epilogue<'py>(
    py: Python<'py>,
    vendor: &str,
    d_fmt: &str,
    d: PyReadonlyArray1<'py, u64>,
    out_fmt: &str,
    add: Option<PyReadonlyArray1<'py, u64>>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let nan = vendor_nan(vendor)?;
    let (fd, fo) = (format_named(d_fmt)?, format_named(out_fmt)?);
    for (what, f) in [("d_fmt", &fd), ("out_fmt", &fo)] {
        if !matches!(f.name, "f32" | "f16" | "bf16") {
            return Err(PyValueError::new_err(format!(
                "{what}: the epilogue takes f32, f16 or bf16, not {}",
                f.name
            )));
        }
    }
    let dw = valid_words("d", &fd, &d)?;
    let aw = match &add {
        Some(a) => Some(valid_words("add", &fo, a)?),
        None => None,
    };
    if let Some(a) = aw {
        if a.len() != dw.len() {
            return Err(PyValueError::new_err(format!(
                "add: {} words for {} D words",
                a.len(),
                dw.len()
            )));
        }
    }
    let fp = Fp32::new();
    let narrow = Narrow::new(fo, false);
    let nan_word = nan.bits(&fo);
    let out: Vec<u64> = dw
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            let mut y = to_fp32(&fd, w);
            if let Some(a) = aw {
                y = fp.add(y, to_fp32(&fo, a[i]));
            }
            let o = if fo == FP32 {
                u64::from(y)
            } else {
                narrow.apply(y)
            };
            if fo.decode(o).is_nan() {
                nan_word
            } else {
                o
            }
        })
        .collect();
    Ok(out.into_pyarray(py))
}

// Exact values ----------------------------------------------------------------------------

/// `mant · 2^exp`, exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Dyadic {
    mant: BigInt,
    exp: i64,
}

impl Dyadic {
    fn zero() -> Dyadic {
        Dyadic {
            mant: BigInt::ZERO,
            exp: 0,
        }
    }

    /// The same value with an odd mantissa (or `0 · 2^0`), so that equal values are equal.
    fn normal(mut self) -> Dyadic {
        match self.mant.trailing_zeros() {
            None => Dyadic::zero(),
            Some(t) => {
                self.mant >>= t;
                self.exp += t as i64;
                self
            }
        }
    }

    /// Both mantissas on the lower of the two exponents.
    fn aligned(&self, o: &Dyadic) -> (BigInt, BigInt, i64) {
        let lo = self.exp.min(o.exp);
        (
            &self.mant << (self.exp - lo) as u64,
            &o.mant << (o.exp - lo) as u64,
            lo,
        )
    }

    fn add(&self, o: &Dyadic) -> Dyadic {
        let (a, b, lo) = self.aligned(o);
        Dyadic {
            mant: a + b,
            exp: lo,
        }
        .normal()
    }

    fn cmp(&self, o: &Dyadic) -> Ordering {
        let (a, b, _) = self.aligned(o);
        a.cmp(&b)
    }

    fn abs(&self) -> Dyadic {
        Dyadic {
            mant: self.mant.magnitude().clone().into(),
            exp: self.exp,
        }
    }

    fn pow2(e: i64) -> Dyadic {
        Dyadic {
            mant: BigInt::from(1),
            exp: e,
        }
    }

    /// The engine's exact dot product (`mma::codec::exact`, the core's `ExactDot` as one big
    /// integer), when finite.
    fn of_exact(x: &ExactSum) -> Option<Dyadic> {
        match x {
            ExactSum::Finite { value, exp } => Some(
                Dyadic {
                    mant: value.clone(),
                    exp: *exp,
                }
                .normal(),
            ),
            _ => None,
        }
    }

    /// `self / n` as the nearest `f64` (ties to even), as Python's `float(Fraction)` gives
    /// it (`OverflowError` beyond the largest finite value, as Python raises).
    fn div_to_f64(&self, n: u64) -> PyResult<f64> {
        if self.mant.sign() == Sign::NoSign {
            return Ok(0.0);
        }
        let num = self.mant.magnitude();
        let den = num_bigint::BigUint::from(n);
        // A quotient of 71 to 73 bits: more than f64's 53 and a guard bit, below u128's
        // width, so `round` sees every bit that decides (and the remainder as sticky).
        let lsb = self.exp + num.bits() as i64 - den.bits() as i64 - 72;
        let shift = self.exp - lsb;
        let (num, den) = if shift >= 0 {
            (num << shift as u64, den)
        } else {
            (num.clone(), den << (-shift) as u64)
        };
        let (q, r) = (&num / &den, &num % &den);
        let q = q
            .to_u64_digits()
            .iter()
            .rev()
            .fold(0u128, |acc, &l| acc << 64 | l as u128);
        let exp = i32::try_from(lsb).map_err(|_| {
            PyOverflowError::new_err("integer division result too large for a float")
        })?;
        let v = round(
            &FP64,
            Exact {
                neg: self.mant.sign() == Sign::Minus,
                mag: q,
                exp,
                sticky: r.bits() != 0,
            },
            Rounding::NearestEven,
            RoundOpts::IEEE,
        );
        match v {
            Value::Inf { .. } | Value::Nan => Err(PyOverflowError::new_err(
                "integer division result too large for a float",
            )),
            v => Ok(v.to_f64()),
        }
    }

    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok((self.mant.clone(), self.exp).into_pyobject(py)?.into_any())
    }

    fn from_py(x: &Bound<'_, PyAny>) -> PyResult<Dyadic> {
        let (mant, exp): (BigInt, i64) = x.extract()?;
        Ok(Dyadic { mant, exp }.normal())
    }

    /// The value as a `fractions.Fraction` (the type the report documents).
    fn to_fraction<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let fraction = py.import("fractions")?.getattr("Fraction")?;
        if self.exp >= 0 {
            fraction.call1((&self.mant << self.exp as u64,))
        } else {
            fraction.call1((self.mant.clone(), BigInt::from(1) << (-self.exp) as u64))
        }
    }

    /// An `int` or a `fractions.Fraction` whose denominator is a power of two.
    fn from_rational(x: &Bound<'_, PyAny>) -> PyResult<Dyadic> {
        let num: BigInt = x.getattr("numerator")?.extract()?;
        let den: BigInt = x.getattr("denominator")?.extract()?;
        let t = den.trailing_zeros().unwrap_or(0);
        if den.sign() != Sign::Plus || den != BigInt::from(1) << t {
            return Err(PyValueError::new_err(format!(
                "exact: {num}/{den} is not a binary fraction (a dot product of binary \
                 floating-point words is one)"
            )));
        }
        Ok(Dyadic {
            mant: num,
            exp: -(t as i64),
        }
        .normal())
    }
}

/// `(D − exact)` in ulps of D's format at the exact value's binade (the subnormal quantum at
/// the bottom), signed, exactly: the codec's `ulps_exact` (the command line's `ulp_error`
/// before its rounding to `f64`). `None` where D is not finite (an infinite error).
fn ulp_error_exact(fd: &Format, d: u64, exact: &Dyadic) -> Option<Dyadic> {
    ulps_exact(fd, d, &exact.mant, exact.exp).map(|(mant, exp)| Dyadic { mant, exp }.normal())
}

fn formats_named(
    a: &str,
    b: &str,
    c: &str,
    d: &str,
    scale: Option<(&str, usize)>,
) -> PyResult<Formats> {
    let scale = match scale {
        Some((s, per)) if per > 0 => Some((format_named(s)?, per)),
        Some(_) => return Err(PyValueError::new_err("scale: a block of 0 elements")),
        None => None,
    };
    Ok(Formats {
        a: format_named(a)?,
        b: format_named(b)?,
        c: format_named(c)?,
        d: format_named(d)?,
        scale,
    })
}

/// The exact value of `Σ a_k·b_k·scale_a[k/n]·scale_b[k/n] + c` for storage words (the core's
/// `ExactDot`): a `fractions.Fraction`, or a float NaN or ±Inf. `scale`: `(format, n)` for
/// block-scaled words (`scale_a`, `scale_b`: one per `n` elements).
#[pyfunction]
#[pyo3(signature = (a_fmt, b_fmt, c_fmt, a, b, c, scale=None, scale_a=vec![], scale_b=vec![]))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn exact_dot<'py>(
    py: Python<'py>,
    a_fmt: &str,
    b_fmt: &str,
    c_fmt: &str,
    a: Vec<u64>,
    b: Vec<u64>,
    c: u64,
    scale: Option<(String, usize)>,
    scale_a: Vec<u64>,
    scale_b: Vec<u64>,
) -> PyResult<Bound<'py, PyAny>> {
    let f = formats_named(
        a_fmt,
        b_fmt,
        c_fmt,
        c_fmt,
        scale.as_ref().map(|(s, n)| (s.as_str(), *n)),
    )?;
    check_words(&f, &a, &b, c)?;
    if a.len() != b.len() {
        return Err(PyValueError::new_err(format!(
            "a, b: {} and {} words; expected the same length",
            a.len(),
            b.len()
        )));
    }
    if let Some((sf, per)) = &f.scale {
        let need = a.len().div_ceil(*per);
        for (what, s) in [("scale_a", &scale_a), ("scale_b", &scale_b)] {
            if s.len() != need {
                return Err(PyValueError::new_err(format!(
                    "{what}: {} words; expected {need} (one per {per} elements)",
                    s.len()
                )));
            }
            check_valid(what, sf, s)?;
        }
    }
    let x = exact_dot_scaled(&f, &a, &b, c, &scale_a, &scale_b);
    match (&x, Dyadic::of_exact(&x)) {
        (_, Some(v)) => v.to_fraction(py),
        (ExactSum::Inf { neg: true }, _) => Ok(f64::NEG_INFINITY.into_pyobject(py)?.into_any()),
        (ExactSum::Inf { .. }, _) => Ok(f64::INFINITY.into_pyobject(py)?.into_any()),
        _ => Ok(f64::NAN.into_pyobject(py)?.into_any()),
    }
}

fn check_words(f: &Formats, a: &[u64], b: &[u64], c: u64) -> PyResult<()> {
    for (what, fmt, w) in [
        ("a", &f.a, a),
        ("b", &f.b, b),
        ("c", &f.c, std::slice::from_ref(&c)),
    ] {
        check_valid(what, fmt, w)?;
    }
    Ok(())
}

/// The error of the D word `d` (format `d_fmt`) against an exact value (an `int` or a
/// `fractions.Fraction` with a power-of-two denominator, as `exact_dot` returns), in ulps of
/// D's format at the exact value's binade (the subnormal quantum at the bottom), signed and
/// exact, as a `Fraction`; None where D is Inf or NaN.
#[pyfunction]
pub(crate) fn ulp_error<'py>(
    py: Python<'py>,
    d_fmt: &str,
    d: u64,
    exact: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let f = format_named(d_fmt)?;
    if !f.is_valid_encoding(d) {
        return Err(PyValueError::new_err(format!(
            "d = {d:#x} is not a valid {} word",
            f.name
        )));
    }
    let x = Dyadic::from_rational(exact)?;
    ulp_error_exact(&f, d, &x)
        .map(|e| e.to_fraction(py))
        .transpose()
}

// Error campaigns ---------------------------------------------------------------------------

/// The histogram's upper edges, in ulps: 0, 1/2, then 2^0 to 2^20 (a last bin above).
const EDGE_EXPS: std::ops::RangeInclusive<i64> = 0..=20;

/// The labels of the campaign histogram's bins, in order: `0`, `(0, 1/2]`, `(1/2, 1]`,
/// `(1, 2]`, ..., `(2^19, 2^20]`, `> 2^20` (powers written out).
fn bin_labels() -> Vec<String> {
    let mut out = vec![
        "0".to_string(),
        "(0, 1/2]".to_string(),
        "(1/2, 1]".to_string(),
    ];
    for j in EDGE_EXPS.skip(1) {
        out.push(format!("({}, {}]", 1u64 << (j - 1), 1u64 << j));
    }
    out.push(format!("> {}", 1u64 << EDGE_EXPS.end()));
    out
}

/// The bin of an error's magnitude: the first edge it does not exceed.
fn bin_of(err: &Dyadic) -> usize {
    let edges = [Dyadic::zero(), Dyadic::pow2(-1)]
        .into_iter()
        .chain(EDGE_EXPS.map(Dyadic::pow2));
    edges
        .enumerate()
        .find(|(_, e)| err.cmp(e) != Ordering::Greater)
        .map_or(EDGE_EXPS.count() + 2, |(i, _)| i)
}

/// The labels of the campaign histogram's bins, in order.
#[pyfunction]
pub(crate) fn campaign_bins() -> Vec<String> {
    bin_labels()
}

/// A contiguous array's words; `what` names it in the error.
fn flat<'a, D: numpy::ndarray::Dimension>(
    x: &'a numpy::PyReadonlyArray<'_, u64, D>,
    what: &str,
) -> PyResult<&'a [u64]> {
    x.as_slice()
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

/// The scale words of a batch: `count` rows of `per_row` (none without block scaling).
fn scale_rows<'a>(
    s: &'a Option<PyReadonlyArray2<'_, u64>>,
    what: &str,
    count: usize,
    per_row: usize,
) -> PyResult<&'a [u64]> {
    match s {
        None if per_row == 0 => Ok(&[]),
        Some(s) if per_row > 0 && s.shape() == [count, per_row] => flat(s, what),
        _ => Err(PyValueError::new_err(format!(
            "{what}: expected {per_row} scale words per row"
        ))),
    }
}

/// One batch of an error campaign: rows of format codes of A and B (`count × k`, uint64, one
/// element per word), C's codes and D's words (`count`), and, for block-scaled units, the
/// scale words (`count × k/n`), against the exact value of each dot product. Returns a partial
/// report: `finite` (D finite, compared), `nonfinite`, `correctly_rounded` (an error below
/// half an ulp, or of exactly half with an even D word), `sum` of the errors' magnitudes and
/// the `hist`ogram counts (bins of `campaign_bins`), and `worst`: None or the first row of the
/// largest error (`row`, `err` its magnitude, `ulps` signed, `exact`). Exact values are
/// `(mantissa, exponent)` pairs.
#[pyfunction]
#[pyo3(signature = (unit, a, b, c, d, scale_a=None, scale_b=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn campaign_batch<'py>(
    py: Python<'py>,
    unit: &PyUnit,
    a: PyReadonlyArray2<'py, u64>,
    b: PyReadonlyArray2<'py, u64>,
    c: PyReadonlyArray1<'py, u64>,
    d: PyReadonlyArray1<'py, u64>,
    scale_a: Option<PyReadonlyArray2<'py, u64>>,
    scale_b: Option<PyReadonlyArray2<'py, u64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let f = &unit.unit.formats;
    let (count, k) = (a.shape()[0], a.shape()[1]);
    if b.shape() != a.shape() || c.shape() != [count] || d.shape() != [count] {
        return Err(PyValueError::new_err(format!(
            "shapes do not fit: a {:?}, b {:?}, c {:?}, d {:?}; expected [n, K], [n, K], [n], [n]",
            a.shape(),
            b.shape(),
            c.shape(),
            d.shape()
        )));
    }
    let (aw, bw, cw, dw) = (
        flat(&a, "a")?,
        flat(&b, "b")?,
        flat(&c, "c")?,
        flat(&d, "d")?,
    );
    let per_row = match &f.scale {
        Some((_, per)) => k.div_ceil(*per),
        None => 0,
    };
    let (sa, sb) = (
        scale_rows(&scale_a, "scale_a", count, per_row)?,
        scale_rows(&scale_b, "scale_b", count, per_row)?,
    );
    for (i, &cc) in cw.iter().enumerate() {
        check_words(f, &aw[i * k..(i + 1) * k], &bw[i * k..(i + 1) * k], cc)?;
    }
    check_valid("d", &f.d, dw)?;
    if let Some((sf, _)) = &f.scale {
        check_valid("scale_a", sf, sa)?;
        check_valid("scale_b", sf, sb)?;
    }
    let bins = bin_labels().len();
    let (mut finite, mut nonfinite, mut correct) = (0u64, 0u64, 0u64);
    let mut sum = Dyadic::zero();
    let mut hist = vec![0u64; bins];
    let mut worst: Option<(usize, Dyadic, Dyadic, Dyadic)> = None;
    let half = Dyadic::pow2(-1);
    for (i, (&cc, &dd)) in cw.iter().zip(dw).enumerate() {
        let (row, srow) = (i * k..(i + 1) * k, i * per_row..(i + 1) * per_row);
        let x = exact_dot_scaled(
            f,
            &aw[row.clone()],
            &bw[row],
            cc,
            &sa[srow.clone()],
            &sb[srow],
        );
        let Some(exact) = Dyadic::of_exact(&x) else {
            return Err(PyValueError::new_err(format!(
                "row {i}: the exact value is not finite ({x:?}); a campaign's operands are"
            )));
        };
        let Some(signed) = ulp_error_exact(&f.d, dd, &exact) else {
            nonfinite += 1;
            continue;
        };
        let err = signed.abs();
        finite += 1;
        sum = sum.add(&err);
        let c_half = err.cmp(&half);
        if c_half == Ordering::Less || (c_half == Ordering::Equal && dd % 2 == 0) {
            correct += 1;
        }
        hist[bin_of(&err)] += 1;
        if worst
            .as_ref()
            .is_none_or(|w| err.cmp(&w.1) == Ordering::Greater)
        {
            worst = Some((i, err, signed, exact));
        }
    }
    let out = PyDict::new(py);
    out.set_item("finite", finite)?;
    out.set_item("nonfinite", nonfinite)?;
    out.set_item("correctly_rounded", correct)?;
    out.set_item("sum", sum.to_py(py)?)?;
    out.set_item("hist", hist)?;
    match worst {
        None => out.set_item("worst", py.None())?,
        Some((row, err, ulps, exact)) => {
            let w = PyDict::new(py);
            w.set_item("row", row)?;
            w.set_item("err", err.to_py(py)?)?;
            w.set_item("ulps", ulps.to_py(py)?)?;
            w.set_item("exact", exact.to_py(py)?)?;
            out.set_item("worst", w)?;
        }
    }
    Ok(out)
}

/// Partial reports (`campaign_batch`'s, in task order, each `worst` completed by the caller
/// with any further keys) merged into the campaign's figures: `finite`, `nonfinite`,
/// `correctly_rounded`, `max_ulps` and `mean_ulps` (floats, nearest to the exact ones; NaN
/// mean without a finite result), `histogram` (label to count) and `worst`: a copy of the
/// first part's worst of the largest error (ties keep the lowest sample), without `err`,
/// `ulps` as a float and `exact` as a `fractions.Fraction`; or None.
#[pyfunction]
pub(crate) fn campaign_merge<'py>(
    py: Python<'py>,
    parts: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let labels = bin_labels();
    let (mut finite, mut nonfinite, mut correct) = (0u64, 0u64, 0u64);
    let mut sum = Dyadic::zero();
    let mut hist = vec![0u64; labels.len()];
    let mut worst: Option<(Dyadic, Bound<'py, PyAny>)> = None;
    for p in &parts {
        finite += p.get_item("finite")?.extract::<u64>()?;
        nonfinite += p.get_item("nonfinite")?.extract::<u64>()?;
        correct += p.get_item("correctly_rounded")?.extract::<u64>()?;
        sum = sum.add(&Dyadic::from_py(&p.get_item("sum")?)?);
        let h: Vec<u64> = p.get_item("hist")?.extract()?;
        if h.len() != hist.len() {
            return Err(PyValueError::new_err(format!(
                "hist: {} bins, expected {}",
                h.len(),
                hist.len()
            )));
        }
        for (t, x) in hist.iter_mut().zip(h) {
            *t += x;
        }
        let w = p.get_item("worst")?;
        if !w.is_none() {
            let err = Dyadic::from_py(&w.get_item("err")?)?;
            if worst
                .as_ref()
                .is_none_or(|(e, _)| err.cmp(e) == Ordering::Greater)
            {
                worst = Some((err, w));
            }
        }
    }
    let out = PyDict::new(py);
    out.set_item("finite", finite)?;
    out.set_item("nonfinite", nonfinite)?;
    out.set_item("correctly_rounded", correct)?;
    let max = match &worst {
        Some((err, _)) => err.div_to_f64(1)?,
        None => 0.0,
    };
    out.set_item("max_ulps", max)?;
    let mean = if finite > 0 {
        sum.div_to_f64(finite)?
    } else {
        f64::NAN
    };
    out.set_item("mean_ulps", mean)?;
    let histogram = PyDict::new(py);
    for (label, n) in labels.iter().zip(&hist) {
        histogram.set_item(label, n)?;
    }
    out.set_item("histogram", histogram)?;
    match worst {
        None => out.set_item("worst", py.None())?,
        Some((_, w)) => {
            let w = w.call_method0("copy")?;
            let ulps = Dyadic::from_py(&w.get_item("ulps")?)?.div_to_f64(1)?;
            w.set_item("ulps", ulps)?;
            let exact = Dyadic::from_py(&w.get_item("exact")?)?;
            w.set_item("exact", exact.to_fraction(py)?)?;
            w.del_item("err")?;
            out.set_item("worst", w)?;
        }
    }
    Ok(out)
}
