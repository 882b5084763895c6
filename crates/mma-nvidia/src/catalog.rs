//! The NVIDIA instruction catalog: every `mma.sync`, `wgmma` and `tcgen05.mma` shape and type
//! combination of each architecture, mapped to its arithmetic model and parameters.
//!
//! The tables below are data: one list of instruction families per architecture, each family a
//! name pattern, its shapes and its operand types. `unit` turns (architecture, path, layout,
//! types) into the model parameters of the first paper's Table III (Xie et al., arXiv
//! 2511.10909; README, "References"). mmasim 2.1.1's instruction lists are the minimum; the additions are marked where they are made and say what evidence fixed them.

use crate::arch::Arch;
use crate::op::ptx;

/// The integer families (s8/u8, s4/u4, b1 into s32), in a file of their own.
#[path = "catalog_int.rs"]
mod int;
pub use crate::op::{Instruction, Op};
pub use mma_core::catalog::Layout;
use mma_core::format::{self, Format};
use mma_core::models::gst_fdpa::GstFdpa;
use mma_core::models::st_fdpa::StFdpa;
use mma_core::{
    models::fma::Fma, models::t_fdpa::TFdpa, DotUnit, Formats, Model, NanStyle, Output, Rounding,
};

fn fmt_of(name: &str) -> Format {
    format::by_name(name).unwrap_or_else(|| panic!("catalog table names unknown format {name}"))
}

/// Storage bits one element of `fmt` takes in A when counting `L_max` bytes.
fn element_bits(fmt: &Format, layout: Layout) -> usize {
    match layout {
        Layout::PackedFp4 | Layout::PackedInt4 => 4,
        Layout::Bits => 1,
        Layout::Byte => 8,
        Layout::Plain => fmt.storage_bits as usize,
    }
}

/// Which fused-adder variant an instruction uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// The architecture's standard T-FDPA.
    Standard,
    /// Ada `mma` and Hopper `mma`/`wgmma` with e4m3/e5m2: F = 13, RZ to E8M13 for fp32 output.
    Fp8Narrow,
    /// Block-scaled fp8/fp6/fp4 (`mxf8f6f4`): ST-FDPA.
    Scaled,
    /// Block-scaled fp4 with group sums (`mxf4`, `mxf4nvf4`): GST-FDPA.
    GroupScaled,
    /// fp64: a chain of FMAs.
    Fma,
}

/// Builds the unit of an instruction from the architecture's parameters.
fn unit(
    arch: Arch,
    path: Path,
    layout: Layout,
    types: [&str; 4],
    scale: Option<(&str, usize)>,
) -> DotUnit {
    let [d, a, b, c] = types.map(fmt_of);
    let formats = Formats {
        a,
        b,
        c,
        d,
        scale: scale.map(|(s, per)| (fmt_of(s), per)),
    };
    let block = arch.block_bytes() * 8 / element_bits(&a, layout);
    let (ez32, ez16) = arch.e_zero();
    let f16_out = d == format::FP16;
    let e_zero = if f16_out { ez16 } else { ez32 };
    let out = |narrow: bool| {
        if f16_out {
            Output::fused(format::FP16, Rounding::NearestEven, true)
        } else if narrow {
            Output::fused(format::E8M13, Rounding::TowardZero, true)
        } else {
            Output::fused(format::FP32, Rounding::TowardZero, true)
        }
    };
    let model = match path {
        Path::Standard => Model::TFdpa(TFdpa {
            f: arch.f(),
            e_zero,
            out: out(false),
        }),
        Path::Fp8Narrow => Model::TFdpa(TFdpa {
            f: 13,
            e_zero,
            out: out(true),
        }),
        Path::Scaled => Model::StFdpa(StFdpa {
            f: arch.f(),
            e_zero,
            out: out(false),
        }),
        Path::GroupScaled => Model::GstFdpa(GstFdpa {
            g: 16,
            f: 35,
            e_zero: -139,
            group_floor: None,
            out: out(false),
        }),
        Path::Fma => {
            return DotUnit {
                formats,
                block: 1,
                model: Model::Fma(Fma {
                    mode: Rounding::NearestEven,
                    nan: NanStyle::AllOnes,
                }),
            }
        }
    };
    DotUnit {
        formats,
        block,
        model,
    }
}

