//! The product stage of the lane-wise T-FDPA, TR-FDPA and GTR-FDPA blocks ([`super::batch`]):
//! for a group of dot products (one per lane of a [`Vector`]), the products of one block, the largest product exponent of each
//! product group, and the products aligned to `F` fraction bits below it, truncated toward
//! zero and summed.
//!
//! Two implementations compute the same integers:
//!
//! - [`IntStage`] decodes each element to a significand and an exponent in 32-bit lanes
//!   ([`VDec`]), multiplies the significands and shifts each product by its distance to the
//!   largest exponent, as the per-dot kernels do.
//! - [`FloatStage`] (formats of at most 16 bits whose values are exactly `f16` values up to a
//!   power of two, and bf16) packs two columns of 16-bit words per vector, so that the exponent
//!   fields, zero tests and the largest exponent take one 16-bit operation for two elements of
//!   every dot product (rows in their storage width are read in that layout, by
//!   `Rows::block_pairs16`);
//!   it converts the elements to `f32` (`vcvtph2ps`, or a shift for bf16) and multiplies them
//!   there, as read: an fp8/fp6/fp4 code read as an `f16` is its value divided by
//!   `2^(15 - bias)` (`Dec16::lack`). The product of two such values is exact in `f32` (at
//!   most 22 significant bits; bf16 products whose exponent could leave the normal range are
//!   flagged). Aligning it is a multiplication by `2^(F - e_max + lack_a + lack_b)` (a power
//!   of two: exact unless the result is below `2^-126`, where the truncation gives 0 either
//!   way; one multiplication puts back what the reading left out) and the truncation toward
//!   zero is `vcvttps2dq`. The formats are [`Dec16`] values: types, or fp8/fp6/fp4 read at run
//!   time (`dec::Small`). The model's exponent of a product is the sum of the inputs' exponents (not
//!   the normalised exponent of the `f32` product), so it is taken from the fields.

use super::dec::{Dec16, VDec};
use super::vector::Vector;
use crate::kernel::plan::VFmt;
use crate::kernel::words::{Rows, Word};

/// The product stage of one block of `N` elements (4 or a multiple of 8) in `G` groups (1, or 2:
/// even elements in group 0, odd in group 1).
pub trait Stage: Copy {
    /// The stage for operands of the formats `a` and `b`: `None` where it does not decode
    /// them (the batch then goes to the per-dot kernel). A stage whose formats are types
    /// checks them; [`FloatStage`] over [`Small`](super::dec::Small) takes them as values.
    fn of(a: VFmt, b: VFmt) -> Option<Self>;

    /// `bias_a + bias_b`: the exponents below are biased by it.
    fn bias(&self) -> i32;

    /// Reads elements `k0 .. k0 + N` of the `V::LANES` rows `a` and `b`. A zero product has
    /// exponent `ez`; every other product's exponent is raised by `off` (per lane: the exponent
    /// of a power-of-two scale pair of ST-FDPA, 0 otherwise), its value scaled alike;
    /// `floor[g]` is where group `g`'s largest exponent starts (C's exponent for T-FDPA, `ez`
    /// otherwise). Returns, per group, the aligned sum and the largest exponent, and a mask of
    /// the lanes with an Inf/NaN input (or a product the stage cannot form exactly).
    #[allow(clippy::too_many_arguments)]
    fn block<V: Vector, const N: usize, const G: usize, W: Word>(
        &self,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        k0: usize,
        ez: i32,
        off: V::I,
        floor: [V::I; G],
        f: u32,
        shift: u32,
    ) -> ([V::I; G], [V::I; G], V::M);
}

/// A block's products with their operands bound: what [`super::batch::tfdpa`] and
/// [`super::batch::tr`] evaluate a block through. [`OnRows`] binds a [`Stage`] to operand rows;
/// the matrix driver's pre-decoded operands (`x86/gemm.rs`) are the other kind.
pub trait Products: Copy {
    /// The bias of the exponents the block returns.
    fn bias(&self) -> i32;

