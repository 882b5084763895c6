//! The lane routines, written once over [`Vector`](vector::Vector) and compiled by each
//! architecture's leaf (`x86/`: `Ymm`, `Zmm`; `aarch64/`: `Neon`) for its widths: a group of
//! `V::LANES` dot products per vector, lane `j` dot product `j`. This module holds what every width
//! shares: the model families' routines ([`Lanes`]: T-FDPA, TR/GTR-FDPA, E-FDPA, FTZ-MulAdd, FMA
//! chains, ST-FDPA; GST-FDPA in `gst.rs`), the tables from a plan's lane keys to them
//! ([`lane_fns_of`], [`scaled_fn_of`], over a leaf's [`Entry`]), and the wrappers a kernel holds
//! the compiled routines in ([`LaneRoutine`], [`Stored`], [`LaneRoutineScaled`]). The arithmetic is
//! in the files below (`batch.rs`, `stage.rs`, `e_fdpa*.rs`, `fma.rs`, `gst.rs`, `tr_late.rs`,
//! `dec.rs`), the vector trait in `vector.rs`, the steps whose formulation depends on the width in
//! `steps.rs`. Nothing here names an architecture: a leaf implements [`Vector`](vector::Vector) and
//! [`Steps`], compiles [`Lanes`] routines in its entry points ([`Entry`]), and hands them out only
//! on a CPU that has its instructions.
//!
//! Soundness: a [`LaneFn`] may be compiled for instructions this CPU lacks; the wrappers are
//! made only through their `unsafe` constructors, whose contract is that the CPU has them
//! (each leaf checks `Isa::is_supported` first and says so where it calls them).

pub(super) mod batch;
pub(super) mod dec;
pub(super) mod e_fdpa;
pub(super) mod e_fdpa_chain;
pub(super) mod e_fdpa_sum3;
pub(super) mod fma;
pub(super) mod gst;
mod rows;
pub(super) mod stage;
pub(super) mod steps;
pub(super) mod tr_late;
pub(super) mod vector;

use crate::kernel::plan::{LaneKey, Path, StKey, VFmt, TR_SHORT};
use crate::kernel::words::{Word, Words};
use crate::kernel::{table, Kernel, Rows};
use core::marker::PhantomData;
use steps::Steps;

/// A lane routine as compiled: the dot products of one length `k`, `(kernel, a rows, b rows,
/// (scale_a, scale_b, scales per dot product), c, d)` with as many rows as C and D words, a
/// multiple of 8; lanes outside the routine's common case, and a `k` it does not take, are
/// computed by `Kernel::dot`.
/// # Safety
/// Compiled for a leaf's instruction set (AVX2, AVX-512, NEON): call only on a CPU that has it
/// (what [`LaneRoutine`], [`Stored`] and [`LaneRoutineScaled`] guarantee).
pub(super) type LaneFn<W = u64> =
    unsafe fn(&Kernel, Rows<'_, W>, Rows<'_, W>, (&[u64], &[u64], usize), &[u64], &mut [u64]);

/// A lane routine this CPU can run (see [`LaneFn`]); made only by [`checked`].
#[derive(Clone, Copy, Debug)]
pub(super) struct LaneRoutine(LaneFn);

impl LaneRoutine {
    #[inline(always)]
    pub(super) fn run(self, k: &Kernel, a: Rows<'_>, b: Rows<'_>, c: &[u64], d: &mut [u64]) {
        // SAFETY: a `LaneRoutine` is made only by `checked`, whose caller confirmed that this
        // CPU has the routine's instruction set.
        unsafe { (self.0)(k, a, b, NO_SCALES, c, d) }
    }
}

/// A lane routine compiled for the storage width of a unit's operands (`u8`, `u16` or `u32`;
/// the `u64` routine is [`LaneRoutine`]): the same arithmetic, reading the narrow words directly.
#[derive(Clone, Copy, Debug)]
pub(super) enum StoredFn {
    U8(LaneFn<u8>),
    U16(LaneFn<u16>),
    U32(LaneFn<u32>),
}

/// A storage width narrower than `u64` that lane routines are compiled for.
trait LaneWord: Word {
    /// The routine as a [`StoredFn`].
    fn stored(f: LaneFn<Self>) -> Option<StoredFn>;
}

