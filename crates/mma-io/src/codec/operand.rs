//! Operands as people write them: decimal (`-0.75`, `1e-3`, `inf`, `nan`), C99 hex-float
//! (`0x1.8p-3`) or raw bits (`bits:3c00`), converted *exactly* to a format's storage word.
//!
//! The rule that keeps the case-file spelling (a bare word of exactly the storage width's hex
//! digits, `3c00` for f16) without guessing:
//!
//! 1. `bits:H`: the raw encoding, 1 to the storage width's hex digits (`bits:3c00`, `bits:7`).
//! 2. `0x…` with a `p` exponent: a C99 hex-float (`0x1.8p-3`, `-0x1p+4`). `0x` followed by
//!    hex digits only is the case-file word (`0x3c00`); any other `0x` form is an error.
//! 3. A word that reads as a decimal number is that number. When the same word is also a
//!    case-file word (exactly the storage width's hex digits: `1000` or `3e00` for f16, `38`
//!    for fp8) and the two readings give different bits, it is ambiguous and an error that
//!    names both; where they agree (`0000`, `00`) it is accepted.
//! 4. Any other word of hex digits (`3c00`) is a case-file word, read as case files read it
//!    (exactly the storage width).
//!
//! Integer formats (s8, u8, s4, u4, b1, s32) take whole numbers: a decimal integer (`-128`,
//! `255`; `10` is ten, never a case-file word), `0x…` hex of the word (`0x80` is s8's -128;
//! the caller reads it), or `bits:`. A value outside the format's range is an error naming the
//! range; fractions, NaN and infinities are errors whatever the rounding mode.
//!
//! Decimals and hex-floats are parsed into an exact rational (`num-bigint`) and rounded once,
//! straight from that value, by the library's single rounding routine
//! ([`mma_core::round::round`]). A value the format cannot hold exactly is an error naming
//! its two neighbours, unless a rounding mode is given.
//!
//! ```
//! use mma_core::format::{E4M3, FP16};
//! use mma_io::codec::operand::{encode, parse_number};
//! let x = parse_number("-0.75").unwrap().unwrap();
//! assert_eq!(encode(&FP16, &x, None), Ok(0xba00)); // -1.1b × 2^-1
//! let big = parse_number("1000").unwrap().unwrap();
//! assert!(encode(&E4M3, &big, None).is_err()); // above 448, and e4m3 has no Inf
//! ```

use super::decimal::to_exact;
use mma_core::round::{round, Exact, RoundOpts, Rounding};
use mma_core::{Format, Value};
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{ToPrimitive, Zero};

/// A number read from the command line, exactly: `(-1)^neg · mag · 2^exp2 · 10^exp10`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Number {
    Nan,
    Inf {
        neg: bool,
    },
    Finite {
        neg: bool,
        mag: BigUint,
        exp2: i64,
        exp10: i64,
    },
}

/// Why a word is not an operand of a format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OperandError {
    #[error("{0:?} is not a number (decimal such as -0.75 or 1e-3, hex-float such as 0x1.8p-3, inf, nan, or bits:HEX)")]
    Syntax(String),
    #[error("{word:?} is ambiguous for {format}: as a decimal it is {decimal}, as a case-file word of {format} it is {bits:#x}; write bits:{word} or a decimal point ({word}.0)")]
    Ambiguous {
        word: String,
        format: &'static str,
        decimal: String,
        bits: u64,
    },
    #[error("{word:?}: bits: takes 1 to {digits} hex digits of a valid {format} encoding")]
    Bits {
        word: String,
        digits: usize,
        format: &'static str,
    },
    #[error("{word:?}: {format} {why}")]
    NotInFormat {
        word: String,
        format: &'static str,
        why: String,
    },
    #[error("{word} is outside {format}'s range {lo}..{hi}")]
    IntRange {
        word: String,
        format: &'static str,
        lo: i64,
        hi: i64,
    },
    #[error("{0:?} is not an integer operand (a decimal integer such as -128 or 255, a hex word such as 0x80, or bits:HEX)")]
    IntSyntax(String),
    #[error("{word:?} is not exactly representable in {format}: it lies between {below} and {above}; give --round rne (or rz, ru, rd, rna) to round")]
    Inexact {
        word: String,
        format: &'static str,
        below: String,
        above: String,
    },
}

