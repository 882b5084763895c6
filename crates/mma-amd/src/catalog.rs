//! The instruction tables as data, one row per instruction: every `v_mfma` instruction of
//! mmasim 2.1.1's lists with its shape, operand formats, arithmetic model and parameters (the
//! AMD paper, Khattak, Mikaitis, Graziani, arXiv 2609.14845, and mmasim 2.1.1's own tables).
//! CDNA1 and CDNA2 share one table (the same instructions, with a model column each); CDNA3,
//! whose names differ, has its own. The block counts (`_Nb`) of CDNA1/CDNA2 instructions,
//! whose names do not carry them, are those of the CDNA ISA guides (the same instructions are
//! renamed with `_Nb` on CDNA3).

use crate::{Arch, Instruction, Op};
use mma_core::catalog::Layout;
use mma_core::format::{
    Format, BF16, E2M1, E2M3, E3M2, E4M3, E4M3_FNUZ, E5M2, E5M2_FNUZ, FP16, FP32, FP64, S32, S8,
    TF32, UE8M0,
};
use mma_core::models::ftz_mul_add::FtzMulAdd;
use mma_core::models::gtr_fdpa::GtrFdpa;
use mma_core::models::int_dpa::{IDpa, IntOp};
use mma_core::models::tr_fdpa::TrFdpa;
use mma_core::models::{e_fdpa, fma};
use mma_core::{DotUnit, Formats, Model, NanStyle, Output, OutputRounding, RoundOpts, Rounding};

use Kind::{EFdpa, Fma, Ftz, Gtr, GtrScaled, Int, Tr};

/// Which model an instruction uses, with the parameters that vary between instructions.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Sequential IEEE fma in the input precision.
    Fma,
    /// Exact sum of `l` products and C, rounded once (CDNA1 fp16 l = 4, bf16 l = 2).
    EFdpa(usize),
    /// FTZ multiplies and pairwise adds, `p` products per group (CDNA2).
    Ftz(usize),
    /// Truncated fused sum of `l` products, late rounded-down C (CDNA3 fp16/bf16/xf32).
    Tr(usize),
    /// As `Tr`, even/odd product groups and C dropping (CDNA3 fp8/bf8, l = 16).
    Gtr(usize),
    /// As `Gtr`, each product first multiplied by its 32-element block's two ue8m0 scales
    /// (CDNA4 `v_mfma_scale_f32_*_f8f6f4`).
    GtrScaled(usize),
    /// The exact integer sum of the products and C, wrapped modulo 2^32 (`v_mfma_i32_*`, i8
    /// inputs: I-DPA, no saturation); the whole K is one block.
    Int,
}

/// One instruction of CDNA1 and CDNA2 (the same names, shapes and formats; CDNA2 adds fp64 and
/// the bf16 `_1k` forms): mmasim suffix, m, n, k, blocks (`_Nb`, not in these names), A, B,
/// C/D formats, then its model on CDNA1 and on CDNA2 (`None`: the architecture lacks it).
type Row12 = (
    &'static str,
    usize,
    usize,
    usize,
    usize,
    Format,
    Format,
    Format,
    Option<Kind>,
    Option<Kind>,
);

