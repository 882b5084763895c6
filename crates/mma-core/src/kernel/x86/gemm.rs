//! The matrix driver's lane path ([`crate::DotUnit::gemm`]) for T-FDPA, TR-FDPA and GTR-FDPA
//! units: a group of columns of a row of D at a time (one per lane of a [`Vector`]), as
//! `drive.rs` does through `Kernel::across_lanes`,
//! but with A and B decoded once instead of once per instruction and column.
//!
//! Step by step:
//!
//! 1. Every element is decoded once ([`Dec`]) to its value as an `f32` (exact: these formats
//!    have at most 11 significant bits and exponents inside f32's range) and an exponent code,
//!    its scientific exponent plus 127 (zeros far below every code, Inf/NaN far above). B is
//!    stored as panels of `V::LANES` columns, element by element (the panel's values, then its
//!    codes), so that a vector load gives an element of every column of the panel (with
//!    AVX-512, panels of sixteen columns and, where eight columns are left, one of eight); a row of A as value and code
//!    pairs, broadcast to every lane.
//! 2. A block ([`Pre`]) computes what the stages of `stage.rs` compute: per group the largest
//!    product exponent (the sum of the codes, a zero product at the unit's zero exponent) and
//!    the products aligned to `F` fraction bits below it, truncated and summed. The products
//!    are the `f32` products of the values, exact where the code sum keeps them in f32's normal
//!    range; lanes with a product outside it, or an Inf/NaN element, are flagged, as the
//!    stages flag them. The check against the bottom of that range (and the unit's zero
//!    exponent) is kept per block only for a row of A and a panel of B whose smallest codes
//!    over all of K could sum below it ([`Low`]); for most data none can.
//! 3. The blocks chain along the whole K (`batch::tfdpa_blocks`, `batch::tr_blocks`), each
//!    block's D the next one's C: the same operations as instruction after instruction with D
//!    fed back, since each instruction's K is whole blocks. A flagged lane (of any block) is
//!    recomputed instruction by instruction with `Kernel::dot`, as are the columns no panel
//!    holds (`n % 8`).
//!
//! `tests/gemm.rs` compares the driver with the plain model stepped along K on random words
//! with zeros, subnormals, Inf/NaN and the top binade, for every model family here and block
//! lengths 4 to 32. Soundness: `x86/mod.rs`.

use super::ymm::Ymm;
use super::zmm::Zmm;
use crate::format::Format;
use crate::kernel::lanes::batch::{self, TLanes, TrParams};
use crate::kernel::lanes::stage::{align_scales, sum_halves, Products, Term};
use crate::kernel::lanes::steps::Steps;
use crate::kernel::lanes::vector::Vector;
use crate::kernel::plan::{LaneKey, Path};
use crate::kernel::table::{self, Dec as _, Entry, Tf32Dec};
use crate::kernel::GemmIn;
use crate::kernel::{Isa, Kernel};

/// Exponent codes: the scientific exponent plus `CODE_BIAS` (per operand, so products carry
/// twice it), positive for every element of these formats (exponents above -2^14), so that a
/// product's code sum is positive too; a zero element `ZERO`, which makes a sum with any other
/// code negative (a large unsigned value: the block's smallest product, taken as an unsigned
/// minimum, skips those without a subtraction); an Inf/NaN element `SPECIAL` (a product with
/// it, a zero included, lies above every real code sum).
const CODE_BIAS: i32 = 127 + (1 << 14);
const ZERO: i32 = -(1 << 17);
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
/// the panel's `V::LANES` values then as many codes), both from element 0; `lo` the smallest
/// product code sum whose `f32` product is normal; `low` whether a block must find its
/// smallest product.
#[derive(Clone, Copy, Debug)]
struct Pre<'a> {
    a: &'a [i32],
    b: &'a [i32],
    lo: i32,
    low: Low,
}

/// Whether the blocks of a row of A and a panel must check their smallest product against the
/// bounds of [`Pre::block`] (`lo` and the zero exponent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Low {
    /// Per block, a smallest code sum kept (an unsigned minimum per element).
    Check,
    /// The smallest codes of the row and of the panel over all of K (zeros aside) already sum
    /// to at least the bound, so no product of theirs can fall below it: the minimum is not
    /// kept (one operation per element fewer; most data are like this).
    Bounded,
}

/// The smallest exponent code of `codes` (zeros aside: their code is negative, so above every
/// other as an unsigned number); `u32::MAX` where every element is zero.
fn min_code(codes: impl Iterator<Item = i32>) -> u32 {
    codes.map(|c| c as u32).min().unwrap_or(u32::MAX)
}