/// Longest word read (a guard against pathological input; `1e-3` needs 4 characters).
const MAX_LEN: usize = 4096;
/// Exponents are clamped to this magnitude: far beyond every format, far within `i64`.
const EXP_CLAMP: i64 = 1 << 40;

/// Reads a decimal, hex-float, `inf` or `nan` word. `Ok(None)`: not a number of those forms
/// (the caller may try it as bits). Signs `+`/`-` are accepted in front.
pub fn parse_number(word: &str) -> Result<Option<Number>, OperandError> {
    if word.len() > MAX_LEN {
        let head: String = word.chars().take(32).collect();
        return Err(OperandError::Syntax(format!("{head}…")));
    }
    let (neg, body) = match word.as_bytes().first() {
        Some(b'-') => (true, &word[1..]),
        Some(b'+') => (false, &word[1..]),
        _ => (false, word),
    };
    let lower = body.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" => return Ok(Some(Number::Inf { neg })),
        "nan" => return Ok(Some(Number::Nan)),
        _ => {}
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        if !hex.contains('p') {
            return Ok(None);
        }
        return hex_float(hex, neg)
            .map(Some)
            .ok_or_else(|| OperandError::Syntax(word.to_string()));
    }
    Ok(decimal(&lower, neg))
}

/// `digits[.digits][e[+-]digits]` (at least one digit in the significand).
fn decimal(s: &str, neg: bool) -> Option<Number> {
    let (sig, exp) = match s.find('e') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int, frac) = sig.split_once('.').unwrap_or((sig, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let e = match exp {
        None => 0,
        Some(t) => exponent(t)?,
    };
    let digits = format!("{int}{frac}");
    let mag = BigUint::parse_bytes(digits.as_bytes(), 10).unwrap_or_default();
    Some(Number::Finite {
        neg,
        mag,
        exp2: 0,
        exp10: e - frac.len() as i64,
    })
}

/// `hexdigits[.hexdigits]p[+-]digits` after the `0x`.
fn hex_float(s: &str, neg: bool) -> Option<Number> {
    let (sig, exp) = s.split_once('p')?;
    let (int, frac) = sig.split_once('.').unwrap_or((sig, ""));
    if (int.is_empty() && frac.is_empty())
        || !int
            .bytes()
            .chain(frac.bytes())
            .all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    let e = exponent(exp)?;
    let digits = format!("{int}{frac}");
    let mag = BigUint::parse_bytes(digits.as_bytes(), 16).unwrap_or_default();
    Some(Number::Finite {
        neg,
        mag,
        exp2: e - 4 * frac.len() as i64,
        exp10: 0,
    })
}

/// A signed decimal exponent, clamped to ±[`EXP_CLAMP`].
fn exponent(t: &str) -> Option<i64> {
    let (neg, d) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if d.is_empty() || !d.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let v = d
        .trim_start_matches('0')
        .parse::<i64>()
        .unwrap_or(if d.trim_start_matches('0').is_empty() {
            0
        } else {
            EXP_CLAMP
        })
        .min(EXP_CLAMP);
    Some(if neg { -v } else { v })
}

/// Whether `fmt` can encode zero (ue8m0's code 0 is 2^-127).
fn has_zero(fmt: &Format) -> bool {
    fmt.subnormals
}

/// A storage word with its value in the shortest decimal that reads back to it.
pub fn describe(fmt: &Format, v: Value) -> String {
    if v.is_nan() && !fmt.has_nan() {
        return "nothing".into();
    }
    let bits = fmt.encode(v, fmt.default_nan());
    let text = match v {
        // The exact value where it is short (the neighbours of a value differ in the last
        // digits, which the shortest round-trip form would hide), else the shortest form.
        Value::Finite { neg, sig, exp } => {
            let full = super::decimal::exact_decimal(neg, &BigUint::from(sig), exp as i64);
            if full.len() <= 24 {
                full
            } else {
                super::decimal::shortest(fmt, bits)
            }
        }
        _ => super::decimal::shortest(fmt, bits),
    };
    format!("{:#0w$x} ({text})", bits, w = fmt.hex_digits() + 2)
}

/// Rounds a number to `fmt` with `mode`, IEEE overflow rules (Inf where the format has it,
/// else NaN where it has NaN, else its largest finite value). The word is for messages.
fn round_to(fmt: &Format, x: &Number, mode: Rounding, word: &str) -> Result<Value, OperandError> {
    let not_in = |why: String| OperandError::NotInFormat {
        word: word.to_string(),
        format: fmt.name,
        why,
    };
    let v = match x {
        Number::Nan if !fmt.has_nan() => return Err(not_in("has no NaN".into())),
        Number::Nan => Value::Nan,
        Number::Inf { neg } => {
            mma_core::round::convert(fmt, Value::Inf { neg: *neg }, mode, RoundOpts::IEEE)
        }
        Number::Finite {
            neg,
            mag,
            exp2,
            exp10,
        } => round(
            fmt,
            to_exact(*neg, mag, *exp2, *exp10),
            mode,
            RoundOpts::IEEE,
        ),
    };
    if v.is_neg() && !fmt.signed && !v.is_zero() {
        return Err(not_in("is unsigned: it has no negative values".into()));
    }
    if v.is_zero() && !has_zero(fmt) {
        return Err(not_in(format!(
            "has no zero: its smallest value is 2^{}",
            fmt.emin()
        )));
    }
    Ok(v)
}

/// The storage word of `x` in `fmt`. Without `mode`, `x` must be exactly representable
/// (infinities only in formats that have them; -0 in a format without negative zero is +0,
/// the same number); with it, `x` is rounded once in that direction.
pub fn encode(fmt: &Format, x: &Number, mode: Option<Rounding>) -> Result<u64, OperandError> {
    encode_word(fmt, x, mode, &display_number(x))
}

/// [`encode`], naming the word as the user wrote it in messages.
pub fn encode_word(
    fmt: &Format,
    x: &Number,
    mode: Option<Rounding>,
    word: &str,
) -> Result<u64, OperandError> {
    if fmt.integer {
        return encode_int(fmt, x, word);
    }
    let v = match mode {
        Some(m) => round_to(fmt, x, m, word)?,
        None => {
            if let Number::Nan = x {
                return round_to(fmt, x, Rounding::NearestEven, word)
                    .map(|v| fmt.encode(v, fmt.default_nan()));
            }
            if let Number::Inf { .. } = x {
                if !fmt.has_inf() {
                    return Err(OperandError::NotInFormat {
                        word: word.into(),
                        format: fmt.name,
                        why: "has no infinity; give --round MODE for the format's overflow rule"
                            .into(),
                    });
                }
            }
            let exact = match x {
                Number::Finite {
                    neg,
                    mag,
                    exp2,
                    exp10,
                } => {
                    let e = to_exact(*neg, mag, *exp2, *exp10);
                    is_exactly(&e, round(fmt, e, Rounding::NearestEven, RoundOpts::IEEE))
                }
                _ => true,
            };
            if exact {
                round_to(fmt, x, Rounding::NearestEven, word)?
            } else {
                let lo = round_to(fmt, x, Rounding::Down, word);
                let hi = round_to(fmt, x, Rounding::Up, word);
                let saturated = matches!((&lo, &hi), (Ok(a), Ok(b)) if a == b);
                let show = |r: Result<Value, OperandError>, top: bool| match r {
                    Ok(v) if v.is_nan() => format!("the overflow ({} has no infinity)", fmt.name),
                    Ok(_) if top && saturated => {
                        format!("the overflow ({} has no infinity or NaN)", fmt.name)
                    }
                    Ok(v) => describe(fmt, v),
                    Err(_) => "nothing".into(),
                };
                let (below, above) = if x_neg(x) && saturated {
                    (show(lo, true), show(hi, false))
                } else {
                    (show(lo, false), show(hi, true))
                };
                return Err(OperandError::Inexact {
                    word: word.into(),
                    format: fmt.name,
                    below,
                    above,
                });
            }
        }
    };
    Ok(fmt.encode(v, fmt.default_nan()))
}

/// The word of an integer format that holds `x`: a whole number within the format's range.
/// NaN, infinities and fractions are refused whatever the rounding mode (an integer operand is
/// never rounded).
fn encode_int(fmt: &Format, x: &Number, word: &str) -> Result<u64, OperandError> {
    let not_in = |why: &str| OperandError::NotInFormat {
        word: word.to_string(),
        format: fmt.name,
        why: why.to_string(),
    };
    let (lo, hi) = fmt.int_range().unwrap_or((0, 0));
    let range = || OperandError::IntRange {
        word: word.to_string(),
        format: fmt.name,
        lo,
        hi,
    };
    let (neg, mag, exp2, exp10) = match x {
        Number::Nan => return Err(not_in("is an integer format: it has no NaN")),
        Number::Inf { .. } => return Err(not_in("is an integer format: it has no infinity")),
        Number::Finite {
            neg,
            mag,
            exp2,
            exp10,
        } => (*neg, mag, *exp2, *exp10),
    };
    let v = if mag.is_zero() {
        BigInt::zero()
    } else {
        // Far beyond every integer format: out of range without building the number.
        if exp2 > 256 || exp10 > 80 {
            return Err(range());
        }
        let mut m = mag.clone();
        if exp10 > 0 {
            m *= BigUint::from(10u32).pow(exp10 as u32);
        }
        if exp2 > 0 {
            m <<= exp2 as u64;
        }
        let whole = |m: &BigUint, d: &BigUint| (m % d).is_zero();
        let fraction = || not_in("is an integer format: it takes whole numbers only");
        if exp10 < 0 {
            // A fraction unless 10^-exp10 divides the digits; a huge exponent never does
            // (the digits are at most MAX_LEN long).
            if -exp10 > MAX_LEN as i64 {
                return Err(fraction());
            }
            let d = BigUint::from(10u32).pow((-exp10) as u32);
            if !whole(&m, &d) {
                return Err(fraction());
            }
            m /= d;
        }
        if exp2 < 0 {
            if -exp2 > 4 * MAX_LEN as i64 + 64 {
                return Err(fraction());
            }
            let d = BigUint::from(1u32) << ((-exp2) as u64);
            if !whole(&m, &d) {
                return Err(fraction());
            }
            m >>= (-exp2) as u64;
        }
        BigInt::from_biguint(if neg { Sign::Minus } else { Sign::Plus }, m)
    };
    let v = v.to_i64().ok_or_else(range)?;
    fmt.int_word(v).ok_or_else(range)
}

/// Whether a rounded value equals the exact value it came from.
fn is_exactly(x: &Exact, v: Value) -> bool {
    // (m, e) with m odd (or zero): the canonical form of m·2^e.
    let canon = |m: u128, e: i64| {
        if m == 0 {
            (0, 0)
        } else {
            (m >> m.trailing_zeros(), e + m.trailing_zeros() as i64)
        }
    };
    if x.sticky {
        return false;
    }
    match v {
        Value::Zero { .. } => x.mag == 0,
        Value::Finite { sig, exp, .. } => {
            canon(x.mag, x.exp as i64) == canon(sig as u128, exp as i64)
        }
        _ => false,
    }
}

fn x_neg(x: &Number) -> bool {
    matches!(
        x,
        Number::Finite { neg: true, .. } | Number::Inf { neg: true }
    )
}

/// A number as a short message text (the word itself is usually at hand instead).
fn display_number(x: &Number) -> String {
    match x {
        Number::Nan => "nan".into(),
        Number::Inf { neg } => if *neg { "-inf" } else { "inf" }.into(),
        Number::Finite {
            neg,
            mag,
            exp2,
            exp10,
        } => format!(
            "{}{mag}{}{}",
            if *neg { "-" } else { "" },
            if *exp2 != 0 {
                format!("·2^{exp2}")
            } else {
                String::new()
            },
            if *exp10 != 0 {
                format!("e{exp10}")
            } else {
                String::new()
            }
        ),
    }
}

/// How one command-line word is meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A raw encoding given with `bits:`.
    Bits(u64),
    /// A case-file word, to be read as case files read it (exact storage width).
    Word(String),
    /// A number to convert.
    Number(Number),
}

