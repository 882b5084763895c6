//! One dot product through the vector block: the per-dot entry points compiled for
//! [`Isa::Avx2`](crate::kernel::Isa::Avx2) (`dot` and `block`, the portable code of
//! `kernel/mod.rs` inlined into a copy that may use BMI2 shifts, LZCNT, FMA and AVX2), the
//! monomorphised vector routines of T-FDPA,
//! TR-FDPA and GTR-FDPA (`vdot`, `tr_dot`) with the table of the plan's keys they are compiled for
//! (`vdot_fn_of`), and the vector group sums of GST-FDPA (`gst_v`). Soundness: `x86/mod.rs`.

use super::simd;
use crate::format::Format;
use crate::kernel::lanes::dec;
use crate::kernel::plan::TrParams;
use crate::kernel::plan::{GPath, Path, TPath, TrPath, VDotKey, VFmt, VModel};
use crate::kernel::round::FastRound;
use crate::kernel::scalar::gst::gst_tail;
use crate::kernel::scalar::tr_fdpa::{floor_shift, late_c, NONE};
use crate::kernel::scalar::{c_aligned, c_term, finish, signed};
use crate::kernel::table::{self, Dec, SPECIAL};
use crate::kernel::Kernel;
use crate::model::{BlockIn, BlockModel, Formats, Output};
use crate::models::gst_fdpa::GstFdpa;
use crate::models::t_fdpa::TFdpa;
use crate::unit::Model;

/// A whole dot product through the vector block, monomorphised for a format pair and a block
/// length: `(kernel, a, b, c)`.
/// # Safety
/// Compiled for AVX2: call only on a CPU that has it (what [`VDot`](super::VDot) guarantees).
pub(super) type VDotFn = unsafe fn(&Kernel, &[u64], &[u64], u64) -> u64;

/// Out of line, as every way into the whole model (see [`chain_any`]): a routine with the same
/// target features that calls [`Kernel::dot`] does not take a copy of it.
/// # Safety
/// The CPU must support [`Isa::Avx2`](crate::kernel::Isa::Avx2).
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
#[inline(never)]
pub(super) unsafe fn dot(k: &Kernel, a: &[u64], b: &[u64], c: u64, sa: &[u64], sb: &[u64]) -> u64 {
    k.dot_any(a, b, c, sa, sb)
}

/// Out of line, as [`dot`].
/// # Safety
/// The CPU must support [`Isa::Avx2`](crate::kernel::Isa::Avx2).
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
#[inline(never)]
pub(super) unsafe fn block(k: &Kernel, x: &BlockIn<'_>) -> u64 {
    k.block_any(x)
}

/// The way out of a vector dot product for a K or plan it does not take: the K-chaining
/// through [`Kernel::block`]'s AVX2 copy. Out of line, one copy for every routine below: the
/// chaining inlined `block_any` (every model's block) into each of them, twice, and LLVM spent
/// most of `mma-core`'s build on those copies (docs/performance.md, "Build time").
/// # Safety
/// The CPU must support [`Isa::Avx2`](crate::kernel::Isa::Avx2).
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
#[inline(never)]
unsafe fn chain_any(k: &Kernel, a: &[u64], b: &[u64], c: u64) -> u64 {
    k.unit.chain(a, b, c, &[], &[], |x| k.block_any(x))
}

/// The plain model on one block (Inf/NaN, or a sum the vector block does not take): out of
/// line for the same reason as [`chain_any`]; rare, so a call costs nothing measurable.
#[inline(never)]
fn plain(k: &Kernel, x: &BlockIn<'_>) -> u64 {
    k.unit.model.block(&k.unit.formats, x)
}

