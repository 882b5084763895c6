//! [`Vector`] for AArch64 Advanced SIMD: four 32-bit lanes per 128-bit register, masks as
//! all-ones lanes (`uint32x4_t`), halves of two 64-bit lanes (`float64x2_t`: AArch64 has
//! double-precision vectors, so the `f64` steps keep their one-instruction forms).
//!
//! Where the x86-64 instructions and their closest NEON counterparts differ at the edges, the
//! methods give the x86 lane values, which `kernel/lanes/vector.rs` states as the contract:
//! - Shifts by a register take the count's low byte as signed (a negative count shifts right);
//!   x86 takes the whole count as unsigned, so counts are clamped to the lane width first
//!   (`32` or more: `0`, or the sign for arithmetic shifts, as on x86).
//! - `FMAX`/`FMIN` return NaN for a NaN operand and order the zeros; `maxpd`/`minpd` return the
//!   second operand unless the first is greater (less): written as that comparison and a
//!   select.
//! - fp16 to f32 by `FCVTL` in inline assembly (Rust's intrinsic needs the unstable `f16`
//!   type): exact, subnormals kept whatever `FPCR.FZ16` says, NaNs quieted as F16C's
//!   `vcvtph2ps` does (`FPCR.DN` clear, the default).
//!
//! Soundness: Advanced SIMD is in every AArch64 target's baseline; register-only intrinsics
//! are safe to call there, and the loads and stores read and write whole vectors of slices
//! whose lengths are checked (asserted or sliced) just before, each argued where it happens.

#![allow(unused_unsafe)]

use crate::kernel::lanes::vector::Vector;
use crate::kernel::words::{Rows, Word};
use core::arch::aarch64::*;

/// Advanced SIMD: four lanes.
#[derive(Clone, Copy, Debug)]
pub struct Neon;

#[inline(always)]
fn u(a: int32x4_t) -> uint32x4_t {
    // SAFETY: register-only (module docs).
    unsafe { vreinterpretq_u32_s32(a) }
}

#[inline(always)]
fn s(a: uint32x4_t) -> int32x4_t {
    // SAFETY: register-only (module docs).
    unsafe { vreinterpretq_s32_u32(a) }
}

#[inline(always)]
fn h(a: int32x4_t) -> int16x8_t {
    // SAFETY: register-only (module docs).
    unsafe { vreinterpretq_s16_s32(a) }
}

#[inline(always)]
fn from_h(a: int16x8_t) -> int32x4_t {
    // SAFETY: register-only (module docs).
    unsafe { vreinterpretq_s32_s16(a) }
}

/// A uniform shift count for 32-bit lanes, clamped to 32 (see the module docs).
#[inline(always)]
fn count(n: u32) -> int32x4_t {
    // SAFETY: register-only (module docs).
    unsafe { vdupq_n_s32(n.min(32) as i32) }
}

/// Per-lane shift counts for 32-bit lanes, clamped to 32 as unsigned values.
#[inline(always)]
fn counts(n: int32x4_t) -> int32x4_t {
    // SAFETY: register-only (module docs).
    unsafe { s(vminq_u32(u(n), vdupq_n_u32(32))) }
}

/// The first four words of `x`, zero-extended to 32-bit lanes (the low 32 bits of `u64`).
#[inline(always)]
fn load4<W: Word>(x: &[W]) -> uint32x4_t {
    let x = &x[..4];
    let p = x.as_ptr();
    // SAFETY: each arm reads the four words of the checked slice `x` (`W::BYTES` each) and
    // no more; the widenings are register-only. A constant after monomorphisation.
    unsafe {
        match W::BYTES {
            1 => {
                let w = p.cast::<u32>().read_unaligned();
                vmovl_u16(vget_low_u16(vmovl_u8(vcreate_u8(u64::from(w)))))
            }
            2 => vmovl_u16(vld1_u16(p.cast())),
            4 => vld1q_u32(p.cast()),
            _ => {
                let q = p.cast::<u64>();
                vcombine_u32(vmovn_u64(vld1q_u64(q)), vmovn_u64(vld1q_u64(q.add(2))))
            }
        }
    }
}

