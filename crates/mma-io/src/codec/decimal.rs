//! Values as text for people: the shortest decimal that reads back to a format's value, and
//! exact dyadic values `±mag·2^exp` as exact decimals and C99 hex-floats. All exact
//! (`num-bigint`); nothing goes through `f64`.

use mma_core::round::{round, Exact, RoundOpts, Rounding};
use mma_core::{Format, Value};
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

/// `mag·2^exp` as an exact decimal `M·10^k` (`M` as its digits).
fn exact_digits(mag: &BigUint, exp: i64) -> (String, i64) {
    if exp >= 0 {
        ((mag << exp as usize).to_string(), 0)
    } else {
        // mag / 2^e = mag·5^e / 10^e
        let m = mag * BigUint::from(5u32).pow((-exp) as u32);
        (m.to_string(), exp)
    }
}

/// `digits·10^k` written for people: positional for moderate exponents, else `d.ddde±x`.
/// Trailing zeros are dropped.
fn layout(neg: bool, digits: &str, k: i64) -> String {
    let t = digits.trim_end_matches('0');
    if t.is_empty() {
        return if neg { "-0" } else { "0" }.into();
    }
    let k = k + (digits.len() - t.len()) as i64;
    let sci = k + t.len() as i64 - 1; // exponent of the leading digit
    let sign = if neg { "-" } else { "" };
    if (-7..21).contains(&sci) {
        if k >= 0 {
            format!("{sign}{t}{}", "0".repeat(k as usize))
        } else if sci >= 0 {
            let p = (sci + 1) as usize;
            format!("{sign}{}.{}", &t[..p], &t[p..])
        } else {
            format!("{sign}0.{}{t}", "0".repeat((-sci - 1) as usize))
        }
    } else if t.len() == 1 {
        format!("{sign}{t}e{sci}")
    } else {
        format!("{sign}{}.{}e{sci}", &t[..1], &t[1..])
    }
}

/// The exact decimal of `±mag·2^exp`.
pub fn exact_decimal(neg: bool, mag: &BigUint, exp: i64) -> String {
    let (d, k) = exact_digits(mag, exp);
    layout(neg, &d, k)
}

/// `±mag·2^exp` as a normalised C99 hex-float (`0x1.8p-3`); zero is `0x0p+0`.
pub fn hex_float(neg: bool, mag: &BigUint, exp: i64) -> String {
    let sign = if neg { "-" } else { "" };
    if mag.is_zero() {
        return format!("{sign}0x0p+0");
    }
    let bits = mag.bits() as i64;
    let e = exp + bits - 1;
    // The fraction below the leading 1, padded to whole hex digits.
    let frac_bits = bits - 1;
    let pad = (4 - frac_bits % 4) % 4;
    let one = BigUint::from(1u32) << frac_bits as usize;
    let frac = (mag - &one) << pad as usize;
    let digits = ((frac_bits + pad) / 4) as usize;
    let mut f = if digits == 0 {
        String::new()
    } else {
        format!("{frac:0digits$x}")
    };
    while f.ends_with('0') {
        f.pop();
    }
    let dot = if f.is_empty() { "" } else { "." };
    format!("{sign}0x1{dot}{f}p{e:+}")
}

/// The shortest decimal that reads back (round to nearest even) as `bits` of `fmt`: `nan`,
/// `inf`, `-0`, or the fewest significant digits, ties to even among them.
pub fn shortest(fmt: &Format, bits: u64) -> String {
    // An integer format's value is its own shortest form.
    if let Some(v) = fmt.int_value(bits) {
        return v.to_string();
    }
    let v = fmt.decode(bits);
    let (neg, sig, exp) = match v {
        Value::Nan => return "nan".into(),
        Value::Inf { neg } => return if neg { "-inf" } else { "inf" }.into(),
        Value::Zero { neg } => return if neg { "-0" } else { "0" }.into(),
        Value::Finite { neg, sig, exp } => (neg, sig, exp),
    };
    let (digits, k) = exact_digits(&BigUint::from(sig), exp as i64);
    for p in 1..digits.len() {
        let (d, k2) = round_digits(&digits, k, p);
        let mag: BigUint = d.parse().unwrap_or_default();
        let x = to_exact(neg, &mag, 0, k2);
        if round(fmt, x, Rounding::NearestEven, RoundOpts::IEEE) == v {
            return layout(neg, &d, k2);
        }
    }
    layout(neg, &digits, k)
}

/// `digits·10^k` rounded to `p` significant digits (ties to even, on the exact digits).
fn round_digits(digits: &str, k: i64, p: usize) -> (String, i64) {
    let (head, tail) = digits.split_at(p);
    let k2 = k + tail.len() as i64;
    let first = tail.as_bytes()[0];
    let rest_zero = tail[1..].bytes().all(|c| c == b'0');
    let odd = (head.as_bytes()[p - 1] - b'0') % 2 == 1;
    let up = first > b'5' || (first == b'5' && (!rest_zero || odd));
    if !up {
        return (head.to_string(), k2);
    }
    let n: BigUint = head.parse::<BigUint>().unwrap_or_default() + 1u32;
    (n.to_string(), k2)
}