/// CDNA1 and CDNA2, one row per instruction, in each architecture's catalog order.
#[rustfmt::skip]
const CDNA1_2: &[Row12] = &[
    // name                  m   n   k   b  A     B     C/D   CDNA1           CDNA2
    ("f64_16x16x4f64",       16, 16,  4,  1, FP64, FP64, FP64, None,           Some(Fma)),
    ("f64_4x4x4f64",          4,  4,  4,  4, FP64, FP64, FP64, None,           Some(Fma)),
    ("f32_32x32x8bf16_1k",   32, 32,  8,  1, BF16, BF16, FP32, None,           Some(Ftz(4))),
    ("f32_32x32x4bf16_1k",   32, 32,  4,  2, BF16, BF16, FP32, None,           Some(Ftz(4))),
    ("f32_16x16x16bf16_1k",  16, 16, 16,  1, BF16, BF16, FP32, None,           Some(Ftz(4))),
    ("f32_16x16x4bf16_1k",   16, 16,  4,  4, BF16, BF16, FP32, None,           Some(Ftz(4))),
    ("f32_4x4x4bf16_1k",      4,  4,  4, 16, BF16, BF16, FP32, None,           Some(Ftz(4))),
    ("f32_32x32x2f32",       32, 32,  2,  1, FP32, FP32, FP32, Some(Fma),      Some(Fma)),
    ("f32_32x32x1f32",       32, 32,  1,  2, FP32, FP32, FP32, Some(Fma),      Some(Fma)),
    ("f32_16x16x4f32",       16, 16,  4,  1, FP32, FP32, FP32, Some(Fma),      Some(Fma)),
    ("f32_16x16x1f32",       16, 16,  1,  4, FP32, FP32, FP32, Some(Fma),      Some(Fma)),
    ("f32_4x4x1f32",          4,  4,  1, 16, FP32, FP32, FP32, Some(Fma),      Some(Fma)),
    ("f32_32x32x8f16",       32, 32,  8,  1, FP16, FP16, FP32, Some(EFdpa(4)), Some(Ftz(4))),
    ("f32_32x32x4f16",       32, 32,  4,  2, FP16, FP16, FP32, Some(EFdpa(4)), Some(Ftz(4))),
    ("f32_16x16x16f16",      16, 16, 16,  1, FP16, FP16, FP32, Some(EFdpa(4)), Some(Ftz(4))),
    ("f32_16x16x4f16",       16, 16,  4,  4, FP16, FP16, FP32, Some(EFdpa(4)), Some(Ftz(4))),
    ("f32_4x4x4f16",          4,  4,  4, 16, FP16, FP16, FP32, Some(EFdpa(4)), Some(Ftz(4))),
    ("f32_32x32x4bf16",      32, 32,  4,  1, BF16, BF16, FP32, Some(EFdpa(2)), Some(Ftz(2))),
    ("f32_32x32x2bf16",      32, 32,  2,  2, BF16, BF16, FP32, Some(EFdpa(2)), Some(Ftz(2))),
    ("f32_16x16x8bf16",      16, 16,  8,  1, BF16, BF16, FP32, Some(EFdpa(2)), Some(Ftz(2))),
    ("f32_16x16x2bf16",      16, 16,  2,  4, BF16, BF16, FP32, Some(EFdpa(2)), Some(Ftz(2))),
    ("f32_4x4x2bf16",         4,  4,  2, 16, BF16, BF16, FP32, Some(EFdpa(2)), Some(Ftz(2))),
    // i8 → i32 (not in mmasim's lists: unverified, `crate::evidence`)
    ("i32_32x32x4i8",        32, 32,  4,  2, S8,   S8,   S32,  Some(Int),      Some(Int)),
    ("i32_16x16x4i8",        16, 16,  4,  4, S8,   S8,   S32,  Some(Int),      Some(Int)),
    ("i32_4x4x4i8",           4,  4,  4, 16, S8,   S8,   S32,  Some(Int),      Some(Int)),
    ("i32_32x32x8i8",        32, 32,  8,  1, S8,   S8,   S32,  Some(Int),      Some(Int)),
    ("i32_16x16x16i8",       16, 16, 16,  1, S8,   S8,   S32,  Some(Int),      Some(Int)),
];

/// One CDNA3 instruction (names with `_Nb` where there are several blocks): mmasim suffix, m, n,
/// k, blocks, A, B, C/D formats, model.
type Row3 = (
    &'static str,
    usize,
    usize,
    usize,
    usize,
    Format,
    Format,
    Format,
    Kind,
);

