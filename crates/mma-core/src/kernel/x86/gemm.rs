//! The matrix driver's lane path ([`crate::DotUnit::gemm`]) for T-FDPA, TR-FDPA and GTR-FDPA
//! units: eight columns of a row of D at a time, as `drive.rs` does through `Kernel::eight`,
//! but with A and B decoded once instead of once per instruction and column.
//!
//! Step by step:
//!
//! 1. Every element is decoded once ([`Dec`]) to its value as an `f32` (exact: these formats
//!    have at most 11 significant bits and exponents inside f32's range) and an exponent code,
//!    its scientific exponent plus 127 (zeros far below every code, Inf/NaN far above). B is
//!    stored as panels of eight columns, element by element (eight values, then eight codes),
//!    so that a vector load gives an element of eight columns; a row of A as value and code
//!    pairs, broadcast to every lane.
//! 2. A block ([`Pre`]) computes what the stages of `stage.rs` compute: per group the largest
//!    product exponent (the sum of the codes, a zero product at the unit's zero exponent) and
//!    the products aligned to `F` fraction bits below it, truncated and summed. The products
//!    are the `f32` products of the values, exact where the code sum keeps them in f32's normal
//!    range; lanes with a product outside it, or an Inf/NaN element, are flagged, as the
//!    stages flag them.
//! 3. The blocks chain along the whole K (`batch::tfdpa_blocks`, `batch::tr_blocks`), each
//!    block's D the next one's C: the same operations as instruction after instruction with D
//!    fed back, since each instruction's K is whole blocks. A flagged lane (of any block) is
//!    recomputed instruction by instruction with `Kernel::dot`, as are the last `n % 8` columns.
//!
//! `tests/gemm.rs` compares the driver with the plain model stepped along K on random words
//! with zeros, subnormals, Inf/NaN and the top binade, for every model family here and block
//! lengths 4 to 32. Soundness: `x86/mod.rs`.

use super::batch::{self, TLanes, TrLanes};
use super::rows::{lanes, store};
use super::stage::{align_scales, sum_halves, Products};
use crate::drive::GemmIn;
use crate::format::Format;
use crate::kernel::plan::{LaneKey, Path};
use crate::kernel::table::{self, Dec as _, Entry, Tf32Dec};
use crate::kernel::Kernel;
use core::arch::x86_64::*;

/// Exponent codes: the scientific exponent plus `CODE_BIAS` (per operand, so products carry
/// twice it); a zero element `ZERO` (a product with it stays below `ZERO_SUM`); an Inf/NaN
/// element `SPECIAL` (a product with it, a zero included, lies above every real code sum).
const CODE_BIAS: i32 = 127;
const ZERO: i32 = -(1 << 16);
const ZERO_SUM: i32 = -(1 << 15);
const SPECIAL: i32 = 1 << 20;

/// A decoder of one operand's words into table entries (see `table.rs`).
#[derive(Clone, Copy, Debug)]
enum Dec {
    Table(&'static [Entry], u64),
    Tf32,
}

impl Dec {
    fn of(f: &Format) -> Option<Dec> {
        if table::same_encoding(f, &crate::format::TF32) {
            return Some(Dec::Tf32);
        }
        let t = table::table(f)?;
        Some(Dec::Table(t.entries, (1u64 << f.storage_bits) - 1))
    }

    /// The word's value as `f32` bits and its exponent code.
    #[inline]
    fn element(self, w: u64, man_bits: u32) -> (i32, i32) {
        let x = match self {
            Dec::Table(t, mask) => t[(w & mask) as usize],
            Dec::Tf32 => Tf32Dec.get(w),
        };
        let neg = (table::neg(x) << 31) as i32;
        if x & table::SPECIAL != 0 {
            return (0, SPECIAL);
        }
        let sig = table::sig(x);
        if sig == 0 {
            return (neg, ZERO);
        }
        // sig · 2^(e - man): at most 11 bits times a power of two in [2^-136, 2^127], exact
        // in f64 and in f32 (normal, or a subnormal multiple of 2^-149).
        let e = table::exp(x);
        let p = f64::from_bits(((e - man_bits as i32 + 1023) as u64) << 52);
        (
            ((sig as f64 * p) as f32).to_bits() as i32 | neg,
            e + CODE_BIAS,
        )
    }
}

/// The operands of one block: a row of A (value and code pairs) and a panel of B (per element,
/// eight values then eight codes), both from element 0; `lo` the smallest product code sum
/// whose `f32` product is normal.
#[derive(Clone, Copy, Debug)]
struct Pre<'a> {
    a: &'a [i32],
    b: &'a [i32],
    lo: i32,
}

