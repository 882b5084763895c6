//! Number formats as small descriptors.
//!
//! A [`Format`] holds only what the standard (IEEE 754, OCP MX, AMD FNUZ) fixes about a
//! format: exponent and mantissa widths, bias, how Inf/NaN are encoded, whether a sign bit
//! exists and where the fields sit in the storage word. Everything else (largest finite value,
//! subnormal exponent, NaN patterns) is derived, as rustc_apfloat does with its `Semantics`.
//! Decoding and encoding are written once for all formats; the formats themselves are `ALL`
//! below (IEEE 754, the OCP 8-bit and MX specifications, AMD FNUZ).

use crate::value::Value;

/// How a format spends its top exponent code (and, for FNUZ, the negative-zero code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Specials {
    /// IEEE 754: the all-ones exponent encodes Inf (mantissa 0) and NaN (mantissa non-zero).
    Ieee,
    /// OCP E4M3 ("fn"): no Inf; only S.1111.111 is NaN, the rest of the top binade is finite.
    NanAllOnes,
    /// AMD FNUZ: no Inf, no -0; the code 1000...0 (negative zero) is the single NaN.
    NanNegZero,
    /// Every code is a finite number (fp6, fp4).
    None,
    /// Unsigned scale formats whose all-ones code is NaN (ue8m0).
    NanMax,
}

/// A binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    /// Short name used in case files and messages (`"f16"`, `"e4m3"`, ...).
    pub name: &'static str,
    pub exp_bits: u32,
    pub man_bits: u32,
    pub bias: i32,
    /// Whether the encoding has a sign bit (false for the ue8m0/ue4m3 scale formats).
    pub signed: bool,
    pub specials: Specials,
    /// Whether biased exponent 0 encodes subnormals (true for all but ue8m0).
    pub subnormals: bool,
    /// Bits of the storage word that hold the value (tf32 lives in 32 bits).
    pub storage_bits: u32,
    /// Position of the mantissa's least significant bit in the storage word (13 for tf32,
    /// whose low 13 bits are ignored on input and written as zero on output).
    pub lsb: u32,
    /// An integer format (`Format::int` builds one): no exponent, `man_bits` value bits, two's
    /// complement where `signed` (s8, s4, s32), plain binary where not (u8, u4, and b1, the
    /// single bit of the `.b1` instructions). Its values are whole numbers (`exp` 0 when
    /// decoded); [`Format::decode`], [`Format::encode`] and [`Format::encode_exact`] know the
    /// encoding, the floating-point accessors (`emin`, `emax`, rounding) are not for it.
    pub integer: bool,
}

// The small accessors are `#[inline]`: the plain models call them per element, and the test
// profile (incremental, many code-generation units) inlines nothing across units without it.
impl Format {
    const fn ieee(name: &'static str, exp_bits: u32, man_bits: u32, storage_bits: u32) -> Self {
        Format {
            name,
            exp_bits,
            man_bits,
            bias: (1 << (exp_bits - 1)) - 1,
            signed: true,
            specials: Specials::Ieee,
            subnormals: true,
            storage_bits,
            lsb: 0,
            integer: false,
        }
    }

    /// An integer format of `width` bits (two's complement where `signed`) in a storage word of
    /// `storage_bits`: s8 is `int("s8", 8, true, 8)`.
    const fn int(name: &'static str, width: u32, signed: bool, storage_bits: u32) -> Self {
        Format {
            name,
            exp_bits: 0,
            man_bits: width - signed as u32,
            bias: 0,
            signed,
            specials: Specials::None,
            subnormals: false,
            storage_bits,
            lsb: 0,
            integer: true,
        }
    }

    /// The smallest and largest value of an integer format (`-2^(w-1)`, `2^(w-1) - 1` for a
    /// signed one of `w` bits; `0`, `2^w - 1` for an unsigned one); `None` for the others.
    pub const fn int_range(&self) -> Option<(i64, i64)> {
        if !self.integer {
            return None;
        }
        let top = 1i64 << self.man_bits;
        Some(if self.signed {
            (-top, top - 1)
        } else {
            (0, top - 1)
        })
    }

