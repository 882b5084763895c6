//! The exact value of a dot product for `mma compare`, without the oracle: the sum of the exact
//! products (scales included) and C as one signed integer (64-bit limbs) times a power of two,
//! and a result's error against it in ulps of D's format.

use mma::core::{Format, Formats, Value};

/// `(-1)^neg · mag · 2^exp`, `mag` little-endian limbs; `None` for a NaN or infinite sum.
pub struct ExactSum {
    special: Option<Value>,
    neg: bool,
    mag: Vec<u64>,
    exp: i32,
}

/// A finite term `(-1)^neg · sig · 2^lsb`.
type Term = (bool, u128, i32);

fn add_shifted(acc: &mut Vec<u64>, sig: u128, shift: usize) {
    let (limb, off) = (shift / 64, (shift % 64) as u32);
    let parts = [
        (sig << off) as u64,
        if off == 0 {
            (sig >> 64) as u64
        } else {
            (sig >> (64 - off)) as u64
        },
        if off == 0 {
            0
        } else {
            (sig >> (128 - off)) as u64
        },
    ];
    if acc.len() < limb + 4 {
        acc.resize(limb + 4, 0);
    }
    let mut carry = 0u64;
    let mut i = limb;
    while i < acc.len() {
        let p = parts.get(i - limb).copied().unwrap_or(0);
        let (s1, c1) = acc[i].overflowing_add(p);
        let (s2, c2) = s1.overflowing_add(carry);
        acc[i] = s2;
        carry = (c1 | c2) as u64;
        if carry == 0 && i - limb >= 2 {
            break;
        }
        i += 1;
        if i == acc.len() && carry != 0 {
            acc.push(0);
        }
    }
}

fn cmp(x: &[u64], y: &[u64]) -> std::cmp::Ordering {
    let n = x.len().max(y.len());
    for i in (0..n).rev() {
        let (a, b) = (
            x.get(i).copied().unwrap_or(0),
            y.get(i).copied().unwrap_or(0),
        );
        if a != b {
            return a.cmp(&b);
        }
    }
    std::cmp::Ordering::Equal
}

/// `x - y` for `x >= y`.
fn sub(x: &[u64], y: &[u64]) -> Vec<u64> {
    let mut out = x.to_vec();
    let mut borrow = 0u64;
    for (i, o) in out.iter_mut().enumerate() {
        let (s1, b1) = o.overflowing_sub(y.get(i).copied().unwrap_or(0));
        let (s2, b2) = s1.overflowing_sub(borrow);
        *o = s2;
        borrow = (b1 | b2) as u64;
    }
    out
}

/// The exact signed sum of finite terms.
fn sum(terms: &[Term]) -> (bool, Vec<u64>, i32) {
    let exp = terms
        .iter()
        .filter(|t| t.1 != 0)
        .map(|t| t.2)
        .min()
        .unwrap_or(0);
    let (mut pos, mut neg) = (Vec::new(), Vec::new());
    for &(n, sig, lsb) in terms.iter().filter(|t| t.1 != 0) {
        let acc = if n { &mut neg } else { &mut pos };
        add_shifted(acc, sig, (lsb - exp) as usize);
    }
    if cmp(&pos, &neg).is_ge() {
        (false, sub(&pos, &neg), exp)
    } else {
        (true, sub(&neg, &pos), exp)
    }
}

fn value_term(v: Value) -> Term {
    match v {
        Value::Finite { neg, sig, exp } => (neg, sig as u128, exp),
        _ => (v.is_neg(), 0, 0),
    }
}