/// The first eight words of `x` as two vectors of four (as [`load4`]).
#[inline(always)]
fn load8<W: Word>(x: &[W]) -> [uint32x4_t; 2] {
    let x = &x[..8];
    let p = x.as_ptr();
    // SAFETY: as in `load4`, the eight words of the checked slice `x`.
    unsafe {
        match W::BYTES {
            1 => {
                let w = vmovl_u8(vld1_u8(p.cast()));
                [vmovl_u16(vget_low_u16(w)), vmovl_high_u16(w)]
            }
            2 => {
                let w = vld1q_u16(p.cast());
                [vmovl_u16(vget_low_u16(w)), vmovl_high_u16(w)]
            }
            _ => [load4(&x[..4]), load4(&x[4..])],
        }
    }
}

/// A 4×4 transpose of 32-bit lanes: lane `j` of `out[m]` is lane `m` of `x[j]`.
#[inline(always)]
fn transpose4(x: [uint32x4_t; 4]) -> [int32x4_t; 4] {
    // SAFETY: register-only (module docs).
    unsafe {
        let t0 = vtrn1q_u32(x[0], x[1]);
        let t1 = vtrn2q_u32(x[0], x[1]);
        let t2 = vtrn1q_u32(x[2], x[3]);
        let t3 = vtrn2q_u32(x[2], x[3]);
        let (t0, t1) = (vreinterpretq_u64_u32(t0), vreinterpretq_u64_u32(t1));
        let (t2, t3) = (vreinterpretq_u64_u32(t2), vreinterpretq_u64_u32(t3));
        [
            vreinterpretq_s32_u64(vtrn1q_u64(t0, t2)),
            vreinterpretq_s32_u64(vtrn1q_u64(t1, t3)),
            vreinterpretq_s32_u64(vtrn2q_u64(t0, t2)),
            vreinterpretq_s32_u64(vtrn2q_u64(t1, t3)),
        ]
    }
}