/// Pass 1 of [`Pre::block`]: per group the largest code sum into `smax`; where `low` is
/// given, the smallest sum over the block (as an unsigned minimum, so that the negative sums of
/// products with a zero are above every other).
#[inline(always)]
fn code_sums<V: Vector, const N: usize, const G: usize>(
    (a, b): (&[i32], &[i32]),
    smax: &mut [V::I; G],
    mut low: Option<&mut V::I>,
) {
    let l = V::LANES;
    // Eight elements at a time, as in `sum_halves`.
    for j in (0..N).step_by(8) {
        for e in j..j + N.min(8) {
            let s = V::add(V::splat(a[2 * e + 1]), V::load(&b[2 * l * e + l..]));
            smax[e % G] = V::max(smax[e % G], s);
            if let Some(low) = low.as_deref_mut() {
                *low = V::min_u(*low, s);
            }
        }
    }
}

impl Products for Pre<'_> {
    #[inline(always)]
    fn bias(&self) -> i32 {
        2 * CODE_BIAS
    }

    #[inline(always)]
    fn block<V: Vector, const N: usize, const G: usize>(
        &self,
        k0: usize,
        ez: i32,
        off: V::I,
        floor: [V::I; G],
        f: u32,
        _shift: u32,
    ) -> ([V::I; G], [V::I; G], V::M) {
        let l = V::LANES;
        let (a, b) = (
            &self.a[2 * k0..2 * (k0 + N)],
            &self.b[2 * l * k0..2 * l * (k0 + N)],
        );
        let set = V::splat;
        // Pass 1. A product must be exact in f32 and, raised by `off`, above the zero exponent
        // (as the stages ensure): flag a smaller sum than either bound, and a sum above f32's
        // range (Inf/NaN elements among them).
        let mut smax = [set(i32::MIN); G];
        let mut bad = match self.low {
            Low::Check => {
                let mut low = set(-1);
                code_sums::<V, N, G>((a, b), &mut smax, Some(&mut low));
                let need = V::max(set(self.lo), V::sub(set(ez + 1), off));
                // `need` is positive (at least `lo`), so `need - 1` compares as unsigned too.
                let below = V::sub(need, set(1));
                V::eq(V::min_u(low, below), low)
            }
            Low::Bounded => {
                code_sums::<V, N, G>((a, b), &mut smax, None);
                V::none()
            }
        };
        let bias = self.bias();
        let mut emax = floor;
        for g in 0..G {
            bad = V::m_or(bad, V::gt(smax[g], set(126 + bias)));
            let top = V::add(smax[g], off);
            emax[g] = V::max(V::max(floor[g], set(ez)), top);
        }
        // Pass 2: the exact f32 products, aligned and truncated as the stages do, each formed
        // where it is summed. [`Aligned`] is a method, not a closure: a closure here was kept
        // out of line, compiled without the entry point's target features (15x slower); and
        // not an array of the block's products, which cost fp8 (K = 32) 1.6x (measured; the
        // stack round trip is the likely cause).
        let scale = align_scales::<V, G>(f as i32 + bias, off, emax, ez, &mut bad);
        let acc = sum_halves::<V, N, G>(Aligned::<V, G> { a, b, scale }, &mut bad);
        (acc, emax, bad)
    }
}

/// The aligned product `e` of a block of [`Pre`]: the `f32` product of the elements' values
/// times the group's scale, truncated to an integer (as `stage::aligned_sum`).
struct Aligned<'a, V: Vector, const G: usize> {
    a: &'a [i32],
    b: &'a [i32],
    scale: [V::F; G],
}

impl<V: Vector, const G: usize> Term<V> for Aligned<'_, V, G> {
    #[inline(always)]
    fn at(&self, e: usize) -> V::I {
        let l = V::LANES;
        let p = V::f_mul(
            V::as_f(V::splat(self.a[2 * e])),
            V::as_f(V::load(&self.b[2 * l * e..])),
        );
        V::f_trunc_i(V::f_mul(p, self.scale[e % G]))
    }
}

/// The model family of a [`GemmLanes`] with what its blocks need.
#[derive(Clone, Copy, Debug)]
enum Family {
    T(TLanes),
    Tr(TrParams),
}

