//! The interface every arithmetic model implements, and the output conventions they share.

use crate::format::Format;
use crate::round::{round, Exact, RoundOpts, Rounding};
use crate::trace::{round_step, NoTrace, Num, Step, Tracer};
use crate::value::Value;

/// Operand formats of one instruction. `c` is the format of the C matrix given to the
/// instruction; chained blocks receive the previous block's result in format `d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Formats {
    pub a: Format,
    pub b: Format,
    pub c: Format,
    pub d: Format,
    /// Block-scale format and the number of K elements one scale covers.
    pub scale: Option<(Format, usize)>,
}

/// One block of a dot product: at most `L_max` elements of the A row and B column (raw storage
/// words), the incoming C word and its format, and the scale words covering these elements.
#[derive(Clone, Copy, Debug)]
pub struct BlockIn<'a> {
    pub a: &'a [u64],
    pub b: &'a [u64],
    pub c: u64,
    pub c_fmt: &'a Format,
    pub scale_a: &'a [u64],
    pub scale_b: &'a [u64],
}

/// An arithmetic model: computes one block `d = op(a, b, c)` and returns the raw bits of `d`.
pub trait BlockModel {
    fn block(&self, f: &Formats, x: &BlockIn<'_>) -> u64;
}

/// Implements [`BlockModel`] for models written once, generic over a [`Tracer`], as an
/// inherent `block_traced(&self, f, x, t)`: `block` is `block_traced` with [`NoTrace`], which
/// drops every step unevaluated, so that the untraced block compiles to the model alone.
///
/// A macro rather than a default method of the trait or a blanket impl over a trait with
/// `block_traced`: the trait stays object-safe (`&dyn BlockModel` is used), `Model`'s own impl
/// (`unit.rs`, a match over the models) stays as it is, and each `block` stays a plain,
/// non-generic function that is not `#[inline]`, compiled once in this crate, where a default
/// method, generic over `Self`, would be compiled again in every crate that calls it
/// (ARCHITECTURE.md, `crates/mma-core`). Each model's file invokes it beside its
/// `block_traced`, so that `block` stays in the model's module, and codegen unit, as it was.
macro_rules! untraced_block {
    ($($model:ty),+ $(,)?) => {$(
        impl $crate::model::BlockModel for $model {
            fn block(&self, f: &$crate::model::Formats, x: &$crate::model::BlockIn<'_>) -> u64 {
                self.block_traced(f, x, &mut $crate::trace::NoTrace)
            }
        }
    )+};
}
pub(crate) use untraced_block;

/// Which NaN bit pattern a path returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NanStyle {
    /// Every bit but the sign (NVIDIA: 0x7FFFFFFF, 0x7FFF).
    AllOnes,
    /// The IEEE default quiet NaN (0x7FC00000, 0x7E00).
    DefaultQuiet,
    /// The default quiet NaN with the sign bit set (0xFFC00000, 0xFE00): the x86 "real
    /// indefinite" pattern, and what AMD CDNA1 returns for +Inf + -Inf (Khattak, Mikaitis and
    /// Graziani, "Accurate Models of AMD Matrix Cores", 2026).
    NegativeQuiet,
}

impl NanStyle {
    pub fn bits(self, fmt: &Format) -> u64 {
        match self {
            NanStyle::AllOnes => fmt.all_ones_nan(),
            NanStyle::DefaultQuiet => fmt.default_nan(),
            NanStyle::NegativeQuiet => fmt.default_nan() | fmt.sign_bit(),
        }
    }
}

/// The final rounding `rho` of a fused model: round the exact sum to `fmt` (the output format,
/// or a narrower one such as E8M13 that the result is then stored from) with `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutputRounding {
    pub fmt: Format,
    pub mode: Rounding,
    pub opts: RoundOpts,
}

/// Output conventions of a path: the rounding, the NaN pattern, and whether a -0 result is
/// returned as +0 (the NVIDIA fused paths do: first paper).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Output {
    pub rho: OutputRounding,
    pub nan: NanStyle,
    pub neg_zero_to_pos: bool,
}

impl Output {
    /// The fused paths' conventions: round to `fmt` with `mode`, Inf on overflow also when the
    /// rounding truncates, the all-ones NaN, and -0 returned as +0 where `neg_zero_to_pos`
    /// (the NVIDIA fused models of the first paper; the hardware records agree). One
    /// constructor for the catalogs, the inference's grid and the kernel checks.
    pub const fn fused(fmt: Format, mode: Rounding, neg_zero_to_pos: bool) -> Output {
        Output {
            rho: OutputRounding {
                fmt,
                mode,
                opts: RoundOpts::INF_ON_OVERFLOW,
            },
            nan: NanStyle::AllOnes,
            neg_zero_to_pos,
        }
    }

    /// Encodes a special or already rounded value in the destination format.
    #[inline]
    pub fn encode(&self, d: &Format, v: Value) -> u64 {
        let v = match v {
            Value::Zero { neg: true } if self.neg_zero_to_pos => Value::POS_ZERO,
            other => other,
        };
        d.encode(v, self.nan.bits(d))
    }

