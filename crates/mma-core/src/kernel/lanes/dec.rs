//! Lane decoders of the small float formats: a format as a type ([`V`], with the
//! `SP_*` codes for how it marks Inf/NaN), decoded for every lane of a vector of any width by
//! [`VDec::dec`] into significand, exponent, special mask and sign, as
//! [`crate::Format::decode`] does one word, and from 16-bit lanes ([`WDec`]) for the float
//! stage and E-FDPA. Written once over [`Vector`]; the x86-64 per-dot blocks (`x86/simd.rs`)
//! and every lane routine use it.
//!
//! The float stage reads its formats through [`Dec16`], a decoder as a value: a [`WDec`] type
//! (its parameters constants, one compiled routine per format pair) or [`Small`], whose
//! parameters are read at run time, so that one routine serves the 21 pairs of `kind::f8f6f4`
//! with an fp6 or fp4 side for each block length (and one the fp8 pairs of TR-FDPA and
//! GTR-FDPA). T-FDPA's and ST-FDPA's four OCP fp8 pairs keep routines with their decoders as
//! types: [`Small`]'s parameters take vector registers those stages do not have to spare, and
//! they ran at 0.85-0.95 of the typed routines (docs/performance.md, "Build time"). The
//! decoding is written once, in [`Small`]: a type's [`WDec`] is [`Small`] with constant
//! parameters, whose shifts compile to their immediate forms (docs/performance.md, "Build
//! time", has the measurements).

use super::vector::Vector;
use crate::kernel::plan::VFmt;

/// How a format marks Inf/NaN words (the fast path hands blocks with any to the plain model).
pub const SP_IEEE: u8 = 0;
/// OCP E4M3: only `S.1111.111` is NaN.
pub const SP_ALL_ONES: u8 = 1;
/// No Inf/NaN codes (fp4/fp6).
pub const SP_NONE: u8 = 2;
/// AMD FNUZ: bias `2^(EXP-1)`, only the negative-zero word `1.0000.000` is NaN.
pub const SP_NEG_ZERO: u8 = 3;

/// Arithmetic decoding, lane by lane, of a signed format with subnormals, `EXP`
/// exponent and `MAN` mantissa bits, bias `2^(EXP-1) - 1`, and Inf/NaN codes as `SP`.
#[derive(Clone, Copy, Debug, Default)]
pub struct V<const EXP: i32, const MAN: i32, const SP: u8>;

/// The parameters `(EXP, MAN, SP)` of [`V`] that decode `f` (`None`: tf32, which has a stage
/// of its own). The one list that ties a plan's formats to their lane decoders: a decoder
/// type checks its key against it ([`Dec16::of`]), and the run-time decoder
/// ([`Small`]) is built from it.
#[inline(always)]
pub fn params(f: VFmt) -> Option<(i32, i32, u8)> {
    Some(match f {
        VFmt::F16 => (5, 10, SP_IEEE),
        VFmt::Bf16 => (8, 7, SP_IEEE),
        VFmt::E4M3 => (4, 3, SP_ALL_ONES),
        VFmt::E5M2 => (5, 2, SP_IEEE),
        VFmt::E3M2 => (3, 2, SP_NONE),
        VFmt::E2M3 => (2, 3, SP_NONE),
        VFmt::E2M1 => (2, 1, SP_NONE),
        VFmt::E4M3Fnuz => (4, 3, SP_NEG_ZERO),
        VFmt::E5M2Fnuz => (5, 2, SP_NEG_ZERO),
        VFmt::Tf32 => return None,
    })
}

pub type VF16 = V<5, 10, SP_IEEE>;
pub type VBf16 = V<8, 7, SP_IEEE>;
// The per-dot blocks of x86-64 (`x86/per_dot.rs`) decode these as types; the lanes read
// fp6 and fp4 at run time (`Small`), and decode the fp8 pairs of T-FDPA and ST-FDPA as types.
pub type VE4M3 = V<4, 3, SP_ALL_ONES>;
pub type VE5M2 = V<5, 2, SP_IEEE>;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub type VE3M2 = V<3, 2, SP_NONE>;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub type VE2M3 = V<2, 3, SP_NONE>;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub type VE2M1 = V<2, 1, SP_NONE>;
pub type VE4M3Fnuz = V<4, 3, SP_NEG_ZERO>;
pub type VE5M2Fnuz = V<5, 2, SP_NEG_ZERO>;

/// The bias of a format with `exp` exponent bits and Inf/NaN codes as `sp`: `2^(exp-1) - 1`,
/// or `2^(exp-1)` for AMD FNUZ.
pub const fn bias(exp: i32, sp: u8) -> i32 {
    if sp == SP_NEG_ZERO {
        1 << (exp - 1)
    } else {
        (1 << (exp - 1)) - 1
    }
}

