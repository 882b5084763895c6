//! The lane routines of a unit (eight dot products per AVX2 vector): the tables from a plan's
//! lane keys to the routines compiled for them (`eight_fn_of`, `eight_scaled_fn_of`), and the
//! routines themselves, which run the arithmetic of `batch.rs` over
//! each group of eight dot products and send the lanes it flags to `Kernel::dot`. Soundness:
//! `x86/mod.rs`.

use super::{batch, both, e_fdpa, fma, simd, stage, EightFn, EightScaledFn, StoredFn};
use crate::kernel::dots::Word;
use crate::kernel::plan::{LaneKey, Path, StKey, VFmt, TR_SHORT};
use crate::kernel::{table, Kernel, Rows};

/// The scale factors of unscaled units, for [`Kernel::groups`].
const NO_SCALES: (&[u64], &[u64], usize) = (&[], &[], 0);

impl Kernel {
    /// GST-FDPA dot products of one block of four-bit elements with fp32 C and D, eight at a
    /// time ([`batch::gst`]); `false` (nothing written) where the unit, K or the
    /// output does not fit the lanes.
    /// # Safety
    /// The CPU must support [`Isa::Avx2`]: a kernel holds this routine only when
    /// it was planned for that instruction set.
    #[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
    pub(super) unsafe fn gst_dots(
        &self,
        a: Rows<'_>,
        b: Rows<'_>,
        sa: &[u64],
        sb: &[u64],
        c: &[u64],
        d: &mut [u64],
    ) -> bool {
        use batch::gst;
        let k = a.k();
        let Some(t) = self.plan.g else {
            return false;
        };
        if !self.plan.lanes_take(self.unit.block, k) {
            return false;
        }
        let s = k / t.per;
        self.groups(
            a,
            b,
            (sa, sb, s),
            c,
            d,
            |ra, rb, (sa8, sb8), c8, d8| match k {
                64 => gst::<64, 4>(&t, ra, rb, sa8, sb8, c8, d8),
                32 => gst::<32, 2>(&t, ra, rb, sa8, sb8, c8, d8),
                16 => gst::<16, 1>(&t, ra, rb, sa8, sb8, c8, d8),
                _ => 0xff,
            },
        );
        true
    }

    /// Every dot product through [`Kernel::dot`]: what a lane routine does with a kernel or a
    /// K it does not take.
    #[inline(always)]
    fn all_per_dot<W: Word>(
        &self,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        scales: (&[u64], &[u64], usize),
        c: &[u64],
        d: &mut [u64],
    ) {
        self.groups(a, b, scales, c, d, |_, _, _, _, _| 0xff)
    }

    /// Runs `eight` over each group of eight dot products (their rows, and their scale
    /// factors: `scales = (scale_a, scale_b, per dot product)`) and [`Kernel::dot`] over the
    /// lanes it flags.
    #[inline(always)]
    fn groups<W: Word>(
        &self,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        (sa, sb, s): (&[u64], &[u64], usize),
        c: &[u64],
        d: &mut [u64],
        eight: impl Fn(Rows<'_, W>, Rows<'_, W>, (&[u64], &[u64]), &[u64; 8], &mut [u64; 8]) -> u32,
    ) {
        for (g, (c8, d8)) in c.chunks_exact(8).zip(d.chunks_exact_mut(8)).enumerate() {
            let (ra, rb) = (a.group(g), b.group(g));
            let scales = (
                &sa[8 * g * s..8 * (g + 1) * s],
                &sb[8 * g * s..8 * (g + 1) * s],
            );
            let c8: &[u64; 8] = c8.try_into().expect("eight words");
            let d8: &mut [u64; 8] = d8.try_into().expect("eight words");
            let mut redo = eight(ra, rb, scales, c8, d8);
            while redo != 0 {
                let j = redo.trailing_zeros() as usize;
                redo &= redo - 1;
                let (sa_j, sb_j) = (&scales.0[j * s..(j + 1) * s], &scales.1[j * s..(j + 1) * s]);
                d8[j] = ra.with_row(j, |aj| {
                    rb.with_row(j, |bj| self.dot(aj, bj, c8[j], sa_j, sb_j))
                });
            }
        }
    }
}

