//! The per-dot E-FDPA block (AMD CDNA1's exact fused dot-product adder) in `i128`.
//!
//! Steps, as `models/e_fdpa.rs`: decode A and B through their tables, form the exact products
//! (significand products and exponent sums), and sum them with C exactly; round the sum once
//! into D through the reference rounding ([`crate::model::Output::round_encode`], the routine
//! the plain model calls), with the IEEE sign of an exact zero ([`ZeroSigns`]). Only the sum is
//! fast; the rounding is the plain model's own.
//!
//! Why the sum is exact: every term is an integer multiple of the smallest last-bit place `q`
//! among the non-zero terms (a product's last bit is at `e - ma - mb`, C's at `e_c - m_c`). A
//! term below `2^(lsb + w)` (`w = ma + mb + 2` for products, `m_c + 1` for C) shifted to the
//! place `q` stays below `2^120` when `lsb - q + w <= 120`, which the block checks for every
//! term; 17 such terms (blocks of at most 16, and C) sum below `2^125`, inside `i128`. A block
//! whose terms span more (fp32 C far from the products, bf16 products of distant magnitudes),
//! or with an Inf/NaN input, is left to the plain model (`None`). fp16 products alone span at
//! most 81 bits, so CDNA1's fp16 blocks leave the window only through C.

use super::c_term;
use crate::kernel::plan::Decs;
use crate::kernel::table::{self, Bf16Dec, Dec, F16Dec, Tf32Dec, SPECIAL};
use crate::model::{BlockIn, Formats};
use crate::models::e_fdpa::{EFdpa, ZeroSigns};
use crate::round::Exact;

/// The widest span, in bits, of a term from the smallest last-bit place (see the header).
const WINDOW: i32 = 120;

/// E-FDPA over one block, all inputs finite and the terms within the window.
#[inline(always)]
pub(in crate::kernel) fn efdpa_block(
    m: &EFdpa,
    f: &Formats,
    decs: Decs,
    x: &BlockIn<'_>,
) -> Option<u64> {
    match decs {
        Decs::T8(da, db) => efdpa_len(m, f, da, db, x),
        Decs::F16 => efdpa_len(m, f, F16Dec {}, F16Dec {}, x),
        Decs::Bf16 => efdpa_len(m, f, Bf16Dec {}, Bf16Dec {}, x),
        Decs::Tf32 => efdpa_len(m, f, Tf32Dec, Tf32Dec, x),
    }
}

#[inline(always)]
fn efdpa_len<DA: Dec, DB: Dec>(
    m: &EFdpa,
    f: &Formats,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    match x.a.len() {
        1 => efdpa_n::<1, DA, DB>(m, f, da, db, x),
        2 => efdpa_n::<2, DA, DB>(m, f, da, db, x),
        4 => efdpa_n::<4, DA, DB>(m, f, da, db, x),
        8 => efdpa_n::<8, DA, DB>(m, f, da, db, x),
        16 => efdpa_n::<16, DA, DB>(m, f, da, db, x),
        _ => None,
    }
}

#[inline(always)]
fn efdpa_n<const N: usize, DA: Dec, DB: Dec>(
    m: &EFdpa,
    f: &Formats,
    da: DA,
    db: DB,
    x: &BlockIn<'_>,
) -> Option<u64> {
    let a: &[u64; N] = x.a.try_into().ok()?;
    let b: &[u64; N] = x.b.try_into().ok()?;
    let mp = (f.a.man_bits + f.b.man_bits) as i32;
    let (c_sig, c_e, c_neg) = c_term(x, 0)?;
    let mc = x.c_fmt.man_bits as i32;
    let mut signs = ZeroSigns {
        all_neg: c_neg,
        any_neg: c_neg,
        any_nonzero: c_sig != 0,
    };
    // Products: significand, last-bit place, sign.
    let mut s = [0u64; N];
    let mut lsb = [0i32; N];
    let mut neg = [false; N];
    let mut q = if c_sig != 0 { c_e - mc } else { i32::MAX };
    for k in 0..N {
        let (ea, eb) = (da.get(a[k]), db.get(b[k]));
        if (ea | eb) & SPECIAL != 0 {
            return None;
        }
        s[k] = (table::sig(ea) * table::sig(eb)) as u64;
        lsb[k] = table::exp(ea) + table::exp(eb) - mp;
        neg[k] = table::neg(ea ^ eb) != 0;
        signs.all_neg &= neg[k];
        signs.any_neg |= neg[k];
        signs.any_nonzero |= s[k] != 0;
        if s[k] != 0 {
            q = q.min(lsb[k]);
        }
    }
    let mut sum: i128 = 0;
    let mut add = |sig: u64, at: i32, width: i32, neg: bool| -> Option<()> {
        if sig == 0 {
            return Some(());
        }
        let shift = at - q;
        if shift + width > WINDOW {
            return None;
        }
        let v = (sig as i128) << shift;
        sum += if neg { -v } else { v };
        Some(())
    };
    add(c_sig, c_e - mc, mc + 1, c_neg)?;
    for k in 0..N {
        add(s[k], lsb[k], mp + 2, neg[k])?;
    }
    let exact = Exact {
        neg: sum < 0,
        mag: sum.unsigned_abs(),
        exp: if q == i32::MAX { 0 } else { q },
        sticky: false,
    };
    let zero_neg = signs.zero_is_neg(m.out.rho.mode);
    Some(m.out.round_encode(&f.d, exact, zero_neg))
}