    /// Rounds an exact finite result and encodes it. `zero_neg` is the sign an exact zero gets.
    #[inline]
    pub fn round_encode(&self, d: &Format, x: Exact, zero_neg: bool) -> u64 {
        self.round_encode_traced(d, x, zero_neg, &mut NoTrace)
    }

    /// [`Output::round_encode`], telling `t` the exact sum and the rounding.
    #[inline]
    pub fn round_encode_traced<T: Tracer>(
        &self,
        d: &Format,
        x: Exact,
        zero_neg: bool,
        t: &mut T,
    ) -> u64 {
        t.step(|| Step::Sum { exact: x.into() });
        if x.mag == 0 && !x.sticky {
            return self.encode(d, Value::Zero { neg: zero_neg });
        }
        let (fmt, mode) = (&self.rho.fmt, self.rho.mode);
        let v = round(fmt, x, mode, self.rho.opts);
        t.step(|| round_step(fmt, x, mode, v));
        self.encode(d, v)
    }
}

/// Decodes `src` into `dst` (which must be at least as long) and returns the filled prefix.
#[inline]
pub(crate) fn decode_into<'a>(fmt: &Format, src: &[u64], dst: &'a mut [Value]) -> &'a [Value] {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = fmt.decode(s);
    }
    &dst[..src.len()]
}

/// Largest block any model accepts (fp4 blocks of 64 elements); bounds the stack buffers.
pub const MAX_BLOCK: usize = 64;

/// The decoded operands of one block whose inputs are all finite or zero.
pub(crate) struct Decoded {
    pub a: [Value; MAX_BLOCK],
    pub b: [Value; MAX_BLOCK],
    pub n: usize,
    pub c: Value,
    /// Block scales (only the first `x.scale_a.len()` are set) and the elements one covers
    /// (`usize::MAX` without block scaling).
    pub sa: [Value; MAX_BLOCK],
    pub sb: [Value; MAX_BLOCK],
    pub per: usize,
}

impl Decoded {
    /// An empty buffer for [`Decoded::fill`]. The models keep it in their own frame and fill
    /// it there: returning the 4 KiB buffer by value, or copying it from a constant, cost a
    /// copy per block, a fifth of the time of `mma infer`. Inlined, the array literals become
    /// stores of the NaN tag in place.
    #[inline(always)]
    pub(crate) fn empty() -> Decoded {
        Decoded {
            a: [Value::Nan; MAX_BLOCK],
            b: [Value::Nan; MAX_BLOCK],
            n: 0,
            c: Value::Nan,
            sa: [Value::Nan; MAX_BLOCK],
            sb: [Value::Nan; MAX_BLOCK],
            per: usize::MAX,
        }
    }

    /// Decodes a block. When the IEEE special-value rules (a NaN operand or scale, `0·Inf`,
    /// Inf terms of both signs, or any other Inf) decide the result, returns it encoded with
    /// the path's conventions instead.
    #[inline]
    pub(crate) fn fill<T: Tracer>(
        &mut self,
        f: &Formats,
        x: &BlockIn<'_>,
        out: &Output,
        t: &mut T,
    ) -> Result<(), u64> {
        let d = self;
        d.n = x.a.len();
        d.c = x.c_fmt.decode(x.c);
        d.per = usize::MAX;
        decode_into(&f.a, x.a, &mut d.a);
        decode_into(&f.b, x.b, &mut d.b);
        if let Some((sf, per)) = f.scale {
            d.per = per;
            let mut nan = false;
            for (i, (&ra, &rb)) in x.scale_a.iter().zip(x.scale_b).enumerate() {
                d.sa[i] = sf.decode(ra);
                d.sb[i] = sf.decode(rb);
                nan |= d.sa[i].is_nan() || d.sb[i].is_nan();
            }
            // A NaN scale makes the result NaN even when its products are zero (first paper, block-scaled
            // instructions).
            if nan {
                return Err(special(f, out, Value::Nan, "a NaN scale factor", t));
            }
        }
        match crate::term::scan_specials(&d.a[..d.n], &d.b[..d.n], d.c) {
            crate::term::Special::Finite => Ok(()),
            crate::term::Special::Nan => Err(special(f, out, Value::Nan, WHY_NAN, t)),
            crate::term::Special::Inf { neg } => {
                Err(special(f, out, Value::Inf { neg }, WHY_INF, t))
            }
        }
    }
}

/// Why the IEEE rules give NaN, and Inf, for a fused sum (`term::scan_specials`).
pub(crate) const WHY_NAN: &str = "a NaN operand, 0·Inf, or Inf terms of both signs";
pub(crate) const WHY_INF: &str = "an Inf term (all Inf terms of one sign)";

/// Encodes a special result, telling `t` why.
#[inline]
pub(crate) fn special<T: Tracer>(
    f: &Formats,
    out: &Output,
    v: Value,
    why: &'static str,
    t: &mut T,
) -> u64 {
    t.step(|| Step::Special {
        result: Num::of(v, &f.d, None),
        why,
    });
    out.encode(&f.d, v)
}