/// Calls `$table!` with every pair of the fp8/fp6/fp4 formats of `kind::f8f6f4` and
/// `kind::mxf8f6f4` (the [`VFmt`] names and the lane decoders of A and B), then `$extra`: the
/// one list of those pairs for every lane table.
macro_rules! f8f6f4_pairs {
    ($table:ident $(, $extra:tt)*) => {
        $table!(
            (E4M3, E4M3, VE4M3, VE4M3, u8),
            (E4M3, E5M2, VE4M3, VE5M2, u8),
            (E4M3, E3M2, VE4M3, VE3M2, u8),
            (E4M3, E2M3, VE4M3, VE2M3, u8),
            (E4M3, E2M1, VE4M3, VE2M1, u8),
            (E5M2, E4M3, VE5M2, VE4M3, u8),
            (E5M2, E5M2, VE5M2, VE5M2, u8),
            (E5M2, E3M2, VE5M2, VE3M2, u8),
            (E5M2, E2M3, VE5M2, VE2M3, u8),
            (E5M2, E2M1, VE5M2, VE2M1, u8),
            (E3M2, E4M3, VE3M2, VE4M3, u8),
            (E3M2, E5M2, VE3M2, VE5M2, u8),
            (E3M2, E3M2, VE3M2, VE3M2, u8),
            (E3M2, E2M3, VE3M2, VE2M3, u8),
            (E3M2, E2M1, VE3M2, VE2M1, u8),
            (E2M3, E4M3, VE2M3, VE4M3, u8),
            (E2M3, E5M2, VE2M3, VE5M2, u8),
            (E2M3, E3M2, VE2M3, VE3M2, u8),
            (E2M3, E2M3, VE2M3, VE2M3, u8),
            (E2M3, E2M1, VE2M3, VE2M1, u8),
            (E2M1, E4M3, VE2M1, VE4M3, u8),
            (E2M1, E5M2, VE2M1, VE5M2, u8),
            (E2M1, E3M2, VE2M1, VE3M2, u8),
            (E2M1, E2M3, VE2M1, VE2M3, u8),
            (E2M1, E2M1, VE2M1, VE2M1, u8),
            $($extra,)*
        )
    };
}

/// A lane routine with its leading generic arguments `[..]`, compiled for `u64` words and for
/// the storage width `$w` of the unit's operands ([`both`]).
macro_rules! twice {
    ($f:ident, [$($g:tt)*], $w:ty) => {
        both::<$w>($f::<$($g)*, u64>, $f::<$($g)*, $w>)
    };
}