    /// [`Stage::block`] of elements `k0 .. k0 + N` of the bound operands.
    #[allow(clippy::too_many_arguments)]
    fn block<V: Vector, const N: usize, const G: usize>(
        &self,
        k0: usize,
        ez: i32,
        off: V::I,
        floor: [V::I; G],
        f: u32,
        shift: u32,
    ) -> ([V::I; G], [V::I; G], V::M);
}

/// A [`Stage`] over the rows `a` and `b`.
#[derive(Debug)]
pub struct OnRows<'a, S, W: Word> {
    pub a: Rows<'a, W>,
    pub b: Rows<'a, W>,
    pub stage: S,
}

impl<S: Copy, W: Word> Clone for OnRows<'_, S, W> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Copy, W: Word> Copy for OnRows<'_, S, W> {}

impl<S: Stage, W: Word> Products for OnRows<'_, S, W> {
    #[inline(always)]
    fn bias(&self) -> i32 {
        self.stage.bias()
    }

    #[inline(always)]
    fn block<V: Vector, const N: usize, const G: usize>(
        &self,
        k0: usize,
        ez: i32,
        off: V::I,
        floor: [V::I; G],
        f: u32,
        shift: u32,
    ) -> ([V::I; G], [V::I; G], V::M) {
        self.stage
            .block::<V, N, G, W>(self.a, self.b, k0, ez, off, floor, f, shift)
    }
}

/// The integer stage over [`VDec`] decoders.
#[derive(Clone, Copy, Debug)]
pub struct IntStage<A, B>(A, B);

impl<A: VDec, B: VDec> Stage for IntStage<A, B> {
    #[inline(always)]
    fn of(a: VFmt, b: VFmt) -> Option<Self> {
        Some(IntStage(A::of(a)?, B::of(b)?))
    }

    #[inline(always)]
    fn bias(&self) -> i32 {
        A::BIAS + B::BIAS
    }

    #[inline(always)]
    fn block<V: Vector, const N: usize, const G: usize, W: Word>(
        &self,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        k0: usize,
        ez: i32,
        off: V::I,
        floor: [V::I; G],
        _f: u32,
        shift: u32,
    ) -> ([V::I; G], [V::I; G], V::M) {
        let zero = V::zero();
        let ez = V::splat(ez);
        let mut sv = [zero; N];
        let mut ev = [zero; N];
        let mut gv = [zero; N];
        let mut emax = floor;
        let mut special = V::none();
        for j in (0..N).step_by(8) {
            let ca = a.block_columns::<V, N>(k0 + j);
            let cb = b.block_columns::<V, N>(k0 + j);
            for e in 0..N.min(8) {
                let (sa, fa, xa, na) = A::dec::<V>(ca[e]);
                let (sb, fb, xb, nb) = B::dec::<V>(cb[e]);
                let s = V::mul_lo(sa, sb);
                let ex = V::select(V::eq(s, zero), V::add(V::add(fa, fb), off), ez);
                special = V::m_or(special, V::m_or(xa, xb));
                let g = (j + e) % G;
                emax[g] = V::max(emax[g], ex);
                sv[j + e] = s;
                ev[j + e] = ex;
                gv[j + e] = V::xor(na, nb);
            }
        }
        let acc = sum_halves::<V, N, G>(
            |i| {
                let d = V::sub(emax[i % G], ev[i]);
                // Counts of 32 or more give 0, as the scalar shift of a value below 2^31 does.
                let mag = V::shr_v(V::shl(sv[i], shift), d);
                V::sub(V::xor(mag, gv[i]), gv[i])
            },
            &mut special,
        );
        (acc, emax, special)
    }
}

/// Term `i` of a block for [`sum_halves`]: a closure, or a type whose method computes it.
pub(in crate::kernel) trait Term<V: Vector> {
    fn at(&self, i: usize) -> V::I;
}

