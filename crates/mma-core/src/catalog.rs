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
use bitvec::{order::Lsb0, vec::BitVec, view::BitView};

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
    /// Two 4-bit integers per byte, element `2i` in the low nibble (NVIDIA `.s4`/`.u4`: eight
    /// to a 32-bit register, the lowest index in the lowest bits).
    PackedInt4,
    /// Eight single bits per byte, element `8i` in bit 0 (NVIDIA `.b1`: 32 to a register, the
    /// lowest index in the lowest bit).
    Bits,
}

impl Layout {
    /// Every layout, in the order of [`Layout::name`]'s table.
    pub const ALL: [Layout; 5] = [
        Layout::Plain,
        Layout::Byte,
        Layout::PackedFp4,
        Layout::PackedInt4,
        Layout::Bits,
    ];

    /// The layout's name in unit files and in Python (`"plain"`, `"byte"`, `"packed_fp4"`).
    pub fn name(self) -> &'static str {
        match self {
            Layout::Plain => "plain",
            Layout::Byte => "byte",
            Layout::PackedFp4 => "packed_fp4",
            Layout::PackedInt4 => "packed_int4",
            Layout::Bits => "bits",
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
        let fp4 = |f: &Format| f.width() == 4 && !f.integer;
        let per = self.per_word();
        match self {
            Layout::PackedInt4 if !(a.integer && b.integer && a.width() == 4 && b.width() == 4) => {
                Err(format!(
                    "two 4-bit integers per byte needs s4/u4 A and B (they are {fa} and {fb})"
                ))
            }
            Layout::Bits if a.width() != 1 || b.width() != 1 || !a.integer || !b.integer => {
                Err(format!(
                    "eight elements per byte needs single-bit (b1) A and B (they are {fa} and {fb})"
                ))
            }
            Layout::PackedInt4 | Layout::Bits if !k.is_multiple_of(per) => Err(format!(
                "{per} elements per byte needs K a multiple of {per} (k = {k})"
            )),
            Layout::Plain if fp4(a) || fp4(b) => Err(format!(
                "A ({fa}) or B ({fb}) is fp4: say \"byte\" (bits 5:2 of a byte, as kind::f8f6f4) or \"packed_fp4\" (two to a byte)"
            )),
            Layout::Byte if a.storage_bits > 8 || b.storage_bits > 8 => Err(format!(
                "one element per byte needs A and B of at most 8 bits ({fa} and {fb} are wider)"
            )),
            Layout::PackedFp4 if !fp4(a) || !fp4(b) => Err(format!(
                "two elements per byte needs fp4 A and B (they are {fa} and {fb})"
            )),
            Layout::PackedFp4 if !k.is_multiple_of(2) => Err(format!(
                "two elements per byte needs an even K (k = {k})"
            )),
            _ => Ok(()),
        }
    }

    /// Elements per storage word: two 4-bit elements or eight bits to a byte when packed, else
    /// one.
    #[inline]
    pub const fn per_word(self) -> usize {
        match self {
            Layout::PackedFp4 | Layout::PackedInt4 => 2,
            Layout::Bits => 8,
            Layout::Plain | Layout::Byte => 1,
        }
    }

    /// Whether a storage word holds several elements (a byte of two nibbles or eight bits).
    #[inline]
    pub const fn packed(self) -> bool {
        self.per_word() > 1
    }

    /// Storage words that hold `k` elements (`k` a multiple of [`Layout::per_word`] when
    /// packed: [`Layout::check`]).
    #[inline]
    pub const fn words_for(self, k: usize) -> usize {
        k / self.per_word()
    }

    /// Bits of one storage word holding elements of `fmt`: the format's storage width when
    /// plain, else a byte.
    #[inline]
    pub const fn word_bits(self, fmt: &Format) -> u32 {
        match self {
            Layout::Plain => fmt.storage_bits,
            Layout::Byte | Layout::PackedFp4 | Layout::PackedInt4 | Layout::Bits => 8,
        }
    }

    /// Hex digits of one storage word holding elements of `fmt`, as case files write it.
    pub fn hex_digits(self, fmt: &Format) -> usize {
        match self {
            Layout::Plain => fmt.hex_digits(),
            Layout::Byte | Layout::PackedFp4 | Layout::PackedInt4 | Layout::Bits => 2,
        }
    }

    /// Where one element of `fmt` sits in a byte of [`Layout::Byte`] when not in all of it:
    /// `(bits that must be zero, shift down to the code)`. fp4 in bits 5:2 and fp6 in bits 5:0
    /// (NVIDIA `kind::f8f6f4`); wider formats fill the byte.
    const fn placed(self, fmt: &Format) -> Option<(u8, u32)> {
        match (self, fmt.width()) {
            (Layout::Byte, 4) => Some((!0x3C, 2)),
            (Layout::Byte, 6) => Some((0xC0, 0)),
            _ => None,
        }
    }