/// A lane decoder: significand with the hidden bit, `max(exponent field, 1)` (the scientific
/// exponent plus the bias), a mask of the lanes where the word is Inf/NaN, and the sign as 0/-1.
pub trait VDec: Copy {
    const BIAS: i32;
    /// The decoder, if it is the one of `f` ([`params`]).
    fn of(f: VFmt) -> Option<Self>;
    fn dec<X: Vector>(x: X::I) -> (X::I, X::I, X::M, X::I);
}

impl<const EXP: i32, const MAN: i32, const SP: u8> VDec for V<EXP, MAN, SP> {
    const BIAS: i32 = bias(EXP, SP);

    #[inline(always)]
    fn of(f: VFmt) -> Option<Self> {
        (params(f) == Some((EXP, MAN, SP))).then_some(V)
    }

    #[inline(always)]
    fn dec<X: Vector>(x: X::I) -> (X::I, X::I, X::M, X::I) {
        let top = (1 << EXP) - 1;
        let ef = X::and(X::shr(x, MAN as u32), X::splat(top));
        let man = X::and(x, X::splat((1 << MAN) - 1));
        let normal = X::gt(ef, X::zero());
        let sig = X::or(man, X::keep(normal, X::splat(1 << MAN)));
        let e = X::max(ef, X::splat(1));
        let special = match SP {
            SP_IEEE => X::eq(ef, X::splat(top)),
            SP_ALL_ONES => {
                let low = X::splat((1 << (EXP + MAN)) - 1);
                X::eq(X::and(x, low), low)
            }
            SP_NEG_ZERO => {
                let low = X::splat((1 << (1 + EXP + MAN)) - 1);
                let nan = X::splat(1 << (EXP + MAN));
                X::eq(X::and(x, low), nan)
            }
            _ => X::none(),
        };
        let neg = X::sar(X::shl(x, (31 - EXP - MAN) as u32), 31);
        (sig, e, special, neg)
    }
}

/// A format decoded from 16-bit lanes (two columns per vector, see [`Vector::pack16`]) for
/// the float stage (`stage.rs`, through [`Dec16`]) and E-FDPA.
pub trait WDec: VDec {
    /// Exponent field bits (8: bf16, converted by a shift; else through `f16`).
    const EXP_BITS: i32;
    /// Mantissa bits.
    const MAN_BITS: i32;
    /// The power of two [`WDec::unscaled`] leaves out: `15 - bias` for the formats read
    /// through `f16`, 0 for bf16.
    const LACK: i32;
    /// Per 16-bit lane: `max(exponent field, 1)`, a mask of zeros, a mask of Inf/NaN codes.
    fn fields<V: Vector>(w: V::I) -> (V::I, V::M16, V::M16);
    /// The values of the low and the high column as `f32`, divided by `2^LACK`.
    fn unscaled<V: Vector>(w: V::I) -> (V::F, V::F);
    /// The values of the low and the high column as `f32`.
    #[inline(always)]
    fn values<V: Vector>(w: V::I) -> (V::F, V::F) {
        let (lo, hi) = Self::unscaled::<V>(w);
        if Self::LACK == 0 {
            return (lo, hi);
        }
        let s = V::as_f(V::splat((127 + Self::LACK) << 23));
        (V::f_mul(lo, s), V::f_mul(hi, s))
    }
}

impl<const EXP: i32, const MAN: i32, const SP: u8> WDec for V<EXP, MAN, SP> {
    const EXP_BITS: i32 = EXP;
    const MAN_BITS: i32 = MAN;
    const LACK: i32 = if EXP == 8 { 0 } else { 15 - bias(EXP, SP) };

    #[inline(always)]
    fn fields<X: Vector>(w: X::I) -> (X::I, X::M16, X::M16) {
        Self::SMALL.fields::<X>(w)
    }

    #[inline(always)]
    fn unscaled<X: Vector>(w: X::I) -> (X::F, X::F) {
        if EXP == 8 {
            // bf16: the upper half of an f32.
            return X::bf16_to_f(w);
        }
        Self::SMALL.unscaled::<X>(w)
    }
}

impl<const EXP: i32, const MAN: i32, const SP: u8> V<EXP, MAN, SP> {
    /// The format's parameters as [`Small`] holds them: one decoder for both, its fields
    /// constants here (the shifts compile to their immediate forms).
    const SMALL: Small = Small::fixed(EXP, MAN, SP);
}

/// A decoder of the float stage's 16-bit lanes as a value (see the module docs): every
/// [`WDec`] type, and [`Small`].
pub trait Dec16: Copy {
    /// The decoder of `f`; `None` where this one does not decode it.
    fn of(f: VFmt) -> Option<Self>;
    /// The format's bias.
    fn bias(self) -> i32;
    /// Whether the format is bf16 (8 exponent bits: products may leave f32's normal range).
    fn bf16(self) -> bool;
    /// Mantissa bits.
    fn man_bits(self) -> i32;
    /// As [`WDec::LACK`].
    fn lack(self) -> i32;
    /// As [`WDec::fields`].
    fn fields<X: Vector>(self, w: X::I) -> (X::I, X::M16, X::M16);
    /// As [`WDec::unscaled`].
    fn unscaled<X: Vector>(self, w: X::I) -> (X::F, X::F);
}