/// The vector dot product compiled for a plan's key (the plan has checked that the block's
/// products sum within the 32-bit lanes); `None` where no routine is compiled for the pair of
/// formats and block length.
pub(super) fn vdot_fn_of(key: VDotKey) -> Option<VDotFn> {
    use dec::*;
    let VDotKey { model, a, b, n } = key;
    macro_rules! t_table {
        ($(($va:ident, $vb:ident, $ta:ty, $tb:ty)),* $(,)?) => {
            match (a, b, n) {
                $(
                    (VFmt::$va, VFmt::$vb, 8) => Some(t_dots::vdot::<8, $ta, $tb> as VDotFn),
                    (VFmt::$va, VFmt::$vb, 16) => Some(t_dots::vdot::<16, $ta, $tb> as VDotFn),
                    (VFmt::$va, VFmt::$vb, 32) => Some(t_dots::vdot::<32, $ta, $tb> as VDotFn),
                    (VFmt::$va, VFmt::$vb, 64) => Some(t_dots::vdot::<64, $ta, $tb> as VDotFn),
                )*
                _ => None,
            }
        };
    }
    macro_rules! tr_table {
        ($(($va:ident, $vb:ident, $ta:ty, $tb:ty)),* $(,)?) => {
            match (a, b, n, model == VModel::Gtr) {
                $(
                    (VFmt::$va, VFmt::$vb, 8, false) => Some(tr_dots::tr_dot::<8, false, $ta, $tb> as VDotFn),
                    (VFmt::$va, VFmt::$vb, 16, false) => Some(tr_dots::tr_dot::<16, false, $ta, $tb> as VDotFn),
                    (VFmt::$va, VFmt::$vb, 8, true) => Some(gtr_dots::tr_dot::<8, true, $ta, $tb> as VDotFn),
                    (VFmt::$va, VFmt::$vb, 16, true) => Some(gtr_dots::tr_dot::<16, true, $ta, $tb> as VDotFn),
                )*
                _ => None,
            }
        };
    }
    match model {
        VModel::TFdpa => t_table!(
            (F16, F16, VF16, VF16),
            (Bf16, Bf16, VBf16, VBf16),
            (E4M3, E4M3, VE4M3, VE4M3),
            (E5M2, E5M2, VE5M2, VE5M2),
            (E4M3, E5M2, VE4M3, VE5M2),
            (E5M2, E4M3, VE5M2, VE4M3),
            (E3M2, E3M2, VE3M2, VE3M2),
            (E2M3, E2M3, VE2M3, VE2M3),
            (E2M1, E2M1, VE2M1, VE2M1),
        ),
        VModel::Tr | VModel::Gtr => tr_table!(
            (F16, F16, VF16, VF16),
            (Bf16, Bf16, VBf16, VBf16),
            (E4M3Fnuz, E4M3Fnuz, VE4M3Fnuz, VE4M3Fnuz),
            (E5M2Fnuz, E5M2Fnuz, VE5M2Fnuz, VE5M2Fnuz),
            (E4M3Fnuz, E5M2Fnuz, VE4M3Fnuz, VE5M2Fnuz),
            (E5M2Fnuz, E4M3Fnuz, VE5M2Fnuz, VE4M3Fnuz),
            (E4M3, E4M3, VE4M3, VE4M3),
            (E5M2, E5M2, VE5M2, VE5M2),
            (E4M3, E5M2, VE4M3, VE5M2),
            (E5M2, E4M3, VE5M2, VE4M3),
        ),
    }
}

// The routines per key are compiled in three modules (T-FDPA, TR-FDPA, GTR-FDPA): rustc puts
// the instances of a generic function into the code-generation unit of the module that defines
// it, and in one module these were one unit that LLVM optimised on one core for minutes while
// the other waited (`x86/entry.rs` does the same for the lane routines; docs/performance.md,
// "Build time").
mod t_dots {
    use super::*;

    /// `d = a·b + c` through the vector block (a [`VDotFn`]): K a multiple of the block `N`, each
    /// block with Inf/NaN handed to the plain model; any other K through
    /// [`DotUnit::chain`](crate::DotUnit::chain).
    /// # Safety
    /// The CPU must support [`Isa::Avx2`](crate::kernel::Isa::Avx2): a kernel holds this routine
    /// only when it was planned for that instruction set.
    #[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
    pub(super) unsafe fn vdot<const N: usize, A: dec::VDec, B: dec::VDec>(
        k: &Kernel,
        a: &[u64],
        b: &[u64],
        c: u64,
    ) -> u64 {
        let (Path::TFdpa(p), Model::TFdpa(m)) = (&k.plan.path, &k.unit.model) else {
            return chain_any(k, a, b, c);
        };
        if a.is_empty() || !a.len().is_multiple_of(N) || b.len() != a.len() {
            return chain_any(k, a, b, c);
        }
        let f = &k.unit.formats;
        let block = |x: &BlockIn<'_>| match tfdpa_v::<N, A, B>(m, f, p, x) {
            Some(d) => d,
            None => plain(k, x),
        };
        chain_fixed::<N>(f, a, b, c, block)
    }
}