    /// Why a storage word of this layout may hold no element of `fmt`: misplaced in its byte
    /// (fp4 and fp6 of [`Layout::Byte`]), more than a byte (the packed layouts), else not a
    /// valid encoding.
    pub fn misfit(self, fmt: &Format) -> Misfit {
        if self.packed() {
            return Misfit::NotAByte;
        }
        match (self.placed(fmt), fmt.width()) {
            (Some(_), 4) => Misfit::Fp4Bits,
            (Some(_), _) => Misfit::Fp6Bits,
            (None, _) => Misfit::Invalid { format: fmt.name },
        }
    }

    /// The one element a storage word holds in a layout of one element per word (plain,
    /// byte); `None` where the word holds no valid element of `fmt` ([`Layout::misfit`] says
    /// why) or the layout packs several per byte.
    #[inline]
    pub fn element(self, fmt: &Format, word: u64) -> Option<u64> {
        match (self, self.placed(fmt)) {
            (Layout::PackedFp4 | Layout::PackedInt4 | Layout::Bits, _) => None,
            (_, Some((zero, shift))) => (word & !u64::from(!zero) == 0).then_some(word >> shift),
            (Layout::Byte, None) => (word >> 8 == 0 && fmt.is_valid_encoding(word)).then_some(word),
            (Layout::Plain, None) => fmt.is_valid_encoding(word).then_some(word),
        }
    }

    /// The two fp4 codes of a packed byte, element `2i` (the high nibble) first. Every code
    /// of a 4-bit format is a valid encoding, so every byte is valid.
    #[inline(always)]
    pub const fn fp4_pair(byte: u8) -> [u8; 2] {
        [byte >> 4, byte & 0xF]
    }

    /// The storage words of `elements` (one storage word of `fmt` each) in this layout: plain,
    /// each as it is; byte, fp4 moved to bits 5:2; packed fp4, two to a byte, element `2i` in
    /// the high nibble (an odd count leaves the last byte's low nibble zero); packed int4, two
    /// to a byte, element `2i` in the low nibble; bits, eight to a byte, element `8i` in bit 0
    /// (a short last byte is zero above its elements). The elements are taken as valid
    /// ([`Layout::unpack`] is the checking way back).
    pub fn pack(self, fmt: &Format, elements: &[u64]) -> Vec<u64> {
        match (self, self.placed(fmt)) {
            (Layout::PackedFp4, _) => elements
                .chunks(2)
                .map(|p| (p[0] << 4) | p.get(1).copied().unwrap_or(0))
                .collect(),
            (Layout::PackedInt4, _) => elements
                .chunks(2)
                .map(|p| (p[0] & 0xF) | (p.get(1).copied().unwrap_or(0) & 0xF) << 4)
                .collect(),
            (Layout::Bits, _) => {
                let bits: BitVec<u8, Lsb0> = elements.iter().map(|&e| e & 1 == 1).collect();
                bits.into_vec().into_iter().map(u64::from).collect()
            }
            (_, Some((_, shift))) => elements.iter().map(|&e| e << shift).collect(),
            _ => elements.to_vec(),
        }
    }

    /// The elements of the storage `words` of this layout, one storage word of `fmt` each,
    /// every word checked; the first that holds no valid element is the error.
    pub fn unpack(self, fmt: &Format, words: &[u64]) -> Result<Vec<u64>, BadWord> {
        let mut out = Vec::with_capacity(words.len() * self.per_word());
        self.unpack_into(fmt, words, &mut out)?;
        Ok(out)
    }

    /// [`Layout::unpack`], appending to `out` (what was appended before an error stays).
    pub fn unpack_into(
        self,
        fmt: &Format,
        words: &[u64],
        out: &mut Vec<u64>,
    ) -> Result<(), BadWord> {
        for (index, &word) in words.iter().enumerate() {
            if self.packed() {
                if word >> 8 != 0 {
                    return Err(BadWord {
                        index,
                        word,
                        why: Misfit::NotAByte,
                    });
                }
                let byte = word as u8;
                match self {
                    Layout::PackedFp4 => out.extend(Layout::fp4_pair(byte).map(u64::from)),
                    Layout::PackedInt4 => out.extend([byte & 0xF, byte >> 4].map(u64::from)),
                    _ => out.extend(byte.view_bits::<Lsb0>().iter().map(|b| u64::from(*b))),
                }
                continue;
            }
            match self.element(fmt, word) {
                Some(e) => out.push(e),
                None => {
                    return Err(BadWord {
                        index,
                        word,
                        why: self.misfit(fmt),
                    })
                }
            }
        }
        Ok(())
    }

