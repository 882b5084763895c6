//! Split-K: a matrix product whose K is cut into `S` equal slices, each walked by the
//! instruction as [`DotUnit::gemm`] does (starting from +0), and the `S` partial results
//! reduced in a fixed order in D's format with IEEE 754 addition rounded to nearest even:
//! `D = ((C + P_0) + P_1) + … + P_{S-1}`. This is the serial reduction a split-K kernel
//! performs in its epilogue (for f32 D, an fp32 reduction); it is deterministic and does not
//! depend on the thread count.

use crate::drive::GemmIn;
use crate::format::Format;
use crate::model::{BlockIn, BlockModel, Formats, NanStyle};
use crate::models::fma::Fma;
use crate::round::Rounding;
use crate::unit::{DotUnit, ShapeError};
use crate::value::Value;

/// `x + y` for two words of `fmt`, exactly summed and rounded once to nearest even (IEEE 754
/// addition). NaN operands and Inf − Inf give `fmt`'s default NaN; an exact zero sum is +0
/// unless both addends are −0; overflow follows IEEE rules (Inf, or NaN/the largest value in
/// formats without Inf).
///
/// Computed as the fused multiply-add `x · 1 + y` of the FMA model ([`Fma`]): the product is
/// exactly `x`, so the one rounding is the sum's, with every IEEE rule above.
pub fn add_rne(fmt: &Format, x: u64, y: u64) -> u64 {
    let one = fmt.encode(
        Value::Finite {
            neg: false,
            sig: 1,
            exp: 0,
        },
        fmt.default_nan(),
    );
    let fma = Fma {
        mode: Rounding::NearestEven,
        nan: NanStyle::DefaultQuiet,
    };
    let formats = Formats {
        a: *fmt,
        b: *fmt,
        c: *fmt,
        d: *fmt,
        scale: None,
    };
    fma.block(
        &formats,
        &BlockIn {
            a: &[x],
            b: &[one],
            c: y,
            c_fmt: fmt,
            scale_a: &[],
            scale_b: &[],
        },
    )
}

impl DotUnit {
    /// [`DotUnit::gemm`] with K cut into `splits` slices of `k / splits` (each a multiple of
    /// `k_step`), every slice's partial product computed from a +0 C, and the partials reduced
    /// into C in slice order with [`add_rne`] in D's format (see the module docs). C and D must
    /// share a format. `splits == 1` is [`DotUnit::gemm`].
    pub fn gemm_split_k(
        &self,
        (m, n, k): (usize, usize, usize),
        k_step: usize,
        splits: usize,
        x: &GemmIn<'_>,
        d: &mut [u64],
        threads: usize,
    ) -> Result<(), ShapeError> {
        if splits <= 1 {
            return self.gemm((m, n, k), k_step, x, d, threads);
        }
        let ks = k / splits;
        if ks == 0 || k % splits != 0 || k_step == 0 || !ks.is_multiple_of(k_step) {
            return Err(ShapeError::Ragged {
                k,
                block: k_step.max(1) * splits,
            });
        }
        if self.formats.c != self.formats.d {
            return Err(ShapeError::Feedback {
                c: self.formats.c.name,
                d: self.formats.d.name,
            });
        }
        let s = self.check_gemm_lengths((m, n, k), x, d)?;
        let ss = self.scales_for(ks);
        // Every buffer is reserved fallibly: a product too large for the machine is an
        // error, never an abort.
        let zeroed = |len: usize, which| {
            crate::drive::try_zeroed::<u64>(len).ok_or(ShapeError::Memory {
                which,
                elements: len,
            })
        };
        let slice = |src: &[u64], rows: usize, width: usize, part: usize, w: usize, which| {
            let mut v = Vec::new();
            v.try_reserve_exact(rows * w)
                .map_err(|_| ShapeError::Memory {
                    which,
                    elements: rows * w,
                })?;
            v.extend(
                (0..rows)
                    .flat_map(|r| src[r * width + part * w..r * width + (part + 1) * w].iter()),
            );
            Ok::<_, ShapeError>(v)
        };
        let zeros = zeroed(m * n, "C of a slice (+0)")?;
        let mut part = zeroed(m * n, "a slice's D")?;
        d.copy_from_slice(x.c);
        for p in 0..splits {
            let (a, b) = (
                slice(x.a, m, k, p, ks, "A of a slice")?,
                slice(x.b_cols, n, k, p, ks, "B of a slice")?,
            );
            let (sa, sb) = if s == 0 {
                (Vec::new(), Vec::new())
            } else {
                (
                    slice(x.scale_a, m, s, p, ss, "scale_a of a slice")?,
                    slice(x.scale_b, n, s, p, ss, "scale_b of a slice")?,
                )
            };
            let xin = GemmIn {
                a: &a,
                b_cols: &b,
                c: &zeros,
                scale_a: &sa,
                scale_b: &sb,
            };
            self.gemm((m, n, ks), k_step, &xin, &mut part, threads)?;
            for (di, &pi) in d.iter_mut().zip(&part) {
                *di = add_rne(&self.formats.d, *di, pi);
            }
        }
        Ok(())
    }
}