/// The exact value as the rounding routine's input: at least 112 significant bits, and a
/// sticky bit for the rest, which is more than the routine's contract asks (one bit below the
/// result's last place for every format up to f64). Magnitudes beyond every format's range
/// are replaced by values as far out on the same side, which round the same way.
pub fn to_exact(neg: bool, mag: &BigUint, exp2: i64, exp10: i64) -> Exact {
    if mag.is_zero() {
        return Exact {
            neg,
            mag: 0,
            exp: 0,
            sticky: false,
        };
    }
    let log2 = mag.bits() as f64 + exp2 as f64 + exp10 as f64 * std::f64::consts::LOG2_10;
    if log2 > 1500.0 {
        // Above f64's 2^1024 by far: overflows every format.
        return Exact {
            neg,
            mag: 1 << 112,
            exp: 1500,
            sticky: false,
        };
    }
    if log2 < -1500.0 {
        // Below half of f64's least subnormal 2^-1074: only a sticky remainder.
        return Exact {
            neg,
            mag: 0,
            exp: 0,
            sticky: true,
        };
    }
    let (mut n, mut d) = (mag.clone(), BigUint::one());
    let p10 = BigUint::from(10u32).pow(exp10.unsigned_abs() as u32);
    if exp10 >= 0 {
        n *= p10;
    } else {
        d *= p10;
    }
    // q = floor(n·2^s / d) has 112 or 113 bits.
    let s = 112 - (n.bits() as i64 - d.bits() as i64);
    if s >= 0 {
        n <<= s as usize;
    } else {
        d <<= (-s) as usize;
    }
    let q = &n / &d;
    let sticky = !(n % d).is_zero();
    Exact {
        neg,
        mag: q.to_u128().unwrap_or(u128::MAX),
        exp: (exp2 - s) as i32,
        sticky,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mma_core::format::{BF16, E2M1, E4M3, FP16, FP32, FP64, UE8M0};

    #[test]
    fn shortest_reads_back() {
        // f16 0x2e66 = 1.1001100110b × 2^-4 = 1638/16384 = 0.0999755859375; "0.1" rounds to it
        // (0.1·2^14 = 1638.4, nearest integer 1638), so one digit suffices.
        assert_eq!(shortest(&FP16, 0x2e66), "0.1");
        // f16 0x3c01 = 1 + 2^-10 = 1.0009765625; 1.001 reads back (the neighbours are 1 and
        // 1.001953125, so 1.001 lies nearest 0x3c01), 1.00 does not.
        assert_eq!(shortest(&FP16, 0x3c01), "1.001");
        assert_eq!(shortest(&FP16, 0x7bff), "65500"); // 65504: 65500 is nearer than 65472/65536
        assert_eq!(shortest(&FP16, 0x0001), "6e-8"); // 2^-24 = 5.96e-8, spacing 2^-24
        assert_eq!(shortest(&FP16, 0x8000), "-0");
        assert_eq!(shortest(&FP16, 0xfc00), "-inf");
        assert_eq!(shortest(&BF16, 0x3f80), "1");
        assert_eq!(shortest(&FP32, 0x3dcc_cccd), "0.1");
        assert_eq!(shortest(&FP32, 0x40400000), "3");
        assert_eq!(shortest(&FP64, 0.1f64.to_bits()), "0.1");
        assert_eq!(shortest(&FP64, 1e300f64.to_bits()), "1e300");
        // 448: 400 rounds to 416 (spacing 32); 450 lies 2 above 448 and reads back.
        assert_eq!(shortest(&E4M3, 0x7e), "450");
        assert_eq!(shortest(&E4M3, 0x7f), "nan");
        // e2m1 0011 = 1.5: one digit gives 2 (tie to even), which is 0100.
        assert_eq!(shortest(&E2M1, 0x3), "1.5");
        assert_eq!(shortest(&UE8M0, 0x7f), "1");
    }

    #[test]
    fn exact_forms() {
        let m = BigUint::from(3u32);
        assert_eq!(exact_decimal(true, &m, -3), "-0.375");
        assert_eq!(hex_float(true, &m, -3), "-0x1.8p-2");
        assert_eq!(hex_float(false, &BigUint::from(1u32), 0), "0x1p+0");
        assert_eq!(
            exact_decimal(false, &BigUint::from(1u32), 70),
            "1.180591620717411303424e21"
        );
        assert_eq!(exact_decimal(false, &BigUint::from(5u32), 0), "5");
    }
}
