//! FMA chains across lanes: a group of fp32 dot products per [`Vector`] (eight or sixteen), or
//! of fp64 dot products in two vectors of half as many, each lane running
//! `acc = fma(a_k, b_k, acc)` over K exactly as the scalar
//! [`crate::kernel::scalar::fma::fma_block`] does.
//!
//! Why it is bit-exact: the vector `vfmadd` is the same IEEE fused multiply-add as the scalar
//! one (one rounding, to nearest even under the default MXCSR, subnormals kept), applied in
//! the same order to the same operands; the unit's blocks are a plain continuation of the
//! chain (a block's result, in the common format, is the next block's C), so block lengths do
//! not matter. A NaN result takes the unit's NaN bits, as in the scalar routine. There is no
//! fallback: every input, specials included, is handled by the lanes.
//!
//! The instructions of this class have small K (1 to 4). Where the rows of the group follow
//! each other (`stride == k`, a batch of [`crate::kernel::Kernel::dots`]) and K is 1, 2 or 4,
//! the rows are read by contiguous loads and transposed in registers ([`Vector::rows32`],
//! [`Vector::rows64`], [`Vector::columns4`]); otherwise (a matrix row of A shared by the
//! columns, other K) element `e` of the group's rows is fetched with one gather
//! ([`Vector::gather32`], [`Vector::gather64`]).

use super::vector::Vector;
use crate::kernel::{Rows, Word};

pub use super::vector::gathers_fit as fits;

/// Elements `0 .. k` of the group's rows as 32-bit lanes by contiguous loads, where the rows
/// follow each other with K of 1, 2 (`u32` words) or 4 (any word); `None` otherwise.
#[inline(always)]
fn rows32<V: Vector, W: Word>(r: &Rows<'_, W>) -> Option<[V::I; 4]> {
    if r.k() == 4 && r.stride == 4 {
        let c = V::columns4(r, 0);
        return Some([c[0], c[1], c[2], c[3]]);
    }
    V::rows32(r).map(|[x, y]| [x, y, V::zero(), V::zero()])
}

/// `acc = $fma(x[e], y[e], acc)` for `e` in `0 .. k` (`k` at most 4: rows read by contiguous
/// loads), with constant indices. A loop over `0 .. k` indexing the arrays kept the four
/// registers in memory at opt-level 2 (the fp64 chains ran at 0.67 of their rate; level 3
/// unrolled it). A macro, not a closure: a closure does not inherit the target features.
macro_rules! first4 {
    ($k:expr, $acc:ident, |$e:ident| $step:expr) => {{
        let k = $k;
        // Rows read by contiguous loads are at most four (`[_; 4]`): more would be dropped.
        assert!(k <= 4);
        let $e = 0;
        $acc = $step;
        if k > 1 {
            let $e = 1;
            $acc = $step;
        }
        if k > 2 {
            let $e = 2;
            $acc = $step;
        }
        if k > 3 {
            let $e = 3;
            $acc = $step;
        }
    }};
}

/// The group's fp32 FMA chains over the rows' K, C and D as fp32 words; a NaN result is `nan`.
#[inline(always)]
pub fn fma32<V: Vector, W: Word>(
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    nan: u64,
    out: &mut [u64],
) {
    assert!(a.k() == b.k());
    let mut acc = V::as_f(V::lanes(c));
    if let (Some(x), Some(y)) = (rows32::<V, W>(&a), rows32::<V, W>(&b)) {
        first4!(a.k(), acc, |e| V::f_fma(V::as_f(x[e]), V::as_f(y[e]), acc));
    } else {
        for e in 0..a.k() {
            acc = V::f_fma(
                V::as_f(V::gather32(&a, e)),
                V::as_f(V::gather32(&b, e)),
                acc,
            );
        }
    }
    let d = V::select(V::f_nan(acc), V::as_i(acc), V::splat(nan as u32 as i32));
    V::store(d, out);
}

/// The group's fp64 FMA chains over the rows' K, C and D as fp64 words; a NaN result is `nan`.
#[inline(always)]
pub fn fma64<V: Vector, W: Word>(
    a: Rows<'_, W>,
    b: Rows<'_, W>,
    c: &[u64],
    nan: u64,
    out: &mut [u64],
) {
    assert!(a.k() == b.k());
    for h in 0..2 {
        let mut acc = V::load_d(c, h);
        if let (Some(x), Some(y)) = (V::rows64(&a, h), V::rows64(&b, h)) {
            first4!(a.k(), acc, |e| V::d_fma(x[e], y[e], acc));
        } else {
            for e in 0..a.k() {
                acc = V::d_fma(V::gather64(&a, e, h), V::gather64(&b, e, h), acc);
            }
        }
        let nan = V::as_d(V::q_splat(nan as i64));
        V::store_d(V::d_select(V::d_nan(acc), acc, nan), out, h);
    }
}