const FP8: [&str; 2] = ["e5m2", "e4m3"];
const F8F6F4: [&str; 5] = ["e5m2", "e4m3", "e3m2", "e2m3", "e2m1"];
/// The fp4 block-scaled kinds: (kind, elements per scale, scale format).
const FP4_KINDS: [(&str, usize, &str); 4] = [
    ("mxf4", 32, "ue8m0"),
    ("mxf4nvf4", 32, "ue8m0"),
    ("mxf4nvf4", 16, "ue8m0"),
    ("mxf4nvf4", 16, "ue4m3"),
];

fn shape_of(name: &str) -> (usize, usize, usize) {
    let s = name.split('.').next().unwrap_or("");
    let num = |from: char, to: char| -> usize {
        let i = s.find(from).map_or(0, |i| i + 1);
        let j = s[i..].find(to).map_or(s.len(), |j| i + j);
        s[i..j].parse().unwrap_or(0)
    };
    (num('m', 'n'), num('n', 'k'), num('k', '.'))
}

struct Builder {
    out: Vec<Instruction>,
}

impl Builder {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        arch: Arch,
        op: Op,
        name: String,
        path: Path,
        layout: Layout,
        types: [&str; 4],
        scale: Option<(&str, usize)>,
        note: Option<&'static str>,
    ) {
        let (m, n, k) = shape_of(&name);
        let unit = unit(arch, path, layout, types, scale);
        let evidence = crate::evidence::of(arch, op, &name);
        self.out.push(Instruction {
            arch,
            op,
            mnemonic: ptx(op, &name, k, &unit.formats),
            name,
            m,
            n,
            k,
            blocks: 1,
            layout,
            unit,
            note,
            evidence,
            sparse: None,
        });
    }

    /// `mma.sync` with the `.dtype.atype.btype.ctype` suffix.
    fn mma(
        &mut self,
        arch: Arch,
        shape: &str,
        types: [&str; 4],
        path: Path,
        note: Option<&'static str>,
    ) {
        let name = format!("{shape}.{}", types.join("."));
        self.push(arch, Op::Mma, name, path, Layout::Plain, types, None, note);
    }

    /// sm_70: the Volta shape m8n8k4 (Turing runs it with Volta's parameters).
    fn sm70(&mut self, arch: Arch) {
        for t in [
            ["f32", "f16", "f16", "f32"],
            ["f32", "f16", "f16", "f16"],
            ["f16", "f16", "f16", "f16"],
        ] {
            self.mma(arch, "m8n8k4", t, Path::Standard, None);
        }
    }

    fn sm75(&mut self, arch: Arch) {
        self.mma(
            arch,
            "m16n8k8",
            ["f32", "f16", "f16", "f32"],
            Path::Standard,
            None,
        );
        self.mma(
            arch,
            "m16n8k8",
            ["f16", "f16", "f16", "f16"],
            Path::Standard,
            None,
        );
    }

    fn sm80(&mut self, arch: Arch) {
        self.mma(
            arch,
            "m8n8k4",
            ["f64", "f64", "f64", "f64"],
            Path::Fma,
            None,
        );
        self.mma(
            arch,
            "m16n8k8",
            ["f32", "tf32", "tf32", "f32"],
            Path::Standard,
            None,
        );
        self.mma(
            arch,
            "m16n8k4",
            ["f32", "tf32", "tf32", "f32"],
            Path::Standard,
            None,
        );
        self.mma(
            arch,
            "m16n8k16",
            ["f32", "f16", "f16", "f32"],
            Path::Standard,
            None,
        );
        self.mma(
            arch,
            "m16n8k16",
            ["f16", "f16", "f16", "f16"],
            Path::Standard,
            None,
        );
        self.mma(
            arch,
            "m16n8k16",
            ["f32", "bf16", "bf16", "f32"],
            Path::Standard,
            None,
        );
        self.mma(
            arch,
            "m16n8k8",
            ["f32", "bf16", "bf16", "f32"],
            Path::Standard,
            None,
        );
    }

    /// sm_89 fp8 `mma.sync` shapes, k32 and k16, both accumulators.
    fn sm89(&mut self, arch: Arch, path: Path, note: Option<&'static str>) {
        for k in ["m16n8k32", "m16n8k16"] {
            for d in ["f32", "f16"] {
                for a in FP8 {
                    for b in FP8 {
                        self.mma(arch, k, [d, a, b, d], path, note);
                    }
                }
            }
        }
    }

    fn sm90(&mut self, arch: Arch) {
        for shape in ["m16n8k16", "m16n8k8", "m16n8k4"] {
            self.mma(arch, shape, ["f64", "f64", "f64", "f64"], Path::Fma, None);
        }
    }

    fn sm120(&mut self, arch: Arch) {
        for d in ["f32", "f16"] {
            for a in F8F6F4 {
                for b in F8F6F4 {
                    let name = format!("m16n8k32.kind::f8f6f4.{d}.{a}.{b}.{d}");
                    self.push(
                        arch,
                        Op::Mma,
                        name,
                        Path::Standard,
                        Layout::Byte,
                        [d, a, b, d],
                        None,
                        None,
                    );
                }
            }
        }
        self.block_scaled(arch, Op::MmaBlockScale, |kind, block, a, b, scale| {
            let k = if kind == "mxf8f6f4" { 32 } else { 64 };
            format!("m16n8k{k}.kind::{kind}.block{block}.f32.{a}.{b}.f32.{scale}")
        });
    }

    /// The block-scaled kinds: `mxf8f6f4` for every fp8/fp6/fp4 pair (ue8m0 scales per 32,
    /// ST-FDPA) and the fp4 kinds with their scale formats and blocks (GST-FDPA). `name(kind,
    /// block, a, b, scale)` spells the instruction.
    fn block_scaled(
        &mut self,
        arch: Arch,
        op: Op,
        name: impl Fn(&str, usize, &str, &str, &str) -> String,
    ) {
        for a in F8F6F4 {
            for b in F8F6F4 {
                let t = ["f32", a, b, "f32"];
                let n = name("mxf8f6f4", 32, a, b, "ue8m0");
                self.push(
                    arch,
                    op,
                    n,
                    Path::Scaled,
                    Layout::Byte,
                    t,
                    Some(("ue8m0", 32)),
                    None,
                );
            }
        }
        for (kind, block, scale) in FP4_KINDS {
            let t = ["f32", "e2m1", "e2m1", "f32"];
            let n = name(kind, block, "e2m1", "e2m1", scale);
            self.push(
                arch,
                op,
                n,
                Path::GroupScaled,
                Layout::PackedFp4,
                t,
                Some((scale, block)),
                None,
            );
        }
    }

    fn wgmma(&mut self) {
        let arch = Arch::Hopper;
        for n in (8..=256).step_by(8) {
            let mut w = |k: usize, d: &str, a: &str, b: &str, path: Path| {
                let name = format!("m64n{n}k{k}.{d}.{a}.{b}");
                self.push(
                    arch,
                    Op::Wgmma,
                    name,
                    path,
                    Layout::Plain,
                    [d, a, b, d],
                    None,
                    None,
                );
            };
            w(8, "f32", "tf32", "tf32", Path::Standard);
            w(16, "f32", "f16", "f16", Path::Standard);
            w(16, "f16", "f16", "f16", Path::Standard);
            w(16, "f32", "bf16", "bf16", Path::Standard);
            for d in ["f32", "f16"] {
                for a in FP8 {
                    for b in FP8 {
                        w(32, d, a, b, Path::Fp8Narrow);
                    }
                }
            }
        }
    }

    fn tcgen05(&mut self) {
        let arch = Arch::Blackwell;
        for m in [64, 128] {
            for n in (8..=256).step_by(8) {
                let mut t = |k: usize, kind: &str, d: &str, a: &str, b: &str, layout: Layout| {
                    let name = format!("m{m}n{n}k{k}.kind::{kind}.{d}.{a}.{b}");
                    self.push(
                        arch,
                        Op::Tcgen05Mma,
                        name,
                        Path::Standard,
                        layout,
                        [d, a, b, d],
                        None,
                        None,
                    );
                };
                t(8, "tf32", "f32", "tf32", "tf32", Layout::Plain);
                t(16, "f16", "f16", "f16", "f16", Layout::Plain);
                t(16, "f16", "f32", "f16", "f16", Layout::Plain);
                t(16, "f16", "f32", "bf16", "bf16", Layout::Plain);
                for d in ["f32", "f16"] {
                    for a in F8F6F4 {
                        for b in F8F6F4 {
                            t(32, "f8f6f4", d, a, b, Layout::Byte);
                        }
                    }
                }
            }
        }
        for n in (8..=256).step_by(8) {
            self.block_scaled(
                arch,
                Op::Tcgen05MmaBlockScale,
                |kind, block, a, b, scale| {
                    let k = if kind == "mxf8f6f4" { 32 } else { 64 };
                    format!("m128n{n}k{k}.kind::{kind}.block{block}.f32.{a}.{b}.{scale}")
                },
            );
        }
    }
}

