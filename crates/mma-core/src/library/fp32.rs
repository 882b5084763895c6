//! The CUDA-core steps of a library GEMM: IEEE 754 binary32 addition and multiplication
//! (round to nearest even, gradual underflow, overflow to Inf) and the conversions of a
//! binary32 result to a narrower output, on bits.
//!
//! They are integer arithmetic, not the host's floating point: the host's result would depend
//! on its control register (a caller that set flush-to-zero, as `torch.set_flush_denormal`
//! does, would flush subnormal partial sums). Each exact sum or product is rounded once by
//! the kernels' direct rounding (`kernel::FastRound`, itself tested against the single
//! rounding routine of `round.rs`), or by `round.rs` where that does not apply (e4m3, whose
//! top code is NaN). NaN results are the format's canonical NaN (every bit but the sign,
//! 0x7FFFFFFF for binary32), as cuBLASLt writes them; their payload is never kept.
//!
//! The one exception is the bulk addition of the promoted chain results ([`Fp32::add_all`]):
//! where this thread's floating point is IEEE (checked in MXCSR), the host adds them, eight or
//! sixteen at a time — the same bits, tested against the integer steps.

use crate::format::{Format, FP32};
use crate::kernel::FastRound;
use crate::model::{NanStyle, Output, OutputRounding};
use crate::round::{round, Exact, Overflow, RoundOpts, Rounding};
use crate::value::Value;

/// The canonical binary32 NaN.
pub const NAN: u32 = 0x7FFF_FFFF;
const INF: u32 = 0x7F80_0000;
const SIGN: u32 = 0x8000_0000;

/// A binary32 operand: NaN, ±Inf, or `±sig · 2^exp` (`sig` 0 for ±0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operand {
    Nan,
    Inf(bool),
    Finite { neg: bool, sig: i64, exp: i32 },
}

#[inline(always)]
fn operand(x: u32) -> Operand {
    let neg = x & SIGN != 0;
    let e = ((x >> 23) & 0xFF) as i32;
    let m = i64::from(x & 0x7F_FFFF);
    match e {
        0xFF if m != 0 => Operand::Nan,
        0xFF => Operand::Inf(neg),
        0 => Operand::Finite {
            neg,
            sig: m,
            exp: -149,
        },
        _ => Operand::Finite {
            neg,
            sig: m | 1 << 23,
            exp: e - 150,
        },
    }
}

/// The rounding of an exact `i64 · 2^exp` to binary32, RNE, overflow to Inf, signed zeros
/// kept (the kernels' direct rounding with these parameters).
#[derive(Clone, Copy, Debug)]
pub struct Fp32 {
    rne: FastRound,
}

impl Default for Fp32 {
    fn default() -> Self {
        Self::new()
    }
}

/// An IEEE output rounding to `fmt`, RNE, overflow to Inf, signed zeros kept.
fn ieee_rne(fmt: Format) -> Output {
    Output {
        rho: OutputRounding {
            fmt,
            mode: Rounding::NearestEven,
            opts: RoundOpts::INF_ON_OVERFLOW,
        },
        nan: NanStyle::AllOnes,
        neg_zero_to_pos: false,
    }
}

impl Fp32 {
    pub fn new() -> Fp32 {
        Fp32 {
            rne: FastRound::new(&ieee_rne(FP32), &FP32)
                .expect("binary32 RNE has a direct rounding"),
        }
    }

    /// `x + y` (IEEE 754 addition, RNE). An exact zero sum is +0 unless both are -0.
    #[inline]
    pub fn add(&self, x: u32, y: u32) -> u32 {
        match (operand(x), operand(y)) {
            (Operand::Nan, _) | (_, Operand::Nan) => NAN,
            (Operand::Inf(a), Operand::Inf(b)) if a != b => NAN,
            (Operand::Inf(_), _) => x,
            (_, Operand::Inf(_)) => y,
            (
                Operand::Finite {
                    neg: na,
                    sig: sa,
                    exp: ea,
                },
                Operand::Finite {
                    neg: nb,
                    sig: sb,
                    exp: eb,
                },
            ) => {
                if sa == 0 && sb == 0 {
                    return if na && nb { SIGN } else { 0 };
                }
                if sa == 0 {
                    return y;
                }
                if sb == 0 {
                    return x;
                }
                // Align on the lower exponent. A term more than 26 binades below the other is
                // under a quarter of the larger's last place even in the binade below it: the
                // sum rounds to the larger (RNE), which is returned as it is.
                let (e_hi, e_lo) = (ea.max(eb), ea.min(eb));
                if e_hi - e_lo > 26 {
                    return if ea >= eb { x } else { y };
                }
                let sa = if na { -sa } else { sa };
                let sb = if nb { -sb } else { sb };
                let sum = (sa << (ea - e_lo)) + (sb << (eb - e_lo));
                self.rne.round(sum, e_lo, false) as u32
            }
        }
    }

    /// `acc[i] + words[i]` for every `i` (the words are binary32 bits), into `acc`: with
    /// `native`, by the host's binary32 addition (vectorised; call it only where this thread's
    /// MXCSR says round to nearest without flush-to-zero), else by [`Fp32::add`]. Both give the same
    /// bits but for the payload of NaN sums, which are made canonical (0x7FFFFFFF).
    pub fn add_all(&self, acc: &mut [u32], words: &[u64], native: bool) {
        if native {
            for (a, &w) in acc.iter_mut().zip(words) {
                *a = (f32::from_bits(*a) + f32::from_bits(w as u32)).to_bits();
            }
            for a in acc.iter_mut() {
                if *a & 0x7FFF_FFFF > 0x7F80_0000 {
                    *a = NAN;
                }
            }
        } else {
            for (a, &w) in acc.iter_mut().zip(words) {
                *a = self.add(*a, w as u32);
            }
        }
    }