impl LaneWord for u8 {
    fn stored(f: LaneFn<u8>) -> Option<StoredFn> {
        Some(StoredFn::U8(f))
    }
}

impl LaneWord for u16 {
    fn stored(f: LaneFn<u16>) -> Option<StoredFn> {
        Some(StoredFn::U16(f))
    }
}

impl LaneWord for u32 {
    fn stored(f: LaneFn<u32>) -> Option<StoredFn> {
        Some(StoredFn::U32(f))
    }
}

/// A unit's lane routine compiled twice: for `u64` words and for its operands' storage width
/// `W`.
fn both<W: LaneWord>(wide: LaneFn, stored: LaneFn<W>) -> (LaneFn, Option<StoredFn>) {
    (wide, W::stored(stored))
}

/// A storage-width lane routine this CPU can run; made only by [`checked`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Stored(StoredFn);

impl Stored {
    /// Bytes per word of this routine's operands.
    pub(super) fn bytes(self) -> usize {
        match self.0 {
            StoredFn::U8(_) => 1,
            StoredFn::U16(_) => 2,
            StoredFn::U32(_) => 4,
        }
    }

    /// The `c.len()` dot products (a multiple of 8) of `k` elements, rows following each other
    /// in `a` and `b`, when both are in this routine's width; `false`, with nothing written,
    /// when they are not.
    pub(super) fn run(
        self,
        kern: &Kernel,
        k: usize,
        (a, b): (Words<'_>, Words<'_>),
        c: &[u64],
        d: &mut [u64],
    ) -> bool {
        #[inline(always)]
        fn go<W: Word>(
            f: LaneFn<W>,
            kern: &Kernel,
            k: usize,
            (a, b): (&[W], &[W]),
            c: &[u64],
            d: &mut [u64],
        ) -> bool {
            let n = c.len();
            let (Some(ra), Some(rb)) = (Rows::new(a, k, k, n), Rows::new(b, k, k, n)) else {
                return false;
            };
            if d.len() != n || k == 0 {
                return false;
            }
            // SAFETY: as `LaneRoutine::run`: a `Stored` is made only by `checked`.
            unsafe { f(kern, ra, rb, NO_SCALES, c, d) };
            true
        }
        match (self.0, a, b) {
            (StoredFn::U8(f), Words::U8(a), Words::U8(b)) => go(f, kern, k, (a, b), c, d),
            (StoredFn::U16(f), Words::U16(a), Words::U16(b)) => go(f, kern, k, (a, b), c, d),
            (StoredFn::U32(f), Words::U32(a), Words::U32(b)) => go(f, kern, k, (a, b), c, d),
            _ => false,
        }
    }
}

/// A scaled lane routine this CPU can run (ST-FDPA: one scale factor per dot product and
/// operand); made only by [`checked_scaled`].
#[derive(Clone, Copy, Debug)]
pub(super) struct LaneRoutineScaled(LaneFn);

impl LaneRoutineScaled {
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn run(
        self,
        k: &Kernel,
        a: Rows<'_>,
        b: Rows<'_>,
        sa: &[u64],
        sb: &[u64],
        c: &[u64],
        d: &mut [u64],
    ) {
        // SAFETY: as `LaneRoutine::run`: made only by `checked_scaled`.
        unsafe { (self.0)(k, a, b, (sa, sb, 1), c, d) }
    }
}

/// The wrappers of a unit's lane routine and its storage-width copy.
/// # Safety
/// This CPU must have the instruction set the routines are compiled for.
pub(super) unsafe fn checked(
    (wide, stored): (LaneFn, Option<StoredFn>),
) -> (LaneRoutine, Option<Stored>) {
    (LaneRoutine(wide), stored.map(Stored))
}

/// The wrapper of a scaled lane routine.
/// # Safety
/// As [`checked`].
pub(super) unsafe fn checked_scaled(f: LaneFn) -> LaneRoutineScaled {
    LaneRoutineScaled(f)
}

/// The scale factors of unscaled units: `(scale_a, scale_b, per dot product)`.
const NO_SCALES: (&[u64], &[u64], usize) = (&[], &[], 0);

