//! The CDNA architectures and the names users type for them (family, product, gfx target).

use std::fmt;

/// The CDNA generations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// MI100.
    Cdna1,
    /// MI210, MI250, MI250X.
    Cdna2,
    /// MI300A, MI300X, MI325X.
    Cdna3,
    /// MI350X, MI355X (gfx950).
    Cdna4,
}

impl Arch {
    pub const ALL: [Arch; 4] = [Arch::Cdna1, Arch::Cdna2, Arch::Cdna3, Arch::Cdna4];

    /// The name mmasim uses (CDNA4, which mmasim 2.1.1 lacks, in the same style).
    pub fn name(self) -> &'static str {
        match self {
            Arch::Cdna1 => "CDNA1",
            Arch::Cdna2 => "CDNA2",
            Arch::Cdna3 => "CDNA3",
            Arch::Cdna4 => "CDNA4",
        }
    }

    /// The architecture of a family, product or gfx target name (case-insensitive; spaces,
    /// `-` and `_` ignored; an `AMD`/`Instinct` prefix allowed), without building an error:
    /// [`crate::parse_arch`] adds the error with the closest names.
    pub fn named(input: &str) -> Option<Arch> {
        let key = arch_key(input);
        ARCH_NAMES.iter().find(|(n, _)| *n == key).map(|&(_, a)| a)
    }
}

/// An architecture name as [`ARCH_NAMES`] spells it: lower case, no spaces, `-` or `_`, no
/// `amd`/`instinct` prefix.
pub(crate) fn arch_key(input: &str) -> String {
    let key: String = input
        .trim()
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .collect();
    let key = key.strip_prefix("amd").unwrap_or(&key);
    key.strip_prefix("instinct").unwrap_or(key).to_string()
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Product and target names accepted for each architecture (lower case).
pub(crate) const ARCH_NAMES: &[(&str, Arch)] = &[
    ("cdna1", Arch::Cdna1),
    ("cdna", Arch::Cdna1),
    ("mi100", Arch::Cdna1),
    ("gfx908", Arch::Cdna1),
    ("cdna2", Arch::Cdna2),
    ("mi200", Arch::Cdna2),
    ("mi210", Arch::Cdna2),
    ("mi250", Arch::Cdna2),
    ("mi250x", Arch::Cdna2),
    ("gfx90a", Arch::Cdna2),
    ("cdna3", Arch::Cdna3),
    ("mi300", Arch::Cdna3),
    ("mi300a", Arch::Cdna3),
    ("mi300x", Arch::Cdna3),
    ("mi325x", Arch::Cdna3),
    ("gfx940", Arch::Cdna3),
    ("gfx941", Arch::Cdna3),
    ("gfx942", Arch::Cdna3),
    ("cdna4", Arch::Cdna4),
    ("mi350", Arch::Cdna4),
    ("mi350x", Arch::Cdna4),
    ("mi355x", Arch::Cdna4),
    ("gfx950", Arch::Cdna4),
];