/// `tr_dot`, defined in each of the two modules below (see `t_dots`).
macro_rules! tr_dot {
    () => {
        use super::*;

        /// `d = a·b + c` through the vector TR-FDPA (`GTR` false) or GTR-FDPA block, as [`vdot`](super::t_dots::vdot).
        /// # Safety
        /// The CPU must support [`Isa::Avx2`](crate::kernel::Isa::Avx2): a kernel holds this routine
        /// only when it was planned for that instruction set.
        #[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
        pub(super) unsafe fn tr_dot<const N: usize, const GTR: bool, A: dec::VDec, B: dec::VDec>(
            k: &Kernel,
            a: &[u64],
            b: &[u64],
            c: u64,
        ) -> u64 {
            let (p, out) = match (&k.plan.path, &k.unit.model) {
                (Path::Tr(p), Model::TrFdpa(m)) if !GTR => (p, &m.out),
                (Path::Gtr(p), Model::GtrFdpa(m)) if GTR => (p, &m.out),
                _ => return chain_any(k, a, b, c),
            };
            if a.is_empty() || !a.len().is_multiple_of(N) || b.len() != a.len() {
                return chain_any(k, a, b, c);
            }
            let f = &k.unit.formats;
            // Inlined in both uses (a closure was left out of line: a call and spills per dot).
            #[inline(always)]
            fn run<const N: usize, const GTR: bool, A: dec::VDec, B: dec::VDec>(
                k: &Kernel,
                p: &TrPath,
                out: &Output,
                x: &BlockIn<'_>,
            ) -> u64 {
                let f = &k.unit.formats;
                let r = if GTR {
                    gtr_v::<N, A, B>(&p.params, out, &f.d, &p.round, x)
                } else {
                    tr_v::<N, A, B>(&p.params, out, &f.d, &p.round, x)
                };
                match r {
                    Some(d) => d,
                    None => plain(k, x),
                }
            }
            let block = |x: &BlockIn<'_>| run::<N, GTR, A, B>(k, p, out, x);
            chain_fixed::<N>(f, a, b, c, block)
        }
    };
}

/// TR-FDPA (`tr_dot::<_, false, _, _>`).
mod tr_dots {
    tr_dot!();
}

/// GTR-FDPA (`tr_dot::<_, true, _, _>`).
mod gtr_dots {
    tr_dot!();
}