/// A model family's lane routine, generic over the vector width: what a batch prepares once
/// ([`Lanes::prepare`]) and what each group of `V::LANES` dot products computes
/// ([`Lanes::group`]). Methods, not closures: a closure would be compiled without the entry
/// point's target features and keep the intrinsics out of line.
pub(super) trait Lanes<W: Word> {
    /// What every group of a batch needs.
    type Ctx;
    /// The batch's preparation for rows of `k` elements with `s` scale factors per dot
    /// product; `None` where the kernel's path or K is not this routine's (every dot product
    /// then goes to `Kernel::dot`).
    fn prepare(kern: &Kernel, k: usize, s: usize) -> Option<Self::Ctx>;
    /// One group: writes the D words and returns the bit mask of the lanes to recompute.
    fn group<V: Steps>(
        ctx: &Self::Ctx,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        scales: (&[u64], &[u64]),
        c: &[u64],
        d: &mut [u64],
    ) -> u32;
}

/// The dot products of `c` (a multiple of `V::LANES` of them) through `L`, group by group, and
/// the lanes it flags through [`Kernel::dot`].
#[inline(always)]
pub(super) fn run<V: Steps, L: Lanes<W>, W: Word>(
    kern: &Kernel,
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    (sa, sb, s): (&[u64], &[u64], usize),
    c: &[u64],
    d: &mut [u64],
) {
    let Some(ctx) = L::prepare(kern, a.k(), s) else {
        return kern.all_per_dot(a, b, (sa, sb, s), c, d);
    };
    let l = V::LANES;
    for (g, (cg, dg)) in c.chunks_exact(l).zip(d.chunks_exact_mut(l)).enumerate() {
        let (ra, rb) = (a.part(l * g, l), b.part(l * g, l));
        let scales = (
            &sa[l * g * s..l * (g + 1) * s],
            &sb[l * g * s..l * (g + 1) * s],
        );
        let redo = L::group::<V>(&ctx, ra, rb, scales, cg, dg);
        if redo != 0 {
            kern.redo((ra, rb), (scales.0, scales.1, s), cg, dg, redo);
        }
    }
}

/// The entry points of an instruction set: a [`Lanes`] routine compiled for it.
pub(super) trait Entry {
    /// The entry points of the FMA chains: eight lanes on x86-64 under either instruction set
    /// (see [`lane_fns_of`]), the leaf's own width elsewhere.
    type Fma: Entry;
    /// `L` on `u64` words.
    fn of<L: Lanes<W>, W: Word>() -> LaneFn<W>;
    /// `L` on words of the storage width: the same code as [`Entry::of`]; a leaf may compile
    /// it in another module, so that the two fall into different code-generation units
    /// (`x86/entry.rs` says why).
    fn of_stored<L: Lanes<W>, W: Word>() -> LaneFn<W> {
        Self::of::<L, W>()
    }
}

/// fp64 (`WIDE`) or fp32 FMA chains over any K ([`fma::fma64`], [`fma::fma32`]); they cover
/// every input. The context: the NaN bits of D.
pub(super) struct FmaChains<const WIDE: bool>;

impl<const WIDE: bool, W: Word> Lanes<W> for FmaChains<WIDE> {
    type Ctx = u64;

    #[inline(always)]
    fn prepare(kern: &Kernel, _: usize, _: usize) -> Option<u64> {
        match kern.plan.path {
            Path::Fma(_, nan) => Some(nan),
            _ => None,
        }
    }

    #[inline(always)]
    fn group<V: Steps>(
        &nan: &u64,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        _: (&[u64], &[u64]),
        c: &[u64],
        d: &mut [u64],
    ) -> u32 {
        if !fma::fits(&a) || !fma::fits(&b) {
            return u32::MAX >> (32 - V::LANES);
        }
        if WIDE {
            fma::fma64::<V, W>(a, b, c, nan, d);
        } else {
            fma::fma32::<V, W>(a, b, c, nan, d);
        }
        0
    }
}

/// FTZ-MulAdd over exactly one block of `N` in groups of `P` ([`batch::ftz`]); it covers every
/// input. The context: the NaN bits of D.
pub(super) struct FtzMulAdd<const N: usize, const P: usize, D>(PhantomData<D>);

impl<const N: usize, const P: usize, D: batch::VH16, W: Word> Lanes<W> for FtzMulAdd<N, P, D> {
    type Ctx = u64;

    #[inline(always)]
    fn prepare(kern: &Kernel, k: usize, _: usize) -> Option<u64> {
        match kern.plan.path {
            Path::Ftz(_, nan) if kern.plan.lanes_take(kern.unit.block, k) => Some(nan),
            _ => None,
        }
    }