impl Products for Pre<'_> {
    #[inline(always)]
    fn bias(&self) -> i32 {
        2 * CODE_BIAS
    }

    #[inline(always)]
    fn block<const N: usize, const G: usize>(
        &self,
        k0: usize,
        ez: i32,
        off: __m256i,
        floor: [__m256i; G],
        f: u32,
        _shift: u32,
    ) -> ([__m256i; G], [__m256i; G], __m256i) {
        assert!(2 * (k0 + N) <= self.a.len() && 16 * (k0 + N) <= self.b.len());
        // SAFETY: element `k0 + e` (e < N) reads `a[2(k0 + e) + 1]` and
        // `b[16(k0 + e) + 15]` at most, inside the slices (asserted); the rest is register-only.
        unsafe {
            let set = _mm256_set1_epi32;
            let (ap, bp) = (self.a.as_ptr().add(2 * k0), self.b.as_ptr().add(16 * k0));
            let value = |e: usize| {
                let (x, y) = (
                    set(*ap.add(2 * e)),
                    _mm256_loadu_si256(bp.add(16 * e).cast()),
                );
                _mm256_mul_ps(_mm256_castsi256_ps(x), _mm256_castsi256_ps(y))
            };
            // Pass 1: per group the largest code sum; over the block the smallest sum of a
            // product without a zero (sums taken from ZERO_SUM, unsigned: products with a zero
            // wrap to the top).
            let mut smax = [set(i32::MIN); G];
            let mut low = set(-1);
            // Eight elements at a time, as in `sum_halves`.
            for j in (0..N).step_by(8) {
                for e in j..j + N.min(8) {
                    let s = _mm256_add_epi32(
                        set(*ap.add(2 * e + 1)),
                        _mm256_loadu_si256(bp.add(16 * e + 8).cast()),
                    );
                    smax[e % G] = _mm256_max_epi32(smax[e % G], s);
                    low = _mm256_min_epu32(low, _mm256_sub_epi32(s, set(ZERO_SUM)));
                }
            }
            // A product must be exact in f32 and, raised by `off`, above the zero exponent (as
            // the stages ensure): flag a smaller sum than either bound, and a sum above f32's
            // range (Inf/NaN elements among them).
            let bias = self.bias();
            let need = _mm256_max_epi32(set(self.lo), _mm256_sub_epi32(set(ez + 1), off));
            let below = _mm256_sub_epi32(_mm256_sub_epi32(need, set(ZERO_SUM)), set(1));
            let mut bad = _mm256_cmpeq_epi32(_mm256_min_epu32(low, below), low);
            let mut emax = floor;
            for g in 0..G {
                bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(smax[g], set(126 + bias)));
                let top = _mm256_add_epi32(smax[g], off);
                emax[g] = _mm256_max_epi32(_mm256_max_epi32(floor[g], set(ez)), top);
            }
            // Pass 2: the products, aligned and truncated (as `stage::aligned_sum`).
            let scale = align_scales(f as i32 + bias, off, emax, ez, &mut bad);
            let acc = sum_halves::<N, G>(
                |i| _mm256_cvttps_epi32(_mm256_mul_ps(value(i), scale[i % G])),
                &mut bad,
            );
            (acc, emax, bad)
        }
    }
}

/// The model family of a [`GemmLanes`] with what its blocks need.
#[derive(Clone, Copy, Debug)]
enum Family {
    T(TLanes),
    Tr(TrLanes),
}

