//! Library GEMMs: what a GPU library (cuBLASLt, called by `torch._scaled_mm` or Transformer
//! Engine) returns for a whole matrix product, not only what one instruction returns.
//!
//! The bits depend on four things, of which the unit (the tensor core's block arithmetic) is
//! the first; a [`GemmRecipe`] is the other three, as data:
//!
//! 1. **The unit**: every chain is the unit's K-chaining (blocks of `L_max`, each result fed
//!    on as the next C) over whole instructions, from a +0 C ([`DotUnit::gemm`]).
//! 2. **The K walk** (`promote_every`): with fast accumulation one chain runs over a part's
//!    K; without it ("slow accumulation", `use_fast_accum=False`, PyTorch's default) the
//!    chain restarts from +0 every `promote_every` elements of the part's own K and each
//!    chain's result is added into a binary32 sum (from +0, in K order, RNE): the promotion
//!    to the CUDA cores.
//! 3. **Split-K** (`split_k`, and the call's [`Split`]): K is cut into k-tiles of `tile`
//!    elements (`T = ceil(K / tile)`, the last possibly shorter), dealt to `S` parts
//!    ([`Assign::Interleaved`]: tile `t` to part `t mod S`; [`Assign::Contiguous`]: runs of
//!    `ceil(T / S)` tiles). A part walks its tiles in increasing order, as in 2 (its
//!    promotion windows count its own K); a part without tiles gives +0. The parts' binary32
//!    results are added in the call's [`Order`].
//! 4. **The epilogue** ([`Epilogue`]): `alpha = fp32(scale_a · scale_b)`, then
//!    `y = fp32(acc · alpha + (+0))` in one rounding (an exact zero product is +0; a
//!    non-zero product that underflows keeps its sign); binary32 outputs are `y`; bf16 and
//!    f16 outputs are `y` rounded to nearest even (two roundings in all); FP8 outputs are
//!    `y · scale_result` in a second binary32 multiply (where a result scale is given),
//!    saturated to ±(largest finite) (Inf too) and rounded to nearest even. NaN outputs are
//!    the format's canonical NaN (every bit but the sign: 0x7FFFFFFF, 0x7FFF, 0x7F). K = 0
//!    gives +0 everywhere, whatever the scales.
//!
//! The binary32 additions and products are integer arithmetic with the crate's roundings
//! (`fp32.rs`), independent of the host's floating-point mode.
//!
//! Why a chain's last instruction may be padded with zero elements: a kernel's last k-tile is
//! zero-filled; zero products leave a chain's value unchanged (an all-zero block returns its
//! C, which is already a value of D's format), so padding a chain to a whole number of
//! instructions gives the kernel's bits. Only the last tile of K is short, and it is the last
//! tile of its part under both assignments, so the padding always ends a part.
//!
//! Evidence: the steps are the findings of the mmaemu project (PyPI `mmaemu` 0.1.0,
//! Apache-2.0, Xun Ding and contributors), recorded on an RTX 4060 (cuBLASLt 12.8.3.14) and an
//! H100 PCIe; `docs/library-gemm.md` gives which recordings this crate's recipes reproduce.

mod epilogue;
mod fp32;
mod recipe;
mod walk;

pub use epilogue::{OutputFormatError, Prepared, Scales};
pub use fp32::{Fp32, Narrow};
pub use recipe::{
    Assign, Epilogue, Fp8Overflow, GemmRecipe, NarrowStep, Order, RecipeError, ScaleStep, Split,
    SplitK, MAX_RECIPE_SIZE,
};
pub use walk::{combine_one, LibraryGemm, WalkError};

use crate::format::Format;
use crate::unit::DotUnit;
use std::sync::atomic::AtomicBool;

