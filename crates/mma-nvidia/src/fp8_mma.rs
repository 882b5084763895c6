//! `mma.sync` with e4m3/e5m2 on Hopper (sm_90) and Blackwell (sm_100): PTX allows them, mmasim
//! 2.1.1 leaves them out, and the `shared/hw` records (H100, B200; `m16n8k32`, K = 32) fix their
//! arithmetic:
//!
//! - Hopper, fp32 output: the `wgmma` fp8 path (T-FDPA, F = 13, blocks of 32, RZ to E8M13)
//!   reproduces 2500/2500 records per format. The records match C = 0, not their `c_` file
//!   (`shared/hw/README.md`); this is taken as a property of the measurement, not of the unit,
//!   and the model adds C like `wgmma` does.
//! - Blackwell, fp32 output: the exact sum of the 32 products and C, rounded once to nearest
//!   even, reproduces 2500/2500 per format (the published round-toward-zero T-FDPA fails about
//!   35%). The records cannot separate it from "two fp16-style passes rounded to fp32, then C":
//!   the product sums are exact in fp32 on all but one record, where both agree.
//! - Hopper and Blackwell, fp16 output: [`mma_core::sliced_fdpa`] with the architecture's f16
//!   HMMA parameters: 2500/2500 per format and GPU.
//!
//! The `m16n8k16` shapes have no records; they are given the same arithmetic, with the k16
//! register layout split the same way (pairs of consecutive k in two passes).

use crate::arch::Arch;
use crate::catalog::{Instruction, Layout, Op};
use mma_core::e_fdpa::EFdpa;
use mma_core::format::{self, Format};
use mma_core::sliced_fdpa::SlicedFdpa;
use mma_core::t_fdpa::TFdpa;
use mma_core::{DotUnit, Formats, Model, NanStyle, Output, OutputRounding, RoundOpts, Rounding};

const HOPPER_NOTE: &str = "not in mmasim: fixed by the H100 records of shared/hw";
const BLACKWELL_NOTE: &str = "not in mmasim: fixed by the B200 records of shared/hw";

fn output(fmt: Format, mode: Rounding) -> Output {
    Output {
        rho: OutputRounding {
            fmt,
            mode,
            opts: RoundOpts::INF_ON_OVERFLOW,
        },
        nan: NanStyle::AllOnes,
        neg_zero_to_pos: true,
    }
}

fn unit(arch: Arch, k: usize, d: Format, a: Format, b: Format) -> DotUnit {
    let formats = Formats {
        a,
        b,
        c: d,
        d,
        scale: None,
    };
    let (ez32, ez16) = arch.e_zero();
    let model = if d == format::FP16 {
        let pass = TFdpa {
            f: arch.f(),
            e_zero: ez16,
            out: output(format::FP16, Rounding::NearestEven),
        };
        Model::SlicedFdpa(SlicedFdpa {
            pass,
            group: 2,
            passes: 2,
        })
    } else if arch == Arch::Hopper {
        Model::TFdpa(TFdpa {
            f: 13,
            e_zero: ez32,
            out: output(format::E8M13, Rounding::TowardZero),
        })
    } else {
        Model::EFdpa(EFdpa {
            out: output(format::FP32, Rounding::NearestEven),
        })
    };
    // One block covers the whole instruction: the passes split K themselves.
    DotUnit {
        formats,
        block: k,
        model,
    }
}

/// Appends the fp8 `mma.sync` instructions of `arch` (Hopper or Blackwell).
pub(crate) fn push(arch: Arch, out: &mut Vec<Instruction>) {
    let note = if arch == Arch::Hopper {
        HOPPER_NOTE
    } else {
        BLACKWELL_NOTE
    };
    for (k, shape) in [(32usize, "m16n8k32"), (16, "m16n8k16")] {
        for d in [format::FP32, format::FP16] {
            for a in [format::E5M2, format::E4M3] {
                for b in [format::E5M2, format::E4M3] {
                    out.push(Instruction {
                        arch,
                        op: Op::Mma,
                        name: format!("{shape}.{}.{}.{}.{}", d.name, a.name, b.name, d.name),
                        m: 16,
                        n: 8,
                        k,
                        layout: Layout::Plain,
                        unit: unit(arch, k, d, a, b),
                        note: Some(note),
                    });
                }
            }
        }
    }
}
