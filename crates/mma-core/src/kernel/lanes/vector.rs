//! The vector widths the lane routines are written for, behind one trait: [`Vector`], with
//! `Ymm` (AVX2: eight 32-bit lanes per 256-bit register) and `Zmm` (AVX-512: sixteen per
//! 512-bit register) in `x86/`, and `Neon` (Advanced SIMD: four per 128-bit register) in
//! `aarch64/`. The arithmetic of `batch.rs`, `stage.rs`, `e_fdpa*.rs`, `fma.rs`, `gst.rs` and
//! the x86-64 matrix lanes is written once, generic over `V: Vector`, and compiled for each
//! width inside its leaf's entry points (`x86/entry.rs` and `x86/gemm.rs` with
//! `#[target_feature]`, `aarch64/mod.rs`); lane `j` of every vector is dot product `j` of the
//! group, whatever the width.
//!
//! The operations are the instructions the routines need, named for what they compute, each a
//! single intrinsic or a short fixed sequence; the implementations give the same lane values
//! for the same inputs, x86's where an instruction differs at the edges (masks are vectors of
//! all-ones lanes in `Ymm` and `Neon` and mask registers in `Zmm`, which is why they have types
//! of their own). Shift counts given as `u32` are the same for every lane; callers pass
//! constants or per-unit values, and a constant count compiles to the immediate form of the
//! shift.
//!
//! Soundness: every method is `#[inline(always)]` and runs intrinsics of its width; it is
//! reached only from the entry points compiled for that width's features, which are called
//! only on a CPU that has them (`x86/mod.rs`, `aarch64/mod.rs`). Helpers of the routines are
//! functions, not closures, where they hold more than a line: a closure does not inherit its
//! caller's `#[target_feature]`, so the intrinsics in one LLVM declines to inline become calls.

use crate::kernel::words::{Rows, Word};