/// The four binary16 values in the low (`HIGH == false`) or high half of the 16-bit lanes of
/// `w`, converted to f32 by `FCVTL`/`FCVTL2`: exact (every binary16 value is a binary32
/// normal or zero), subnormal inputs kept (a conversion ignores `FPCR.FZ16`), NaNs quieted with
/// their payload moved up, as F16C's `vcvtph2ps` does (with `FPCR.DN` clear, as the Linux and
/// macOS defaults have it). Inline assembly because Rust's `vcvt_f32_f16` needs the unstable
/// `f16` type; the instructions are Advanced SIMD's, in every AArch64 baseline.
#[inline(always)]
fn halves_to_f<const HIGH: bool>(w: int32x4_t) -> float32x4_t {
    let out: float32x4_t;
    // SAFETY: one register-to-register conversion: no memory, no stack, no flags (NZCV).
    unsafe {
        if HIGH {
            core::arch::asm!(
                "fcvtl2 {out:v}.4s, {w:v}.8h",
                out = lateout(vreg) out,
                w = in(vreg) w,
                options(pure, nomem, nostack, preserves_flags),
            );
        } else {
            core::arch::asm!(
                "fcvtl {out:v}.4s, {w:v}.4h",
                out = lateout(vreg) out,
                w = in(vreg) w,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
    }
    out
}

/// Methods whose body is one expression of register-only intrinsics: `fn name(args) -> ret =
/// expr;`.
macro_rules! register_ops {
    ($(fn $name:ident($($a:ident: $t:ty),*) -> $r:ty = $e:expr;)*) => {
        $(
            #[inline(always)]
            fn $name($($a: $t),*) -> $r {
                // SAFETY: register-only Advanced SIMD arithmetic (module docs).
                unsafe { $e }
            }
        )*
    };
}

impl Vector for Neon {
    const LANES: usize = 4;
    type I = int32x4_t;
    type F = float32x4_t;
    type M = uint32x4_t;
    type M16 = uint16x8_t;
    type Q = int64x2_t;
    type D = float64x2_t;
    type MQ = uint64x2_t;
    type Fh = float32x2_t;

    register_ops! {
        fn zero() -> int32x4_t = vdupq_n_s32(0);
        fn splat(x: i32) -> int32x4_t = vdupq_n_s32(x);
    }
    #[inline(always)]
    fn load(x: &[i32]) -> int32x4_t {
        let x = &x[..4];
        // SAFETY: a load of the four values of a checked slice.
        unsafe { vld1q_s32(x.as_ptr()) }
    }
    register_ops! {
        fn add(a: int32x4_t, b: int32x4_t) -> int32x4_t = vaddq_s32(a, b);
        fn sub(a: int32x4_t, b: int32x4_t) -> int32x4_t = vsubq_s32(a, b);
        fn and(a: int32x4_t, b: int32x4_t) -> int32x4_t = vandq_s32(a, b);
        fn or(a: int32x4_t, b: int32x4_t) -> int32x4_t = vorrq_s32(a, b);
        fn xor(a: int32x4_t, b: int32x4_t) -> int32x4_t = veorq_s32(a, b);
        fn max(a: int32x4_t, b: int32x4_t) -> int32x4_t = vmaxq_s32(a, b);
        fn min(a: int32x4_t, b: int32x4_t) -> int32x4_t = vminq_s32(a, b);
        fn min_u(a: int32x4_t, b: int32x4_t) -> int32x4_t = s(vminq_u32(u(a), u(b)));
        fn abs(a: int32x4_t) -> int32x4_t = vabsq_s32(a);
        fn mul_lo(a: int32x4_t, b: int32x4_t) -> int32x4_t = vmulq_s32(a, b);
        fn shl(a: int32x4_t, n: u32) -> int32x4_t = vshlq_s32(a, count(n));
        fn shr(a: int32x4_t, n: u32) -> int32x4_t = s(vshlq_u32(u(a), vnegq_s32(count(n))));
        fn sar(a: int32x4_t, n: u32) -> int32x4_t = vshlq_s32(a, vnegq_s32(count(n)));
        fn shl_v(a: int32x4_t, n: int32x4_t) -> int32x4_t = vshlq_s32(a, counts(n));
        fn shr_v(a: int32x4_t, n: int32x4_t) -> int32x4_t =
            s(vshlq_u32(u(a), vnegq_s32(counts(n))));
        fn sar_v(a: int32x4_t, n: int32x4_t) -> int32x4_t = vshlq_s32(a, vnegq_s32(counts(n)));
        fn gt(a: int32x4_t, b: int32x4_t) -> uint32x4_t = vcgtq_s32(a, b);
        fn eq(a: int32x4_t, b: int32x4_t) -> uint32x4_t = vceqq_s32(a, b);
        fn negative(a: int32x4_t) -> uint32x4_t = vcltzq_s32(a);
        fn select(m: uint32x4_t, no: int32x4_t, yes: int32x4_t) -> int32x4_t =
            vbslq_s32(m, yes, no);
        fn keep(m: uint32x4_t, a: int32x4_t) -> int32x4_t = vandq_s32(s(m), a);
        fn clear(m: uint32x4_t, a: int32x4_t) -> int32x4_t = vbicq_s32(a, s(m));
        // A mask lane is -1.
        fn dec_where(m: uint32x4_t, a: int32x4_t) -> int32x4_t = vaddq_s32(a, s(m));

        fn none() -> uint32x4_t = vdupq_n_u32(0);
        fn m_or(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t = vorrq_u32(a, b);
        fn m_and(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t = vandq_u32(a, b);
        fn m_andnot(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t = vbicq_u32(b, a);
    }
    #[inline(always)]
    fn bits(m: uint32x4_t) -> u32 {
        let weights: [u32; 4] = [1, 2, 4, 8];
        // SAFETY: a load of a four-value local array; the rest is register-only.
        unsafe { vaddvq_u32(vandq_u32(m, vld1q_u32(weights.as_ptr()))) }
    }

    register_ops! {
        fn as_f(a: int32x4_t) -> float32x4_t = vreinterpretq_f32_s32(a);
        fn as_i(a: float32x4_t) -> int32x4_t = vreinterpretq_s32_f32(a);
        fn f_zero() -> float32x4_t = vdupq_n_f32(0.0);
        fn f_add(a: float32x4_t, b: float32x4_t) -> float32x4_t = vaddq_f32(a, b);
        fn f_sub(a: float32x4_t, b: float32x4_t) -> float32x4_t = vsubq_f32(a, b);
        fn f_mul(a: float32x4_t, b: float32x4_t) -> float32x4_t = vmulq_f32(a, b);
        fn f_fma(a: float32x4_t, b: float32x4_t, c: float32x4_t) -> float32x4_t =
            vfmaq_f32(c, a, b);
        fn f_trunc_i(a: float32x4_t) -> int32x4_t = vcvtq_s32_f32(a);
        fn i_to_f(a: int32x4_t) -> float32x4_t = vcvtq_f32_s32(a);
        fn f_nan(a: float32x4_t) -> uint32x4_t = vmvnq_u32(vceqq_f32(a, a));

        fn splat16(x: i16) -> int32x4_t = from_h(vdupq_n_s16(x));
        fn add16(a: int32x4_t, b: int32x4_t) -> int32x4_t = from_h(vaddq_s16(h(a), h(b)));
        fn max16(a: int32x4_t, b: int32x4_t) -> int32x4_t = from_h(vmaxq_s16(h(a), h(b)));
        fn shl16(a: int32x4_t, n: u32) -> int32x4_t =
            from_h(vshlq_s16(h(a), vdupq_n_s16(n.min(16) as i16)));
        fn shr16(a: int32x4_t, n: u32) -> int32x4_t = from_h(vreinterpretq_s16_u16(vshlq_u16(
            vreinterpretq_u16_s32(a),
            vdupq_n_s16(-(n.min(16) as i16)),
        )));
        fn gt16(a: int32x4_t, b: int32x4_t) -> uint16x8_t = vcgtq_s16(h(a), h(b));
        fn eq16(a: int32x4_t, b: int32x4_t) -> uint16x8_t = vceqq_s16(h(a), h(b));
        fn select16(m: uint16x8_t, no: int32x4_t, yes: int32x4_t) -> int32x4_t =
            from_h(vbslq_s16(m, h(yes), h(no)));
        fn none16() -> uint16x8_t = vdupq_n_u16(0);
        fn m16_or(a: uint16x8_t, b: uint16x8_t) -> uint16x8_t = vorrq_u16(a, b);
        fn m16_andnot(a: uint16x8_t, b: uint16x8_t) -> uint16x8_t = vbicq_u16(b, a);
    }
    #[inline(always)]
    fn fold16(m: uint16x8_t) -> uint32x4_t {
        // SAFETY: register-only (module docs).
        unsafe {
            let (lo, hi) = Neon::widen16(from_h(vreinterpretq_s16_u16(m)));
            vorrq_u32(u(lo), u(hi))
        }
    }
    register_ops! {
        // The even 16-bit lanes of `x` then `y`: the low halves of their 32-bit lanes.
        fn pack16(x: int32x4_t, y: int32x4_t) -> int32x4_t = from_h(vuzp1q_s16(h(x), h(y)));
    }
    #[inline(always)]
    fn widen16(v: int32x4_t) -> (int32x4_t, int32x4_t) {
        // SAFETY: register-only (module docs).
        unsafe { (vmovl_s16(vget_low_s16(h(v))), vmovl_high_s16(h(v))) }
    }
    #[inline(always)]
    fn f16_to_f(v: int32x4_t) -> (float32x4_t, float32x4_t) {
        (halves_to_f::<false>(v), halves_to_f::<true>(v))
    }
    #[inline(always)]
    fn bf16_to_f(v: int32x4_t) -> (float32x4_t, float32x4_t) {
        // SAFETY: register-only (module docs).
        unsafe {
            let w = vreinterpretq_u16_s32(v);
            let lo = vshlq_n_u32::<16>(vmovl_u16(vget_low_u16(w)));
            let hi = vshlq_n_u32::<16>(vmovl_high_u16(w));
            (vreinterpretq_f32_u32(lo), vreinterpretq_f32_u32(hi))
        }
    }

    #[inline(always)]
    fn half_q(a: int32x4_t, h: usize) -> int64x2_t {
        // SAFETY: register-only (module docs).
        unsafe {
            if h == 0 {
                vmovl_s32(vget_low_s32(a))
            } else {
                vmovl_high_s32(a)
            }
        }
    }
    #[inline(always)]
    fn half_d(a: float32x4_t, h: usize) -> float64x2_t {
        // SAFETY: register-only (module docs).
        unsafe {
            if h == 0 {
                vcvt_f64_f32(vget_low_f32(a))
            } else {
                vcvt_high_f64_f32(a)
            }
        }
    }
    #[inline(always)]
    fn half_i_d(a: int32x4_t, h: usize) -> float64x2_t {
        // SAFETY: register-only (module docs).
        unsafe { vcvtq_f64_s64(Self::half_q(a, h)) }
    }
    register_ops! {
        fn q_splat(x: i64) -> int64x2_t = vdupq_n_s64(x);
        fn q_add(a: int64x2_t, b: int64x2_t) -> int64x2_t = vaddq_s64(a, b);
        fn q_sub(a: int64x2_t, b: int64x2_t) -> int64x2_t = vsubq_s64(a, b);
        fn q_and(a: int64x2_t, b: int64x2_t) -> int64x2_t = vandq_s64(a, b);
        fn q_shl(a: int64x2_t, n: u32) -> int64x2_t = vshlq_s64(a, vdupq_n_s64(n.min(64) as i64));
        fn q_shr(a: int64x2_t, n: u32) -> int64x2_t = vreinterpretq_s64_u64(vshlq_u64(
            vreinterpretq_u64_s64(a),
            vdupq_n_s64(-(n.min(64) as i64)),
        ));
    }
    #[inline(always)]
    fn q_shl_v(a: int64x2_t, n: int64x2_t) -> int64x2_t {
        // SAFETY: register-only (module docs).
        unsafe {
            // Counts of 64 or more (as unsigned values) give 0, as on x86.
            let wide = vdupq_n_s64(64);
            let big = vcgtq_u64(vreinterpretq_u64_s64(n), vreinterpretq_u64_s64(wide));
            vshlq_s64(a, vbslq_s64(big, wide, n))
        }
    }
    register_ops! {
        fn q_gt(a: int64x2_t, b: int64x2_t) -> uint64x2_t = vcgtq_s64(a, b);
        fn q_eq(a: int64x2_t, b: int64x2_t) -> uint64x2_t = vceqq_s64(a, b);
        fn q_select(m: uint64x2_t, no: int64x2_t, yes: int64x2_t) -> int64x2_t =
            vbslq_s64(m, yes, no);
        fn as_d(a: int64x2_t) -> float64x2_t = vreinterpretq_f64_s64(a);
        fn as_q(a: float64x2_t) -> int64x2_t = vreinterpretq_s64_f64(a);
        fn d_splat(x: f64) -> float64x2_t = vdupq_n_f64(x);
        fn d_add(a: float64x2_t, b: float64x2_t) -> float64x2_t = vaddq_f64(a, b);
        fn d_sub(a: float64x2_t, b: float64x2_t) -> float64x2_t = vsubq_f64(a, b);
        fn d_mul(a: float64x2_t, b: float64x2_t) -> float64x2_t = vmulq_f64(a, b);
        fn d_fma(a: float64x2_t, b: float64x2_t, c: float64x2_t) -> float64x2_t =
            vfmaq_f64(c, a, b);
        // `maxpd`'s and `minpd`'s lanes (module docs).
        fn d_max(a: float64x2_t, b: float64x2_t) -> float64x2_t = vbslq_f64(vcgtq_f64(a, b), a, b);
        fn d_min(a: float64x2_t, b: float64x2_t) -> float64x2_t = vbslq_f64(vcltq_f64(a, b), a, b);
        fn d_abs(a: float64x2_t) -> float64x2_t = vabsq_f64(a);
        fn d_floor(a: float64x2_t) -> float64x2_t = vrndmq_f64(a);
        fn d_trunc(a: float64x2_t) -> float64x2_t = vrndq_f64(a);
        fn d_eq(a: float64x2_t, b: float64x2_t) -> uint64x2_t = vceqq_f64(a, b);
        fn d_nan(a: float64x2_t) -> uint64x2_t =
            vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(vceqq_f64(a, a))));
        fn d_select(m: uint64x2_t, no: float64x2_t, yes: float64x2_t) -> float64x2_t =
            vbslq_f64(m, yes, no);
        fn narrow(a: float64x2_t) -> float32x2_t = vcvt_f32_f64(a);
        fn join(lo: float32x2_t, hi: float32x2_t) -> float32x4_t = vcombine_f32(lo, hi);
        fn m_join(lo: uint64x2_t, hi: uint64x2_t) -> uint32x4_t =
            vcombine_u32(vmovn_u64(lo), vmovn_u64(hi));
    }

    #[inline(always)]
    fn columns<W: Word>(r: &Rows<'_, W>, k0: usize) -> [int32x4_t; 8] {
        assert!(r.n() >= 4 && k0 + 8 <= r.k());
        let (mut lo, mut hi) = ([Neon::none(); 4], [Neon::none(); 4]);
        for j in 0..4 {
            [lo[j], hi[j]] = load8(&r.row(j)[k0..k0 + 8]);
        }
        let [c0, c1, c2, c3] = transpose4(lo);
        let [c4, c5, c6, c7] = transpose4(hi);
        [c0, c1, c2, c3, c4, c5, c6, c7]
    }

    #[inline(always)]
    fn pairs16<W: Word>(r: &Rows<'_, W>, k0: usize) -> [int32x4_t; 4] {
        assert!(W::BYTES == 2);
        let c = Neon::columns(r, k0);
        [
            Neon::pack16(c[0], c[1]),
            Neon::pack16(c[2], c[3]),
            Neon::pack16(c[4], c[5]),
            Neon::pack16(c[6], c[7]),
        ]
    }

    #[inline(always)]
    fn pairs16_4<W: Word>(r: &Rows<'_, W>, k0: usize) -> [int32x4_t; 2] {
        assert!(W::BYTES == 2 && r.stride == 4);
        let c = Neon::columns4(r, k0);
        [Neon::pack16(c[0], c[1]), Neon::pack16(c[2], c[3])]
    }

    #[inline(always)]
    fn columns4<W: Word>(r: &Rows<'_, W>, k0: usize) -> [int32x4_t; 8] {
        assert!(r.n() >= 4 && k0 + 4 <= r.k());
        let mut x = [Neon::none(); 4];
        for (j, xj) in x.iter_mut().enumerate() {
            *xj = load4(&r.row(j)[k0..k0 + 4]);
        }
        let [c0, c1, c2, c3] = transpose4(x);
        let z = Neon::zero();
        [c0, c1, c2, c3, z, z, z, z]
    }

    #[inline(always)]
    fn columns2<W: Word>(r: &Rows<'_, W>, k0: usize) -> [int32x4_t; 8] {
        assert!(r.n() >= 4 && k0 + 2 <= r.k());
        let (mut e0, mut e1) = ([0i32; 4], [0i32; 4]);
        for j in 0..4 {
            let row = &r.row(j)[k0..k0 + 2];
            let (x, y): (u64, u64) = (row[0].into(), row[1].into());
            (e0[j], e1[j]) = (x as i32, y as i32);
        }
        let z = Neon::zero();
        [Neon::load(&e0), Neon::load(&e1), z, z, z, z, z, z]
    }

    #[inline(always)]
    fn lanes(w: &[u64]) -> int32x4_t {
        s(load4(&w[..4]))
    }

    #[inline(always)]
    fn store(v: int32x4_t, out: &mut [u64]) {
        let out = &mut out[..4];
        // SAFETY: `out` has four words, written by two stores of two; the rest is
        // register-only.
        unsafe {
            vst1q_u64(out.as_mut_ptr(), vmovl_u32(vget_low_u32(u(v))));
            vst1q_u64(out.as_mut_ptr().add(2), vmovl_high_u32(u(v)));
        }
    }

    #[inline(always)]
    fn load_d(w: &[u64], h: usize) -> float64x2_t {
        let w = &w[2 * h..2 * h + 2];
        // SAFETY: a load of two words of a checked slice.
        unsafe { vreinterpretq_f64_u64(vld1q_u64(w.as_ptr())) }
    }

    #[inline(always)]
    fn store_d(v: float64x2_t, out: &mut [u64], h: usize) {
        let out = &mut out[2 * h..2 * h + 2];
        // SAFETY: a store of two words into a checked slice.
        unsafe { vst1q_u64(out.as_mut_ptr(), vreinterpretq_u64_f64(v)) }
    }

    #[inline(always)]
    fn gather32<W: Word>(r: &Rows<'_, W>, e: usize) -> int32x4_t {
        assert!(r.n() >= 4 && e < r.k() && W::BYTES >= 4);
        let mut x = [0i32; 4];
        for (j, xj) in x.iter_mut().enumerate() {
            let w: u64 = r.row(j)[e].into();
            *xj = w as i32;
        }
        Neon::load(&x)
    }

    #[inline(always)]
    fn gather64<W: Word>(r: &Rows<'_, W>, e: usize, h: usize) -> float64x2_t {
        assert!(r.n() >= 4 && e < r.k() && h < 2 && W::BYTES == 8);
        let x: [u64; 2] = [r.row(2 * h)[e].into(), r.row(2 * h + 1)[e].into()];
        Neon::load_d(&x, 0)
    }

    #[inline(always)]
    fn rows32<W: Word>(r: &Rows<'_, W>) -> Option<[int32x4_t; 2]> {
        let k = r.k();
        if r.stride != k || r.n() < 4 || W::BYTES != 4 || !(k == 1 || k == 2) {
            return None;
        }
        // The four rows: the first `4k` words (`4k <= (n - 1)·k + k <= words.len()`).
        let p = r.words[..4 * k].as_ptr().cast::<u32>();
        // SAFETY: `p` points to `4k` `u32` words of a checked slice: one load of four for
        // K = 1, a de-interleaving load of eight for K = 2.
        unsafe {
            if k == 1 {
                return Some([s(vld1q_u32(p)), Neon::zero()]);
            }
            let x = vld2q_u32(p);
            Some([s(x.0), s(x.1)])
        }
    }

    #[inline(always)]
    fn rows64<W: Word>(r: &Rows<'_, W>, h: usize) -> Option<[float64x2_t; 4]> {
        let k = r.k();
        if r.stride != k || r.n() < 4 || W::BYTES != 8 || !(k == 1 || k == 2 || k == 4) || h > 1 {
            return None;
        }
        // Rows 2h and 2h + 1: the 2k words from 2hk.
        let p = r.words[2 * h * k..2 * h * k + 2 * k].as_ptr().cast::<f64>();
        // SAFETY: `p` points to `2k` words of a checked slice: one load of two for K = 1, a
        // de-interleaving load of four for K = 2 and of eight for K = 4.
        unsafe {
            let z = vdupq_n_f64(0.0);
            match k {
                1 => Some([vld1q_f64(p), z, z, z]),
                2 => {
                    let x = vld2q_f64(p);
                    Some([x.0, x.1, z, z])
                }
                _ => {
                    let x = vld4q_f64(p);
                    Some([x.0, x.1, x.2, x.3])
                }
            }
        }
    }
}