/// The lane routine compiled for a plan's lane key, and its copy for the operands' storage
/// width; `None` where no routine is compiled for the key (the plan has checked every
/// condition of the family: this is a table, and decides nothing else).
pub(super) fn eight_fn_of(key: LaneKey) -> Option<(EightFn, Option<StoredFn>)> {
    use simd::*;
    use stage::{FloatStage as Fs, IntStage as Is};
    match key {
        // fp64 words are `u64`; fp32 ones `u32`.
        LaneKey::Fma { wide: true } => Some((fma8::<true, u64> as EightFn, None)),
        LaneKey::Fma { wide: false } => Some(twice!(fma8, [false], u32)),
        LaneKey::Ftz { f16, n, p } => {
            use crate::kernel::scalar::amd::{Bf16In, F16In};
            match (f16, n, p) {
                // CDNA2 bf16 without `_1k` with K = 2: one pair.
                (true, 2, 2) => Some(twice!(ftz8, [2, 2, F16In], u16)),
                (false, 2, 2) => Some(twice!(ftz8, [2, 2, Bf16In], u16)),
                (true, 4, 4) => Some(twice!(ftz8, [4, 4, F16In], u16)),
                (true, 4, 2) => Some(twice!(ftz8, [4, 2, F16In], u16)),
                (false, 4, 4) => Some(twice!(ftz8, [4, 4, Bf16In], u16)),
                (false, 4, 2) => Some(twice!(ftz8, [4, 2, Bf16In], u16)),
                (true, 8, 4) => Some(twice!(ftz8, [8, 4, F16In], u16)),
                (true, 16, 4) => Some(twice!(ftz8, [16, 4, F16In], u16)),
                (true, 8, 2) => Some(twice!(ftz8, [8, 2, F16In], u16)),
                (true, 16, 2) => Some(twice!(ftz8, [16, 2, F16In], u16)),
                (false, 8, 4) => Some(twice!(ftz8, [8, 4, Bf16In], u16)),
                (false, 16, 4) => Some(twice!(ftz8, [16, 4, Bf16In], u16)),
                (false, 8, 2) => Some(twice!(ftz8, [8, 2, Bf16In], u16)),
                (false, 16, 2) => Some(twice!(ftz8, [16, 2, Bf16In], u16)),
                _ => None,
            }
        }
        LaneKey::TFdpa { a, b, n } => {
            macro_rules! table {
                ($(($va:ident, $vb:ident, $ta:ty, $tb:ty, $w:ty)),* $(,)?) => {
                    match (a, b, n) {
                        $(
                            (VFmt::$va, VFmt::$vb, 8) => Some(twice!(tfdpa8, [8, Fs<$ta, $tb>], $w)),
                            (VFmt::$va, VFmt::$vb, 16) => Some(twice!(tfdpa8, [16, Fs<$ta, $tb>], $w)),
                            (VFmt::$va, VFmt::$vb, 32) => Some(twice!(tfdpa8, [32, Fs<$ta, $tb>], $w)),
                        )*
                        // Blocks of four (Volta fp16, Ampere tf32).
                        (VFmt::F16, VFmt::F16, 4) => Some(twice!(tfdpa8, [4, Fs<VF16, VF16>], u16)),
                        (VFmt::Bf16, VFmt::Bf16, 4) => Some(twice!(tfdpa8, [4, Fs<VBf16, VBf16>], u16)),
                        (VFmt::Tf32, VFmt::Tf32, 4) => Some(twice!(tfdpa8, [4, stage::Tf32Stage], u32)),
                        (VFmt::Tf32, VFmt::Tf32, 8) => Some(twice!(tfdpa8, [8, stage::Tf32Stage], u32)),
                        (VFmt::Tf32, VFmt::Tf32, 16) => Some(twice!(tfdpa8, [16, stage::Tf32Stage], u32)),
                        (VFmt::Tf32, VFmt::Tf32, 32) => Some(twice!(tfdpa8, [32, stage::Tf32Stage], u32)),
                        _ => None,
                    }
                };
            }
            // Every fp8/fp6/fp4 pair (`kind::f8f6f4`), fp16, bf16; tf32 by its own stage.
            f8f6f4_pairs!(
                table,
                (F16, F16, VF16, VF16, u16),
                (Bf16, Bf16, VBf16, VBf16, u16)
            )
        }
        LaneKey::EFdpa { a, b, n } => match (a, b, n) {
            (VFmt::F16, VFmt::F16, 2) => Some(twice!(efdpa8, [2, VF16, VF16], u16)),
            (VFmt::F16, VFmt::F16, 4) => Some(twice!(efdpa8, [4, VF16, VF16], u16)),
            (VFmt::F16, VFmt::F16, 8) => Some(twice!(efdpa8, [8, VF16, VF16], u16)),
            (VFmt::F16, VFmt::F16, 16) => Some(twice!(efdpa8, [16, VF16, VF16], u16)),
            (VFmt::Bf16, VFmt::Bf16, 2) => Some(twice!(efdpa8, [2, VBf16, VBf16], u16)),
            (VFmt::Bf16, VFmt::Bf16, 4) => Some(twice!(efdpa8, [4, VBf16, VBf16], u16)),
            (VFmt::Bf16, VFmt::Bf16, 8) => Some(twice!(efdpa8, [8, VBf16, VBf16], u16)),
            (VFmt::Bf16, VFmt::Bf16, 16) => Some(twice!(efdpa8, [16, VBf16, VBf16], u16)),
            _ => None,
        },
        LaneKey::Tr { a, b, n, gtr } => {
            macro_rules! table {
                ($(($va:ident, $vb:ident, $st:ty, $w:ty)),* $(,)?) => {
                    match (a, b, n, gtr) {
                        $(
                            (VFmt::$va, VFmt::$vb, 8, false) => Some(twice!(tr8, [8, false, $st], $w)),
                            (VFmt::$va, VFmt::$vb, 16, false) => Some(twice!(tr8, [16, false, $st], $w)),
                            (VFmt::$va, VFmt::$vb, 8, true) => Some(twice!(tr8, [8, true, $st], $w)),
                            (VFmt::$va, VFmt::$vb, 16, true) => Some(twice!(tr8, [16, true, $st], $w)),
                        )*
                        // Blocks of four: CDNA3 xf32, and fp16/bf16 units no catalog has yet.
                        (VFmt::Tf32, VFmt::Tf32, 4, false) => Some(twice!(tr8, [4, false, stage::Tf32Stage], u32)),
                        (VFmt::F16, VFmt::F16, 4, false) => Some(twice!(tr8, [4, false, Fs<VF16, VF16>], u16)),
                        (VFmt::Bf16, VFmt::Bf16, 4, false) => Some(twice!(tr8, [4, false, Fs<VBf16, VBf16>], u16)),
                        _ => None,
                    }
                };
            }
            // E5M2 FNUZ's top exponent code is finite: not an f16 exponent (integer stage).
            table!(
                (F16, F16, Fs<VF16, VF16>, u16),
                (Bf16, Bf16, Fs<VBf16, VBf16>, u16),
                (E4M3Fnuz, E4M3Fnuz, Fs<VE4M3Fnuz, VE4M3Fnuz>, u8),
                (E5M2Fnuz, E5M2Fnuz, Is<VE5M2Fnuz, VE5M2Fnuz>, u8),
                (E4M3Fnuz, E5M2Fnuz, Is<VE4M3Fnuz, VE5M2Fnuz>, u8),
                (E5M2Fnuz, E4M3Fnuz, Is<VE5M2Fnuz, VE4M3Fnuz>, u8),
                (E4M3, E4M3, Fs<VE4M3, VE4M3>, u8),
                (E5M2, E5M2, Fs<VE5M2, VE5M2>, u8),
                (E4M3, E5M2, Fs<VE4M3, VE5M2>, u8),
                (E5M2, E4M3, Fs<VE5M2, VE4M3>, u8),
            )
        }
    }
}

