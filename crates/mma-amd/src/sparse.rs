//! The structured-sparse MFMAs (`v_smfmac`, CDNA3 and CDNA4), derived from the dense rows: a
//! sparse instruction of logical K is its dense sibling of K/2 applied to A's kept elements
//! (2 of every 4, positions given by the index operand) and B at those positions
//! (`mma_core::sparse`, docs/models.md "Structured-sparse units"), so each row takes the unit
//! of the dense single-block row of the same architecture, types and K/2.
//!
//! Which dense rows have a sparse form: the CDNA3 ISA guide's `v_smfmac` list is the f16,
//! bf16, i8 and fp8/bf8 MFMAs of one block at 16x16 and 32x32 with twice their K
//! (`v_smfmac_f32_16x16x32_f16`, `..._32x32x16_bf16`, `v_smfmac_i32_16x16x64_i8`,
//! `v_smfmac_f32_32x32x32_fp8_bf8`, ...); CDNA4 extends the set to its doubled-K dense forms
//! (`v_smfmac_f32_16x16x64_f16`, `v_smfmac_i32_16x16x128_i8`, `v_smfmac_f32_16x16x128_fp8_fp8`,
//! ...). Not xf32, fp32, fp64, CDNA4's f8f6f4 or its scaled forms. No record exists: every
//! row is unverified.

use crate::arch::Arch;
use crate::op::{Instruction, Op};
use mma_core::catalog::Evidence;
use mma_core::sparse::Sparsity;

/// The note every sparse row carries.
const NOTE: &str = "sparse: the dense unit of K/2 on A's kept elements and B at the indexed positions (disabled positions absent, the B200 reading of sf-tensor/tcgen05); no GPU record";

/// Whether the dense row `r` has a `v_smfmac` form (see the module docs).
fn has_sparse(r: &Instruction) -> bool {
    let a = r.unit.formats.a.name;
    let types = matches!(
        a,
        "f16" | "bf16" | "s8" | "e4m3fnuz" | "e5m2fnuz" | "e4m3" | "e5m2"
    );
    let shape = (r.m, r.n) == (16, 16) || (r.m, r.n) == (32, 32);
    let f8f6f4 = r.name.contains("f8f6f4");
    matches!(r.arch, Arch::Cdna3 | Arch::Cdna4) && r.blocks == 1 && types && shape && !f8f6f4
}

/// `f32_16x16x16_f16` with its K replaced by `k`.
fn with_k(name: &str, m: usize, n: usize, k0: usize, k: usize) -> String {
    name.replacen(&format!("{m}x{n}x{k0}"), &format!("{m}x{n}x{k}"), 1)
}

/// The sparse rows of the dense rows in `rows`, in their order.
pub(crate) fn derive(rows: &[Instruction]) -> Vec<Instruction> {
    rows.iter()
        .filter(|r| has_sparse(r))
        .map(|r| {
            let k = 2 * r.k;
            // `smfmac_` keeps the name apart from a dense row of the same shape (CDNA4 has
            // both a dense and a sparse 16x16x32 f16).
            let name = format!("smfmac_{}", with_k(&r.name, r.m, r.n, r.k, k));
            Instruction {
                arch: r.arch,
                op: Op::Smfmac,
                mnemonic: format!("v_{name}"),
                name,
                m: r.m,
                n: r.n,
                k,
                blocks: 1,
                layout: r.layout,
                unit: r.unit,
                note: Some(NOTE),
                evidence: Evidence::Unverified,
                sparse: Some(Sparsity::TWO_OF_FOUR),
            }
        })
        .collect()
}