/// The exact `Σ a_k·b_k·scale_a·scale_b + c` of raw operand words.
pub fn exact_dot(f: &Formats, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> ExactSum {
    let da: Vec<Value> = a.iter().map(|&w| f.a.decode(w)).collect();
    let db: Vec<Value> = b.iter().map(|&w| f.b.decode(w)).collect();
    let dc = f.c.decode(c);
    let scale = |k: usize, s: &[u64]| match f.scale {
        Some((sf, per)) => sf.decode(s[k / per]),
        None => Value::Finite {
            neg: false,
            sig: 1,
            exp: 0,
        },
    };
    let mut special = match mma::core::term::scan_specials(&da, &db, dc) {
        mma::core::term::Special::Finite => None,
        mma::core::term::Special::Nan => Some(Value::Nan),
        mma::core::term::Special::Inf { neg } => Some(Value::Inf { neg }),
    };
    let mut terms = vec![value_term(dc)];
    for (k, (&x, &y)) in da.iter().zip(&db).enumerate() {
        let mut t: Term = (false, 1, 0);
        for v in [x, y, scale(k, sa), scale(k, sb)] {
            if v.is_nan() {
                special = Some(Value::Nan);
            }
            let (n, s, e) = value_term(v);
            t = (t.0 != n, t.1.saturating_mul(s), t.2 + e);
        }
        terms.push(t);
    }
    let (neg, mag, exp) = sum(&terms);
    ExactSum {
        special,
        neg,
        mag,
        exp,
    }
}

fn bit_len(m: &[u64]) -> i32 {
    match m.iter().rposition(|&l| l != 0) {
        Some(i) => i as i32 * 64 + 64 - m[i].leading_zeros() as i32,
        None => 0,
    }
}

/// `m · 2^exp` as the nearest f64 (truncated to 64 leading bits first: display only).
fn to_f64(m: &[u64], exp: i32) -> f64 {
    let len = bit_len(m);
    if len == 0 {
        return 0.0;
    }
    let lo = (len - 64).max(0);
    let mut top = 0u64;
    for i in 0..64.min(len) {
        let p = lo + i;
        if (m[(p / 64) as usize] >> (p % 64)) & 1 == 1 {
            top |= 1 << i;
        }
    }
    ldexp(top as f64, exp + lo)
}

/// `x · 2^e` without overflowing the intermediate power (exact unless the result is out of
/// f64's range or subnormal).
pub fn ldexp(mut x: f64, mut e: i32) -> f64 {
    while e != 0 && x != 0.0 && x.is_finite() {
        let step = e.clamp(-1000, 1000);
        x *= 2f64.powi(step);
        e -= step;
    }
    x
}

impl ExactSum {
    /// The value as a decimal (shortest f64 digits; `≈` when f64 does not hold it exactly).
    pub fn decimal(&self) -> String {
        if let Some(s) = self.special {
            return format!("{}", s.to_f64());
        }
        let v = to_f64(&self.mag, self.exp);
        let exact = bit_len(&self.mag)
            - (self
                .mag
                .iter()
                .position(|&l| l != 0)
                .map_or(0, |i| i as i32 * 64 + self.mag[i].trailing_zeros() as i32))
            <= 53;
        let sign = if self.neg { "-" } else { "" };
        format!("{}{sign}{v}", if exact { "" } else { "≈ " })
    }

    /// The exact value as an integer in hex times a power of two.
    pub fn hex(&self) -> String {
        if let Some(s) = self.special {
            return format!("{}", s.to_f64());
        }
        // Odd integer times a power of two: shift out the trailing zero bits.
        let tz = match self.mag.iter().position(|&l| l != 0) {
            Some(i) => i * 64 + self.mag[i].trailing_zeros() as usize,
            None => return "0".into(),
        };
        let (limbs, bits) = (tz / 64, (tz % 64) as u32);
        let mag: Vec<u64> = (limbs..self.mag.len())
            .map(|i| {
                let hi = self.mag.get(i + 1).copied().unwrap_or(0);
                if bits == 0 {
                    self.mag[i]
                } else {
                    (self.mag[i] >> bits) | (hi << (64 - bits))
                }
            })
            .collect();
        let exp = self.exp + tz as i32;
        let mut h = String::new();
        for l in mag.iter().rev() {
            if !h.is_empty() {
                h.push_str(&format!("{l:016x}"));
            } else if *l != 0 {
                h = format!("{l:x}");
            }
        }
        if h.is_empty() {
            return "0".into();
        }
        format!("{}0x{h}·2^{exp}", if self.neg { "-" } else { "" })
    }

    /// `(d - exact) / ulp`, the ulp of `fmt` at the exact value's binade (at the subnormal
    /// quantum below the normal range); `None` when D or the exact sum is not finite.
    pub fn ulps(&self, fmt: &Format, d: u64) -> Option<f64> {
        if self.special.is_some() {
            return None;
        }
        let dv = fmt.decode(d);
        if dv.is_nan() || dv.is_inf() {
            return None;
        }
        let len = bit_len(&self.mag);
        let top = self.exp + len - 1;
        let q = if len == 0 {
            fmt.min_lsb_exp()
        } else {
            (top - fmt.man_bits as i32).max(fmt.min_lsb_exp())
        };
        // d - exact, exactly.
        let mut terms = vec![value_term(dv)];
        for (i, &l) in self.mag.iter().enumerate() {
            terms.push((!self.neg, l as u128, self.exp + 64 * i as i32));
        }
        let (neg, mag, exp) = sum(&terms);
        let diff = to_f64(&mag, exp - q);
        Some(if neg { -diff } else { diff })
    }
}