    /// How a byte holds one element of `fmt` in this layout (plain for a format stored in a
    /// byte, or byte), as a mask: valid where `byte & zero == 0`, the code `byte >> shift`.
    /// The form a loop over many bytes vectorizes (the Python package's batches). `None` where
    /// a byte holds no single element (packed fp4, formats wider than a byte) or the valid
    /// bytes are no such mask (no format of the catalogs).
    pub fn byte_mask(self, fmt: &Format) -> Option<ByteMask> {
        if let Some((zero, shift)) = self.placed(fmt) {
            return Some(ByteMask { zero, shift });
        }
        if self.packed() || self.word_bits(fmt) != 8 {
            return None;
        }
        let valid = |b: u8| fmt.is_valid_encoding(u64::from(b));
        let zero = !(0..=255u8).filter(|&b| valid(b)).fold(0, |m, b| m | b);
        (0..=255u8)
            .all(|b| valid(b) == (b & zero == 0))
            .then_some(ByteMask { zero, shift: 0 })
    }
}

/// How a byte holds one element ([`Layout::byte_mask`]): valid where `byte & zero == 0`, the
/// element's code `byte >> shift`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteMask {
    pub zero: u8,
    pub shift: u32,
}

/// Why a storage word holds no element of its format ([`Layout::misfit`]); the text is what
/// case files and the Python package say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Misfit {
    #[error("an fp4 element in a byte must sit in bits 5:2 with the other bits zero")]
    Fp4Bits,
    #[error("an fp6 element must sit in bits 5:0 with bits 7:6 zero")]
    Fp6Bits,
    #[error("a byte of packed elements has no bits above bit 7")]
    NotAByte,
    #[error("not a valid {format} encoding")]
    Invalid { format: &'static str },
}

/// The first storage word [`Layout::unpack`] found holding no valid element: its index among
/// the words, the word, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("word {index} ({word:#x}): {why}")]
pub struct BadWord {
    pub index: usize,
    pub word: u64,
    pub why: Misfit,
}

/// What a catalog row's model rests on, strongest first. Each vendor crate decides it per row
/// in a small table of rules beside its catalog (data, never computed from files at run time);
/// the tests check every claim against the hardware records and the reference corpora.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Evidence {
    /// Recorded GPU outputs of this instruction are reproduced bit for bit.
    Hardware,
    /// A published reference model's outputs (mmasim's corpus lines) are reproduced bit for
    /// bit; no GPU record of this instruction.
    Reference,
    /// Neither: the model is the family's, carried over from instructions that are checked.
    Unverified,
}

impl Evidence {
    /// Every class, strongest first.
    pub const ALL: [Evidence; 3] = [
        Evidence::Hardware,
        Evidence::Reference,
        Evidence::Unverified,
    ];

    /// The name listings print: `hardware`, `reference`, `unverified`.
    pub fn name(self) -> &'static str {
        match self {
            Evidence::Hardware => "hardware",
            Evidence::Reference => "reference",
            Evidence::Unverified => "unverified",
        }
    }

    /// Whether a row's `name` fits a rule's `pattern`, in which `*` stands for any run of
    /// characters (possibly none) and every other character for itself: the one pattern
    /// language of the vendors' evidence tables.
    pub fn pattern_matches(pattern: &str, name: &str) -> bool {
        let mut parts = pattern.split('*');
        let first = parts.next().unwrap_or_default();
        let Some(mut rest) = name.strip_prefix(first) else {
            return false;
        };
        let mut parts: Vec<&str> = parts.collect();
        // Without a `*` the pattern is the whole name.
        let Some(last) = parts.pop() else {
            return rest.is_empty();
        };
        for p in parts {
            match rest.find(p) {
                Some(i) => rest = &rest[i + p.len()..],
                None => return false,
            }
        }
        rest.len() >= last.len() && rest.ends_with(last)
    }
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One instruction of a vendor catalog: its names, shape and the arithmetic of one output
/// element. `A` is the vendor's architecture type, `O` its operation (instruction class) type.
///
/// ```
/// use mma_core::catalog::{Evidence, Instruction, Layout};
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
///     evidence: Evidence::Unverified,
///     sparse: None,
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
    /// What the model rests on: the vendor's evidence table decides it for each row.
    pub evidence: Evidence,
    /// Structured sparsity (`mma.sp`, `v_smfmac`): `k` is the logical K, A holds the kept
    /// elements and metadata their positions, and `unit` is the dense unit of the kept
    /// products ([`crate::sparse`]). `None` for dense instructions.
    pub sparse: Option<crate::sparse::Sparsity>,
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