/// Chains blocks of exactly `N` elements (the caller checked that `N` divides K), with the
/// single-block case first; `block` is inlined into each monomorphised caller.
#[inline(always)]
fn chain_fixed<const N: usize>(
    f: &Formats,
    a: &[u64],
    b: &[u64],
    c: u64,
    block: impl Fn(&BlockIn<'_>) -> u64,
) -> u64 {
    let one = |a, b, c, c_fmt| BlockIn {
        a,
        b,
        c,
        c_fmt,
        scale_a: &[],
        scale_b: &[],
    };
    if a.len() == N {
        // One block, the common case (K equal to the block).
        return block(&one(a, b, c, &f.c));
    }
    let mut acc = c;
    let mut c_fmt = &f.c;
    for (ca, cb) in a.chunks_exact(N).zip(b.chunks_exact(N)) {
        acc = block(&one(ca, cb, acc, c_fmt));
        c_fmt = &f.d;
    }
    acc
}

#[inline(always)]
fn tfdpa_v<const N: usize, A: dec::VDec, B: dec::VDec>(
    m: &TFdpa,
    f: &Formats,
    p: &TPath,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    let (c_sig, c_e, c_neg) = c_term(x, m.e_zero)?;
    let bias = A::BIAS + B::BIAS;
    let r = simd::tfdpa::<N, A, B>(a, b, p.shift, m.e_zero + bias, c_e + bias)?;
    let e_max = r.e_max - bias;
    let sum = signed(
        c_aligned(c_sig, c_e, x.c_fmt.man_bits, m.f, e_max),
        c_neg as u32,
    ) + r.sum;
    Some(finish(
        &m.out,
        &f.d,
        &p.round,
        sum,
        e_max - m.f as i32,
        r.all_neg && c_neg,
    ))
}

/// TR-FDPA over one block of `N` (a multiple of 8) products through the AVX2 block
/// ([`simd::tfdpa`] with C left out: zero products and the absent C both count at
/// `NONE`, so its maximum is the largest product exponent `e_dot`, or `NONE`). The same
/// integers as `tr_n`: the lanes' `srlv` gives 0 for counts of 32 or more, as the scalar
/// shift with its count capped at 31 does for a value below `2^31`.
#[inline(always)]
fn tr_v<const N: usize, A: dec::VDec, B: dec::VDec>(
    p: &TrParams,
    out: &Output,
    d: &Format,
    fr: &Option<FastRound>,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    let bias = A::BIAS + B::BIAS;
    let r = simd::tfdpa::<N, A, B>(a, b, p.shift, NONE + bias, NONE + bias)?;
    let e_dot = r.e_max - bias;
    if e_dot >= p.e_prod_limit {
        return None;
    }
    late_c(p, out, d, fr, r.sum, e_dot, x.c)
}

/// GTR-FDPA over one block of `N` (a multiple of 8) products through the AVX2 block
/// ([`simd::gtr`]); the rest as `gtr_n`.
#[inline(always)]
fn gtr_v<const N: usize, A: dec::VDec, B: dec::VDec>(
    p: &TrParams,
    out: &Output,
    d: &Format,
    fr: &Option<FastRound>,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    let bias = A::BIAS + B::BIAS;
    let (s0, e0, s1, e1) = simd::gtr::<N, A, B>(a, b, p.shift, NONE + bias)?;
    let (e0, e1) = (e0 - bias, e1 - bias);
    let e_dot = e0.max(e1);
    let dot = floor_shift(s0 as i64, e_dot - e0) + floor_shift(s1 as i64, e_dot - e1);
    late_c(p, out, d, fr, dot, e_dot, x.c)
}

/// GST-FDPA over one block of 64, 32 or 16 four-bit elements in groups of 16, the group sums
/// from the vector block (`simd::gst4`): `None` when the block has another length (the caller
/// goes on with its scalar code), `Some(None)` when the block needs the plain model.
#[inline(always)]
pub(in crate::kernel) fn gst_v(
    m: &GstFdpa,
    f: &Formats,
    p: &GPath,
    va: &[i8; 16],
    vb: &[i8; 16],
    x: &BlockIn<'_>,
) -> Option<Option<u64>> {
    match x.a.len() {
        64 => Some(gst_n::<64, 4>(m, f, p, va, vb, x)),
        32 => Some(gst_n::<32, 2>(m, f, p, va, vb, x)),
        16 => Some(gst_n::<16, 1>(m, f, p, va, vb, x)),
        _ => None,
    }
}

/// GST-FDPA over one block of `N = 16 · G` fp4-sized elements in groups of 16 (formats
/// without Inf/NaN codes), the group sums from the vector block; the rest as
/// [`gst_block`](crate::kernel::scalar::gst::gst_block).
#[inline(always)]
fn gst_n<const N: usize, const G: usize>(
    m: &GstFdpa,
    f: &Formats,
    p: &GPath,
    va: &[i8; 16],
    vb: &[i8; 16],
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    let (_, per) = f.scale?;
    let (sums, nonzero) = simd::gst4::<N, G>(a, b, va, vb);
    let (lsb0, ms) = (p.lsb0, p.ms);
    let mut any = 0u32;
    let mut terms = [(0u64, 0i32, 0i32, 0u32); G];
    let mut e_max = i32::MIN;
    for (j, (term, &sum)) in terms.iter_mut().zip(&sums).enumerate() {
        let si = 16 * j / per;
        let (qa, qb) = (p.ts.get(x.scale_a[si]), p.ts.get(x.scale_b[si]));
        any |= qa | qb;
        let ss = table::sig(qa) * table::sig(qb);
        *term = if nonzero >> j & 1 == 0 || ss == 0 {
            (0u64, m.e_zero, m.e_zero, 0u32)
        } else {
            let e_s = table::exp(qa) + table::exp(qb);
            let neg = (sum < 0) as u32;
            (
                sum.unsigned_abs() as u64 * ss as u64,
                lsb0 + e_s - ms,
                e_s,
                neg,
            )
        };
        e_max = e_max.max(term.2);
    }
    if any & SPECIAL != 0 {
        return None;
    }
    gst_tail(m, f, &p.round, &terms, e_max, x)
}
