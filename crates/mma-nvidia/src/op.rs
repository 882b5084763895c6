//! What every row of the catalog is made of, below both the tables (`catalog.rs`) and the FP8
//! `mma.sync` additions (`fp8_mma.rs`), which build rows: the operation ([`Op`]), the row type
//! ([`Instruction`]) and the PTX spelling of a row (`ptx`).

use crate::arch::Arch;
use mma_core::Formats;
use std::fmt;

/// The instruction class, named as mmasim names it and as case files give it in `"op"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Mma,
    Wgmma,
    Tcgen05Mma,
    MmaBlockScale,
    Tcgen05MmaBlockScale,
    /// `mma.sp::ordered_metadata` (structured sparse, `crate::sparse`).
    MmaSp,
    /// `wgmma.mma_async.sp`.
    WgmmaSp,
    /// `tcgen05.mma.sp`.
    Tcgen05MmaSp,
}

impl Op {
    pub const ALL: [Op; 8] = [
        Op::Mma,
        Op::Wgmma,
        Op::Tcgen05Mma,
        Op::MmaBlockScale,
        Op::Tcgen05MmaBlockScale,
        Op::MmaSp,
        Op::WgmmaSp,
        Op::Tcgen05MmaSp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::Mma => "MMA",
            Op::Wgmma => "WGMMA",
            Op::Tcgen05Mma => "TCGen05MMA",
            Op::MmaBlockScale => "MMABlockScale",
            Op::Tcgen05MmaBlockScale => "TCGen05MMABlockScale",
            Op::MmaSp => "MMASp",
            Op::WgmmaSp => "WGMMASp",
            Op::Tcgen05MmaSp => "TCGen05MMASp",
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

/// One instruction of the catalog: the row type shared with `mma-amd`
/// ([`mma_core::catalog::Instruction`]) with this crate's architectures and operations.
pub type Instruction = mma_core::catalog::Instruction<Arch, Op>;

/// The PTX spelling users write for an instruction of `op` named `name` (mmasim's short
/// form), of `k` elements and the unit's formats.
pub(crate) fn ptx(op: Op, name: &str, k: usize, f: &Formats) -> String {
    match op {
        Op::Mma => {
            let rest = name.split_once('.').map_or("", |(_, r)| r);
            let shape = name.split('.').next().unwrap_or("");
            match rest.strip_prefix("kind::f8f6f4.") {
                Some(types) => format!("mma.sync.aligned.{shape}.row.col.kind::f8f6f4.{types}"),
                None => format!("mma.sync.aligned.{shape}.row.col.{rest}"),
            }
        }
        Op::MmaBlockScale => {
            let parts: Vec<&str> = name.split('.').collect();
            let per = f.scale.map_or(32, |(_, p)| p);
            let vec = k / per;
            format!(
                "mma.sync.aligned.{}.row.col.{}.block_scale.scale_vec::{}X.{}",
                parts[0],
                parts[1],
                vec,
                parts[3..].join(".")
            )
        }
        Op::Wgmma => format!("wgmma.mma_async.sync.aligned.{name}"),
        Op::Tcgen05Mma | Op::Tcgen05MmaBlockScale => {
            let kind = name
                .split('.')
                .find(|p| p.starts_with("kind::"))
                .unwrap_or("");
            let scale = if op == Op::Tcgen05MmaBlockScale {
                let per = f.scale.map_or(32, |(_, p)| p);
                format!(".block_scale.scale_vec::{}X", k / per)
            } else {
                String::new()
            };
            format!("tcgen05.mma.cta_group::1.{kind}{scale}")
        }
        // The sparse rows are derived from dense ones, mnemonic included (`crate::sparse`).
        Op::MmaSp | Op::WgmmaSp | Op::Tcgen05MmaSp => String::new(),
    }
}