/// CDNA3, one row per instruction, in catalog order.
#[rustfmt::skip]
const CDNA3: &[Row3] = &[
    // name                  m   n   k   b  A          B          C/D    model
    ("f64_16x16x4_f64",      16, 16,  4,  1, FP64,      FP64,      FP64, Fma),
    ("f64_4x4x4_4b_f64",      4,  4,  4,  4, FP64,      FP64,      FP64, Fma),
    ("f32_32x32x1_2b_f32",   32, 32,  1,  2, FP32,      FP32,      FP32, Fma),
    ("f32_16x16x1_4b_f32",   16, 16,  1,  4, FP32,      FP32,      FP32, Fma),
    ("f32_4x4x1_16b_f32",     4,  4,  1, 16, FP32,      FP32,      FP32, Fma),
    ("f32_32x32x2_f32",      32, 32,  2,  1, FP32,      FP32,      FP32, Fma),
    ("f32_16x16x4_f32",      16, 16,  4,  1, FP32,      FP32,      FP32, Fma),
    ("f32_16x16x8_xf32",     16, 16,  8,  1, TF32,      TF32,      FP32, Tr(4)),
    ("f32_32x32x4_xf32",     32, 32,  4,  1, TF32,      TF32,      FP32, Tr(4)),
    ("f32_32x32x4_2b_f16",   32, 32,  4,  2, FP16,      FP16,      FP32, Tr(8)),
    ("f32_16x16x4_4b_f16",   16, 16,  4,  4, FP16,      FP16,      FP32, Tr(8)),
    ("f32_4x4x4_16b_f16",     4,  4,  4, 16, FP16,      FP16,      FP32, Tr(8)),
    ("f32_32x32x8_f16",      32, 32,  8,  1, FP16,      FP16,      FP32, Tr(8)),
    ("f32_16x16x16_f16",     16, 16, 16,  1, FP16,      FP16,      FP32, Tr(8)),
    ("f32_32x32x4_2b_bf16",  32, 32,  4,  2, BF16,      BF16,      FP32, Tr(8)),
    ("f32_16x16x4_4b_bf16",  16, 16,  4,  4, BF16,      BF16,      FP32, Tr(8)),
    ("f32_4x4x4_16b_bf16",    4,  4,  4, 16, BF16,      BF16,      FP32, Tr(8)),
    ("f32_32x32x8_bf16",     32, 32,  8,  1, BF16,      BF16,      FP32, Tr(8)),
    ("f32_16x16x16_bf16",    16, 16, 16,  1, BF16,      BF16,      FP32, Tr(8)),
    ("f32_16x16x32_bf8_bf8", 16, 16, 32,  1, E5M2_FNUZ, E5M2_FNUZ, FP32, Gtr(16)),
    ("f32_16x16x32_bf8_fp8", 16, 16, 32,  1, E5M2_FNUZ, E4M3_FNUZ, FP32, Gtr(16)),
    ("f32_16x16x32_fp8_bf8", 16, 16, 32,  1, E4M3_FNUZ, E5M2_FNUZ, FP32, Gtr(16)),
    ("f32_16x16x32_fp8_fp8", 16, 16, 32,  1, E4M3_FNUZ, E4M3_FNUZ, FP32, Gtr(16)),
    ("f32_32x32x16_bf8_bf8", 32, 32, 16,  1, E5M2_FNUZ, E5M2_FNUZ, FP32, Gtr(16)),
    ("f32_32x32x16_bf8_fp8", 32, 32, 16,  1, E5M2_FNUZ, E4M3_FNUZ, FP32, Gtr(16)),
    ("f32_32x32x16_fp8_bf8", 32, 32, 16,  1, E4M3_FNUZ, E5M2_FNUZ, FP32, Gtr(16)),
    ("f32_32x32x16_fp8_fp8", 32, 32, 16,  1, E4M3_FNUZ, E4M3_FNUZ, FP32, Gtr(16)),
    // i8 → i32 (not in mmasim's lists: unverified). CDNA3 drops CDNA1/CDNA2's 32x32x8 and
    // 16x16x16 i8 forms for the doubled-K 32x32x16 and 16x16x32.
    ("i32_32x32x4_2b_i8",    32, 32,  4,  2, S8,        S8,        S32,  Int),
    ("i32_16x16x4_4b_i8",    16, 16,  4,  4, S8,        S8,        S32,  Int),
    ("i32_4x4x4_16b_i8",      4,  4,  4, 16, S8,        S8,        S32,  Int),
    ("i32_32x32x16_i8",      32, 32, 16,  1, S8,        S8,        S32,  Int),
    ("i32_16x16x32_i8",      16, 16, 32,  1, S8,        S8,        S32,  Int),
];

