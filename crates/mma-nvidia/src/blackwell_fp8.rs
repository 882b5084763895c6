//! `mma.sync` with e4m3/e5m2 on Blackwell (sm_100): not in mmasim 2.1.1; the arithmetic is
//! fixed by the B200 records of `shared/hw` (see the crate docs for how it was established).

use crate::arch::Arch;
use crate::catalog::{Instruction, Layout, Op};
use mma_core::e_fdpa::EFdpa;
use mma_core::format::{self, Format};
use mma_core::{DotUnit, Formats, Model, NanStyle, Output, OutputRounding, RoundOpts, Rounding};

const NOTE: &str = "not in mmasim: fitted to the B200 hardware records (exact sum, one rounding)";

fn unit(d: Format, a: Format, b: Format) -> DotUnit {
    let out = Output {
        rho: OutputRounding { fmt: d, mode: Rounding::NearestEven, opts: RoundOpts::INF_ON_OVERFLOW },
        nan: NanStyle::AllOnes,
        neg_zero_to_pos: true,
    };
    DotUnit { formats: Formats { a, b, c: d, d, scale: None }, block: 32, model: Model::EFdpa(EFdpa { out }) }
}

/// Appends the Blackwell fp8 `mma.sync` instructions.
pub(crate) fn push_mma_fp8(out: &mut Vec<Instruction>) {
    for (k, kn) in [(32usize, "m16n8k32"), (16, "m16n8k16")] {
        for d in [format::FP32, format::FP16] {
            for a in [format::E5M2, format::E4M3] {
                for b in [format::E5M2, format::E4M3] {
                    out.push(Instruction {
                        arch: Arch::Blackwell,
                        op: Op::Mma,
                        name: format!("{kn}.{}.{}.{}.{}", d.name, a.name, b.name, d.name),
                        m: 16,
                        n: 8,
                        k,
                        layout: Layout::Plain,
                        unit: unit(d, a, b),
                        note: Some(NOTE),
                    });
                }
            }
        }
    }
}
