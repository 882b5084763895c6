//! FMA: a chain of IEEE fused multiply-adds, `c = fma(a_k, b_k, c)` for k = 0, 1, ... in the
//! input precision (NVIDIA fp64 DMMA; AMD fp32/fp64 MFMA). the first paper's Table II; the AMD paper's CDNA1
//! section ("C is added to the first product, then each later product in turn").
//!
//! Each step is what IEEE 754 defines an FMA to be: the exact `a·b + c`, rounded once. The
//! product is exact in 128 bits, the sum exact in [`WideSum`] anchored at the smaller operand,
//! and the rounding goes through [`crate::round::round`]. When the two operands are so far apart
//! that the accumulator cannot hold both, the smaller one only decides the direction of a sticky
//! bit far below the larger one's last place, which is exact for rounding. The tests check every
//! rounding mode against Berkeley SoftFloat (softfloat-wrapper). A NaN result is encoded with
//! the path's [`NanStyle`], since the GPU's NaN payload is not the host's.

use crate::format::Format;
use crate::model::{untraced_block, BlockIn, Formats, NanStyle};
use crate::models::e_fdpa::ZeroSigns;
use crate::round::{round, Exact, RoundOpts, Rounding};
use crate::trace::{round_step, NoTrace, Num, Step, Tracer};
use crate::value::Value;
use crate::wide::WideSum;

/// Parameters of an FMA chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fma {
    pub mode: Rounding,
    pub nan: NanStyle,
}

/// A finite operand of the exact sum: `(-1)^neg · sig · 2^lsb`.
#[derive(Clone, Copy, Debug)]
struct Operand {
    neg: bool,
    sig: u128,
    lsb: i32,
}

impl Operand {
    fn top(&self) -> i32 {
        self.lsb + (128 - self.sig.leading_zeros() as i32)
    }
}

/// One IEEE fused multiply-add `a·b + c` rounded to `fmt` with `mode`.
pub fn fma(a: Value, b: Value, c: Value, fmt: &Format, mode: Rounding) -> Value {
    fma_traced(a, b, c, fmt, mode, &mut NoTrace)
}

/// [`fma`], telling `t` the exact sum and its rounding.
#[inline]
pub fn fma_traced<T: Tracer>(
    a: Value,
    b: Value,
    c: Value,
    fmt: &Format,
    mode: Rounding,
    t: &mut T,
) -> Value {
    use Value::*;
    match (a, b, c) {
        (Nan, _, _) | (_, Nan, _) | (_, _, Nan) => return Nan,
        (Inf { .. }, Zero { .. }, _) | (Zero { .. }, Inf { .. }, _) => return Nan,
        (Inf { .. }, _, _) | (_, Inf { .. }, _) => {
            let neg = a.is_neg() != b.is_neg();
            return match c {
                Inf { neg: cn } if cn != neg => Nan,
                _ => Inf { neg },
            };
        }
        (_, _, Inf { .. }) => return c,
        _ => {}
    }
    let p_neg = a.is_neg() != b.is_neg();
    let product = match (a, b) {
        (
            Finite {
                sig: sa, exp: xa, ..
            },
            Finite {
                sig: sb, exp: xb, ..
            },
        ) => Some(Operand {
            neg: p_neg,
            sig: sa as u128 * sb as u128,
            lsb: xa + xb,
        }),
        _ => None,
    };
    let addend = match c {
        Finite { neg, sig, exp } => Some(Operand {
            neg,
            sig: sig as u128,
            lsb: exp,
        }),
        _ => None,
    };
    let signs = ZeroSigns {
        all_neg: p_neg && c.is_neg(),
        any_neg: p_neg || c.is_neg(),
        any_nonzero: product.is_some() || addend.is_some(),
    };
    let exact = match (product, addend) {
        (None, None) => {
            return Zero {
                neg: signs.zero_is_neg(mode),
            }
        }
        (Some(x), None) | (None, Some(x)) => Exact {
            neg: x.neg,
            mag: x.sig,
            exp: x.lsb,
            sticky: false,
        },
        (Some(p), Some(q)) => {
            let (big, small) = if p.top() >= q.top() { (p, q) } else { (q, p) };
            if big.top() - small.lsb <= WideSum::SPAN {
                let mut acc = WideSum::anchored(small.lsb.min(big.lsb));
                acc.add(big.neg, big.sig, big.lsb);
                acc.add(small.neg, small.sig, small.lsb);
                if acc.is_zero() {
                    return Zero {
                        neg: signs.zero_is_neg(mode),
                    };
                }
                acc.to_exact()
            } else {
                // The small operand lies more than SPAN bits below the big one's top: a sticky
                // bit. The big significand is first normalised to all 128 bits, so that the
                // result's last place (at most 127 bits below the top, for every format) lies
                // above the sticky bit whatever the big operand's own width (a 4-bit product
                // beside a tiny f64 C, say).
                let s = big.sig.leading_zeros();
                let mag = big.sig << s;
                Exact {
                    neg: big.neg,
                    // Opposite signs: just below the big magnitude, one unit less plus sticky.
                    mag: if big.neg == small.neg { mag } else { mag - 1 },
                    exp: big.lsb - s as i32,
                    sticky: true,
                }
            }
        }
    };
    t.step(|| Step::Sum {
        exact: exact.into(),
    });
    let v = round(fmt, exact, mode, RoundOpts::IEEE);
    t.step(|| round_step(fmt, exact, mode, v));
    v
}

