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
//! `tcgen05.mma.sp` for every dense `tcgen05.mma` kind. The block-scaled forms too: `mma.sp`
//! with `.block_scale` on sm_120 (`kind::mxf8f6f4` m16n8k64, `kind::mxf4`/`mxf4nvf4`
//! m16n8k128, the shapes LLVM's NVPTX backend lists) and `tcgen05.mma.sp` with `kind::mxf8f6f4`,
//! `mxf4`, `mxf4nvf4`. A scale factor covers twice the logical K it covers densely (the
//! `.scale_vec` count per row is the dense one while K doubles), so its block holds the
//! dense block's number of kept products: the dense unit on the kept products, scale `i` for
//! kept products `i·per..(i + 1)·per`, is that reading (sf-tensor/tcgen05's MODEL.md: sparse
//! NVFP4 uses 32-wide scale blocks). The name says so: `block32` becomes `block64`. The fp4
//! kinds `mxf4`/`mxf4nvf4` keep 4 of each 8 as two adjacent pairs
//! ([`Sparsity::PAIRS_FOUR_OF_EIGHT`]); `mxf8f6f4` keeps 2 of each 4 for every type. Every
//! sparse row is unverified.

use crate::op::{Instruction, Op};
use mma_core::catalog::Evidence;
use mma_core::sparse::Sparsity;

/// The note every sparse row carries.
const NOTE: &str = "sparse: the dense unit of K/2 on A's kept elements and B at the selected positions (sf-tensor/tcgen05's B200 reading: disabled positions absent); no GPU record";

/// The note of a block-scaled sparse row: the scale blocks' reading as well.
const NOTE_SCALED: &str = "sparse, block-scaled: the dense unit of K/2 on the kept products, each scale covering the kept products of a logical block twice the dense one (sf-tensor/tcgen05's reading for NVFP4); fp4 kinds keep adjacent pairs; no GPU record";

/// The sparse operation of a dense one, if it has one.
fn sparse_op(op: Op) -> Option<Op> {
    match op {
        Op::Mma | Op::MmaBlockScale => Some(Op::MmaSp),
        Op::Wgmma => Some(Op::WgmmaSp),
        Op::Tcgen05Mma | Op::Tcgen05MmaBlockScale => Some(Op::Tcgen05MmaSp),
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
        Op::Wgmma | Op::Tcgen05Mma | Op::MmaBlockScale | Op::Tcgen05MmaBlockScale => true,
        _ => false,
    }
}

/// `m16n8k16...` with its K replaced by `k`, and a scale block `.blockN.` by the logical
/// block of the sparse form, twice as wide.
fn with_k(name: &str, k: usize) -> String {
    let (shape, rest) = name.split_once('.').unwrap_or((name, ""));
    let base = shape.split('k').next().unwrap_or(shape);
    let rest = rest
        .split('.')
        .map(
            |part| match part.strip_prefix("block").map(str::parse::<usize>) {
                Some(Ok(n)) => format!("block{}", 2 * n),
                _ => part.to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join(".");
    format!("{base}k{k}.{rest}")
}

/// The PTX spelling of a sparse row derived from the dense row `r`'s mnemonic.
fn mnemonic(r: &Instruction, k: usize) -> String {
    let dense_shape = format!("k{}", r.k);
    let m = r.mnemonic.replacen(&dense_shape, &format!("k{k}"), 1);
    match r.op {
        Op::Mma | Op::MmaBlockScale => m.replacen("mma.sync", "mma.sp::ordered_metadata.sync", 1),
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
            } else if r.name.contains("kind::mxf4") {
                Sparsity::PAIRS_FOUR_OF_EIGHT
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
                note: Some(if r.unit.formats.scale.is_some() {
                    NOTE_SCALED
                } else {
                    NOTE
                }),
                evidence: Evidence::Unverified,
                sparse: Some(pattern),
            })
        })
        .collect()
}