    /// The value of an integer format's word (bits above the width ignored); `None` for
    /// floating-point formats.
    #[inline]
    pub const fn int_value(&self, bits: u64) -> Option<i64> {
        if !self.integer {
            return None;
        }
        let w = self.width();
        let raw = (bits & ((1u64 << w) - 1)) as i64;
        Some(if self.signed && raw >> (w - 1) != 0 {
            raw - (1i64 << w)
        } else {
            raw
        })
    }

    /// The word of an integer format that holds `v`, `None` outside its range (or for a
    /// floating-point format).
    pub const fn int_word(&self, v: i64) -> Option<u64> {
        match self.int_range() {
            Some((lo, hi)) if v >= lo && v <= hi => Some((v as u64) & ((1u64 << self.width()) - 1)),
            _ => None,
        }
    }

    /// Width in bits of the encoded value (sign, exponent, mantissa), without tf32 padding.
    #[inline]
    pub const fn width(&self) -> u32 {
        self.signed as u32 + self.exp_bits + self.man_bits
    }

    /// Smallest exponent of a normal number; subnormals share it (`e_sub` in the papers).
    #[inline]
    pub const fn emin(&self) -> i32 {
        if self.subnormals {
            1 - self.bias
        } else {
            -self.bias
        }
    }

    /// Exponent of the largest finite binade.
    #[inline]
    pub const fn emax(&self) -> i32 {
        let top = (1i32 << self.exp_bits) - 1;
        match self.specials {
            Specials::Ieee => top - 1 - self.bias,
            Specials::NanMax if self.man_bits == 0 => top - 1 - self.bias,
            _ => top - self.bias,
        }
    }

    /// Largest finite significand (with the hidden bit) in the top binade.
    #[inline]
    pub const fn max_sig(&self) -> u64 {
        let all = (1u64 << (self.man_bits + 1)) - 1;
        match self.specials {
            // S.1111.111 is NaN, so the top binade stops one step short.
            Specials::NanAllOnes => all - 1,
            Specials::NanMax if self.man_bits > 0 => all - 1,
            _ => all,
        }
    }

    /// Exponent of the quantum (least significant bit) of subnormal numbers.
    #[inline]
    pub const fn min_lsb_exp(&self) -> i32 {
        self.emin() - self.man_bits as i32
    }

    /// Whether every finite value of `self` is also a value of `other` (no wider precision,
    /// range or subnormal reach, and signed only where `other` is), so that a result rounded
    /// to `self` can be stored exactly in `other`'s words (E8M13 in f32 words, say).
    pub const fn values_within(&self, other: &Format) -> bool {
        if self.man_bits > other.man_bits
            || self.min_lsb_exp() < other.min_lsb_exp()
            || (self.signed && !other.signed)
        {
            return false;
        }
        // Largest finite values, both as significands over `other`'s quantum at `other.emax`.
        let e = self.emax() - self.man_bits as i32;
        let eo = other.emax() - other.man_bits as i32;
        let (s, o) = (self.max_sig(), other.max_sig());
        if e >= eo {
            let shift = (e - eo) as u32;
            shift < 64 && (s << shift) >> shift == s && s << shift <= o
        } else {
            let shift = (eo - e) as u32;
            shift >= 64 || (o << shift) >> shift != o || s <= o << shift
        }
    }

    #[inline]
    pub const fn has_inf(&self) -> bool {
        matches!(self.specials, Specials::Ieee)
    }

    #[inline]
    pub const fn has_nan(&self) -> bool {
        !matches!(self.specials, Specials::None)
    }

