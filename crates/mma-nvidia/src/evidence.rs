//! What each row of the NVIDIA catalog rests on, as data: one line per rule, the first rule
//! whose architectures, operation and name pattern fit a row decides its
//! [`Evidence`]; a row no rule fits is unverified.
//!
//! `hardware`: the record folders of `shared/hw` (V100, A100, Ada, H100, B200; read by
//! `mma-io`'s `hw.rs`, whose `instruction_for` maps each folder and output to one `mma.sync`
//! instruction, since `wmma` compiles to it). `reference`: the rows whose unit (the arithmetic
//! of one dot product: formats, K, model and parameters) has lines in mmasim 2.1.1's corpus
//! `vectors/mmasim/nvidia/*.jsonl`. The corpus samples N = 8, 64 and 256 of `wgmma` and
//! `tcgen05.mma`, every kind and K of each; the other widths tile the same dot products with
//! the same unit (N is how many outputs, not how one is computed), so they rest on the same
//! lines. The test `crates/mma/tests/evidence.rs` checks every
//! claim against the records and the corpus both ways, so that neither can drift from this
//! table; the repository never reads them at run time.

use crate::arch::Arch::{self, AdaLovelace, Ampere, Blackwell, Hopper, RtxBlackwell, Volta};
use crate::op::Op;
use mma_core::catalog::Evidence::{self, Hardware, Reference, Unverified};

/// The GPUs with fp16, bf16 and tf32 records from `mma.sync` m16n8k*: A100, Ada, H100, B200.
const RECORDED: &[Arch] = &[Ampere, AdaLovelace, Hopper, Blackwell];
/// The GPUs with e4m3 and e5m2 records (m16n8k32, A and B of one type): Ada, H100, B200.
const FP8_RECORDED: &[Arch] = &[AdaLovelace, Hopper, Blackwell];
/// The architectures whose whole `mma.sync` list mmasim has lines for.
const ALL: &[Arch] = &Arch::ALL;

/// (architectures, operation, name pattern with `*` for any text, evidence), first fit wins.
#[rustfmt::skip]
const RULES: &[(&[Arch], Op, &str, Evidence)] = &[
    // The record folders and outputs, as `hw::instruction_for` maps them.
    (&[Volta],     Op::Mma, "m8n8k4.f16.f16.f16.f16",     Hardware),
    (&[Volta],     Op::Mma, "m8n8k4.f32.f16.f16.f32",     Hardware),
    (RECORDED,     Op::Mma, "m16n8k16.f16.f16.f16.f16",   Hardware),
    (RECORDED,     Op::Mma, "m16n8k16.f32.f16.f16.f32",   Hardware),
    (RECORDED,     Op::Mma, "m16n8k16.f32.bf16.bf16.f32", Hardware),
    (RECORDED,     Op::Mma, "m16n8k8.f32.tf32.tf32.f32",  Hardware),
    (FP8_RECORDED, Op::Mma, "m16n8k32.f16.e4m3.e4m3.f16", Hardware),
    (FP8_RECORDED, Op::Mma, "m16n8k32.f32.e4m3.e4m3.f32", Hardware),
    (FP8_RECORDED, Op::Mma, "m16n8k32.f16.e5m2.e5m2.f16", Hardware),
    (FP8_RECORDED, Op::Mma, "m16n8k32.f32.e5m2.e5m2.f32", Hardware),
    // The integer instructions (s8/u8, s4/u4, b1 into s32; `catalog_int.rs`): neither the
    // records nor mmasim's corpus has them, the model is the ISA's integer arithmetic.
    (ALL,          Op::Mma,        "*.s32.*", Unverified),
    (&[Hopper],    Op::Wgmma,      "*.s32.*", Unverified),
    (&[Blackwell], Op::Tcgen05Mma, "*.s32.*", Unverified),
    // Hopper's and Blackwell's other fp8 `mma.sync`: additions mmasim does not list.
    (&[Hopper, Blackwell], Op::Mma, "*.e*", Unverified),
    // Every other `mma.sync` and RTX Blackwell's block-scaled `mma.sync`: all in the corpus.
    (ALL,              Op::Mma,                  "*",         Reference),
    (&[RtxBlackwell],  Op::MmaBlockScale,        "*",         Reference),
    // `wgmma` and `tcgen05.mma`: every unit is in the corpus (at N = 8, 64 and 256), and
    // every width N computes its outputs with that unit.
    (&[Hopper],    Op::Wgmma,                "*",         Reference),
    (&[Blackwell], Op::Tcgen05Mma,           "*",         Reference),
    (&[Blackwell], Op::Tcgen05MmaBlockScale, "*",         Reference),
];

/// The evidence of the row `name` of `op` on `arch`: the first rule that fits, else
/// unverified.
pub(crate) fn of(arch: Arch, op: Op, name: &str) -> Evidence {
    RULES
        .iter()
        .find(|(archs, o, pattern, _)| {
            archs.contains(&arch) && *o == op && Evidence::pattern_matches(pattern, name)
        })
        .map_or(Unverified, |r| r.3)
}