impl<V: Vector, F: Fn(usize) -> V::I> Term<V> for F {
    #[inline(always)]
    fn at(&self, i: usize) -> V::I {
        self(i)
    }
}

/// The aligned products `term(i)` summed by group (`i % G`) in two halves of the block, each
/// within `i32` (the kernels admit a block when `N / 2` aligned products, each below
/// `2^(F+2)`, sum within it), then the halves added with a check: a lane whose sum leaves
/// `i32` is flagged in `bad`.
#[inline(always)]
pub(in crate::kernel) fn sum_halves<V: Vector, const N: usize, const G: usize>(
    term: impl Term<V>,
    bad: &mut V::M,
) -> [V::I; G] {
    let mut lo = [V::zero(); G];
    let mut hi = [V::zero(); G];
    // Eight terms at a time: a constant inner loop that the compiler unrolls for every N.
    for j in (0..N).step_by(8) {
        for e in 0..N.min(8) {
            let i = j + e;
            let half = if i < N / 2 { &mut lo } else { &mut hi };
            half[i % G] = V::add(half[i % G], term.at(i));
        }
    }
    // Loops, not `core::array::from_fn` (see `Ymm::columns`).
    let mut sum = lo;
    for g in 0..G {
        let s = V::add(lo[g], hi[g]);
        // Signed overflow: both addends of one sign, the sum of the other.
        let ov = V::and(V::xor(lo[g], s), V::xor(hi[g], s));
        *bad = V::m_or(*bad, V::negative(ov));
        sum[g] = s;
    }
    sum
}

/// The exact f32 products aligned to `F` fraction bits below their group's largest exponent,
/// truncated toward zero and summed ([`sum_halves`]): each is multiplied by
/// `2^(F - e_max + off)` (`fb = F + bias`, exponents biased) and converted with truncation.
/// The power of two is exact while it stays in f32's normal range; out of it the lane is
/// flagged, unless `e_max` is the zero exponent `ez`: then no product of the group is non-zero
/// (a real product exponent lies above T-FDPA's e_zero: fp16, fp8 and fp4 products by far,
/// bf16 and tf32 products that low are flagged by the stages; TR/GTR's is NONE), and any scale
/// gives 0.
#[inline(always)]
fn aligned_sum<V: Vector, const N: usize, const G: usize>(
    prod: &[V::F; N],
    fb: i32,
    off: V::I,
    emax: [V::I; G],
    ez: i32,
    bad: &mut V::M,
) -> [V::I; G] {
    let scale = align_scales::<V, G>(fb, off, emax, ez, bad);
    sum_halves::<V, N, G>(Scaled::<V, N, G> { prod, scale }, bad)
}

/// Term `i` of [`aligned_sum`]: product `i` times its group's power of two, truncated. A type,
/// not a closure: a closure does not inherit the entry point's target features (see
/// `vector.rs`), and where LLVM does not inline it (`opt-level = 2`) its intrinsics become calls.
struct Scaled<'a, V: Vector, const N: usize, const G: usize> {
    prod: &'a [V::F; N],
    scale: [V::F; G],
}

impl<V: Vector, const N: usize, const G: usize> Term<V> for Scaled<'_, V, N, G> {
    #[inline(always)]
    fn at(&self, i: usize) -> V::I {
        V::f_trunc_i(V::f_mul(self.prod[i], self.scale[i % G]))
    }
}