    /// Mask of the storage word's meaningful bits.
    #[inline]
    pub const fn storage_mask(&self) -> u64 {
        if self.storage_bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.storage_bits) - 1
        }
    }

    #[inline]
    pub(crate) const fn sign_bit(&self) -> u64 {
        1u64 << (self.lsb + self.exp_bits + self.man_bits)
    }

    /// Whether `bits` is a valid storage word (no bits set above the storage width; for the
    /// sub-byte formats, none above the encoded width). The one exception is an unsigned
    /// 7-bit format in a byte (ue4m3): its bit 7 is the sign position of the signed sibling
    /// (e4m3) and is ignored, so such a byte reads as its low 7 bits. NVFP4 data carries such
    /// bytes, and mmasim 2.1.1 reads them masked the same way.
    pub fn is_valid_encoding(&self, bits: u64) -> bool {
        let top = self.lsb + self.width();
        if self.ignores_bit7() {
            return bits >> 8 == 0;
        }
        let limit = if self.storage_bits == 8 && self.width() < 8 {
            top
        } else {
            self.storage_bits
        };
        limit >= 64 || bits >> limit == 0
    }

    /// Whether bit 7 of a storage byte is ignored (an unsigned 7-bit format: ue4m3).
    #[inline]
    pub const fn ignores_bit7(&self) -> bool {
        !self.signed && self.storage_bits == 8 && self.lsb == 0 && self.width() == 7
    }

    /// Decodes a storage word. Bits below `lsb` (tf32's dropped mantissa) are ignored, which is
    /// how the tensor cores truncate an fp32 register to tf32. Bits above the encoded width are
    /// ignored; callers that must reject them use [`Format::is_valid_encoding`].
    #[inline]
    pub fn decode(&self, bits: u64) -> Value {
        if let Some(v) = self.int_value(bits) {
            return if v == 0 {
                Value::POS_ZERO
            } else {
                Value::Finite {
                    neg: v < 0,
                    sig: v.unsigned_abs(),
                    exp: 0,
                }
            };
        }
        let man_mask = (1u64 << self.man_bits) - 1;
        let exp_mask = (1u64 << self.exp_bits) - 1;
        let man = (bits >> self.lsb) & man_mask;
        let biased = (bits >> (self.lsb + self.man_bits)) & exp_mask;
        let neg = self.signed && bits & self.sign_bit() != 0;
        let top = biased == exp_mask;
        match self.specials {
            Specials::Ieee if top => {
                return if man == 0 {
                    Value::Inf { neg }
                } else {
                    Value::Nan
                };
            }
            Specials::NanAllOnes if top && man == man_mask => return Value::Nan,
            Specials::NanMax if top && man == man_mask => return Value::Nan,
            Specials::NanNegZero if neg && biased == 0 && man == 0 => return Value::Nan,
            _ => {}
        }
        if biased == 0 && self.subnormals {
            if man == 0 {
                return Value::Zero { neg };
            }
            return Value::Finite {
                neg,
                sig: man,
                exp: self.min_lsb_exp(),
            };
        }
        let sig = man | (1u64 << self.man_bits);
        let exp = biased as i32 - self.bias - self.man_bits as i32;
        Value::Finite { neg, sig, exp }
    }

    /// Encodes a value that is exactly representable in this format (the output of
    /// [`crate::round::round`] for this format). NaN becomes `nan_bits`; a -0 of a format without
    /// negative zero becomes +0; Inf of a format without Inf is a caller bug and saturates.
    pub fn encode(&self, v: Value, nan_bits: u64) -> u64 {
        if self.integer {
            return self.encode_int(v);
        }
        let sign = |neg: bool| {
            if neg && self.signed {
                self.sign_bit()
            } else {
                0
            }
        };
        match v {
            Value::Nan => nan_bits,
            Value::Zero { neg } => {
                if self.specials == Specials::NanNegZero {
                    0
                } else {
                    sign(neg)
                }
            }
            Value::Inf { neg } => {
                if self.has_inf() {
                    sign(neg) | (((1u64 << self.exp_bits) - 1) << (self.lsb + self.man_bits))
                } else {
                    sign(neg) | self.encode_mag(self.max_sig(), self.emax() - self.man_bits as i32)
                }
            }
            Value::Finite { neg, sig, exp } => {
                if sig == 0 {
                    return self.encode(Value::Zero { neg }, nan_bits);
                }
                let (_, shift) = self.grid(sig, exp);
                let s = if shift >= 0 {
                    sig >> shift
                } else {
                    sig << -shift
                };
                debug_assert!(
                    shift <= 0 || s << shift == sig,
                    "{} cannot hold {v:?}",
                    self.name
                );
                sign(neg) | self.encode_mag(s, exp + shift)
            }
        }
    }

    /// The word that holds `v` exactly, `None` where no word does. A NaN is the format's
    /// default NaN (`None` in a format without NaN); an infinity needs a format with
    /// infinities; a zero needs a format with a zero (ue8m0 has none), and -0 in a format
    /// without negative zero is +0, the same number; a finite value needs the format's range
    /// and grid (no bit below its quantum, no rounding; a negative one, a signed format).
    /// Every client that turns a value into a word "only if exact" (the Python package's
    /// arrays, the probe generator's operands) asks here.
    pub fn encode_exact(&self, v: Value) -> Option<u64> {
        if self.integer {
            return match v {
                Value::Zero { .. } => Some(0),
                Value::Finite { neg, sig, exp } => {
                    let m = exact_integer(sig, exp)?;
                    self.int_word(if neg { -m } else { m })
                }
                Value::Inf { .. } | Value::Nan => None,
            };
        }
        let w = match v {
            Value::Nan => return self.has_nan().then(|| self.default_nan()),
            Value::Inf { .. } if !self.has_inf() => return None,
            Value::Finite { neg: true, sig, .. } if sig != 0 && !self.signed => return None,
            Value::Finite { sig, exp, .. } if sig != 0 => {
                // On the grid: the leading bit's exponent `e` within the range, and no bit below
                // the quantum of its binade. What lies on a NaN's encoding (e4m3's 1.111·2^8)
                // the comparison below refuses.
                let (e, below) = self.grid(sig, exp);
                let off_grid = below > 0 && (below >= 64 || sig & ((1u64 << below) - 1) != 0);
                if e > self.emax() || off_grid {
                    return None;
                }
                self.encode(v, self.default_nan())
            }
            _ => self.encode(v, self.default_nan()),
        };
        self.decode(w).same_number(&v).then_some(w)
    }

    /// [`Format::encode`] for an integer format: the value's word, saturated to the range
    /// where it lies outside (an infinity to the end of its sign, NaN to 0); a fraction is cut
    /// toward zero. The integer models build their words themselves; this serves the generic
    /// callers (a special value of a float path never reaches an integer format).
    fn encode_int(&self, v: Value) -> u64 {
        let Some((lo, hi)) = self.int_range() else {
            return 0;
        };
        let x = match v {
            Value::Zero { .. } | Value::Nan => 0,
            Value::Inf { neg } => {
                if neg {
                    lo
                } else {
                    hi
                }
            }
            Value::Finite { neg, sig, exp } => {
                let m = match exact_integer(sig, exp.max(-64)) {
                    Some(m) => m,
                    None if exp < 0 => (sig >> (-exp).min(63)) as i64,
                    None => i64::MAX,
                };
                (if neg { -m } else { m }).clamp(lo, hi)
            }
        };
        (x as u64) & ((1u64 << self.width()) - 1)
    }

    /// Where `sig·2^exp` (`sig > 0`) sits on this format's grid: the exponent `e` of its leading
    /// bit, and the shift that gives it exactly `man_bits` fraction bits, or the subnormal
    /// quantum below `emin` (positive: bits below the quantum; [`Format::encode`] drops them,
    /// [`Format::encode_exact`] refuses a value that has any).
    fn grid(&self, sig: u64, exp: i32) -> (i32, i32) {
        let e = exp + 63 - sig.leading_zeros() as i32;
        let shift = if e < self.emin() {
            self.min_lsb_exp() - exp
        } else {
            e - self.man_bits as i32 - exp
        };
        (e, shift)
    }

    /// Encodes magnitude `sig·2^lsb_exp` where `sig` is already aligned to the format's quantum.
    fn encode_mag(&self, sig: u64, lsb_exp: i32) -> u64 {
        let hidden = 1u64 << self.man_bits;
        let (biased, man) = if sig >= hidden {
            let biased = lsb_exp + self.man_bits as i32 + self.bias;
            (biased as u64, sig - hidden)
        } else {
            (0, sig)
        };
        ((biased << self.man_bits) | man) << self.lsb
    }

    /// The IEEE-style default quiet NaN: sign clear, top exponent, mantissa MSB set.
    pub fn default_nan(&self) -> u64 {
        match self.specials {
            Specials::Ieee => {
                let e = ((1u64 << self.exp_bits) - 1) << self.man_bits;
                (e | (1u64 << (self.man_bits - 1))) << self.lsb
            }
            Specials::NanAllOnes | Specials::NanMax => {
                ((1u64 << (self.exp_bits + self.man_bits)) - 1) << self.lsb
            }
            Specials::NanNegZero => self.sign_bit(),
            Specials::None => 0,
        }
    }

    /// NVIDIA's canonical NaN: every bit but the sign set (0x7FFFFFFF, 0x7FFF).
    pub fn all_ones_nan(&self) -> u64 {
        ((1u64 << (self.exp_bits + self.man_bits)) - 1) << self.lsb
    }

    /// Number of hex digits of the storage word in case files.
    pub const fn hex_digits(&self) -> usize {
        (self.storage_bits as usize).div_ceil(4)
    }
}