    #[inline(always)]
    fn group<V: Steps>(
        &nan: &u64,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        _: (&[u64], &[u64]),
        c: &[u64],
        d: &mut [u64],
    ) -> u32 {
        batch::ftz::<V, N, P, D, W>(a, b, c, nan, d);
        0
    }
}

/// E-FDPA over a multiple of the block `N` ([`e_fdpa_chain::chain`]).
pub(super) struct EFdpaBlocks<const N: usize, A, B>(PhantomData<(A, B)>);

impl<const N: usize, A: dec::WDec, B: dec::WDec, W: Word> Lanes<W> for EFdpaBlocks<N, A, B> {
    type Ctx = ();

    #[inline(always)]
    fn prepare(kern: &Kernel, k: usize, _: usize) -> Option<()> {
        let ours = matches!(kern.plan.path, Path::EFdpa(_));
        (ours && kern.plan.lanes_take(kern.unit.block, k)).then_some(())
    }

    #[inline(always)]
    fn group<V: Steps>(
        _: &(),
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        _: (&[u64], &[u64]),
        c: &[u64],
        d: &mut [u64],
    ) -> u32 {
        e_fdpa_chain::chain::<V, N, A, B, W>(a, b, c, d)
    }
}

/// T-FDPA over a multiple of the block `N` ([`batch::tfdpa_chain`]). The context: the lane
/// parameters and the product stage.
pub(super) struct TFdpaBlocks<const N: usize, S>(PhantomData<S>);

impl<const N: usize, S: stage::Stage, W: Word> Lanes<W> for TFdpaBlocks<N, S> {
    type Ctx = (batch::TLanes, S);

    #[inline(always)]
    fn prepare(kern: &Kernel, k: usize, _: usize) -> Option<(batch::TLanes, S)> {
        let Some(LaneKey::TFdpa { a, b, .. }) = kern.plan.lanes else {
            return None;
        };
        let t = kern.plan.t?;
        kern.plan.lanes_take(kern.unit.block, k).then_some(())?;
        Some((t, S::of(a, b)?))
    }

    #[inline(always)]
    fn group<V: Steps>(
        &(ref t, s): &(batch::TLanes, S),
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        _: (&[u64], &[u64]),
        c: &[u64],
        d: &mut [u64],
    ) -> u32 {
        if !t.c_fp16 {
            return batch::tfdpa_chain::<V, N, S, W>((t, s), a, b, c, d);
        }
        let mut c32 = [0u64; 16];
        let c32 = &mut c32[..c.len()];
        let subnormal = fp16_as_fp32(c, c32);
        batch::tfdpa_chain::<V, N, S, W>((t, s), a, b, c32, d) | subnormal
    }
}

/// fp16 words as fp32 words of the same values (Inf and NaN alike) in `out`, and the bit mask
/// of the subnormal ones: those are normal in fp32, with another exponent, and T-FDPA aligns to
/// the largest exponent of the products and C, so they are left to the per-dot kernel.
#[inline(always)]
fn fp16_as_fp32(c: &[u64], out: &mut [u64]) -> u32 {
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
    subnormal
}

/// TR-FDPA (`GTR` false) or GTR-FDPA over a multiple of the block `N`, or over whole blocks
/// and a last block of four ([`batch::tr_chain`]): the chain of the plain model
/// (`DotUnit::chain`) ends with a shorter block where `N` does not divide K, as CDNA3's
/// multi-block fp16/bf16 forms (`_2b`, `_4b`, `_16b`: K = 4, blocks of 8) always do. The
/// context: the lane parameters and the length of the last block (0: none shorter).
pub(super) struct TrBlocks<const N: usize, const GTR: bool, S>(PhantomData<S>);

impl<const N: usize, const GTR: bool, S: stage::Stage, W: Word> Lanes<W> for TrBlocks<N, GTR, S> {
    type Ctx = (batch::TrParams, S, usize);

    #[inline(always)]
    fn prepare(kern: &Kernel, k: usize, _: usize) -> Option<(batch::TrParams, S, usize)> {
        let p = match kern.plan.path {
            Path::Tr(p) if !GTR => p,
            Path::Gtr(p) if GTR => p,
            _ => return None,
        };
        let Some(LaneKey::Tr { a, b, .. }) = kern.plan.lanes else {
            return None;
        };
        let s = S::of(a, b)?;
        kern.plan
            .lanes_take(kern.unit.block, k)
            .then_some((p.params, s, k % N))
    }

