//! A GEMM recipe as data: how a library kernel walks K over a unit (promotion, split-K) and
//! what its epilogue does. The serde schema (JSON in the recipe files):
//!
//! ```json
//! {"promote_every": 128,
//!  "split_k": {"tile": 64, "assign": "interleaved", "orders": ["serial", "pairwise"]},
//!  "epilogue": {"scale": "fma-plus-zero", "narrow": "via-fp32", "fp8_overflow": "saturate"}}
//! ```
//!
//! Unknown fields are errors, so that a misspelt key never falls back to a default.

use serde::{Deserialize, Serialize};

/// How a library kernel walks K over a unit, and its epilogue (see the module docs of
/// [`crate::library`] for the semantics of each field).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GemmRecipe {
    /// Without fast accumulation: the tensor-core chain restarts from +0 every this many
    /// elements of a part's own K, and each chain's result is added into a binary32
    /// accumulator ("promotion" to the CUDA cores). `None`: one chain, also without fast
    /// accumulation.
    pub promote_every: Option<usize>,
    /// How K is cut into parts when the call is split.
    pub split_k: SplitK,
    pub epilogue: Epilogue,
}

/// The split-K layout: k-tiles of `tile` elements dealt to the parts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitK {
    /// Elements of K per k-tile (the last may be shorter, as if padded with zeros).
    pub tile: usize,
    pub assign: Assign,
    /// The orders in which this library combines the parts' results (a call names one).
    pub orders: Vec<Order>,
}

/// Which k-tiles a part takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Assign {
    /// Tile `t` to part `t mod S` (cuBLASLt on the RTX 4060).
    Interleaved,
    /// Runs of `ceil(T / S)` consecutive tiles, part `s` the `s`-th run (cuBLASLt on the H100).
    Contiguous,
}

/// The order in which the parts' binary32 results `P_0 … P_{S-1}` are added (every addition
/// binary32, RNE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// `((P_0 + P_1) + P_2) + …`.
    Serial,
    /// cuBLASLt's: with `h = ceil(S / 2)`, slot `i < h` is `P_i + P_{i+h}` where `i + h < S - 1`
    /// and `P_i` otherwise; the result is `((P_{S-1} + slot_0) + slot_1) + …`.
    Pairwise,
}

impl Order {
    pub fn name(self) -> &'static str {
        match self {
            Order::Serial => "serial",
            Order::Pairwise => "pairwise",
        }
    }

    /// The order named `s` (`serial`, `pairwise`).
    pub fn parse(s: &str) -> Option<Order> {
        match s.to_ascii_lowercase().as_str() {
            "serial" => Some(Order::Serial),
            "pairwise" => Some(Order::Pairwise),
            _ => None,
        }
    }
}

/// What happens to the binary32 accumulator after K (tensor-wise scales; no bias).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Epilogue {
    /// How `alpha = fp32(scale_a · scale_b)` meets the accumulator.
    pub scale: ScaleStep,
    /// How a bf16 or f16 output is rounded.
    pub narrow: NarrowStep,
    /// FP8 outputs beyond the largest finite value.
    pub fp8_overflow: Fp8Overflow,
}

/// `y` from the accumulator and `alpha`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScaleStep {
    /// `y = fp32(acc · alpha + (+0))`, one rounding (an FFMA with beta = 0): an exact zero
    /// product is +0.
    FmaPlusZero,
    /// `y = fp32(acc · alpha)`: an exact zero product keeps the product's sign.
    Multiply,
}

/// How bf16 and f16 outputs are rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NarrowStep {
    /// From the binary32 `y` (RNE): two roundings of `acc · alpha` in all.
    ViaFp32,
    /// From the exact `acc · alpha` (RNE), once.
    Direct,
}

/// FP8 outputs (after the optional `scale_result` multiply) beyond the largest finite value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fp8Overflow {
    /// ±(largest finite), Inf too (cuBLASLt).
    Saturate,
    /// IEEE: Inf where the format has one (e5m2), NaN where it has not (e4m3).
    Ieee,
}

/// How one call is split: `parts` (S) and the order their results are added in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Split {
    pub parts: usize,
    pub order: Order,
}

impl Split {
    /// No split.
    pub const NONE: Split = Split {
        parts: 1,
        order: Order::Serial,
    };
}

/// The largest k-tile and promotion window a recipe may name: far beyond any library's (64 to
/// 256 elements), far below what would make a size computed from it overflow.
pub const MAX_RECIPE_SIZE: usize = 1 << 24;

/// Why a recipe cannot run (read from a file, or as a call uses it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecipeError {
    #[error("split_k.tile = {0}: expected 1 to {MAX_RECIPE_SIZE} elements")]
    Tile(usize),
    #[error("promote_every = {0}: expected 1 to {MAX_RECIPE_SIZE} elements")]
    Promote(usize),
    #[error("split_k.orders must name at least one order")]
    NoOrder,
    #[error("a split into {0} parts: expected 1 to 4096")]
    Parts(usize),
    #[error("this library combines split-K parts {allowed}, not {got}")]
    Order { got: &'static str, allowed: String },
}

impl GemmRecipe {
    /// Checks the recipe's own fields (a file could hold a zero tile).
    pub fn check(&self) -> Result<(), RecipeError> {
        let tile = self.split_k.tile;
        if tile == 0 || tile > MAX_RECIPE_SIZE {
            return Err(RecipeError::Tile(tile));
        }
        if let Some(p) = self
            .promote_every
            .filter(|&p| p == 0 || p > MAX_RECIPE_SIZE)
        {
            return Err(RecipeError::Promote(p));
        }
        if self.split_k.orders.is_empty() {
            return Err(RecipeError::NoOrder);
        }
        Ok(())
    }

    /// Checks a call's split against the recipe: 1 to 4,096 parts, in one of its orders (any
    /// order for one part).
    pub fn check_split(&self, split: Split) -> Result<(), RecipeError> {
        self.check()?;
        if split.parts == 0 || split.parts > 4096 {
            return Err(RecipeError::Parts(split.parts));
        }
        if split.parts > 1 && !self.split_k.orders.contains(&split.order) {
            let allowed: Vec<&str> = self.split_k.orders.iter().map(|o| o.name()).collect();
            return Err(RecipeError::Order {
                got: split.order.name(),
                allowed: allowed.join(" or "),
            });
        }
        Ok(())
    }
}