/// CDNA4 (gfx950, AMD "AMD Instinct CDNA4 Instruction Set Architecture" reference guide): what
/// CDNA3 has, less the xf32 MFMAs, with the fp8/bf8 MFMAs reading the OCP formats (e4m3, e5m2)
/// instead of FNUZ, and the doubled-K f16/bf16/i8 MFMAs; the f8f6f4 MFMAs are built by
/// [`f8f6f4`]. Every row carries over a CDNA3 model (the row's note says which); none is
/// measured.
#[rustfmt::skip]
const CDNA4: &[Row3] = &[
    // name                  m   n   k   b  A     B     C/D   model
    ("f64_16x16x4_f64",      16, 16,  4,  1, FP64, FP64, FP64, Fma),
    ("f64_4x4x4_4b_f64",      4,  4,  4,  4, FP64, FP64, FP64, Fma),
    ("f32_32x32x1_2b_f32",   32, 32,  1,  2, FP32, FP32, FP32, Fma),
    ("f32_16x16x1_4b_f32",   16, 16,  1,  4, FP32, FP32, FP32, Fma),
    ("f32_4x4x1_16b_f32",     4,  4,  1, 16, FP32, FP32, FP32, Fma),
    ("f32_32x32x2_f32",      32, 32,  2,  1, FP32, FP32, FP32, Fma),
    ("f32_16x16x4_f32",      16, 16,  4,  1, FP32, FP32, FP32, Fma),
    ("f32_32x32x4_2b_f16",   32, 32,  4,  2, FP16, FP16, FP32, Tr(8)),
    ("f32_16x16x4_4b_f16",   16, 16,  4,  4, FP16, FP16, FP32, Tr(8)),
    ("f32_4x4x4_16b_f16",     4,  4,  4, 16, FP16, FP16, FP32, Tr(8)),
    ("f32_32x32x8_f16",      32, 32,  8,  1, FP16, FP16, FP32, Tr(8)),
    ("f32_16x16x16_f16",     16, 16, 16,  1, FP16, FP16, FP32, Tr(8)),
    ("f32_32x32x16_f16",     32, 32, 16,  1, FP16, FP16, FP32, Tr(8)),
    ("f32_16x16x32_f16",     16, 16, 32,  1, FP16, FP16, FP32, Tr(8)),
    ("f32_32x32x4_2b_bf16",  32, 32,  4,  2, BF16, BF16, FP32, Tr(8)),
    ("f32_16x16x4_4b_bf16",  16, 16,  4,  4, BF16, BF16, FP32, Tr(8)),
    ("f32_4x4x4_16b_bf16",    4,  4,  4, 16, BF16, BF16, FP32, Tr(8)),
    ("f32_32x32x8_bf16",     32, 32,  8,  1, BF16, BF16, FP32, Tr(8)),
    ("f32_16x16x16_bf16",    16, 16, 16,  1, BF16, BF16, FP32, Tr(8)),
    ("f32_32x32x16_bf16",    32, 32, 16,  1, BF16, BF16, FP32, Tr(8)),
    ("f32_16x16x32_bf16",    16, 16, 32,  1, BF16, BF16, FP32, Tr(8)),
    ("f32_16x16x32_bf8_bf8", 16, 16, 32,  1, E5M2, E5M2, FP32, Gtr(16)),
    ("f32_16x16x32_bf8_fp8", 16, 16, 32,  1, E5M2, E4M3, FP32, Gtr(16)),
    ("f32_16x16x32_fp8_bf8", 16, 16, 32,  1, E4M3, E5M2, FP32, Gtr(16)),
    ("f32_16x16x32_fp8_fp8", 16, 16, 32,  1, E4M3, E4M3, FP32, Gtr(16)),
    ("f32_32x32x16_bf8_bf8", 32, 32, 16,  1, E5M2, E5M2, FP32, Gtr(16)),
    ("f32_32x32x16_bf8_fp8", 32, 32, 16,  1, E5M2, E4M3, FP32, Gtr(16)),
    ("f32_32x32x16_fp8_bf8", 32, 32, 16,  1, E4M3, E5M2, FP32, Gtr(16)),
    ("f32_32x32x16_fp8_fp8", 32, 32, 16,  1, E4M3, E4M3, FP32, Gtr(16)),
    ("i32_32x32x4_2b_i8",    32, 32,  4,  2, S8,   S8,   S32,  Int),
    ("i32_16x16x4_4b_i8",    16, 16,  4,  4, S8,   S8,   S32,  Int),
    ("i32_4x4x4_16b_i8",      4,  4,  4, 16, S8,   S8,   S32,  Int),
    ("i32_32x32x16_i8",      32, 32, 16,  1, S8,   S8,   S32,  Int),
    ("i32_16x16x32_i8",      16, 16, 32,  1, S8,   S8,   S32,  Int),
    ("i32_32x32x32_i8",      32, 32, 32,  1, S8,   S8,   S32,  Int),
    ("i32_16x16x64_i8",      16, 16, 64,  1, S8,   S8,   S32,  Int),
];