    /// `x · y + (+0)` rounded once (a fused multiply-add with a +0 addend, as cuBLASLt's
    /// epilogue computes `alpha · acc`): an exact zero product gives +0, never -0; a non-zero
    /// product keeps its sign even where it rounds to zero.
    #[inline]
    pub fn mul_add_zero(&self, x: u32, y: u32) -> u32 {
        self.product(x, y, false)
    }

    /// `x · y` (IEEE 754 multiplication, RNE): an exact zero product has the sign of the
    /// product (`+0 · -1 = -0`).
    #[inline]
    pub fn mul(&self, x: u32, y: u32) -> u32 {
        self.product(x, y, true)
    }

    #[inline]
    fn product(&self, x: u32, y: u32, signed_zero: bool) -> u32 {
        let neg = (x ^ y) & SIGN != 0;
        match (operand(x), operand(y)) {
            (Operand::Nan, _) | (_, Operand::Nan) => NAN,
            (Operand::Inf(_), Operand::Finite { sig: 0, .. })
            | (Operand::Finite { sig: 0, .. }, Operand::Inf(_)) => NAN,
            (Operand::Inf(_), _) | (_, Operand::Inf(_)) => INF | if neg { SIGN } else { 0 },
            (
                Operand::Finite {
                    sig: sa, exp: ea, ..
                },
                Operand::Finite {
                    sig: sb, exp: eb, ..
                },
            ) => {
                if sa == 0 || sb == 0 {
                    return if signed_zero && neg { SIGN } else { 0 };
                }
                // 24 × 24 bits: exact in an i64.
                let p = sa * sb;
                self.rne.round(if neg { -p } else { p }, ea + eb, false) as u32
            }
        }
    }
}

/// The rounding of binary32 values (or exact products) to nearest even into an output format
/// `fmt` (bf16, f16, e5m2, e4m3, or binary32 itself), prepared once per call. NaN gives
/// `fmt`'s canonical NaN (every bit but the sign). Beyond `fmt`'s range (an Inf input too):
/// with `saturate`, ±(largest finite); otherwise IEEE: ±Inf, or NaN in a format without Inf.
#[derive(Clone, Copy, Debug)]
pub struct Narrow {
    fmt: Format,
    saturate: bool,
    /// The direct rounding where it applies (IEEE formats overflowing to Inf).
    direct: Option<FastRound>,
}

impl Narrow {
    pub fn new(fmt: Format, saturate: bool) -> Narrow {
        let direct = if saturate {
            None
        } else {
            FastRound::new(&ieee_rne(fmt), &fmt)
        };
        Narrow {
            fmt,
            saturate,
            direct,
        }
    }

    /// `x` (binary32 bits) rounded into the output format.
    #[inline]
    pub fn apply(&self, x: u32) -> u64 {
        match operand(x) {
            Operand::Nan => self.fmt.all_ones_nan(),
            Operand::Inf(neg) => self.overflowed(neg),
            Operand::Finite { neg, sig, exp } => self.exact(neg, sig, exp),
        }
    }

    /// The exact product `x · y` of two binary32 values rounded once into the output format;
    /// an exact zero product is +0 (the FFMA with a +0 addend) or, with `signed_zero`, has
    /// the product's sign.
    #[inline]
    pub fn product(&self, x: u32, y: u32, signed_zero: bool) -> u64 {
        let neg = (x ^ y) & SIGN != 0;
        match (operand(x), operand(y)) {
            (Operand::Nan, _) | (_, Operand::Nan) => self.fmt.all_ones_nan(),
            (Operand::Inf(_), Operand::Finite { sig: 0, .. })
            | (Operand::Finite { sig: 0, .. }, Operand::Inf(_)) => self.fmt.all_ones_nan(),
            (Operand::Inf(_), _) | (_, Operand::Inf(_)) => self.overflowed(neg),
            (
                Operand::Finite {
                    sig: sa, exp: ea, ..
                },
                Operand::Finite {
                    sig: sb, exp: eb, ..
                },
            ) => {
                if sa == 0 || sb == 0 {
                    return self.exact(signed_zero && neg, 0, 0);
                }
                self.exact(neg, sa * sb, ea + eb)
            }
        }
    }

    /// An infinite input.
    fn overflowed(&self, neg: bool) -> u64 {
        let fmt = &self.fmt;
        if self.saturate {
            let max = Value::Finite {
                neg,
                sig: fmt.max_sig(),
                exp: fmt.emax() - fmt.man_bits as i32,
            };
            fmt.encode(max, fmt.all_ones_nan())
        } else if fmt.has_inf() {
            fmt.encode(Value::Inf { neg }, fmt.all_ones_nan())
        } else {
            fmt.all_ones_nan()
        }
    }

    /// `±sig · 2^exp` (`sig < 2^62`) rounded.
    #[inline]
    fn exact(&self, neg: bool, sig: i64, exp: i32) -> u64 {
        let fmt = &self.fmt;
        if sig == 0 {
            return fmt.encode(Value::Zero { neg }, fmt.all_ones_nan());
        }
        if let Some(r) = &self.direct {
            return r.round(if neg { -sig } else { sig }, exp, neg);
        }
        let overflow = if self.saturate {
            Overflow::Saturate
        } else {
            Overflow::Ieee
        };
        let v = round(
            fmt,
            Exact {
                neg,
                mag: sig as u128,
                exp,
                sticky: false,
            },
            Rounding::NearestEven,
            RoundOpts {
                overflow,
                ftz: false,
            },
        );
        match v {
            Value::Nan => fmt.all_ones_nan(),
            v => fmt.encode(v, fmt.all_ones_nan()),
        }
    }
}