    #[inline(always)]
    fn group<V: Steps>(
        &(t, s, tail): &(batch::TrParams, S, usize),
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        _: (&[u64], &[u64]),
        c: &[u64],
        d: &mut [u64],
    ) -> u32 {
        if tail == 0 {
            return batch::tr_chain::<V, N, GTR, S, W>((&t, s), a, b, c, d);
        }
        // The whole blocks, then the last one with their result as its C.
        let whole = a.k() - tail;
        let mut mid = [0u64; 16];
        let mid = &mut mid[..c.len()];
        let (aw, bw) = (a.cols(0, whole), b.cols(0, whole));
        let bad = batch::tr_chain::<V, N, GTR, S, W>((&t, s), aw, bw, c, mid);
        let (a, b) = (a.cols(whole, TR_SHORT), b.cols(whole, TR_SHORT));
        bad | batch::tr_chain::<V, TR_SHORT, GTR, S, W>((&t, s), a, b, mid, d)
    }
}

/// ST-FDPA over one block of `N` with one power-of-two scale per dot product and operand: the
/// T-FDPA lanes with every non-zero product's exponent raised by the scale pair's
/// ([`batch::tfdpa_chain_off`]); a NaN scale sends the lane to [`Kernel::dot`]. The context:
/// the lane parameters and the scale decode table.
pub(super) struct StBlock<const N: usize, S>(PhantomData<S>);

impl<const N: usize, S: stage::Stage> Lanes<u64> for StBlock<N, S> {
    type Ctx = (batch::TLanes, table::Table8, S);

    #[inline(always)]
    fn prepare(kern: &Kernel, k: usize, s: usize) -> Option<(batch::TLanes, table::Table8, S)> {
        let ours = kern.plan.lanes_take(kern.unit.block, k) && s == 1;
        let StKey { a, b, .. } = kern.plan.st?;
        let stage = S::of(a, b)?;
        let (t, ts) = kern.plan.t.zip(kern.plan.st_scales).filter(|_| ours)?;
        Some((t, ts, stage))
    }

    #[inline(always)]
    fn group<V: Steps>(
        &(ref t, ref ts, stage): &(batch::TLanes, table::Table8, S),
        a: Rows<'_>,
        b: Rows<'_>,
        (sa, sb): (&[u64], &[u64]),
        c: &[u64],
        d: &mut [u64],
    ) -> u32 {
        use table::{Dec, SPECIAL};
        // The scale pairs' exponents (powers of two: no significand), NaN scales flagged.
        let mut off = [0i32; 16];
        let mut nan = 0u32;
        for j in 0..V::LANES {
            let (qa, qb) = (ts.get(sa[j]), ts.get(sb[j]));
            off[j] = table::exp(qa) + table::exp(qb);
            nan |= (((qa | qb) & SPECIAL != 0) as u32) << j;
        }
        batch::tfdpa_chain_off::<V, N, S, u64>((t, stage), a, b, V::load(&off), c, d) | nan
    }
}

/// The fp8/fp6/fp4 formats of `kind::f8f6f4` and `kind::mxf8f6f4`: one T-FDPA (and ST-FDPA)
/// routine per block length serves every pair of them but the four OCP fp8 pairs, its
/// decoders read at run time ([`dec::Small`]; 21 pairs in one routine instead of 21).
fn f8f6f4(f: VFmt) -> bool {
    matches!(
        f,
        VFmt::E4M3 | VFmt::E5M2 | VFmt::E3M2 | VFmt::E2M3 | VFmt::E2M1
    )
}

/// The fp8 formats of TR-FDPA and GTR-FDPA read through `f16` (OCP E4M3 and E5M2, E4M3 FNUZ):
/// one routine per block length and model serves every pair of them, read at run time.
fn fp8_tr(f: VFmt) -> bool {
    matches!(f, VFmt::E4M3 | VFmt::E5M2 | VFmt::E4M3Fnuz)
}

