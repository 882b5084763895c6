//! Lane decoders of the small float formats: a format as a type ([`V`], with the
//! `SP_*` codes for how it marks Inf/NaN), decoded for every lane of a vector of any width by
//! [`VDec::dec`] into significand, exponent, special mask and sign, as
//! [`crate::Format::decode`] does one word. Written once over [`Vector`]; the x86-64 per-dot
//! blocks (`x86/simd.rs`) and every lane routine use it.

use super::vector::Vector;

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
#[derive(Clone, Copy, Debug)]
pub struct V<const EXP: i32, const MAN: i32, const SP: u8>;

pub type VF16 = V<5, 10, SP_IEEE>;
pub type VBf16 = V<8, 7, SP_IEEE>;
pub type VE4M3 = V<4, 3, SP_ALL_ONES>;
pub type VE5M2 = V<5, 2, SP_IEEE>;
pub type VE3M2 = V<3, 2, SP_NONE>;
pub type VE2M3 = V<2, 3, SP_NONE>;
pub type VE2M1 = V<2, 1, SP_NONE>;
pub type VE4M3Fnuz = V<4, 3, SP_NEG_ZERO>;
pub type VE5M2Fnuz = V<5, 2, SP_NEG_ZERO>;

/// A lane decoder: significand with the hidden bit, `max(exponent field, 1)` (the scientific
/// exponent plus the bias), a mask of the lanes where the word is Inf/NaN, and the sign as 0/-1.
pub trait VDec: Copy {
    const BIAS: i32;
    fn dec<X: Vector>(x: X::I) -> (X::I, X::I, X::M, X::I);
}

impl<const EXP: i32, const MAN: i32, const SP: u8> VDec for V<EXP, MAN, SP> {
    const BIAS: i32 = if SP == SP_NEG_ZERO {
        1 << (EXP - 1)
    } else {
        (1 << (EXP - 1)) - 1
    };

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