/// The operand formats of CDNA4's `v_mfma_f32_{16x16x128,32x32x64}_f8f6f4`, by the name the
/// ISA and LLVM give them (the `cbsz` field selects A's, `blgp` B's: 0 fp8 = e4m3, 1 bf8 =
/// e5m2, 2 fp6 = e2m3, 3 bf6 = e3m2, 4 fp4 = e2m1; OCP formats).
pub(crate) const F8F6F4: [(&str, Format); 5] = [
    ("fp8", E4M3),
    ("bf8", E5M2),
    ("fp6", E2M3),
    ("bf6", E3M2),
    ("fp4", E2M1),
];

/// CDNA4's f8f6f4 MFMAs, one row per shape and A/B format pair (`f32_16x16x128_f8f6f4_fp8_fp4`:
/// A fp8, B fp4), GTR-FDPA as CDNA3's fp8/bf8 (L = 16); then the block-scaled
/// `v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4`, named after their mnemonic
/// (`scale_f32_16x16x128_f8f6f4_fp8_fp4`), the same GTR-FDPA with a ue8m0 scale per 32 elements
/// of A and of B.
fn f8f6f4() -> Vec<Row3> {
    let mut rows = Vec::new();
    for (prefix, kind) in [("", Gtr(16)), ("scale_", GtrScaled(16))] {
        for (shape, m, k) in [("16x16x128", 16, 128), ("32x32x64", 32, 64)] {
            for (an, a) in F8F6F4 {
                for (bn, b) in F8F6F4 {
                    let name = format!("{prefix}f32_{shape}_f8f6f4_{an}_{bn}");
                    let name: &'static str = Box::leak(name.into_boxed_str());
                    rows.push((name, m, m, k, 1, a, b, FP32, kind));
                }
            }
        }
    }
    rows
}

/// The rows of an architecture, in catalog order.
fn table(arch: Arch) -> Vec<Row3> {
    match arch {
        Arch::Cdna1 | Arch::Cdna2 => CDNA1_2
            .iter()
            .filter_map(|&(name, m, n, k, blocks, a, b, d, cdna1, cdna2)| {
                let kind = if arch == Arch::Cdna1 { cdna1 } else { cdna2 };
                Some((name, m, n, k, blocks, a, b, d, kind?))
            })
            .collect(),
        Arch::Cdna3 => CDNA3.to_vec(),
        Arch::Cdna4 => CDNA4.iter().copied().chain(f8f6f4()).collect(),
    }
}

/// Whether a row of `arch` reads its A/B registers with one element per byte in case files
/// (the f8f6f4 rows, whose fp6 and fp4 sit in the core's byte layout; the device packs them
/// densely, which is the probe harness's concern).
fn layout(row: &Row3) -> Layout {
    if row.0.contains("_f8f6f4_") {
        Layout::Byte
    } else {
        Layout::Plain
    }
}

/// What a CDNA4 row rests on (the catalog's `note`): the guide that lists it and the CDNA3
/// behaviour carried over.
fn cdna4_note(row: &Row3) -> String {
    const GUIDE: &str = "CDNA4 (gfx950): listed in AMD's CDNA4 ISA reference guide; unmeasured, \
                         modelled as";
    let (name, k) = (row.0, row.3);
    match row.8 {
        Kind::Fma => format!("{GUIDE} CDNA3's {name} (IEEE fma chain)"),
        Kind::Tr(l) if k > 16 || (k == 16 && row.1 == 32) => format!(
            "{GUIDE} CDNA3's f16/bf16 TR-FDPA (F = 24, L = {l}): the doubled K (K = {k}) is \
             {} blocks of {l}, as CDNA3's own K = 16 form chains two",
            k / l
        ),
        Kind::Tr(l) => format!("{GUIDE} CDNA3's {name} (TR-FDPA, L = {l})"),
        Kind::Gtr(l) if name.contains("_f8f6f4_") => format!(
            "{GUIDE} CDNA3's fp8 GTR-FDPA (F = 24, L = {l}, C dropped 25 bits below) over OCP \
             fp8/fp6/fp4 (v_mfma_f32_{}x{}x{k}_f8f6f4 with cbsz/blgp selecting A/B); \
             K = {k} is {} blocks of {l}",
            row.1,
            row.2,
            k / l
        ),
        Kind::Gtr(l) => format!(
            "{GUIDE} CDNA3's {name} (GTR-FDPA, L = {l}) over OCP e4m3/e5m2 (gfx950 reads OCP, \
             not FNUZ)"
        ),
        Kind::GtrScaled(l) => format!(
            "{GUIDE} CDNA3's fp8 GTR-FDPA (F = 24, L = {l}, C dropped 25 bits below) over OCP \
             fp8/fp6/fp4, as v_mfma_f32_{}x{}x{k}_f8f6f4, with each product first multiplied \
             exactly by its 32-element block's ue8m0 scales of A and B (OCP MX); that the \
             scaling precedes the even/odd grouping is an assumption, unverified",
            row.1, row.2
        ),
        Kind::Int => {
            format!("{GUIDE} CDNA3's i8 MFMAs: exact i8 products and C wrapped to i32 (I-DPA)")
        }
        Kind::EFdpa(_) | Kind::Ftz(_) => unreachable!("no CDNA1/CDNA2 model on CDNA4"),
    }
}