/// A lane routine with its leading generic arguments `[..]`, compiled by the entry points `T`
/// for `u64` words and for the storage width `$w` of the unit's operands ([`both`]).
macro_rules! twice {
    ($t:ty, $f:ident, [$($g:tt)*], $w:ty) => {
        both::<$w>(<$t>::of::<$f<$($g)*>, u64>(), <$t>::of_stored::<$f<$($g)*>, $w>())
    };
}

/// The lane routine compiled by the entry points `T` for a plan's lane key, and its copy for
/// the operands' storage width; `None` where no routine is compiled for the key (the plan has
/// checked every condition of the family: this is a table, and decides nothing else).
pub(super) fn lane_fns_of<T: Entry>(key: LaneKey) -> Option<(LaneFn, Option<StoredFn>)> {
    use dec::*;
    use stage::{FloatStage as Fs, IntStage as Is};
    match key {
        // fp64 words are `u64`; fp32 ones `u32`. The FMA chains take eight lanes under either
        // instruction set: in sixteen they gained nothing on an Intel Xeon (AVX-512 / AVX2:
        // fp32 1.07, fp64 0.99-1.02) and lost on an AMD EPYC (fp32 0.68-0.74, fp64 0.89-0.95;
        // docs/performance.md, "AVX-512: sixteen lanes"): a K of 2 to 4 leaves the 16-row
        // transposes as the main cost.
        LaneKey::Fma { wide: true } => Some((T::Fma::of::<FmaChains<true>, u64>(), None)),
        LaneKey::Fma { wide: false } => Some(twice!(T::Fma, FmaChains, [false], u32)),
        LaneKey::Ftz { f16, n, p } => {
            use crate::kernel::scalar::ftz_mul_add::{Bf16In, F16In};
            match (f16, n, p) {
                // CDNA2 bf16 without `_1k` with K = 2: one pair.
                (true, 2, 2) => Some(twice!(T, FtzMulAdd, [2, 2, F16In], u16)),
                (false, 2, 2) => Some(twice!(T, FtzMulAdd, [2, 2, Bf16In], u16)),
                (true, 4, 4) => Some(twice!(T, FtzMulAdd, [4, 4, F16In], u16)),
                (true, 4, 2) => Some(twice!(T, FtzMulAdd, [4, 2, F16In], u16)),
                (false, 4, 4) => Some(twice!(T, FtzMulAdd, [4, 4, Bf16In], u16)),
                (false, 4, 2) => Some(twice!(T, FtzMulAdd, [4, 2, Bf16In], u16)),
                (true, 8, 4) => Some(twice!(T, FtzMulAdd, [8, 4, F16In], u16)),
                (true, 16, 4) => Some(twice!(T, FtzMulAdd, [16, 4, F16In], u16)),
                (true, 8, 2) => Some(twice!(T, FtzMulAdd, [8, 2, F16In], u16)),
                (true, 16, 2) => Some(twice!(T, FtzMulAdd, [16, 2, F16In], u16)),
                (false, 8, 4) => Some(twice!(T, FtzMulAdd, [8, 4, Bf16In], u16)),
                (false, 16, 4) => Some(twice!(T, FtzMulAdd, [16, 4, Bf16In], u16)),
                (false, 8, 2) => Some(twice!(T, FtzMulAdd, [8, 2, Bf16In], u16)),
                (false, 16, 2) => Some(twice!(T, FtzMulAdd, [16, 2, Bf16In], u16)),
                _ => None,
            }
        }
        LaneKey::TFdpa { a, b, n } => {
            type Any = Fs<Small, Small>;
            type F16s = Fs<VF16, VF16>;
            type Bf16s = Fs<VBf16, VBf16>;
            use stage::Tf32Stage as Tf32s;
            // An fp8 pair's routine for the block lengths 8, 16 and 32.
            macro_rules! fp8 {
                ($da:ty, $db:ty) => {
                    match n {
                        8 => Some(twice!(T, TFdpaBlocks, [8, Fs<$da, $db>], u8)),
                        16 => Some(twice!(T, TFdpaBlocks, [16, Fs<$da, $db>], u8)),
                        32 => Some(twice!(T, TFdpaBlocks, [32, Fs<$da, $db>], u8)),
                        _ => None,
                    }
                };
            }
            match (a, b, n) {
                // The fp8 pairs (Ada, Hopper, Blackwell, and the passes of Sliced-FDPA), their
                // decoders as types (see `scaled_fn_of`).
                (VFmt::E4M3, VFmt::E4M3, _) => fp8!(VE4M3, VE4M3),
                (VFmt::E4M3, VFmt::E5M2, _) => fp8!(VE4M3, VE5M2),
                (VFmt::E5M2, VFmt::E4M3, _) => fp8!(VE5M2, VE4M3),
                (VFmt::E5M2, VFmt::E5M2, _) => fp8!(VE5M2, VE5M2),
                // Every other fp8/fp6/fp4 pair (`kind::f8f6f4`), its formats read at run time.
                (a, b, 8) if f8f6f4(a) && f8f6f4(b) => Some(twice!(T, TFdpaBlocks, [8, Any], u8)),
                (a, b, 16) if f8f6f4(a) && f8f6f4(b) => Some(twice!(T, TFdpaBlocks, [16, Any], u8)),
                (a, b, 32) if f8f6f4(a) && f8f6f4(b) => Some(twice!(T, TFdpaBlocks, [32, Any], u8)),
                (VFmt::F16, VFmt::F16, 4) => Some(twice!(T, TFdpaBlocks, [4, F16s], u16)),
                (VFmt::F16, VFmt::F16, 8) => Some(twice!(T, TFdpaBlocks, [8, F16s], u16)),
                (VFmt::F16, VFmt::F16, 16) => Some(twice!(T, TFdpaBlocks, [16, F16s], u16)),
                (VFmt::F16, VFmt::F16, 32) => Some(twice!(T, TFdpaBlocks, [32, F16s], u16)),
                (VFmt::Bf16, VFmt::Bf16, 4) => Some(twice!(T, TFdpaBlocks, [4, Bf16s], u16)),
                (VFmt::Bf16, VFmt::Bf16, 8) => Some(twice!(T, TFdpaBlocks, [8, Bf16s], u16)),
                (VFmt::Bf16, VFmt::Bf16, 16) => Some(twice!(T, TFdpaBlocks, [16, Bf16s], u16)),
                (VFmt::Bf16, VFmt::Bf16, 32) => Some(twice!(T, TFdpaBlocks, [32, Bf16s], u16)),
                (VFmt::Tf32, VFmt::Tf32, 4) => Some(twice!(T, TFdpaBlocks, [4, Tf32s], u32)),
                (VFmt::Tf32, VFmt::Tf32, 8) => Some(twice!(T, TFdpaBlocks, [8, Tf32s], u32)),
                (VFmt::Tf32, VFmt::Tf32, 16) => Some(twice!(T, TFdpaBlocks, [16, Tf32s], u32)),
                (VFmt::Tf32, VFmt::Tf32, 32) => Some(twice!(T, TFdpaBlocks, [32, Tf32s], u32)),
                _ => None,
            }
        }
        LaneKey::EFdpa { a, b, n } => match (a, b, n) {
            (VFmt::F16, VFmt::F16, 2) => Some(twice!(T, EFdpaBlocks, [2, VF16, VF16], u16)),
            (VFmt::F16, VFmt::F16, 4) => Some(twice!(T, EFdpaBlocks, [4, VF16, VF16], u16)),
            (VFmt::F16, VFmt::F16, 8) => Some(twice!(T, EFdpaBlocks, [8, VF16, VF16], u16)),
            (VFmt::F16, VFmt::F16, 16) => Some(twice!(T, EFdpaBlocks, [16, VF16, VF16], u16)),
            (VFmt::Bf16, VFmt::Bf16, 2) => Some(twice!(T, EFdpaBlocks, [2, VBf16, VBf16], u16)),
            (VFmt::Bf16, VFmt::Bf16, 4) => Some(twice!(T, EFdpaBlocks, [4, VBf16, VBf16], u16)),
            (VFmt::Bf16, VFmt::Bf16, 8) => Some(twice!(T, EFdpaBlocks, [8, VBf16, VBf16], u16)),
            (VFmt::Bf16, VFmt::Bf16, 16) => Some(twice!(T, EFdpaBlocks, [16, VBf16, VBf16], u16)),
            _ => None,
        },
        LaneKey::Tr { a, b, n, gtr } => {
            macro_rules! table {
                ($(($va:ident, $vb:ident, $st:ty, $w:ty)),* $(,)?) => {
                    match (a, b, n, gtr) {
                        (a, b, 8, false) if fp8_tr(a) && fp8_tr(b) => Some(twice!(T, TrBlocks, [8, false, Any], u8)),
                        (a, b, 16, false) if fp8_tr(a) && fp8_tr(b) => Some(twice!(T, TrBlocks, [16, false, Any], u8)),
                        (a, b, 8, true) if fp8_tr(a) && fp8_tr(b) => Some(twice!(T, TrBlocks, [8, true, Any], u8)),
                        (a, b, 16, true) if fp8_tr(a) && fp8_tr(b) => Some(twice!(T, TrBlocks, [16, true, Any], u8)),
                        $(
                            (VFmt::$va, VFmt::$vb, 8, false) => Some(twice!(T, TrBlocks, [8, false, $st], $w)),
                            (VFmt::$va, VFmt::$vb, 16, false) => Some(twice!(T, TrBlocks, [16, false, $st], $w)),
                            (VFmt::$va, VFmt::$vb, 8, true) => Some(twice!(T, TrBlocks, [8, true, $st], $w)),
                            (VFmt::$va, VFmt::$vb, 16, true) => Some(twice!(T, TrBlocks, [16, true, $st], $w)),
                        )*
                        // Blocks of four: CDNA3 xf32, and fp16/bf16 units no catalog has yet.
                        (VFmt::Tf32, VFmt::Tf32, 4, false) => Some(twice!(T, TrBlocks, [4, false, stage::Tf32Stage], u32)),
                        (VFmt::F16, VFmt::F16, 4, false) => Some(twice!(T, TrBlocks, [4, false, Fs<VF16, VF16>], u16)),
                        (VFmt::Bf16, VFmt::Bf16, 4, false) => Some(twice!(T, TrBlocks, [4, false, Fs<VBf16, VBf16>], u16)),
                        _ => None,
                    }
                };
            }
            // fp8 pairs read through f16 (OCP E4M3 and E5M2, E4M3 FNUZ) at run time; E5M2
            // FNUZ's top exponent code is finite, not an f16 exponent: the integer stage, its
            // three pairs as types.
            type Any = Fs<Small, Small>;
            table!(
                (F16, F16, Fs<VF16, VF16>, u16),
                (Bf16, Bf16, Fs<VBf16, VBf16>, u16),
                (E5M2Fnuz, E5M2Fnuz, Is<VE5M2Fnuz, VE5M2Fnuz>, u8),
                (E4M3Fnuz, E5M2Fnuz, Is<VE4M3Fnuz, VE5M2Fnuz>, u8),
                (E5M2Fnuz, E4M3Fnuz, Is<VE5M2Fnuz, VE4M3Fnuz>, u8),
            )
        }
    }
}