/// The ST-FDPA lane routine compiled for a plan's key (the fp8/fp6/fp4 pairs of
/// `kind::mxf8f6f4`, blocks of 32), as [`eight_fn_of`].
pub(super) fn eight_scaled_fn_of(key: StKey) -> Option<EightScaledFn> {
    use simd::*;
    use stage::FloatStage as Fs;
    let StKey { a, b, n } = key;
    macro_rules! table {
        ($(($va:ident, $vb:ident, $ta:ty, $tb:ty, $w:ty)),* $(,)?) => {
            match (a, b, n) {
                $(
                    (VFmt::$va, VFmt::$vb, 32) => Some(st8::<32, Fs<$ta, $tb>> as EightScaledFn),
                )*
                _ => None,
            }
        };
    }
    f8f6f4_pairs!(table)
}

/// ST-FDPA over one block of `N` with one power-of-two scale per dot product and operand: the
/// T-FDPA lanes with every non-zero product's exponent raised by the scale pair's
/// ([`batch::tfdpa_chain_off`]); a NaN scale sends the lane to [`Kernel::dot`].
/// # Safety
/// The CPU must support [`Isa::Avx2`]: a kernel holds this routine only when
/// it was planned for that instruction set.
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn st8<const N: usize, S: stage::Stage>(
    kern: &Kernel,
    a: Rows<'_>,
    b: Rows<'_>,
    sa: &[u64],
    sb: &[u64],
    c: &[u64],
    d: &mut [u64],
) {
    use core::arch::x86_64::_mm256_loadu_si256;
    use table::{self, Dec, SPECIAL};
    let scales = (sa, sb, 1);
    let (Some(t), Some(ts)) = (kern.plan.t, kern.plan.st_scales) else {
        return kern.all_per_dot(a, b, scales, c, d);
    };
    if !kern.plan.lanes_take(kern.unit.block, a.k()) {
        return kern.all_per_dot(a, b, scales, c, d);
    }
    kern.groups(a, b, scales, c, d, |ra, rb, (sa8, sb8), c8, d8| {
        // The scale pairs' exponents (powers of two: no significand), NaN scales flagged.
        let mut off = [0i32; 8];
        let mut nan = 0u32;
        for j in 0..8 {
            let (qa, qb) = (ts.get(sa8[j]), ts.get(sb8[j]));
            off[j] = table::exp(qa) + table::exp(qb);
            nan |= (((qa | qb) & SPECIAL != 0) as u32) << j;
        }
        // SAFETY: an unaligned load of eight i32.
        let off = unsafe { _mm256_loadu_si256(off.as_ptr().cast()) };
        batch::tfdpa_chain_off::<N, S, u64>(&t, ra, rb, off, c8, d8) | nan
    });
}