/// The blocks along K of a panel's columns for one model family and block length, for `R`
/// rows of D at once (independent chains, interleaved block by block: see
/// `batch::tr_blocks_rows`).
trait Chain {
    /// `(family, operands, k, C lanes) -> (D lanes, flags)`, per row.
    fn run<V: Steps, const R: usize>(
        f: &Family,
        p: [Pre<'_>; R],
        k: usize,
        c: [V::I; R],
    ) -> Ran<V, R>;
}

/// What [`Chain::run`] gives: per row, the D lanes and the flags.
type Ran<V, const R: usize> = ([<V as Vector>::I; R], [u32; R]);

/// Every lane of every row flagged: a chain given another family's parameters (never made).
fn all_flagged<V: Vector, const R: usize>(c: [V::I; R]) -> Ran<V, R> {
    (c, [u32::MAX >> (32 - V::LANES); R])
}

/// T-FDPA blocks of `N`.
struct TChain<const N: usize>;

impl<const N: usize> Chain for TChain<N> {
    #[inline(always)]
    fn run<V: Steps, const R: usize>(
        f: &Family,
        p: [Pre<'_>; R],
        k: usize,
        c: [V::I; R],
    ) -> Ran<V, R> {
        match f {
            Family::T(t) => batch::tfdpa_blocks_rows::<V, N, _, R>(t, p, k, V::zero(), c),
            Family::Tr(_) => all_flagged::<V, R>(c),
        }
    }
}

/// TR-FDPA (`GTR` false) or GTR-FDPA blocks of `N`.
struct TrChain<const N: usize, const GTR: bool>;

impl<const N: usize, const GTR: bool> Chain for TrChain<N, GTR> {
    #[inline(always)]
    fn run<V: Steps, const R: usize>(
        f: &Family,
        p: [Pre<'_>; R],
        k: usize,
        c: [V::I; R],
    ) -> Ran<V, R> {
        match f {
            Family::Tr(t) => batch::tr_blocks_rows::<V, N, GTR, _, R>(t, p, k, c),
            Family::T(_) => all_flagged::<V, R>(c),
        }
    }
}

/// The rows of D a [`GemmLanes`] computes, compiled for its kernel's instruction set and
/// chain: `(lanes, kernel, first row, operands, D rows)`.
/// # Safety
/// Compiled for AVX2 or AVX-512: call only on a CPU that has it (what [`GemmLanes`]
/// guarantees).
type RowsFn = unsafe fn(&GemmLanes, &Kernel, usize, &GemmIn<'_>, &mut [u64]);

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn rows_ymm<C: Chain>(
    g: &GemmLanes,
    kern: &Kernel,
    i0: usize,
    x: &GemmIn<'_>,
    d: &mut [u64],
) {
    g.rows_on::<Ymm, C>(kern, i0, x, d)
}

/// # Safety
/// The CPU must support AVX-512 F/BW/DQ/VL and AVX2.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi1,bmi2,fma,f16c,lzcnt")]
unsafe fn rows_zmm<C: Chain>(
    g: &GemmLanes,
    kern: &Kernel,
    i0: usize,
    x: &GemmIn<'_>,
    d: &mut [u64],
) {
    g.rows_on::<Zmm, C>(kern, i0, x, d)
}

/// A panel of B: its first column, its width (columns, a vector's lanes) and where its data
/// start in `GemmLanes::data`.
#[derive(Clone, Copy, Debug)]
struct Panel {
    col: usize,
    width: usize,
    at: usize,
    /// The smallest exponent code of its elements ([`min_code`]).
    min_code: u32,
}

/// A unit's matrix product on the lanes with B decoded once (see the module docs); made by
/// [`gemm_lanes`] only for a kernel planned for AVX2 or AVX-512 on a CPU that has it.
#[derive(Debug)]
pub(crate) struct GemmLanes {
    family: Family,
    rows_fn: RowsFn,
    dec_a: Dec,
    man_a: u32,
    lo: i32,
    /// The smallest code sum every product must reach (see [`Low::Bounded`]).
    need: i32,
    /// `n` columns of `k`, instructions of `k_step`.
    n: usize,
    k: usize,
    k_step: usize,
    /// B's panels, in column order; the columns after the last are computed per dot product.
    panels: Vec<Panel>,
    data: Vec<i32>,
}

/// The lane path of `kern`'s unit for an `n`-column B of depth `k` (`b_cols`, column by column)
/// and instructions of `k_step`, B decoded; `None` where the unit has no T/TR/GTR-FDPA lanes,
/// `k_step` is not whole blocks or K is 0 (D is C). Called only through `x86/mod.rs`'s
/// `gemm_lanes`, where the kernel is planned for a vector instruction set this CPU has.
pub(super) fn gemm_lanes(
    kern: &Kernel,
    (n, k): (usize, usize),
    k_step: usize,
    b_cols: &[u64],
) -> Option<GemmLanes> {
    if k == 0 || b_cols.len() < n * k {
        return None;
    }
    let wide = kern.plan.isa == Isa::Avx512;
    macro_rules! pick {
        ($chain:ty) => {
            if wide {
                rows_zmm::<$chain> as RowsFn
            } else {
                rows_ymm::<$chain> as RowsFn
            }
        };
    }
    let (family, rows_fn, block): (Family, RowsFn, usize) = match (kern.plan.lanes?, kern.plan.path)
    {
        (LaneKey::TFdpa { n, .. }, _) => {
            let t = kern.plan.t.filter(|t| !t.c_fp16)?;
            let rows_fn = match n {
                4 => pick!(TChain<4>),
                8 => pick!(TChain<8>),
                16 => pick!(TChain<16>),
                32 => pick!(TChain<32>),
                _ => return None,
            };
            (Family::T(t), rows_fn, n)
        }
        (LaneKey::Tr { n, gtr, .. }, Path::Tr(p) | Path::Gtr(p)) => {
            let t = p.params;
            let rows_fn = match (n, gtr) {
                (4, false) => pick!(TrChain<4, false>),
                (8, false) => pick!(TrChain<8, false>),
                (16, false) => pick!(TrChain<16, false>),
                (8, true) => pick!(TrChain<8, true>),
                (16, true) => pick!(TrChain<16, true>),
                _ => return None,
            };
            (Family::Tr(t), rows_fn, n)
        }
        _ => return None,
    };
    if k_step == 0 || !k_step.is_multiple_of(block) || k % k_step != 0 {
        return None;
    }
    let f = &kern.unit.formats;
    let (dec_a, dec_b) = (Dec::of(&f.a)?, Dec::of(&f.b)?);
    // Panels as wide as the vector, then (AVX-512) one of eight where eight columns are left.
    let mut panels = Vec::new();
    let mut col = 0;
    for width in [if wide { 16 } else { 8 }, 8] {
        while col + width <= n {
            panels.push(Panel {
                col,
                width,
                at: 2 * col * k,
                min_code: u32::MAX,
            });
            col += width;
        }
    }
    // B's decoded panels double what B costs; where they do not fit, the per-dot path runs
    // (the same bits) instead of aborting the process.
    let mut data = Vec::new();
    data.try_reserve_exact(2 * col * k).ok()?;
    data.resize(2 * col * k, 0i32);
    for p in &mut panels {
        let panel = &mut data[p.at..p.at + 2 * p.width * k];
        for (e, slot) in panel.chunks_exact_mut(2 * p.width).enumerate() {
            for j in 0..p.width {
                let w = b_cols[(p.col + j) * k + e];
                (slot[j], slot[p.width + j]) = dec_b.element(w, f.b.man_bits);
            }
        }
        let codes = panel.chunks_exact(2 * p.width).flat_map(|s| &s[p.width..]);
        p.min_code = min_code(codes.copied());
    }
    let lo = -126 + (f.a.man_bits + f.b.man_bits) as i32 + 2 * CODE_BIAS;
    // The bound `Pre::block` applies, `max(lo, ez + 1 - off)`, with the zero exponent the
    // block routines pass (`batch::tfdpa`: the unit's; `batch::tr`: `batch::NONE`, below every
    // code) and no scale offset (none here).
    let e_zero = match family {
        Family::T(t) => t.e_zero,
        Family::Tr(_) => batch::NONE,
    };
    let need = lo.max(e_zero + 2 * CODE_BIAS + 1);
    Some(GemmLanes {
        family,
        rows_fn,
        dec_a,
        man_a: f.a.man_bits,
        lo,
        need,
        n,
        k,
        k_step,
        panels,
        data,
    })
}

impl GemmLanes {
    /// Rows `i0 ..` of D (as many as `d` holds, `n` words each) of the product of `x`.
    pub(crate) fn rows(&self, kern: &Kernel, i0: usize, x: &GemmIn<'_>, d: &mut [u64]) {
        // SAFETY: a `GemmLanes` is made only where `vector_here` held for the kernel's
        // instruction set, and its `rows_fn` is compiled for that set.
        unsafe { (self.rows_fn)(self, kern, i0, x, d) }
    }

    /// [`GemmLanes::rows`] with panels of `V::LANES` columns (and of eight, by [`Ymm`]).
    #[inline(always)]
    fn rows_on<V: Steps, C: Chain>(&self, kern: &Kernel, i0: usize, x: &GemmIn<'_>, d: &mut [u64]) {
        let (n, k) = (self.n, self.k);
        let rows = d.len() / n;
        let mut a = vec![0i32; rows * 2 * k];
        let mut a_min = vec![u32::MAX; rows];
        for ((r, ar), a_min) in a.chunks_exact_mut(2 * k).enumerate().zip(&mut a_min) {
            let words = &x.a[(i0 + r) * k..(i0 + r + 1) * k];
            for (pair, &w) in ar.chunks_exact_mut(2).zip(words) {
                (pair[0], pair[1]) = self.dec_a.element(w, self.man_a);
            }
            *a_min = min_code(ar.chunks_exact(2).map(|pair| pair[1]));
        }
        let stepped = |i: usize, j: usize| {
            let (row, col) = (&x.a[i * k..(i + 1) * k], &x.b_cols[j * k..(j + 1) * k]);
            let mut acc = x.c[i * n + j];
            for k0 in (0..k).step_by(self.k_step) {
                let s = k0..k0 + self.k_step;
                acc = kern.dot(&row[s.clone()], &col[s], acc);
            }
            acc
        };
        // Panel by panel, every row of the task over it (the panel stays in cache), two rows
        // at a time.
        for p in &self.panels {
            let mut r = 0;
            while r < rows {
                let a = (&a[..], &a_min[..]);
                let more = if r + 1 < rows {
                    self.panel_rows::<V, C, 2>(p, a, (i0, r), x, d, &stepped)
                } else {
                    self.panel_rows::<V, C, 1>(p, a, (i0, r), x, d, &stepped)
                };
                r += more;
            }
        }
        let done = self.panels.last().map_or(0, |p| p.col + p.width);
        for (r, drow) in d.chunks_exact_mut(n).enumerate() {
            for (j, dj) in drow.iter_mut().enumerate().skip(done) {
                *dj = stepped(i0 + r, j);
            }
        }
    }

    /// Rows `r .. r + R` of the task (its first row `i0` of D, `a` its decoded rows and their
    /// smallest codes, `d` its D rows) over panel `p`: their chains interleaved, then the
    /// flagged lanes recomputed by `stepped(i, j)`. Returns `R`.
    #[inline(always)]
    fn panel_rows<V: Steps, C: Chain, const R: usize>(
        &self,
        p: &Panel,
        (a, a_min): (&[i32], &[u32]),
        (i0, r): (usize, usize),
        x: &GemmIn<'_>,
        d: &mut [u64],
        stepped: &impl Fn(usize, usize) -> u64,
    ) -> usize {
        let (n, k) = (self.n, self.k);
        let panel = &self.data[p.at..p.at + 2 * p.width * k];
        let pre = core::array::from_fn::<_, R, _>(|q| Pre {
            a: &a[(r + q) * 2 * k..(r + q + 1) * 2 * k],
            b: panel,
            lo: self.lo,
            // Real codes are positive, so the smallest sum is at least the sum of the minima.
            low: if i64::from(a_min[r + q]) + i64::from(p.min_code) >= i64::from(self.need) {
                Low::Bounded
            } else {
                Low::Check
            },
        });
        let c_at = core::array::from_fn(|q| (i0 + r + q) * n + p.col);
        let d_at = core::array::from_fn(|q| (r + q) * n + p.col);
        let redo = if p.width == V::LANES {
            self.chains::<V, C, R>(pre, (x.c, c_at), (d, d_at))
        } else {
            self.chains::<Ymm, C, R>(pre, (x.c, c_at), (d, d_at))
        };
        for (q, mut redo) in redo.into_iter().enumerate() {
            while redo != 0 {
                let j = redo.trailing_zeros() as usize;
                redo &= redo - 1;
                d[(r + q) * n + p.col + j] = stepped(i0 + r + q, p.col + j);
            }
        }
        R
    }

    /// The chains of `pre` on vectors `W` (a panel of `W::LANES` columns): C from `c` at
    /// `c_at`, D into `d` at `d_at`, per row; returns the rows' flags.
    #[inline(always)]
    fn chains<W: Steps, C: Chain, const R: usize>(
        &self,
        pre: [Pre<'_>; R],
        (c, c_at): (&[u64], [usize; R]),
        (d, d_at): (&mut [u64], [usize; R]),
    ) -> [u32; R] {
        let w = W::LANES;
        let mut cv = [W::zero(); R];
        for (cv, &at) in cv.iter_mut().zip(&c_at) {
            *cv = W::lanes(&c[at..at + w]);
        }
        let (acc, flags) = C::run::<W, R>(&self.family, pre, self.k, cv);
        for (acc, &at) in acc.into_iter().zip(&d_at) {
            W::store(acc, &mut d[at..at + w]);
        }
        flags
    }
}