/// `sig·2^exp` as an integer when it is one and fits an `i64` with room for its sign.
const fn exact_integer(sig: u64, exp: i32) -> Option<i64> {
    if exp >= 0 {
        if exp >= 63 || sig.leading_zeros() <= exp as u32 {
            return None;
        }
        let m = sig << exp;
        if m > i64::MAX as u64 {
            None
        } else {
            Some(m as i64)
        }
    } else {
        let s = -exp as u32;
        if s >= 64 {
            return if sig == 0 { Some(0) } else { None };
        }
        if sig & ((1u64 << s) - 1) != 0 || sig >> s > i64::MAX as u64 {
            None
        } else {
            Some((sig >> s) as i64)
        }
    }
}

pub const FP64: Format = Format::ieee("f64", 11, 52, 64);

// Beside FP64, whose decoding it is, so that `value.rs` names no format (the ground floor's
// order, the tidy test).
impl Value {
    /// The exact value of an `f64`: its word decoded as [`FP64`] (NaN of any payload is
    /// [`Value::Nan`]).
    pub fn from_f64(x: f64) -> Value {
        FP64.decode(x.to_bits())
    }
}

pub const FP32: Format = Format::ieee("f32", 8, 23, 32);
pub const FP16: Format = Format::ieee("f16", 5, 10, 16);
pub const BF16: Format = Format::ieee("bf16", 8, 7, 16);
/// TF32 (NVIDIA) / XF32 (AMD): fp32 storage with the low 13 mantissa bits dropped.
pub const TF32: Format = Format {
    name: "tf32",
    lsb: 13,
    ..Format::ieee("tf32", 8, 10, 32)
};
/// OCP E5M2: IEEE-style specials.
pub const E5M2: Format = Format::ieee("e5m2", 5, 2, 8);
/// OCP E4M3 ("fn"): no Inf, only S.1111.111 is NaN.
pub const E4M3: Format = Format {
    specials: Specials::NanAllOnes,
    ..Format::ieee("e4m3", 4, 3, 8)
};
/// AMD CDNA3 "fp8": E4M3 FNUZ, bias 8.
pub const E4M3_FNUZ: Format = Format {
    bias: 8,
    specials: Specials::NanNegZero,
    ..Format::ieee("e4m3fnuz", 4, 3, 8)
};
/// AMD CDNA3 "bf8": E5M2 FNUZ, bias 16.
pub const E5M2_FNUZ: Format = Format {
    bias: 16,
    specials: Specials::NanNegZero,
    ..Format::ieee("e5m2fnuz", 5, 2, 8)
};
/// OCP FP6 E3M2, finite only.
pub const E3M2: Format = Format {
    specials: Specials::None,
    ..Format::ieee("e3m2", 3, 2, 8)
};
/// OCP FP6 E2M3, finite only.
pub const E2M3: Format = Format {
    specials: Specials::None,
    ..Format::ieee("e2m3", 2, 3, 8)
};
/// OCP FP4 E2M1, finite only.
pub const E2M1: Format = Format {
    specials: Specials::None,
    ..Format::ieee("e2m1", 2, 1, 8)
};
/// OCP block scale UE8M0: a power of two 2^(e-127), 0xFF is NaN, no zero.
pub const UE8M0: Format = Format {
    signed: false,
    specials: Specials::NanMax,
    subnormals: false,
    ..Format::ieee("ue8m0", 8, 0, 8)
};
/// NVIDIA block scale UE4M3: E4M3 without its sign bit.
pub const UE4M3: Format = Format {
    signed: false,
    specials: Specials::NanAllOnes,
    ..Format::ieee("ue4m3", 4, 3, 8)
};
/// The fp32-range format with 13 mantissa bits that Ada/Hopper fp8 paths round to ("E8M13").
pub const E8M13: Format = Format::ieee("e8m13", 8, 13, 32);