/// FTZ-MulAdd over exactly one block of `N` ([`batch::ftz`]); it covers every input.
/// # Safety
/// The CPU must support [`Isa::Avx2`]: a kernel holds this routine only when
/// it was planned for that instruction set.
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn ftz8<const N: usize, const P: usize, D: batch::VH16, W: Word>(
    kern: &Kernel,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    d: &mut [u64],
) {
    match kern.plan.path {
        Path::Ftz(_, nan) if kern.plan.lanes_take(kern.unit.block, a.k()) => {
            kern.groups(a, b, NO_SCALES, c, d, |a, b, _, c, d| {
                batch::ftz::<N, P, D, W>(a, b, c, nan, d);
                0
            })
        }
        _ => kern.all_per_dot(a, b, NO_SCALES, c, d),
    }
}

/// fp64 (`WIDE`) or fp32 FMA chains over any K ([`fma::fma64`], [`fma::fma32`]); they cover
/// every input.
/// # Safety
/// The CPU must support [`Isa::Avx2`]: a kernel holds this routine only when
/// it was planned for that instruction set.
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn fma8<const WIDE: bool, W: Word>(
    kern: &Kernel,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    d: &mut [u64],
) {
    match kern.plan.path {
        Path::Fma(_, nan) if fma::fits(&a) && fma::fits(&b) => {
            kern.groups(a, b, NO_SCALES, c, d, |a, b, _, c, d| {
                if WIDE {
                    fma::fma64(a, b, c, nan, d);
                } else {
                    fma::fma32(a, b, c, nan, d);
                }
                0
            })
        }
        _ => kern.all_per_dot(a, b, NO_SCALES, c, d),
    }
}

/// E-FDPA over a multiple of the block `N` ([`e_fdpa::chain`]).
/// # Safety
/// The CPU must support [`Isa::Avx2`]: a kernel holds this routine only when
/// it was planned for that instruction set.
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn efdpa8<const N: usize, A: stage::WDec, B: stage::WDec, W: Word>(
    kern: &Kernel,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    d: &mut [u64],
) {
    if !matches!(kern.plan.path, Path::EFdpa(_)) || !kern.plan.lanes_take(kern.unit.block, a.k()) {
        return kern.all_per_dot(a, b, NO_SCALES, c, d);
    }
    kern.groups(a, b, NO_SCALES, c, d, |a, b, _, c, d| {
        e_fdpa::chain::<N, A, B, W>(a, b, c, d)
    });
}

