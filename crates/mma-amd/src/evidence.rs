//! What each row of the AMD catalog rests on, as data: one line per rule, the first rule
//! whose architecture and name pattern fit a row decides its [`Evidence`]; a row no rule fits
//! is unverified.
//!
//! No AMD hardware records are held, so no row is `hardware`. Every floating-point instruction
//! of CDNA1-CDNA3 has lines in mmasim 2.1.1's corpus `vectors/mmasim/amd/<arch>.jsonl` (checked
//! by `tests/mmasim_corpus.rs`), so those rows are `reference`. The integer MFMAs
//! (`v_mfma_i32_*`) are in neither mmasim's lists nor its corpus, and CDNA4 (gfx950) is not in
//! mmasim 2.1.1 at all: those rows are `unverified` (CDNA4 by the default, no rule). The test
//! `crates/mma/tests/evidence.rs` checks every claim against the corpus both ways, so that
//! neither can drift from this table; the repository never reads the corpus at run time.

use crate::arch::Arch;
use mma_core::catalog::Evidence::{self, Reference, Unverified};

/// (architecture, name pattern with `*` for any text, evidence), first fit wins.
#[rustfmt::skip]
const RULES: &[(Arch, &str, Evidence)] = &[
    (Arch::Cdna1, "i32_*", Unverified),
    (Arch::Cdna2, "i32_*", Unverified),
    (Arch::Cdna3, "i32_*", Unverified),
    (Arch::Cdna1, "*", Reference),
    (Arch::Cdna2, "*", Reference),
    (Arch::Cdna3, "*", Reference),
];

/// The evidence of the row `name` on `arch`: the first rule that fits, else unverified.
pub(crate) fn of(arch: Arch, name: &str) -> Evidence {
    RULES
        .iter()
        .find(|(a, pattern, _)| *a == arch && Evidence::pattern_matches(pattern, name))
        .map_or(Unverified, |r| r.2)
}
