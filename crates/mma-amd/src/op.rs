//! What every row of the catalog is made of: the operation ([`Op`]) and the row type
//! ([`Instruction`]).

use crate::arch::Arch;
use std::fmt;

/// The instruction class: an MFMA (the `op` that case files may give as `"MFMA"`), or its
/// structured-sparse form `v_smfmac` (`"SMFMAC"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Mfma,
    /// The structured-sparse `v_smfmac` (CDNA3, CDNA4; `crate::sparse`).
    Smfmac,
}

impl Op {
    pub const ALL: [Op; 2] = [Op::Mfma, Op::Smfmac];

    pub fn name(self) -> &'static str {
        match self {
            Op::Mfma => "MFMA",
            Op::Smfmac => "SMFMAC",
        }
    }

    /// The operation named `s` (case-insensitive).
    pub fn parse(s: &str) -> Option<Op> {
        mma_core::catalog_names::by_name(&Op::ALL, Op::name, s)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One MFMA instruction: the row type shared with `mma-nvidia`
/// ([`mma_core::catalog::Instruction`]) with this crate's architectures and operation. `name` is
/// mmasim's suffix (`f32_32x32x8_f16`), `mnemonic` the ISA's (`v_mfma_f32_32x32x8_f16`),
/// `blocks` the `_Nb` count, `layout` `Plain` (`Byte` for CDNA4's f8f6f4 rows), `note` `None`
/// except on CDNA4 (what the row carries over), `evidence` from this crate's evidence table.
pub type Instruction = mma_core::catalog::Instruction<Arch, Op>;