untraced_block!(Fma);

impl Fma {
    /// [`BlockModel::block`](crate::model::BlockModel::block), telling `t` each fused multiply-add.
    #[inline]
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        let mut c = x.c_fmt.decode(x.c);
        let mut c_fmt = x.c_fmt;
        for (k, (&a, &b)) in x.a.iter().zip(x.b).enumerate() {
            let (av, bv) = (f.a.decode(a), f.b.decode(b));
            let r = fma_traced(av, bv, c, &f.d, self.mode, t);
            t.step(|| Step::Op {
                what: format!("fma {k}: a{k}·b{k} + c"),
                x: Num::of(av, &f.a, Some(a)),
                y: Num::of(bv, &f.b, Some(b)),
                z: Some(Num::of(c, c_fmt, None)),
                result: Num::of(r, &f.d, None),
            });
            (c, c_fmt) = (r, &f.d);
        }
        f.d.encode(c, self.nan.bits(&f.d))
    }
}

/// Checks of this module's private steps, run by `tests/internal_checks.rs` (compiled only with
/// the `internal-checks` feature, which the crate's own tests turn on: the library is then
/// compiled once for the tests instead of a second time as a unit-test harness).
#[cfg(feature = "internal-checks")]
#[doc(hidden)]
pub mod checks {
    use super::*;
    use crate::format::{FP32, FP64};
    use rand::{Rng, SeedableRng};
    use softfloat_wrapper::{Float, RoundingMode, F32, F64};

    const MODES: [(Rounding, RoundingMode); 4] = [
        (Rounding::NearestEven, RoundingMode::TiesToEven),
        (Rounding::TowardZero, RoundingMode::TowardZero),
        (Rounding::Down, RoundingMode::TowardNegative),
        (Rounding::Up, RoundingMode::TowardPositive),
    ];

    /// Random words with clustered exponents (so that cancellation, ties and far-apart operands
    /// all occur), plus zeros, subnormals, Inf and NaN.
    fn word(rng: &mut impl Rng, exp_bits: u32, man_bits: u32, centre: u64, spread: u64) -> u64 {
        let sign = (rng.random::<u64>() & 1) << (exp_bits + man_bits);
        let top = (1u64 << exp_bits) - 1;
        let e = match rng.random_range(0..16) {
            0 => 0,
            1 => top,
            2 => rng.random_range(0..=top),
            _ => (centre + rng.random_range(0..=2 * spread))
                .saturating_sub(spread)
                .min(top - 1),
        };
        let m = match rng.random_range(0..4) {
            0 => 0,
            1 => (1u64 << man_bits) - 1,
            _ => rng.random::<u64>() & ((1u64 << man_bits) - 1),
        };
        sign | (e << man_bits) | m
    }

    pub fn fp32_fma_matches_softfloat_in_every_mode() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        for i in 0..200_000 {
            let centre = if i % 3 == 0 { 10 } else { 127 };
            let [a, b, c] = [0; 3].map(|_| word(&mut rng, 8, 23, centre, 30));
            for (mode, sf) in MODES {
                let want = F32::from_bits(a as u32).fused_mul_add(
                    F32::from_bits(b as u32),
                    F32::from_bits(c as u32),
                    sf,
                );
                let got = fma(FP32.decode(a), FP32.decode(b), FP32.decode(c), &FP32, mode);
                if want.is_nan() {
                    assert!(got.is_nan(), "{a:08x}·{b:08x}+{c:08x} {mode:?}: {got:?}");
                } else {
                    assert_eq!(
                        FP32.encode(got, 0),
                        want.to_bits() as u64,
                        "{a:08x}·{b:08x}+{c:08x} {mode:?}"
                    );
                }
            }
        }
    }

    pub fn fp64_fma_matches_softfloat_in_every_mode() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(2);
        for i in 0..200_000 {
            let centre = if i % 3 == 0 { 40 } else { 1023 };
            let [a, b, c] =
                [0; 3].map(|_| word(&mut rng, 11, 52, centre, if i % 2 == 0 { 60 } else { 1100 }));
            for (mode, sf) in MODES {
                let want =
                    F64::from_bits(a).fused_mul_add(F64::from_bits(b), F64::from_bits(c), sf);
                let got = fma(FP64.decode(a), FP64.decode(b), FP64.decode(c), &FP64, mode);
                if want.is_nan() {
                    assert!(got.is_nan(), "{a:016x}·{b:016x}+{c:016x} {mode:?}: {got:?}");
                } else {
                    assert_eq!(
                        FP64.encode(got, 0),
                        want.to_bits(),
                        "{a:016x}·{b:016x}+{c:016x} {mode:?}"
                    );
                }
            }
        }
    }
}