impl<T: WDec> Dec16 for T {
    #[inline(always)]
    fn of(f: VFmt) -> Option<Self> {
        <T as VDec>::of(f)
    }
    #[inline(always)]
    fn bias(self) -> i32 {
        T::BIAS
    }
    #[inline(always)]
    fn bf16(self) -> bool {
        T::EXP_BITS == 8
    }
    #[inline(always)]
    fn man_bits(self) -> i32 {
        T::MAN_BITS
    }
    #[inline(always)]
    fn lack(self) -> i32 {
        T::LACK
    }
    #[inline(always)]
    fn fields<X: Vector>(self, w: X::I) -> (X::I, X::M16, X::M16) {
        <T as WDec>::fields::<X>(w)
    }
    #[inline(always)]
    fn unscaled<X: Vector>(self, w: X::I) -> (X::F, X::F) {
        <T as WDec>::unscaled::<X>(w)
    }
}

/// A format of at most five exponent bits read through `f16` (fp8, fp6, fp4), its
/// parameters values: read from the plan (one routine for every such format, the shift counts
/// in registers), or constants in [`V`]'s [`WDec`], which decodes through it. The Inf/NaN test
/// of every marking is one comparison: `w & special_mask == special_value` (IEEE: the exponent
/// field all ones; OCP E4M3: the body all ones; FNUZ: the sign alone; none: a mask of 0 against
/// a value it cannot equal).
#[derive(Clone, Copy, Debug)]
pub struct Small {
    man: i32,
    bias: i32,
    /// The exponent field all ones.
    top: i16,
    /// The exponent and mantissa bits.
    body: i16,
    /// The sign bit.
    sign: i16,
    special_mask: i16,
    special_value: i16,
    /// Where the sign bit goes in the `f16` word: `15 - EXP - MAN`.
    sign_to_f16: u32,
}

impl Small {
    /// The decoder of `exp` exponent and `man` mantissa bits with Inf/NaN codes as `sp`, as
    /// [`V`] has them (16-bit words; [`Dec16::unscaled`] only where [`Dec16::of`] accepts the
    /// format: bf16 and E5M2 FNUZ are not `f16` values).
    #[inline(always)]
    const fn fixed(exp: i32, man: i32, sp: u8) -> Small {
        let (top, body, sign) = ((1 << exp) - 1, (1 << (exp + man)) - 1, 1 << (exp + man));
        let (special_mask, special_value) = match sp {
            SP_IEEE => (top << man, top << man),
            SP_ALL_ONES => (body, body),
            SP_NEG_ZERO => (sign | body, sign),
            _ => (0, -1),
        };
        Small {
            man,
            bias: bias(exp, sp),
            top: top as i16,
            body: body as i16,
            sign: sign as i16,
            special_mask: special_mask as i16,
            special_value: special_value as i16,
            sign_to_f16: (15 - exp - man) as u32,
        }
    }
}

impl Dec16 for Small {
    #[inline(always)]
    fn of(f: VFmt) -> Option<Small> {
        let (exp, man, sp) = params(f)?;
        // Read through `f16`: five exponent bits at most, and with five only where the top
        // code is Inf/NaN (as in `f16`; E5M2 FNUZ's is finite, bf16 has eight).
        if exp > 5 || (exp == 5 && sp != SP_IEEE) {
            return None;
        }
        Some(Small::fixed(exp, man, sp))
    }
    #[inline(always)]
    fn bias(self) -> i32 {
        self.bias
    }
    #[inline(always)]
    fn bf16(self) -> bool {
        false
    }
    #[inline(always)]
    fn man_bits(self) -> i32 {
        self.man
    }
    #[inline(always)]
    fn lack(self) -> i32 {
        15 - self.bias
    }
    #[inline(always)]
    fn fields<X: Vector>(self, w: X::I) -> (X::I, X::M16, X::M16) {
        let set = X::splat16;
        let ef = X::and(X::shr16(w, self.man as u32), set(self.top));
        let zero = X::eq16(X::and(w, set(self.body)), X::zero());
        let special = X::eq16(X::and(w, set(self.special_mask)), set(self.special_value));
        (X::max16(ef, set(1)), zero, special)
    }
    #[inline(always)]
    fn unscaled<X: Vector>(self, w: X::I) -> (X::F, X::F) {
        let set = X::splat16;
        let body = X::and(w, set(self.body));
        let sign = X::and(w, set(self.sign));
        let h = X::or(
            X::shl16(body, (10 - self.man) as u32),
            X::shl16(sign, self.sign_to_f16),
        );
        X::f16_to_f(h)
    }
}
