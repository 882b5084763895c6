//! The per-dot T-FDPA block (NVIDIA's fused dot-product adder) in `i64`.
//!
//! Steps, as `models/t_fdpa.rs`: decode A and B through their tables, form the exact products
//! (significand products and exponent sums; zero products take `e_zero`), take the largest
//! exponent of the products and C, align every term to `F` fraction bits below it with
//! truncation toward zero, sum, and round once into D ([`super::finish`]). A block with an
//! Inf/NaN input, or a length other than 4 to 64, is left to the plain model (`None`).
//!
//! Why `i64` suffices: a product significand is below `2^(ma+mb+2)` (each decoded significand
//! is below `2^(m+1)`), and its exponent is at most `e_max`, so after alignment to `F` fraction
//! bits below `e_max` its magnitude is below `2^(F+2)`; C's is below `2^(F+1)`. With at most
//! `MAX_BLOCK = 64` products the sum stays below `2^(F+9)`, and the plan chooses this kernel
//! only for `F <= 48` (`kernel/plan.rs`).

use super::{c_aligned, c_term, finish, signed};
use crate::kernel::plan::{Decs, TPath};
use crate::kernel::table::{self, Bf16Dec, Dec, F16Dec, Tf32Dec, SPECIAL};
use crate::model::{BlockIn, Formats};
use crate::models::t_fdpa::TFdpa;

/// T-FDPA over one block, all inputs finite: dispatches on the block length so that the
/// per-product arrays have a length known at compile time (filled without zeroing first).
#[inline(always)]
pub(in crate::kernel) fn tfdpa_block(
    m: &TFdpa,
    f: &Formats,
    p: &TPath,
    x: &BlockIn<'_>,
) -> Option<u64> {
    match p.decs {
        Decs::T8(da, db) => tfdpa_len(m, f, p, da, db, x),
        Decs::F16 => tfdpa_len(m, f, p, F16Dec {}, F16Dec {}, x),
        Decs::Bf16 => tfdpa_len(m, f, p, Bf16Dec {}, Bf16Dec {}, x),
        Decs::Tf32 => tfdpa_len(m, f, p, Tf32Dec, Tf32Dec, x),
    }
}

#[inline(always)]
fn tfdpa_len<DA: Dec, DB: Dec>(
    m: &TFdpa,
    f: &Formats,
    p: &TPath,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    match x.a.len() {
        4 => tfdpa_n::<4, DA, DB>(m, f, p, da, db, x),
        8 => tfdpa_n::<8, DA, DB>(m, f, p, da, db, x),
        16 => tfdpa_n::<16, DA, DB>(m, f, p, da, db, x),
        32 => tfdpa_n::<32, DA, DB>(m, f, p, da, db, x),
        64 => tfdpa_n::<64, DA, DB>(m, f, p, da, db, x),
        _ => None,
    }
}

#[inline(always)]
fn tfdpa_n<const N: usize, DA: Dec, DB: Dec>(
    m: &TFdpa,
    f: &Formats,
    p: &TPath,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    // Straight loops over arrays of compile-time length, which the compiler turns into SIMD
    // code where the target has variable vector shifts (AVX2).
    let mut ea = [0u32; N];
    let mut eb = [0u32; N];
    for k in 0..N {
        ea[k] = da.get(a[k]);
        eb[k] = db.get(b[k]);
    }
    let mut any = 0u32;
    let mut all_neg = 1u32;
    let mut s = [0u32; N];
    let mut e = [0i32; N];
    for k in 0..N {
        any |= ea[k] | eb[k];
        all_neg &= table::neg(ea[k] ^ eb[k]);
        s[k] = table::sig(ea[k]) * table::sig(eb[k]);
        let sum_e = table::exp(ea[k]) + table::exp(eb[k]);
        e[k] = if s[k] == 0 { m.e_zero } else { sum_e };
    }
    if any & SPECIAL != 0 {
        return None;
    }
    let (c_sig, c_e, c_neg) = c_term(x, m.e_zero)?;
    let mut e_max = c_e;
    for &ek in &e {
        e_max = e_max.max(ek);
    }
    all_neg &= c_neg as u32;
    let mut sum = signed(
        c_aligned(c_sig, c_e, x.c_fmt.man_bits, m.f, e_max),
        c_neg as u32,
    );
    for k in 0..N {
        let d = ((e_max - e[k]) as u32).min(63);
        let mag = ((s[k] as u64) << p.shift) >> d;
        sum += signed(mag, table::neg(ea[k] ^ eb[k]));
    }
    Some(finish(
        &m.out,
        &f.d,
        &p.round,
        sum,
        e_max - m.f as i32,
        all_neg == 1,
    ))
}
