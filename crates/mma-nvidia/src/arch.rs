//! NVIDIA architectures, the names users type for them, and the tensor-core parameters of each
//! (the first paper, Xie et al., arXiv 2511.10909, Table III).

use std::fmt;

/// A GPU architecture with tensor cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    Volta,
    Turing,
    Ampere,
    AdaLovelace,
    Hopper,
    Blackwell,
    RtxBlackwell,
}

impl Arch {
    pub const ALL: [Arch; 7] = [
        Arch::Volta,
        Arch::Turing,
        Arch::Ampere,
        Arch::AdaLovelace,
        Arch::Hopper,
        Arch::Blackwell,
        Arch::RtxBlackwell,
    ];

    /// The name used by mmasim 2.1.1 and in case files.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Volta => "Volta",
            Arch::Turing => "Turing",
            Arch::Ampere => "Ampere",
            Arch::AdaLovelace => "Ada Lovelace",
            Arch::Hopper => "Hopper",
            Arch::Blackwell => "Blackwell",
            Arch::RtxBlackwell => "RTX Blackwell",
        }
    }

    /// The PTX target.
    pub fn sm(self) -> &'static str {
        match self {
            Arch::Volta => "sm_70",
            Arch::Turing => "sm_75",
            Arch::Ampere => "sm_80",
            Arch::AdaLovelace => "sm_89",
            Arch::Hopper => "sm_90",
            Arch::Blackwell => "sm_100",
            Arch::RtxBlackwell => "sm_120",
        }
    }

    /// Fraction bits `F` kept by the fused adder for the 16- and 32-bit input formats.
    pub fn f(self) -> u32 {
        match self {
            Arch::Volta => 23,
            Arch::Turing | Arch::Ampere | Arch::AdaLovelace => 24,
            Arch::Hopper | Arch::Blackwell | Arch::RtxBlackwell => 25,
        }
    }

    /// Bytes of A per fused block (`L_max` in bytes).
    pub fn block_bytes(self) -> usize {
        match self {
            Arch::Volta => 8,
            Arch::Turing | Arch::Ampere | Arch::AdaLovelace => 16,
            Arch::Hopper | Arch::Blackwell | Arch::RtxBlackwell => 32,
        }
    }

    /// Exponent of zero terms with fp32 output and with fp16 output.
    pub fn e_zero(self) -> (i32, i32) {
        match self {
            Arch::Volta => (-131, -19),
            Arch::Turing | Arch::Ampere | Arch::AdaLovelace => (-132, -20),
            Arch::Hopper | Arch::Blackwell | Arch::RtxBlackwell => (-133, -21),
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Product names, architecture names and PTX targets, lower case without spaces, dashes or
/// underscores, mapped to architectures.
const NAMES: &[(&str, Arch)] = &[
    ("volta", Arch::Volta),
    ("sm70", Arch::Volta),
    ("v100", Arch::Volta),
    ("turing", Arch::Turing),
    ("sm75", Arch::Turing),
    ("t4", Arch::Turing),
    ("ampere", Arch::Ampere),
    ("sm80", Arch::Ampere),
    ("sm86", Arch::Ampere),
    ("a100", Arch::Ampere),
    ("a30", Arch::Ampere),
    ("a40", Arch::Ampere),
    ("a10", Arch::Ampere),
    ("a2", Arch::Ampere),
    ("rtx3090", Arch::Ampere),
    ("adalovelace", Arch::AdaLovelace),
    ("ada", Arch::AdaLovelace),
    ("sm89", Arch::AdaLovelace),
    ("l4", Arch::AdaLovelace),
    ("l40", Arch::AdaLovelace),
    ("l40s", Arch::AdaLovelace),
    ("rtx4090", Arch::AdaLovelace),
    ("rtx1000ada", Arch::AdaLovelace),
    ("hopper", Arch::Hopper),
    ("sm90", Arch::Hopper),
    ("sm90a", Arch::Hopper),
    ("h100", Arch::Hopper),
    ("h200", Arch::Hopper),
    ("gh200", Arch::Hopper),
    ("blackwell", Arch::Blackwell),
    ("sm100", Arch::Blackwell),
    ("sm100a", Arch::Blackwell),
    ("sm103", Arch::Blackwell),
    ("b200", Arch::Blackwell),
    ("b300", Arch::Blackwell),
    ("gb200", Arch::Blackwell),
    ("rtxblackwell", Arch::RtxBlackwell),
    ("sm120", Arch::RtxBlackwell),
    ("rtx5090", Arch::RtxBlackwell),
    ("rtxpro6000", Arch::RtxBlackwell),
];

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Looks an architecture up by architecture name, PTX target or GPU product name
/// (case-insensitive, ignoring spaces, dashes and underscores); [`crate::parse_arch`] adds the
/// error with the closest names.
pub(crate) fn arch_named(name: &str) -> Option<Arch> {
    let key = squash(name);
    NAMES.iter().find(|(n, _)| *n == key).map(|&(_, a)| a)
}

/// Every name [`arch_named`] accepts, for error messages.
pub(crate) fn known_arch_names() -> impl Iterator<Item = &'static str> {
    NAMES.iter().map(|(n, _)| *n)
}