/// The blocks along K of eight columns: `(family, operands, k, C lanes) -> (D lanes, flags)`.
/// # Safety
/// Compiled for AVX2: call only on a CPU that has it (what [`GemmLanes`] guarantees).
type Chain = unsafe fn(&Family, Pre<'_>, usize, __m256i) -> (__m256i, u32);

/// # Safety
/// Compiled for AVX2: call only on a CPU that has it.
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn t_chain<const N: usize>(f: &Family, p: Pre<'_>, k: usize, c: __m256i) -> (__m256i, u32) {
    match f {
        Family::T(t) => batch::tfdpa_blocks::<N, _>(t, p, k, _mm256_setzero_si256(), c),
        Family::Tr(_) => (c, 0xff),
    }
}

/// # Safety
/// As [`t_chain`].
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn tr_chain<const N: usize, const GTR: bool>(
    f: &Family,
    p: Pre<'_>,
    k: usize,
    c: __m256i,
) -> (__m256i, u32) {
    match f {
        Family::Tr(t) => batch::tr_blocks::<N, GTR, _>(t, p, k, c),
        Family::T(_) => (c, 0xff),
    }
}

/// A unit's matrix product on the lanes with B decoded once (see the module docs); made by
/// [`gemm_lanes`] only for a kernel planned for AVX2 on a CPU that has it.
#[derive(Debug)]
pub(crate) struct GemmLanes {
    family: Family,
    chain: Chain,
    dec_a: Dec,
    man_a: u32,
    lo: i32,
    /// `n` columns of `k`, instructions of `k_step`; B's whole panels of eight columns.
    n: usize,
    k: usize,
    k_step: usize,
    panels: Vec<i32>,
}

/// The lane path of `kern`'s unit for an `n`-column B of depth `k` (`b_cols`, column by column)
/// and instructions of `k_step`, B decoded; `None` where the unit has no T/TR/GTR-FDPA lanes,
/// `k_step` is not whole blocks, K is 0 (D is C), or the kernel is not planned for AVX2.
pub(crate) fn gemm_lanes(
    kern: &Kernel,
    (n, k): (usize, usize),
    k_step: usize,
    b_cols: &[u64],
) -> Option<GemmLanes> {
    if !super::avx2_here(kern.plan.isa) || k == 0 || b_cols.len() < n * k {
        return None;
    }
    let (family, chain, block): (Family, Chain, usize) = match (kern.plan.lanes?, kern.plan.path) {
        (LaneKey::TFdpa { n, .. }, _) => {
            let t = kern.plan.t.filter(|t| !t.c_fp16)?;
            let chain: Chain = match n {
                4 => t_chain::<4>,
                8 => t_chain::<8>,
                16 => t_chain::<16>,
                32 => t_chain::<32>,
                _ => return None,
            };
            (Family::T(t), chain, n)
        }
        (LaneKey::Tr { n, gtr, .. }, Path::Tr(p) | Path::Gtr(p)) => {
            let t = TrLanes::of(&p.params);
            let chain: Chain = match (n, gtr) {
                (4, false) => tr_chain::<4, false>,
                (8, false) => tr_chain::<8, false>,
                (16, false) => tr_chain::<16, false>,
                (8, true) => tr_chain::<8, true>,
                (16, true) => tr_chain::<16, true>,
                _ => return None,
            };
            (Family::Tr(t), chain, n)
        }
        _ => return None,
    };
    if k_step == 0 || k_step % block != 0 || k % k_step != 0 {
        return None;
    }
    let f = &kern.unit.formats;
    let (dec_a, dec_b) = (Dec::of(&f.a)?, Dec::of(&f.b)?);
    let mut panels = vec![0i32; n / 8 * 16 * k];
    for (p, panel) in panels.chunks_exact_mut(16 * k).enumerate() {
        for (e, slot) in panel.chunks_exact_mut(16).enumerate() {
            for j in 0..8 {
                let w = b_cols[(8 * p + j) * k + e];
                (slot[j], slot[8 + j]) = dec_b.element(w, f.b.man_bits);
            }
        }
    }
    Some(GemmLanes {
        family,
        chain,
        dec_a,
        man_a: f.a.man_bits,
        lo: -126 + (f.a.man_bits + f.b.man_bits) as i32 + 2 * CODE_BIAS,
        n,
        k,
        k_step,
        panels,
    })
}

impl GemmLanes {
    /// Rows `i0 ..` of D (as many as `d` holds, `n` words each) of the product of `x`.
    pub(crate) fn rows(&self, kern: &Kernel, i0: usize, x: &GemmIn<'_>, d: &mut [u64]) {
        // SAFETY: a `GemmLanes` is made only where `avx2_here` held for the kernel.
        unsafe { self.rows_avx2(kern, i0, x, d) }
    }

    /// # Safety
    /// The CPU must support AVX2 (see [`GemmLanes::rows`]).
    #[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
    unsafe fn rows_avx2(&self, kern: &Kernel, i0: usize, x: &GemmIn<'_>, d: &mut [u64]) {
        let (n, k) = (self.n, self.k);
        let rows = d.len() / n;
        let mut a = vec![0i32; rows * 2 * k];
        for (r, ar) in a.chunks_exact_mut(2 * k).enumerate() {
            let words = &x.a[(i0 + r) * k..(i0 + r + 1) * k];
            for (pair, &w) in ar.chunks_exact_mut(2).zip(words) {
                (pair[0], pair[1]) = self.dec_a.element(w, self.man_a);
            }
        }
        let stepped = |i: usize, j: usize| {
            let (row, col) = (&x.a[i * k..(i + 1) * k], &x.b_cols[j * k..(j + 1) * k]);
            let mut acc = x.c[i * n + j];
            for k0 in (0..k).step_by(self.k_step) {
                let s = k0..k0 + self.k_step;
                acc = kern.dot(&row[s.clone()], &col[s], acc, &[], &[]);
            }
            acc
        };
        // Panel by panel, every row of the task over it (the panel stays in cache).
        for (p, panel) in self.panels.chunks_exact(16 * k).enumerate() {
            for (r, drow) in d.chunks_exact_mut(n).enumerate() {
                let i = i0 + r;
                let pre = Pre {
                    a: &a[r * 2 * k..(r + 1) * 2 * k],
                    b: panel,
                    lo: self.lo,
                };
                let c: &[u64; 8] = x.c[i * n + 8 * p..i * n + 8 * p + 8]
                    .try_into()
                    .expect("eight words");
                // SAFETY: the chain is compiled for AVX2, which this function has.
                let (acc, mut redo) = unsafe { (self.chain)(&self.family, pre, k, lanes(c)) };
                let out: &mut [u64; 8] = (&mut drow[8 * p..8 * p + 8])
                    .try_into()
                    .expect("eight words");
                store(acc, out);
                while redo != 0 {
                    let j = redo.trailing_zeros() as usize;
                    redo &= redo - 1;
                    out[j] = stepped(i, 8 * p + j);
                }
            }
        }
        for (r, drow) in d.chunks_exact_mut(n).enumerate() {
            for (j, dj) in drow.iter_mut().enumerate().skip(n / 8 * 8) {
                *dj = stepped(i0 + r, j);
            }
        }
    }
}
