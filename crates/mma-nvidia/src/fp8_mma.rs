//! `mma.sync` with e4m3/e5m2 on Hopper (sm_90) and Blackwell (sm_100): PTX allows them, mmasim
//! 2.1.1 leaves them out, and the `shared/hw` records (H100, B200; `m16n8k32`, K = 32) fix their
//! arithmetic:
//!
//! - Hopper, fp32 output: the `wgmma` fp8 path (T-FDPA, F = 13, blocks of 32, RZ to E8M13)
//!   reproduces 2500/2500 records per format. The records match C = 0, not their `c_` file
//!   (`shared/hw/README.md`); this is taken as a property of the measurement, not of the unit,
//!   and the model adds C like `wgmma` does.
//! - Hopper and Blackwell, fp16 output: [`mma_core::models::sliced_fdpa`] with the architecture's f16
//!   HMMA parameters (F = 25, e_zero = -21, each pass rounded to nearest even in fp16, C added
//!   last): 2500/2500 per format and GPU, where every other order of passes, rounding
//!   direction or place for C tried scores at most 2144 (`crates/mma-nvidia/docs/fp8-mma-sync.md`).
//! - Blackwell, fp32 output: the same sliced arithmetic with the fp32 HMMA step (F = 25,
//!   e_zero = -133, each pass rounded toward zero to fp32), then C added by one addition
//!   rounded to nearest even: 2500/2500 per format, and record 3,936 of the full published
//!   E5M2 file, whose second pass is not an fp32 number and where nearest-even passes or an
//!   exact sum rounded once miss by one ulp (`tests/b200_fp8_pass_rounding.rs`). The
//!   published round-toward-zero T-FDPA (one block, C first) fails about 35%.
//!
//! In both output formats a pass is thus the architecture's own f16 `mma.sync` step for that
//! output (RNE to fp16, RZ to fp32), and only the addition of C rounds to nearest even.
//!
//! The `m16n8k16` shapes have no records; they are given the same arithmetic, with the k16
//! register layout split the same way (pairs of consecutive k in two passes).

use crate::arch::Arch;
use crate::op::{ptx, Instruction, Op};
use mma_core::catalog::Layout;
use mma_core::format::{self, Format};
use mma_core::models::sliced_fdpa::SlicedFdpa;
use mma_core::models::t_fdpa::TFdpa;
use mma_core::{DotUnit, Formats, Model, Output, Rounding};

const HOPPER_NOTE: &str = "not in mmasim: fixed by the H100 records of shared/hw";
const BLACKWELL_NOTE: &str = "not in mmasim: fixed by the B200 records of shared/hw";

fn unit(arch: Arch, k: usize, d: Format, a: Format, b: Format) -> DotUnit {
    let formats = Formats {
        a,
        b,
        c: d,
        d,
        scale: None,
    };
    let (ez32, ez16) = arch.e_zero();
    let model = if d == format::FP32 && arch == Arch::Hopper {
        Model::TFdpa(TFdpa {
            f: 13,
            e_zero: ez32,
            out: Output::fused(format::E8M13, Rounding::TowardZero, true),
        })
    } else {
        // Each pass is the architecture's own f16 HMMA step with this output: RNE to fp16, or
        // RZ to fp32 (B200 record 3,936 of the published E5M2 file decides the latter). C is
        // then added by one addition rounded to nearest even.
        let (e_zero, pass_mode) = if d == format::FP16 {
            (ez16, Rounding::NearestEven)
        } else {
            (ez32, Rounding::TowardZero)
        };
        Model::SlicedFdpa(SlicedFdpa {
            pass: TFdpa {
                f: arch.f(),
                e_zero,
                out: Output::fused(d, pass_mode, true),
            },
            group: 2,
            passes: 2,
            last: Rounding::NearestEven,
            last_format: None,
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
                    let name = format!("{shape}.{}.{}.{}.{}", d.name, a.name, b.name, d.name);
                    let unit = unit(arch, k, d, a, b);
                    let evidence = crate::evidence::of(arch, Op::Mma, &name);
                    out.push(Instruction {
                        arch,
                        op: Op::Mma,
                        mnemonic: ptx(Op::Mma, &name, k, &unit.formats),
                        name,
                        m: 16,
                        n: 8,
                        k,
                        blocks: 1,
                        layout: Layout::Plain,
                        unit,
                        note: Some(note),
                        evidence,
                        sparse: None,
                    });
                }
            }
        }
    }
}