/// Why a library GEMM cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LibraryError {
    #[error(transparent)]
    Walk(#[from] WalkError),
    #[error(transparent)]
    Output(#[from] OutputFormatError),
}

impl DotUnit {
    /// The output words (`m×n`, row-major, of `out`) of a library GEMM: the unit's chains
    /// walked as `recipe` says ([`DotUnit::library_accumulate`]), then the recipe's epilogue
    /// with `scales`. `k_step` is the unit's instruction K; `threads` as [`DotUnit::gemm`].
    pub fn library_gemm(
        &self,
        k_step: usize,
        recipe: &GemmRecipe,
        x: &LibraryGemm<'_>,
        scales: Scales,
        out: &Format,
        threads: usize,
    ) -> Result<Vec<u64>, LibraryError> {
        let stop = AtomicBool::new(false);
        self.library_gemm_until(k_step, recipe, x, scales, out, threads, &stop)
    }

    /// [`DotUnit::library_gemm`], stopping with [`WalkError::Stopped`] soon after `stop` is
    /// set ([`DotUnit::library_accumulate_until`]).
    #[allow(clippy::too_many_arguments)]
    pub fn library_gemm_until(
        &self,
        k_step: usize,
        recipe: &GemmRecipe,
        x: &LibraryGemm<'_>,
        scales: Scales,
        out: &Format,
        threads: usize,
        stop: &AtomicBool,
    ) -> Result<Vec<u64>, LibraryError> {
        let epilogue = recipe.epilogue.prepare(out, scales)?;
        let acc = self.library_accumulate_until(k_step, recipe, x, threads, stop)?;
        let mut out = crate::drive::try_zeroed::<u64>(acc.len()).ok_or(WalkError::Memory {
            what: "D",
            count: acc.len(),
            size: 8,
        })?;
        // K = 0: no product, +0 in the output format whatever the scales.
        if x.k != 0 {
            for (o, &a) in out.iter_mut().zip(&acc) {
                *o = epilogue.apply(a);
            }
        }
        Ok(out)
    }
}

/// The plan of one call in words: the parts and their tiles, the chains, the order and the
/// epilogue (what `mma gemm --explain` prints). `k_step` is the instruction's K.
pub fn describe_plan(
    recipe: &GemmRecipe,
    (m, n, k): (usize, usize, usize),
    k_step: usize,
    fast_accum: bool,
    split: Split,
    out: &Format,
) -> Vec<String> {
    let tile = recipe.split_k.tile;
    let tiles = k.div_ceil(tile.max(1));
    let mut lines = vec![format!(
        "product: {m}×{n} outputs over K = {k}, instructions of K = {k_step}"
    )];
    let promote = match (fast_accum, recipe.promote_every) {
        (true, _) => "fast accumulation: one chain per part".to_string(),
        (false, None) => "one chain per part (this recipe never promotes)".to_string(),
        (false, Some(p)) => format!(
            "slow accumulation: the chain restarts every {p} elements of a part's K, each result added in binary32 (RNE) from +0"
        ),
    };
    lines.push(promote);
    if split.parts == 1 {
        lines.push(format!("split-K: none ({tiles} k-tiles of {tile})"));
    } else {
        let assign = match recipe.split_k.assign {
            Assign::Interleaved => "tile t to part t mod S",
            Assign::Contiguous => "consecutive runs of ceil(T/S) tiles",
        };
        lines.push(format!(
            "split-K: S = {} parts, {tiles} k-tiles of {tile} ({assign}), parts added {} in binary32",
            split.parts,
            match split.order {
                Order::Serial => "serially: ((P0 + P1) + P2) + ...",
                Order::Pairwise => "pairwise: P(S-1) + (P(i) + P(i+h)) ..., h = ceil(S/2)",
            }
        ));
    }
    let e = &recipe.epilogue;
    lines.push(format!(
        "epilogue: alpha = fp32(scale_a * scale_b); y = {}; output {}",
        match e.scale {
            ScaleStep::FmaPlusZero => "fp32(acc * alpha + 0), one rounding (exact zero -> +0)",
            ScaleStep::Multiply => "fp32(acc * alpha)",
        },
        match out.name {
            "f32" => "y".to_string(),
            "bf16" | "f16" => match e.narrow {
                NarrowStep::ViaFp32 => format!("{} of y, RNE (rounded twice in all)", out.name),
                NarrowStep::Direct => format!("{} of acc * alpha, RNE (once)", out.name),
            },
            other => format!(
                "{other}: y * scale_result (binary32) if given, {}, RNE",
                match e.fp8_overflow {
                    Fp8Overflow::Saturate => "saturated to the largest finite",
                    Fp8Overflow::Ieee => "IEEE overflow",
                }
            ),
        }
    ));
    lines
}