/// Classifies `word` for an operand whose case-file words have `digits` hex digits and
/// whose elements are of `fmt`; `legacy` is the element a case-file word would give (`None`
/// when it is not one, for the comparison of rule 3).
pub fn classify(
    word: &str,
    fmt: &Format,
    digits: usize,
    legacy: impl Fn(u64) -> Option<u64>,
    mode: Option<Rounding>,
) -> Result<Operand, OperandError> {
    let w = word.trim();
    if let Some(h) = w.strip_prefix("bits:") {
        let bad = || OperandError::Bits {
            word: w.into(),
            digits: fmt.hex_digits(),
            format: fmt.name,
        };
        let h = h.strip_prefix("0x").unwrap_or(h);
        if h.is_empty() || h.len() > fmt.hex_digits() || !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let v = u64::from_str_radix(h, 16).map_err(|_| bad())?;
        if !fmt.is_valid_encoding(v) {
            return Err(bad());
        }
        return Ok(Operand::Bits(v));
    }
    let lower = w.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        if !h.contains('p') {
            if !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()) {
                return Ok(Operand::Word(w.into()));
            }
            return Err(OperandError::Syntax(format!(
                "{w} (a hex-float needs a p exponent: 0x1.8p-3; raw bits are bits:HEX)"
            )));
        }
    }
    if fmt.integer {
        // An integer operand is a decimal integer (never a case-file word: `10` is ten), a
        // hex word with its 0x (above), or bits:.
        return match parse_number(w)? {
            Some(n) => Ok(Operand::Number(n)),
            None => Err(OperandError::IntSyntax(w.into())),
        };
    }
    match parse_number(w)? {
        Some(n) => {
            let is_word = w.len() == digits && w.bytes().all(|c| c.is_ascii_hexdigit());
            if is_word {
                let raw = u64::from_str_radix(w, 16).ok();
                let as_number = encode_word(fmt, &n, mode, w).ok();
                let agree = raw.and_then(&legacy).is_some_and(|e| Some(e) == as_number);
                if agree {
                    return Ok(Operand::Word(w.into()));
                }
                return Err(OperandError::Ambiguous {
                    word: w.into(),
                    format: fmt.name,
                    decimal: as_number.map_or_else(
                        || format!("{w} (not exactly a {} value)", fmt.name),
                        |b| describe(fmt, fmt.decode(b)),
                    ),
                    bits: raw.unwrap_or_default(),
                });
            }
            Ok(Operand::Number(n))
        }
        None if !w.is_empty() && w.bytes().all(|c| c.is_ascii_hexdigit()) => {
            Ok(Operand::Word(w.into()))
        }
        None => Err(OperandError::Syntax(w.into())),
    }
}

/// A rounding mode by its short name (`rne`, `rz`, `ru`, `rd`, `rna`).
pub fn rounding(s: &str) -> Result<Rounding, String> {
    Rounding::ALL
        .into_iter()
        .find(|m| m.short_name().eq_ignore_ascii_case(s))
        .ok_or_else(|| format!("{s:?} is not a rounding mode (rne, rz, ru, rd, rna)"))
}

#[cfg(test)]
#[path = "operand_tests.rs"]
mod tests;