/// The NaN an architecture returns (crate docs, "NaN"): CDNA1 gives a negative NaN for
/// +Inf + -Inf (the AMD paper's measurement), taken as its default NaN for every NaN result;
/// nothing is measured for CDNA2 and CDNA3, which are assumed to return the IEEE default
/// quiet NaN.
fn nan_style(arch: Arch) -> NanStyle {
    match arch {
        Arch::Cdna1 => NanStyle::NegativeQuiet,
        Arch::Cdna2 | Arch::Cdna3 | Arch::Cdna4 => NanStyle::DefaultQuiet,
    }
}

/// AMD results: fp32 (or fp64) round to nearest even, IEEE overflow to Inf, IEEE signed zeros,
/// the architecture's NaN.
fn output(d: Format, nan: NanStyle) -> Output {
    Output {
        rho: OutputRounding {
            fmt: d,
            mode: Rounding::NearestEven,
            opts: RoundOpts::IEEE,
        },
        nan,
        neg_zero_to_pos: false,
    }
}

/// Builds the dot-product unit of one row.
fn unit(arch: Arch, row: &Row3) -> DotUnit {
    let &(_, _, _, k, _, a, b, d, kind) = row;
    let nan = nan_style(arch);
    let formats = Formats {
        a,
        b,
        c: d,
        d,
        scale: matches!(kind, Kind::GtrScaled(_)).then_some((UE8M0, 32)),
    };
    let (block, model) = match kind {
        Kind::Fma => (
            k,
            Model::Fma(fma::Fma {
                mode: Rounding::NearestEven,
                nan,
            }),
        ),
        Kind::EFdpa(l) => (
            l,
            Model::EFdpa(e_fdpa::EFdpa {
                out: output(d, nan),
            }),
        ),
        // C is flushed once per instruction, so the whole K is one block.
        Kind::Ftz(p) => (k, Model::FtzMulAdd(FtzMulAdd { p, acc: FP32, nan })),
        Kind::Tr(l) => (
            l,
            Model::TrFdpa(TrFdpa {
                f: 24,
                f2: 31,
                e_zero_c: -126,
                e_norm_min: -126,
                product_inf_exp: Some(128),
                out: output(d, nan),
            }),
        ),
        Kind::Gtr(l) | Kind::GtrScaled(l) => (
            l,
            Model::GtrFdpa(GtrFdpa {
                f: 24,
                f2: 31,
                e_zero_c: -126,
                e_norm_min: -126,
                c_drop: 25,
                out: output(d, nan),
            }),
        ),
        // Exact, then one wrap: any block length gives the same word (`int_dpa.rs`).
        Kind::Int => (
            k,
            Model::IDpa(IDpa {
                op: IntOp::Mul,
                saturate: false,
            }),
        ),
    };
    DotUnit {
        formats,
        block,
        model,
    }
}

/// Every instruction of every architecture, in table order (CDNA1, CDNA2, CDNA3, CDNA4).
pub(crate) fn build() -> Vec<Instruction> {
    let mut all = Vec::new();
    for arch in Arch::ALL {
        for row in &table(arch) {
            all.push(Instruction {
                arch,
                op: Op::Mfma,
                name: row.0.to_string(),
                mnemonic: format!("v_mfma_{}", row.0),
                m: row.1,
                n: row.2,
                k: row.3,
                blocks: row.4,
                layout: layout(row),
                unit: unit(arch, row),
                note: (arch == Arch::Cdna4).then(|| &*cdna4_note(row).leak()),
                evidence: crate::evidence::of(arch, row.0),
                sparse: None,
            });
        }
    }
    all
}