/// T-FDPA over a multiple of the block `N` ([`batch::tfdpa_chain`]).
/// # Safety
/// The CPU must support [`Isa::Avx2`]: a kernel holds this routine only when
/// it was planned for that instruction set.
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn tfdpa8<const N: usize, S: stage::Stage, W: Word>(
    kern: &Kernel,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    d: &mut [u64],
) {
    let Some(t) = kern.plan.t else {
        return kern.all_per_dot(a, b, NO_SCALES, c, d);
    };
    if !kern.plan.lanes_take(kern.unit.block, a.k()) {
        return kern.all_per_dot(a, b, NO_SCALES, c, d);
    }
    kern.groups(a, b, NO_SCALES, c, d, |a, b, _, c, d| {
        if !t.c_fp16 {
            return batch::tfdpa_chain::<N, S, W>(&t, a, b, c, d);
        }
        let (c32, subnormal) = fp16_as_fp32(c);
        batch::tfdpa_chain::<N, S, W>(&t, a, b, &c32, d) | subnormal
    });
}

/// Eight fp16 words as fp32 words of the same values (Inf and NaN alike), and the bit mask of
/// the subnormal ones: those are normal in fp32, with another exponent, and T-FDPA aligns to
/// the largest exponent of the products and C, so they are left to the per-dot kernel.
fn fp16_as_fp32(c: &[u64; 8]) -> ([u64; 8], u32) {
    let mut out = [0u64; 8];
    let mut subnormal = 0u32;
    for (j, (o, &w)) in out.iter_mut().zip(c).enumerate() {
        let (sign, field, man) = ((w >> 15) & 1, (w >> 10) & 0x1f, w & 0x3ff);
        let body = match field {
            0 => {
                subnormal |= u32::from(man != 0) << j;
                0
            }
            0x1f => 0xff << 23 | man << 13,
            _ => (field + 127 - 15) << 23 | man << 13,
        };
        *o = sign << 31 | body;
    }
    (out, subnormal)
}

/// TR-FDPA (`GTR` false) or GTR-FDPA over a multiple of the block `N`, or over whole blocks
/// and a last block of four ([`batch::tr_chain`]): the chain of the plain model
/// (`DotUnit::chain`) ends with a shorter block where `N` does not divide K, as CDNA3's
/// multi-block fp16/bf16 forms (`_2b`, `_4b`, `_16b`: K = 4, blocks of 8) always do.
/// # Safety
/// The CPU must support [`Isa::Avx2`]: a kernel holds this routine only when
/// it was planned for that instruction set.
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn tr8<const N: usize, const GTR: bool, S: stage::Stage, W: Word>(
    kern: &Kernel,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    d: &mut [u64],
) {
    let p = match kern.plan.path {
        Path::Tr(p) if !GTR => p,
        Path::Gtr(p) if GTR => p,
        _ => return kern.all_per_dot(a, b, NO_SCALES, c, d),
    };
    if !kern.plan.lanes_take(kern.unit.block, a.k()) {
        return kern.all_per_dot(a, b, NO_SCALES, c, d);
    }
    let tail = a.k() % N;
    let t = batch::TrLanes::of(&p.params);
    let whole = a.k() - tail;
    kern.groups(a, b, NO_SCALES, c, d, |a, b, _, c, d| {
        if tail == 0 {
            return batch::tr_chain::<N, GTR, S, W>(&t, a, b, c, d);
        }
        // The whole blocks, then the last one with their result as its C.
        let mut mid = *c;
        let bad =
            batch::tr_chain::<N, GTR, S, W>(&t, a.cols(0, whole), b.cols(0, whole), c, &mut mid);
        let (a, b) = (a.cols(whole, TR_SHORT), b.cols(whole, TR_SHORT));
        bad | batch::tr_chain::<TR_SHORT, GTR, S, W>(&t, a, b, &mid, d)
    });
}