/// Per group, the power of two `2^(F - e_max + off)` that aligns a product ([`aligned_sum`]),
/// lanes where it leaves f32's normal range flagged in `bad` (unless no product is non-zero).
#[inline(always)]
pub(in crate::kernel) fn align_scales<V: Vector, const G: usize>(
    fb: i32,
    off: V::I,
    emax: [V::I; G],
    ez: i32,
    bad: &mut V::M,
) -> [V::F; G] {
    let set = V::splat;
    let mut scale = [V::f_zero(); G];
    for g in 0..G {
        let x = V::sub(V::add(set(fb), off), emax[g]);
        let out = V::m_or(V::gt(x, set(127)), V::gt(set(-126), x));
        let none = V::eq(emax[g], set(ez));
        *bad = V::m_or(*bad, V::m_andnot(none, out));
        let x = V::min(V::max(x, set(-126)), set(127));
        scale[g] = V::as_f(V::shl(V::add(x, set(127)), 23));
    }
    scale
}

/// The float stage over [`Dec16`] decoders (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct FloatStage<A, B>(A, B);

impl<A: Dec16, B: Dec16> Stage for FloatStage<A, B> {
    #[inline(always)]
    fn of(a: VFmt, b: VFmt) -> Option<Self> {
        Some(FloatStage(A::of(a)?, B::of(b)?))
    }

    #[inline(always)]
    fn bias(&self) -> i32 {
        self.0.bias() + self.1.bias()
    }

    #[inline(always)]
    fn block<V: Vector, const N: usize, const G: usize, W: Word>(
        &self,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        k0: usize,
        ez: i32,
        off: V::I,
        floor: [V::I; G],
        f: u32,
        _shift: u32,
    ) -> ([V::I; G], [V::I; G], V::M) {
        let (da, db) = (self.0, self.1);
        let bias = self.bias();
        // The products are formed from the values divided by 2^lack (`Dec16::unscaled`): the
        // alignment's power of two takes it back.
        let lack = da.lack() + db.lack();
        // Zero products in 16-bit lanes: `ez` where it fits, else the smallest i16, below
        // every real exponent, mapped back to `ez` after widening.
        let ez16 = ez.clamp(i16::MIN as i32, i16::MAX as i32);
        let ezv = V::splat16(ez16 as i16);
        let wide = da.bf16() || db.bf16();
        // bf16: products whose f32 value could leave the normal range (exponent sum e,
        // value in [2^(e - ma - mb - lack), 2^(e + 2 - lack))).
        let hi = V::splat16((126 + bias + lack) as i16);
        let lo = V::splat16((-126 + da.man_bits() + db.man_bits() + bias + lack) as i16);
        // The offset in both halves' 16-bit lanes (|off| <= 2 · 254).
        let off16 = V::pack16(off, off);
        let mut prod = [V::f_zero(); N];
        let mut emax16 = V::splat16(i16::MIN);
        let mut flags = V::none16();
        for j in (0..N).step_by(8) {
            let pa = a.block_pairs16::<V, N>(k0 + j);
            let pb = b.block_pairs16::<V, N>(k0 + j);
            for e in (0..N.min(8)).step_by(2) {
                let (wa, wb) = (pa[e / 2], pb[e / 2]);
                let (fa, za, xa) = da.fields::<V>(wa);
                let (fb, zb, xb) = db.fields::<V>(wb);
                let z = V::m16_or(za, zb);
                let sum = V::add16(fa, fb);
                let ex = V::select16(z, V::add16(sum, off16), ezv);
                // Even elements in the low half: with two groups, the halves are the groups.
                emax16 = V::max16(emax16, ex);
                flags = V::m16_or(flags, V::m16_or(xa, xb));
                if wide {
                    // The range of the f32 product itself (before the scale).
                    let out = V::m16_or(V::gt16(sum, hi), V::gt16(lo, sum));
                    flags = V::m16_or(flags, V::m16_andnot(z, out));
                }
                let (a0, a1) = da.unscaled::<V>(wa);
                let (b0, b1) = db.unscaled::<V>(wb);
                prod[j + e] = V::f_mul(a0, b0);
                prod[j + e + 1] = V::f_mul(a1, b1);
            }
        }
        let set = V::splat;
        let mut bad = V::fold16(flags);
        // Macros, not closures, here and below (see `Scaled`).
        macro_rules! back {
            ($v:expr) => {{
                let v = $v;
                V::select(V::eq(v, set(i16::MIN as i32)), v, set(ez))
            }};
        }
        let (l, h) = V::widen16(emax16);
        // With two groups the halves are the groups; with one, both halves are.
        let mut emax = [l; G];
        for (g, eg) in emax.iter_mut().enumerate() {
            let e = match (G, g) {
                (2, 0) => l,
                (2, _) => h,
                _ => V::max(l, h),
            };
            *eg = V::max(floor[g], back!(e));
        }
        let fb = f as i32 + bias + lack;
        let acc = aligned_sum::<V, N, G>(&prod, fb, off, emax, ez, &mut bad);
        (acc, emax, bad)
    }
}