/// Builds the whole catalog, architecture by architecture.
pub(crate) fn build() -> Vec<Instruction> {
    let mut b = Builder { out: Vec::new() };
    b.sm70(Arch::Volta);

    b.sm75(Arch::Turing);
    // Turing runs the Volta shape with Volta's datapath (the first paper's Table III lists
    // Turing's HMMA with Volta's parameters for that shape).
    let start = b.out.len();
    b.sm70(Arch::Turing);
    for i in &mut b.out[start..] {
        i.unit = unit(
            Arch::Volta,
            Path::Standard,
            Layout::Plain,
            types_of(&i.unit),
            None,
        );
    }
    int::sm75(Arch::Turing, &mut b.out);

    b.sm80(Arch::Ampere);
    b.sm75(Arch::Ampere);
    int::sm80(Arch::Ampere, &mut b.out);

    b.sm89(Arch::AdaLovelace, Path::Fp8Narrow, None);
    b.sm80(Arch::AdaLovelace);
    b.sm75(Arch::AdaLovelace);
    int::sm80(Arch::AdaLovelace, &mut b.out);

    b.sm90(Arch::Hopper);
    b.sm80(Arch::Hopper);
    b.sm75(Arch::Hopper);
    crate::fp8_mma::push(Arch::Hopper, &mut b.out);
    b.wgmma();
    int::sm80(Arch::Hopper, &mut b.out);
    int::wgmma(&mut b.out);

    b.sm80(Arch::Blackwell);
    b.sm75(Arch::Blackwell);
    crate::fp8_mma::push(Arch::Blackwell, &mut b.out);
    b.tcgen05();
    int::sm80(Arch::Blackwell, &mut b.out);
    int::tcgen05(&mut b.out);

    b.sm120(Arch::RtxBlackwell);
    b.sm89(Arch::RtxBlackwell, Path::Standard, None);
    b.sm80(Arch::RtxBlackwell);
    b.sm75(Arch::RtxBlackwell);
    int::sm80(Arch::RtxBlackwell, &mut b.out);
    let sparse = crate::sparse::derive(&b.out);
    b.out.extend(sparse);
    b.out
}

fn types_of(u: &DotUnit) -> [&'static str; 4] {
    let f = &u.formats;
    [f.d.name, f.a.name, f.b.name, f.c.name]
}