/// The integer formats of the integer MMA instructions (NVIDIA `.s8/.u8/.s4/.u4/.b1` with
/// `.s32` accumulators, AMD `i8` with `i32`). One element per storage byte in case files
/// (s4/u4 in bits 3:0, b1 in bit 0); the registers' packing is the catalog's
/// [`Layout`](crate::catalog::Layout).
pub const S8: Format = Format::int("s8", 8, true, 8);
pub const U8: Format = Format::int("u8", 8, false, 8);
pub const S4: Format = Format::int("s4", 4, true, 8);
pub const U4: Format = Format::int("u4", 4, false, 8);
/// One bit (`.b1`): 0 or 1.
pub const B1: Format = Format::int("b1", 1, false, 8);
pub const S32: Format = Format::int("s32", 32, true, 32);

/// Every named floating-point format, for look-up by name and for exhaustive tests.
pub const ALL: &[Format] = &[
    FP64, FP32, TF32, FP16, BF16, E5M2, E4M3, E4M3_FNUZ, E5M2_FNUZ, E3M2, E2M3, E2M1, UE8M0, UE4M3,
];

/// Every named integer format.
pub const INTEGERS: &[Format] = &[S8, U8, S4, U4, B1, S32];

/// Looks a format up by its name or a common alias (case-insensitive), PyTorch's and NumPy's
/// dtype names included (`float32`, `float8_e4m3fn`, `torch.bfloat16`).
pub fn by_name(name: &str) -> Option<Format> {
    let n = name.to_ascii_lowercase();
    let n = n.strip_prefix("torch.").unwrap_or(&n);
    let canonical = match n {
        "fp64" | "f64" | "binary64" | "float64" | "double" => "f64",
        "fp32" | "f32" | "binary32" | "float32" | "float" => "f32",
        "tf32" | "xf32" => "tf32",
        "fp16" | "f16" | "binary16" | "half" | "float16" => "f16",
        "bf16" | "bfloat16" => "bf16",
        "e5m2" | "fp8_e5m2" | "float8_e5m2" => "e5m2",
        "e4m3" | "fp8_e4m3" | "e4m3fn" | "float8_e4m3fn" => "e4m3",
        "e4m3fnuz" | "fp8" | "e4m3_fnuz" | "float8_e4m3fnuz" => "e4m3fnuz",
        "e5m2fnuz" | "bf8" | "e5m2_fnuz" | "float8_e5m2fnuz" => "e5m2fnuz",
        "e3m2" | "fp6_e3m2" => "e3m2",
        "e2m3" | "fp6_e2m3" => "e2m3",
        "e2m1" | "fp4" | "fp4_e2m1" => "e2m1",
        "ue8m0" | "e8m0" => "ue8m0",
        "ue4m3" => "ue4m3",
        "s8" | "i8" | "int8" => "s8",
        "u8" | "uint8" => "u8",
        "s4" | "i4" | "int4" => "s4",
        "u4" | "uint4" => "u4",
        "b1" => "b1",
        "s32" | "i32" | "int32" => "s32",
        other => other,
    };
    ALL.iter()
        .chain(INTEGERS)
        .copied()
        .find(|f| f.name == canonical)
}
