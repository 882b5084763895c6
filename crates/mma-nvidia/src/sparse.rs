//! The structured-sparse instructions (`mma.sp::ordered_metadata`, `wgmma.mma_async.sp`,
//! `tcgen05.mma.sp`), derived from the dense rows: a sparse instruction of logical K is its
//! dense sibling of K/2 applied to the kept elements of A and the selected ones of B
//! (`mma_core::sparse`, docs/models.md, "Structured-sparse units"), so each sparse row takes
//! the unit of the dense row of the same architecture, types and K/2.
//!
//! Which dense rows have a sparse form is the PTX ISA's (9.0, the `mma.sp`, `wgmma.mma_async.sp`
//! and `tcgen05.mma.sp` syntax): `mma.sp` from sm_80 on the m16n8 shapes of f16, bf16, tf32
//! (1 of each 2), s8/u8 and s4/u4 (with and without `.satfinite`), e4m3/e5m2 only as
//! m16n8k64 with f32 D (sm_89 on), and `kind::f8f6f4` as m16n8k64 (sm_120); none of fp64, the
//! Turing shapes m8n8k* or `.b1`. `wgmma.mma_async.sp` for every dense `wgmma` type but `.b1`;
//! `tcgen05.mma.sp` for every dense `tcgen05.mma` kind. The block-scaled sparse forms
//! (`kind::mxf8f6f4`, `mxf4`, `mxf4nvf4` with `.sp`) are not listed: how their scale blocks
//! (per 32 or 64 logical elements, over half as many kept products) meet the products is not
//! settled by anything public, and guessing would be silent. Every sparse row is unverified.

use crate::op::{Instruction, Op};
use mma_core::catalog::Evidence;
use mma_core::sparse::Sparsity;

/// The note every sparse row carries.
const NOTE: &str = "sparse: the dense unit of K/2 on A's kept elements and B at the selected positions (sf-tensor/tcgen05's B200 reading: disabled positions absent); no GPU record";

/// The sparse operation of a dense one, if it has one.
fn sparse_op(op: Op) -> Option<Op> {
    match op {
        Op::Mma => Some(Op::MmaSp),
        Op::Wgmma => Some(Op::WgmmaSp),
        Op::Tcgen05Mma => Some(Op::Tcgen05MmaSp),
        _ => None,
    }
}

/// Whether the dense row `r` has a sparse form (see the module docs).
fn has_sparse(r: &Instruction) -> bool {
    use crate::arch::Arch;
    let f = &r.unit.formats;
    if f.a.name == "f64" || f.a.name == "b1" {
        return false;
    }
    match r.op {
        Op::Mma => {
            let fp8 = matches!(f.a.name, "e4m3" | "e5m2") && !r.name.contains("kind::");
            r.arch >= Arch::Ampere
                && r.m == 16
                && r.n == 8
                && (!fp8 || (r.k == 32 && f.d.name == "f32"))
                && (!r.name.contains("kind::") || r.k == 32)
        }
        Op::Wgmma | Op::Tcgen05Mma => true,
        _ => false,
    }
}

/// `m16n8k16...` with its K replaced by `k`.
fn with_k(name: &str, k: usize) -> String {
    let (shape, rest) = name.split_once('.').unwrap_or((name, ""));
    let base = shape.split('k').next().unwrap_or(shape);
    format!("{base}k{k}.{rest}")
}

/// The PTX spelling of a sparse row derived from the dense row `r`'s mnemonic.
fn mnemonic(r: &Instruction, k: usize) -> String {
    let dense_shape = format!("k{}", r.k);
    let m = r.mnemonic.replacen(&dense_shape, &format!("k{k}"), 1);
    match r.op {
        Op::Mma => m.replacen("mma.sync", "mma.sp::ordered_metadata.sync", 1),
        Op::Wgmma => m.replacen("wgmma.mma_async.sync", "wgmma.mma_async.sp.sync", 1),
        _ => m.replacen("tcgen05.mma.", "tcgen05.mma.sp.", 1),
    }
}

/// The sparse rows of the dense rows in `rows`, in their order.
pub(crate) fn derive(rows: &[Instruction]) -> Vec<Instruction> {
    rows.iter()
        .filter(|r| has_sparse(r))
        .filter_map(|r| {
            let op = sparse_op(r.op)?;
            let k = 2 * r.k;
            let pattern = if r.unit.formats.a.name == "tf32" {
                Sparsity::ONE_OF_TWO
            } else {
                Sparsity::TWO_OF_FOUR
            };
            Some(Instruction {
                arch: r.arch,
                op,
                name: format!("sp.{}", with_k(&r.name, k)),
                mnemonic: mnemonic(r, k),
                m: r.m,
                n: r.n,
                k,
                blocks: r.blocks,
                layout: r.layout,
                unit: r.unit,
                note: Some(NOTE),
                evidence: Evidence::Unverified,
                sparse: Some(pattern),
            })
        })
        .collect()
}
