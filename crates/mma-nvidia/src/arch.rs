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

    /// This architecture's row of [`PARAMS`].
    fn row(self) -> &'static Params {
        let row = &PARAMS[self as usize];
        debug_assert_eq!(row.arch, self, "PARAMS rows follow Arch::ALL");
        row
    }

    /// The name used by mmasim 2.1.1 and in case files.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The PTX target.
    pub fn sm(self) -> &'static str {
        self.row().sm
    }

    /// Fraction bits `F` kept by the fused adder for the 16- and 32-bit input formats.
    pub fn f(self) -> u32 {
        self.row().f
    }

    /// Bytes of A per fused block (`L_max` in bytes).
    pub fn block_bytes(self) -> usize {
        self.row().block_bytes
    }

    /// Exponent of zero terms with fp32 output and with fp16 output.
    pub fn e_zero(self) -> (i32, i32) {
        self.row().e_zero
    }
}

/// The parameters of one architecture's standard T-FDPA path.
struct Params {
    arch: Arch,
    name: &'static str,
    sm: &'static str,
    f: u32,
    block_bytes: usize,
    e_zero: (i32, i32),
}

/// One row per architecture, in [`Arch::ALL`] order (the first paper's Table III: `F`,
/// `L_max` in bytes of A, the zero exponent for fp32 and fp16 output).
#[rustfmt::skip]
const PARAMS: [Params; 7] = [
    Params { arch: Arch::Volta,        name: "Volta",         sm: "sm_70",  f: 23, block_bytes: 8,  e_zero: (-131, -19) },
    Params { arch: Arch::Turing,       name: "Turing",        sm: "sm_75",  f: 24, block_bytes: 16, e_zero: (-132, -20) },
    Params { arch: Arch::Ampere,       name: "Ampere",        sm: "sm_80",  f: 24, block_bytes: 16, e_zero: (-132, -20) },
    Params { arch: Arch::AdaLovelace,  name: "Ada Lovelace",  sm: "sm_89",  f: 24, block_bytes: 16, e_zero: (-132, -20) },
    Params { arch: Arch::Hopper,       name: "Hopper",        sm: "sm_90",  f: 25, block_bytes: 32, e_zero: (-133, -21) },
    Params { arch: Arch::Blackwell,    name: "Blackwell",     sm: "sm_100", f: 25, block_bytes: 32, e_zero: (-133, -21) },
    Params { arch: Arch::RtxBlackwell, name: "RTX Blackwell", sm: "sm_120", f: 25, block_bytes: 32, e_zero: (-133, -21) },
];

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

impl Arch {
    /// The architecture of an architecture name, PTX target or GPU product name
    /// (case-insensitive, ignoring spaces, dashes and underscores), without building an error:
    /// [`crate::parse_arch`] adds the error with the closest names.
    pub fn named(name: &str) -> Option<Arch> {
        let key = squash(name);
        NAMES.iter().find(|(n, _)| *n == key).map(|&(_, a)| a)
    }
}

/// Every name [`Arch::named`] accepts, for error messages.
pub(crate) fn known_arch_names() -> impl Iterator<Item = &'static str> {
    NAMES.iter().map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_rows_are_in_arch_order() {
        for (i, a) in Arch::ALL.into_iter().enumerate() {
            assert_eq!((PARAMS[i].arch, a as usize), (a, i));
        }
    }
}
