//! Typed values for users: `half`'s `f16`/`bf16` for the 16-bit formats, and one small newtype
//! per 8-bit-or-smaller format. Every newtype is a thin wrapper over its raw code and delegates
//! to its [`Format`] descriptor, so there is no per-format bit twiddling here. Also the PTX
//! packing of two fp4 values per byte.

use crate::format::{self, Format};
use crate::round::{convert, RoundOpts, Rounding};
use crate::value::Value;

pub use half::{bf16, f16};

/// Behaviour shared by the small-format newtypes.
pub trait SmallFloat: Copy {
    /// The format's descriptor.
    const FORMAT: Format;
    /// Wraps a raw code (bits above the format's width are ignored by decoding).
    fn from_bits(bits: u8) -> Self;
    /// The raw code.
    fn to_bits(self) -> u8;

    /// The decoded value.
    fn value(self) -> Value {
        Self::FORMAT.decode(self.to_bits() as u64)
    }

    /// The value as `f32` (exact: every small format fits in f32).
    fn to_f32(self) -> f32 {
        self.value().to_f64() as f32
    }

    /// Rounds an `f32` to this format with the given direction and overflow rule.
    fn from_f32(x: f32, mode: Rounding, opts: RoundOpts) -> Self {
        let v = convert(
            &Self::FORMAT,
            format::FP32.decode(x.to_bits() as u64),
            mode,
            opts,
        );
        Self::from_bits(Self::FORMAT.encode(v, Self::FORMAT.default_nan()) as u8)
    }
}

macro_rules! small_float {
    ($(#[$doc:meta])* $name:ident, $fmt:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
        #[repr(transparent)]
        pub struct $name(pub u8);

        impl SmallFloat for $name {
            const FORMAT: Format = $fmt;
            fn from_bits(bits: u8) -> Self {
                $name(bits)
            }
            fn to_bits(self) -> u8 {
                self.0
            }
        }
    };
}

small_float!(/// OCP FP8 E4M3 (no Inf, S.1111.111 is NaN).
    E4M3, format::E4M3);
small_float!(/// OCP FP8 E5M2 (IEEE-style Inf and NaN).
    E5M2, format::E5M2);
small_float!(/// AMD CDNA3 "fp8": E4M3 FNUZ, bias 8, 0x80 is NaN.
    E4M3Fnuz, format::E4M3_FNUZ);
small_float!(/// AMD CDNA3 "bf8": E5M2 FNUZ, bias 16, 0x80 is NaN.
    E5M2Fnuz, format::E5M2_FNUZ);
small_float!(/// OCP FP6 E3M2, code in bits 5:0.
    E3M2, format::E3M2);
small_float!(/// OCP FP6 E2M3, code in bits 5:0.
    E2M3, format::E2M3);
small_float!(/// OCP FP4 E2M1, code in bits 3:0.
    E2M1, format::E2M1);
small_float!(/// OCP block scale UE8M0: 2^(e-127), 0xFF is NaN.
    UE8M0, format::UE8M0);
small_float!(/// NVIDIA block scale UE4M3: E4M3 without its sign bit.
    UE4M3, format::UE4M3);

/// Packs two fp4 codes into one byte as PTX does for `kind::mxf4`/`kind::mxf4nvf4`: element
/// `2i` in the high nibble, element `2i + 1` in the low nibble.
pub fn pack_fp4(even: E2M1, odd: E2M1) -> u8 {
    (even.0 & 0xF) << 4 | (odd.0 & 0xF)
}

/// The inverse of [`pack_fp4`].
pub fn unpack_fp4(byte: u8) -> (E2M1, E2M1) {
    (E2M1(byte >> 4), E2M1(byte & 0xF))
}

/// Packs a slice of fp4 codes (even length) two per byte.
pub fn pack_fp4_slice(codes: &[E2M1], out: &mut Vec<u8>) {
    out.extend(
        codes
            .chunks(2)
            .map(|p| pack_fp4(p[0], p.get(1).copied().unwrap_or_default())),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newtypes_round_trip_and_convert() {
        // e4m3 0x38 = 2^(7-7) = 1.0; 0x7e = 448; f32 1000 saturates to 448 with .satfinite and
        // becomes NaN (0x7f) without it.
        assert_eq!(E4M3(0x38).to_f32(), 1.0);
        assert_eq!(E4M3(0x7e).to_f32(), 448.0);
        let sat = RoundOpts {
            overflow: crate::Overflow::Saturate,
            ftz: false,
        };
        assert_eq!(
            E4M3::from_f32(1000.0, Rounding::NearestEven, sat),
            E4M3(0x7e)
        );
        assert_eq!(
            E4M3::from_f32(1000.0, Rounding::NearestEven, RoundOpts::IEEE),
            E4M3(0x7f)
        );
        // FNUZ e4m3 has bias 8: 0x40 = 2^(8-8) = 1.0; 0x80 is its only NaN.
        assert_eq!(E4M3Fnuz(0x40).to_f32(), 1.0);
        assert!(E4M3Fnuz(0x80).value().is_nan());
        // ue8m0 0x7f = 2^0, 0x00 = 2^-127.
        assert_eq!(UE8M0(0x7f).to_f32(), 1.0);
        assert_eq!(UE8M0(0).value().to_f64(), 2f64.powi(-127));
        // e2m1 1.5 is code 0b0011; 0.25 ties between 0 and 0.5 and goes to even (0).
        assert_eq!(
            E2M1::from_f32(1.5, Rounding::NearestEven, RoundOpts::IEEE),
            E2M1(3)
        );
        assert_eq!(
            E2M1::from_f32(0.25, Rounding::NearestEven, RoundOpts::IEEE),
            E2M1(0)
        );
    }

    #[test]
    fn fp4_packing_puts_even_elements_high() {
        assert_eq!(pack_fp4(E2M1(0x3), E2M1(0xa)), 0x3a);
        assert_eq!(unpack_fp4(0x3a), (E2M1(0x3), E2M1(0xa)));
        let mut v = Vec::new();
        pack_fp4_slice(&[E2M1(1), E2M1(2), E2M1(3)], &mut v);
        assert_eq!(v, [0x12, 0x30]);
    }
}
