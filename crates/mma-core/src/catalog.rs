//! The shape of a vendor catalog's row, shared by every vendor crate.
//!
//! Each vendor crate lists its instructions as rows of [`Instruction`], with its own
//! architecture and operation types (its `Instruction` is `Instruction<Arch, Op>` of its
//! `Arch` and `Op`), and each offers the same four look-ups:
//! `catalog()`, `parse_arch(&str) -> Result<Arch, CatalogError>`,
//! `find(arch, op, name) -> Result<&Instruction, CatalogError>` and `find_in(Arch, Option<Op>,
//! name)`. Code written against one vendor's catalog reads the other's the same way. The core
//! knows no vendor: the type parameters carry the vendor's names.

use crate::format::Format;
use crate::unit::DotUnit;

/// How the elements of A and B sit in the bytes of a register or a case file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// One element per storage word of its format.
    Plain,
    /// One element per byte, narrower formats in its low bits (NVIDIA `kind::f8f6f4`: fp6 in
    /// bits 5:0, fp4 in bits 5:2).
    Byte,
    /// Two fp4 elements per byte, element `2i` in the high nibble (NVIDIA `kind::mxf4`,
    /// `kind::mxf4nvf4`).
    PackedFp4,
}

impl Layout {
    /// Every layout, in the order of [`Layout::name`]'s table.
    pub const ALL: [Layout; 3] = [Layout::Plain, Layout::Byte, Layout::PackedFp4];

    /// The layout's name in unit files and in Python (`"plain"`, `"byte"`, `"packed_fp4"`).
    pub fn name(self) -> &'static str {
        match self {
            Layout::Plain => "plain",
            Layout::Byte => "byte",
            Layout::PackedFp4 => "packed_fp4",
        }
    }

    /// The layout [`Layout::name`] spells as `name`.
    pub fn by_name(name: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Whether case lines of this layout can hold A and B of formats `a` and `b`, `k` elements
    /// each: one element per byte needs formats of at most 8 bits, two per byte fp4 on both
    /// sides and an even K, and fp4 must not be plain (bits 3:0 of a word, where the catalogs'
    /// case files hold it in bits 5:2 of a byte or two to a byte). The reason where not.
    pub fn check(self, a: &Format, b: &Format, k: usize) -> Result<(), String> {
        let (fa, fb) = (a.name, b.name);
        match self {
            Layout::Plain if a.width() == 4 || b.width() == 4 => Err(format!(
                "A ({fa}) or B ({fb}) is fp4: say \"byte\" (bits 5:2 of a byte, as kind::f8f6f4) or \"packed_fp4\" (two to a byte)"
            )),
            Layout::Byte if a.storage_bits > 8 || b.storage_bits > 8 => Err(format!(
                "one element per byte needs A and B of at most 8 bits ({fa} and {fb} are wider)"
            )),
            Layout::PackedFp4 if a.width() != 4 || b.width() != 4 => Err(format!(
                "two elements per byte needs fp4 A and B (they are {fa} and {fb})"
            )),
            Layout::PackedFp4 if !k.is_multiple_of(2) => Err(format!(
                "two elements per byte needs an even K (k = {k})"
            )),
            _ => Ok(()),
        }
    }
}

/// One instruction of a vendor catalog: its names, shape and the arithmetic of one output
/// element. `A` is the vendor's architecture type, `O` its operation (instruction class) type.
///
/// ```
/// use mma_core::catalog::{Instruction, Layout};
/// # use mma_core::{format, models::fma::Fma, DotUnit, Formats, Model, NanStyle, Rounding};
/// # let unit = DotUnit {
/// #     formats: Formats { a: format::FP32, b: format::FP32, c: format::FP32, d: format::FP32, scale: None },
/// #     block: 1,
/// #     model: Model::Fma(Fma { mode: Rounding::NearestEven, nan: NanStyle::DefaultQuiet }),
/// # };
/// // A row as a catalog would hold it (architecture and operation are the vendor's types).
/// let ins = Instruction {
///     arch: "MyGpu",
///     op: "FMA",
///     name: "f32_1x1x1_f32".to_string(),
///     mnemonic: "v_fma_f32".to_string(),
///     m: 1, n: 1, k: 1, blocks: 1,
///     layout: Layout::Plain,
///     unit,
///     note: None,
/// };
/// assert_eq!(ins.dot(&[0x4000_0000], &[0x4040_0000], 0x3f80_0000), 0x40e0_0000); // 2·3 + 1 = 7
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction<A, O> {
    pub arch: A,
    pub op: O,
    /// The short name mmasim uses: NVIDIA's `shape_and_type` (`m16n8k16.f32.bf16.bf16.f32`),
    /// AMD's suffix (`f32_32x32x8_f16`).
    pub name: String,
    /// The full spelling in the vendor's assembly: PTX for NVIDIA
    /// (`mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`), the ISA mnemonic for AMD
    /// (`v_mfma_f32_32x32x8_f16`).
    pub mnemonic: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Independent products computed by one instruction (AMD `_Nb` forms); 1 otherwise. Each
    /// is an `m×n×k` product of its own.
    pub blocks: usize,
    /// How A and B elements are packed.
    pub layout: Layout,
    /// The arithmetic of one output element.
    pub unit: DotUnit,
    /// Where the arithmetic comes from when the reference (mmasim) does not list the
    /// instruction.
    pub note: Option<&'static str>,
}

impl<A, O> Instruction<A, O> {
    /// One output element `d = a·b + c` (raw storage words, `k` elements each) of a unit
    /// without scale factors, as [`DotUnit::dot`] (a block-scaled unit takes its scale factors
    /// through [`DotUnit::dot_scaled`]).
    ///
    /// # Panics
    /// As [`DotUnit::dot`]: when the lengths do not fit, or the unit takes scale factors.
    #[track_caller]
    pub fn dot(&self, a: &[u64], b: &[u64], c: u64) -> u64 {
        self.unit.dot(a, b, c)
    }
}

/// A user's text as a message shows it: whole up to 60 characters, else its first 60 followed
/// by `…` and its length in bytes, so that an error never grows with its input (a 5 MB
/// architecture name gives a one-line message).
pub fn clip(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        None => s.to_string(),
        Some((i, _)) => format!("{}… ({} bytes)", &s[..i], s.len()),
    }
}