/// Checks of this module's private steps, run by `tests/internal_checks.rs` (compiled only with
/// the `internal-checks` feature, which the crate's own tests turn on: the library is then
/// compiled once for the tests instead of a second time as a unit-test harness).
#[cfg(feature = "internal-checks")]
#[doc(hidden)]
pub mod checks {
    use super::*;
    use crate::format::{FP16, FP32};

    pub fn ieee_addition() {
        // 1 + 2^-24 in f32: the tie between 1 and 1 + 2^-23 goes to even 1 (0x3f800000).
        assert_eq!(add_rne(&FP32, 0x3f80_0000, 0x3380_0000), 0x3f80_0000);
        // 1 + 3·2^-25 (0x33c00000) is above the tie: 1 + 2^-23 (0x3f800001).
        assert_eq!(add_rne(&FP32, 0x3f80_0000, 0x33c0_0000), 0x3f80_0001);
        // Far apart: 1 - 2^-100 (0x0d800000 is 2^-100) is below 1 by far less than half an
        // ulp: RNE gives 1; 2^-149 does not change 2^100 either.
        assert_eq!(add_rne(&FP32, 0x3f80_0000, 0x8d80_0000), 0x3f80_0000);
        assert_eq!(add_rne(&FP32, 0x7180_0000, 0x0000_0001), 0x7180_0000);
        // x + (-x) = +0; -0 + -0 = -0; Inf - Inf = NaN; max + max = Inf.
        assert_eq!(add_rne(&FP16, 0x3c00, 0xbc00), 0x0000);
        assert_eq!(add_rne(&FP16, 0x8000, 0x8000), 0x8000);
        assert_eq!(add_rne(&FP16, 0x7c00, 0xfc00), FP16.default_nan());
        assert_eq!(add_rne(&FP16, 0x7bff, 0x7bff), 0x7c00);
    }

    /// Against the host's IEEE fp32 addition (round to nearest even, subnormals kept) on words
    /// spread over every exponent, with near-cancelling pairs; NaN results are the default NaN.
    pub fn matches_host_fp32_addition() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..200_000 {
            let x = next() as u32;
            // Every fourth pair nearly cancels: y is -x with a few low bits changed.
            let y = if i % 4 == 0 {
                (x ^ 0x8000_0000) ^ (next() as u32 & 0xff)
            } else {
                next() as u32
            };
            let sum = f32::from_bits(x) + f32::from_bits(y);
            let want = if sum.is_nan() {
                FP32.default_nan()
            } else {
                sum.to_bits() as u64
            };
            assert_eq!(add_rne(&FP32, x as u64, y as u64), want, "{x:#x} + {y:#x}");
        }
    }
}