/// The ST-FDPA lane routine compiled by the entry points `T` for a plan's key (the
/// fp8/fp6/fp4 pairs of `kind::mxf8f6f4`, blocks of 32), as [`lane_fns_of`]. The four fp8
/// pairs (MXFP8) have routines of their own with the decoders as types: read at run time
/// ([`dec::Small`]) their decoders' parameters take vector registers that the stage does not
/// have to spare, and the shared routine ran at 0.85 of the typed ones; the 21 pairs with an
/// fp6 or fp4 side share one (docs/performance.md, "Build time").
pub(super) fn scaled_fn_of<T: Entry>(key: StKey) -> Option<LaneFn> {
    use dec::{Small, VE4M3, VE5M2};
    use stage::FloatStage as Fs;
    let StKey { a, b, n } = key;
    match (a, b, n) {
        (VFmt::E4M3, VFmt::E4M3, 32) => Some(T::of::<StBlock<32, Fs<VE4M3, VE4M3>>, u64>()),
        (VFmt::E4M3, VFmt::E5M2, 32) => Some(T::of::<StBlock<32, Fs<VE4M3, VE5M2>>, u64>()),
        (VFmt::E5M2, VFmt::E4M3, 32) => Some(T::of::<StBlock<32, Fs<VE5M2, VE4M3>>, u64>()),
        (VFmt::E5M2, VFmt::E5M2, 32) => Some(T::of::<StBlock<32, Fs<VE5M2, VE5M2>>, u64>()),
        (a, b, 32) if f8f6f4(a) && f8f6f4(b) => Some(T::of::<StBlock<32, Fs<Small, Small>>, u64>()),
        _ => None,
    }
}