/// A vector width of the lane routines (see the module docs).
pub trait Vector: Copy + 'static {
    /// Dot products per vector (8 or 16).
    const LANES: usize;
    /// `LANES` 32-bit integer lanes; also `2 · LANES` 16-bit lanes (the `*16` operations).
    type I: Copy;
    /// `LANES` f32 lanes.
    type F: Copy;
    /// A mask of `LANES` lanes.
    type M: Copy;
    /// A mask of `2 · LANES` 16-bit lanes.
    type M16: Copy;
    /// Half the lanes as 64-bit integers.
    type Q: Copy;
    /// Half the lanes as f64.
    type D: Copy;
    /// A mask of half the lanes (64-bit lanes).
    type MQ: Copy;
    /// Half the lanes as f32 (a narrowed [`Vector::D`]).
    type Fh: Copy;

    // 32-bit integer lanes.
    fn zero() -> Self::I;
    fn splat(x: i32) -> Self::I;
    /// `LANES` values from the start of `x`.
    fn load(x: &[i32]) -> Self::I;
    fn add(a: Self::I, b: Self::I) -> Self::I;
    fn sub(a: Self::I, b: Self::I) -> Self::I;
    fn and(a: Self::I, b: Self::I) -> Self::I;
    fn or(a: Self::I, b: Self::I) -> Self::I;
    fn xor(a: Self::I, b: Self::I) -> Self::I;
    fn max(a: Self::I, b: Self::I) -> Self::I;
    fn min(a: Self::I, b: Self::I) -> Self::I;
    /// The minimum as unsigned integers (the x86-64 matrix lanes use it).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn min_u(a: Self::I, b: Self::I) -> Self::I;
    fn abs(a: Self::I) -> Self::I;
    /// The low 32 bits of the product.
    fn mul_lo(a: Self::I, b: Self::I) -> Self::I;
    fn shl(a: Self::I, n: u32) -> Self::I;
    /// Logical shift right.
    fn shr(a: Self::I, n: u32) -> Self::I;
    /// Arithmetic shift right.
    fn sar(a: Self::I, n: u32) -> Self::I;
    /// Per-lane counts; 32 or more give 0.
    fn shl_v(a: Self::I, n: Self::I) -> Self::I;
    /// Per-lane counts; 32 or more give 0.
    fn shr_v(a: Self::I, n: Self::I) -> Self::I;
    /// Per-lane counts; 32 or more give the sign.
    fn sar_v(a: Self::I, n: Self::I) -> Self::I;
    /// `a > b` (signed).
    fn gt(a: Self::I, b: Self::I) -> Self::M;
    fn eq(a: Self::I, b: Self::I) -> Self::M;
    /// Lanes whose sign bit is set.
    fn negative(a: Self::I) -> Self::M;
    /// `m ? yes : no`.
    fn select(m: Self::M, no: Self::I, yes: Self::I) -> Self::I;
    /// `m ? a : 0`.
    fn keep(m: Self::M, a: Self::I) -> Self::I;
    /// `m ? 0 : a`.
    fn clear(m: Self::M, a: Self::I) -> Self::I;
    /// `m ? a - 1 : a`.
    fn dec_where(m: Self::M, a: Self::I) -> Self::I;

    // Masks.
    fn none() -> Self::M;
    fn m_or(a: Self::M, b: Self::M) -> Self::M;
    fn m_and(a: Self::M, b: Self::M) -> Self::M;
    /// `!a & b`.
    fn m_andnot(a: Self::M, b: Self::M) -> Self::M;
    /// Bit `j` set where lane `j` is.
    fn bits(m: Self::M) -> u32;

    // f32 lanes.
    fn as_f(a: Self::I) -> Self::F;
    fn as_i(a: Self::F) -> Self::I;
    fn f_zero() -> Self::F;
    fn f_add(a: Self::F, b: Self::F) -> Self::F;
    fn f_sub(a: Self::F, b: Self::F) -> Self::F;
    fn f_mul(a: Self::F, b: Self::F) -> Self::F;
    /// `a · b + c`, one rounding.
    fn f_fma(a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    /// Conversion to i32 with truncation toward zero.
    fn f_trunc_i(a: Self::F) -> Self::I;
    /// Conversion of i32 to f32 (round to nearest even).
    fn i_to_f(a: Self::I) -> Self::F;
    /// Lanes that are NaN.
    fn f_nan(a: Self::F) -> Self::M;

    // 16-bit lanes.
    fn splat16(x: i16) -> Self::I;
    fn add16(a: Self::I, b: Self::I) -> Self::I;
    fn max16(a: Self::I, b: Self::I) -> Self::I;
    fn shl16(a: Self::I, n: u32) -> Self::I;
    fn shr16(a: Self::I, n: u32) -> Self::I;
    fn gt16(a: Self::I, b: Self::I) -> Self::M16;
    fn eq16(a: Self::I, b: Self::I) -> Self::M16;
    fn select16(m: Self::M16, no: Self::I, yes: Self::I) -> Self::I;
    fn none16() -> Self::M16;
    fn m16_or(a: Self::M16, b: Self::M16) -> Self::M16;
    /// `!a & b`.
    fn m16_andnot(a: Self::M16, b: Self::M16) -> Self::M16;
    /// Lane `j` set where 16-bit lane `j` or `LANES + j` is.
    fn fold16(m: Self::M16) -> Self::M;
    /// The low 16 bits of the lanes of `x`, then of `y`, as `2 · LANES` 16-bit lanes in order.
    fn pack16(x: Self::I, y: Self::I) -> Self::I;
    /// The low and the high half of the 16-bit lanes, sign-extended to 32-bit lanes.
    fn widen16(v: Self::I) -> (Self::I, Self::I);
    /// The low and the high half of the 16-bit lanes as IEEE binary16, converted to f32.
    fn f16_to_f(v: Self::I) -> (Self::F, Self::F);
    /// The low and the high half of the 16-bit lanes as bfloat16 (the top of an f32).
    fn bf16_to_f(v: Self::I) -> (Self::F, Self::F);

    // Halves as 64-bit lanes (half 0: lanes `0 .. LANES / 2`).
    /// Half `h` of the lanes, sign-extended.
    fn half_q(a: Self::I, h: usize) -> Self::Q;
    /// Half `h` of the lanes, converted exactly to f64.
    fn half_d(a: Self::F, h: usize) -> Self::D;
    /// Half `h` of the integer lanes, converted exactly to f64.
    fn half_i_d(a: Self::I, h: usize) -> Self::D;
    fn q_splat(x: i64) -> Self::Q;
    fn q_add(a: Self::Q, b: Self::Q) -> Self::Q;
    fn q_sub(a: Self::Q, b: Self::Q) -> Self::Q;
    fn q_and(a: Self::Q, b: Self::Q) -> Self::Q;
    fn q_shl(a: Self::Q, n: u32) -> Self::Q;
    fn q_shr(a: Self::Q, n: u32) -> Self::Q;
    /// Per-lane counts (64 or more give 0).
    fn q_shl_v(a: Self::Q, n: Self::Q) -> Self::Q;
    fn q_gt(a: Self::Q, b: Self::Q) -> Self::MQ;
    fn q_eq(a: Self::Q, b: Self::Q) -> Self::MQ;
    fn q_select(m: Self::MQ, no: Self::Q, yes: Self::Q) -> Self::Q;
    fn as_d(a: Self::Q) -> Self::D;
    fn as_q(a: Self::D) -> Self::Q;
    fn d_splat(x: f64) -> Self::D;
    fn d_add(a: Self::D, b: Self::D) -> Self::D;
    fn d_sub(a: Self::D, b: Self::D) -> Self::D;
    fn d_mul(a: Self::D, b: Self::D) -> Self::D;
    fn d_fma(a: Self::D, b: Self::D, c: Self::D) -> Self::D;
    fn d_max(a: Self::D, b: Self::D) -> Self::D;
    fn d_min(a: Self::D, b: Self::D) -> Self::D;
    /// Clears the sign bit.
    fn d_abs(a: Self::D) -> Self::D;
    /// Round toward -∞.
    fn d_floor(a: Self::D) -> Self::D;
    /// Round toward zero.
    fn d_trunc(a: Self::D) -> Self::D;
    fn d_eq(a: Self::D, b: Self::D) -> Self::MQ;
    fn d_nan(a: Self::D) -> Self::MQ;
    fn d_select(m: Self::MQ, no: Self::D, yes: Self::D) -> Self::D;
    /// f64 to f32 under the current rounding mode (RNE: Rust's default), IEEE subnormals and
    /// overflow to Inf.
    fn narrow(a: Self::D) -> Self::Fh;
    /// Half 0 and half 1 as one vector.
    fn join(lo: Self::Fh, hi: Self::Fh) -> Self::F;
    /// Half 0's and half 1's masks as one mask.
    fn m_join(lo: Self::MQ, hi: Self::MQ) -> Self::M;

    // Rows into lanes (row `j` of a group is lane `j`); the groups have `LANES` rows.
    /// Elements `k0 .. k0 + 8`: `out[e]` holds element `k0 + e` of every row (the low 32 bits
    /// of its word).
    fn columns<W: Word>(r: &Rows<'_, W>, k0: usize) -> [Self::I; 8];
    /// Elements `k0 .. k0 + 8` of rows of 16-bit words (`W::BYTES == 2`, asserted) as four
    /// pairs of columns in the [`Vector::pack16`] layout: `out[m]` is `pack16(column 2m,
    /// column 2m + 1)` of [`Vector::columns`], read without the 32-bit columns in between.
    fn pairs16<W: Word>(r: &Rows<'_, W>, k0: usize) -> [Self::I; 4];
    /// Elements `k0 .. k0 + 4` of rows of four 16-bit words that follow each other
    /// (`W::BYTES == 2`, stride 4: asserted) as two pairs of columns, as [`Vector::pairs16`].
    fn pairs16_4<W: Word>(r: &Rows<'_, W>, k0: usize) -> [Self::I; 2];
    /// Elements `k0 .. k0 + 4` in `out[..4]`; `out[4..]` zero.
    fn columns4<W: Word>(r: &Rows<'_, W>, k0: usize) -> [Self::I; 8];
    /// Elements `k0` and `k0 + 1` in `out[..2]`; `out[2..]` zero.
    fn columns2<W: Word>(r: &Rows<'_, W>, k0: usize) -> [Self::I; 8];
    /// The low 32 bits of `LANES` words.
    fn lanes(w: &[u64]) -> Self::I;
    /// The lanes as `LANES` zero-extended words.
    fn store(v: Self::I, out: &mut [u64]);
    /// Half `h` of `LANES` fp64 words.
    fn load_d(w: &[u64], h: usize) -> Self::D;
    /// Stores half `h` of `LANES` fp64 words.
    fn store_d(v: Self::D, out: &mut [u64], h: usize);
    /// Element `e` of the rows (`u32` or `u64` words: their low 32 bits), for rows that need
    /// not follow each other (a gather).
    fn gather32<W: Word>(r: &Rows<'_, W>, e: usize) -> Self::I;
    /// Element `e` of the rows of half `h` as fp64 words (a gather).
    fn gather64<W: Word>(r: &Rows<'_, W>, e: usize, h: usize) -> Self::D;
    /// Elements `0 .. k` (K of 1 or 2, `u32` words) of rows that follow each other, by
    /// contiguous loads; `None` for other rows.
    fn rows32<W: Word>(r: &Rows<'_, W>) -> Option<[Self::I; 2]>;
    /// Elements `0 .. k` (K of 1, 2 or 4, `u64` words) of the rows of half `h`, following each
    /// other, by contiguous loads; `None` for other rows.
    fn rows64<W: Word>(r: &Rows<'_, W>, h: usize) -> Option<[Self::D; 4]>;
}

/// Largest row stride for which the gather indices (`(LANES - 1) · stride + k`, in 32-bit
/// units) fit in `i32`.
pub const MAX_STRIDE: usize = (i32::MAX as usize) / 32;

/// Whether the gathers of [`Vector::gather32`] and [`Vector::gather64`] can reach these rows.
#[inline(always)]
pub fn gathers_fit<W: Word>(r: &Rows<'_, W>) -> bool {
    r.stride.max(r.k()) <= MAX_STRIDE
}