/// tf32 operands (19 bits in the top of a 32-bit word: fp32's exponent, 10 mantissa bits) in
/// 32-bit lanes: the words with the 13 ignored low bits cleared are the values as f32; the
/// product of two is exact in f32 (at most 22 significant bits) when its exponent stays in the
/// normal range, and flagged otherwise, as bf16 products are in [`FloatStage`].
#[derive(Clone, Copy, Debug)]
pub struct Tf32Stage;

impl Stage for Tf32Stage {
    #[inline(always)]
    fn of(a: VFmt, b: VFmt) -> Option<Self> {
        (a == VFmt::Tf32 && b == VFmt::Tf32).then_some(Tf32Stage)
    }

    #[inline(always)]
    fn bias(&self) -> i32 {
        254
    }

    #[inline(always)]
    fn block<V: Vector, const N: usize, const G: usize, W: Word>(
        &self,
        a: Rows<'_, W>,
        b: Rows<'_, W>,
        k0: usize,
        ez: i32,
        off: V::I,
        floor: [V::I; G],
        f: u32,
        _shift: u32,
    ) -> ([V::I; G], [V::I; G], V::M) {
        let set = V::splat;
        let zero = V::zero();
        let bias = self.bias();
        // Exponent sums e (biased) whose product value, in [2^(e - 20), 2^(e + 2)), could
        // leave f32's normal range.
        let (lo, hi) = (set(-126 + 20 + bias), set(126 + bias));
        // Per word: the value bits, max(exponent field, 1), zero and Inf/NaN masks.
        // A macro, not a closure (see `Scaled`).
        macro_rules! dec {
            ($x:expr) => {{
                let v = V::and($x, set(!0x1fff));
                let ef = V::and(V::shr(v, 23), set(0xff));
                let z = V::eq(V::and(v, set(0x7fff_ffff)), zero);
                let x = V::eq(ef, set(0xff));
                (v, V::max(ef, set(1)), z, x)
            }};
        }
        let ezv = set(ez);
        let mut prod = [V::f_zero(); N];
        let mut emax = floor;
        let mut bad = V::none();
        for j in (0..N).step_by(8) {
            let ca = a.block_columns::<V, N>(k0 + j);
            let cb = b.block_columns::<V, N>(k0 + j);
            for e in 0..N.min(8) {
                let (va, fa, za, xa) = dec!(ca[e]);
                let (vb, fb, zb, xb) = dec!(cb[e]);
                let z = V::m_or(za, zb);
                let sum = V::add(fa, fb);
                let ex = V::select(z, V::add(sum, off), ezv);
                let g = (j + e) % G;
                emax[g] = V::max(emax[g], ex);
                let out = V::m_or(V::gt(sum, hi), V::gt(lo, sum));
                bad = V::m_or(bad, V::m_or(xa, xb));
                bad = V::m_or(bad, V::m_andnot(z, out));
                prod[j + e] = V::f_mul(V::as_f(va), V::as_f(vb));
            }
        }
        let acc = aligned_sum::<V, N, G>(&prod, f as i32 + bias, off, emax, ez, &mut bad);
        (acc, emax, bad)
    }
}
