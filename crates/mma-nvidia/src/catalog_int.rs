//! The integer instructions of the catalog: `mma.sync` with s8/u8, s4/u4 and b1 operands,
//! Hopper's integer `wgmma` and Blackwell's `tcgen05.mma` `kind::i8`, all accumulating in s32
//! (PTX ISA 9.0: "mma", "wgmma.mma_async", "tcgen05.mma"; the syntax quoted beside each
//! family below).
//!
//! Their arithmetic is I-DPA ([`mma_core::models::int_dpa`]): the exact sum of the products
//! (for b1, of the bitwise AND or XOR, "multiplication is replaced by a sequence of logical
//! operations ... then counts the number of set bits") plus C, wrapped modulo 2^32 or, with
//! `.satfinite`, clamped to the s32 range. No GPU record or mmasim line covers these rows: the
//! model is the ISA's description, and `evidence.rs` says unverified.
//!
//! Names follow the floating-point rows: `shape[.satfinite].s32.atype.btype.s32` for `mma.sync`
//! (PTX: `mma.sync.aligned.shape.row.col{.satfinite}.s32.atype.btype.s32`),
//! `shape.s32.b1.b1.s32.bitOp.popc` for single bits, `shape[.satfinite].s32.atype.btype` for
//! `wgmma` and `shape.kind::i8[.satfinite].s32.atype.btype` for `tcgen05.mma` (where
//! saturation is the instruction descriptor's "saturate" bit, not a PTX qualifier).

use crate::arch::Arch;
use crate::op::{ptx, Instruction, Op};
use mma_core::catalog::Layout;
use mma_core::format::{self, Format};
use mma_core::model::MAX_BLOCK;
use mma_core::models::int_dpa::{IDpa, IntOp};
use mma_core::{DotUnit, Formats, Model};

const NOTE: &str = "integer I-DPA as the PTX ISA describes it (exact sum plus C, wrapped mod \
                    2^32 or clamped by .satfinite); no GPU record or mmasim line";

const BYTE: [Format; 2] = [format::S8, format::U8];
const NIBBLE: [Format; 2] = [format::S4, format::U4];

/// The unit of an integer instruction of `k` elements: one block of K when saturating (one
/// clamp per instruction), else blocks of at most the engine's largest (wrap-around is
/// associative, so any cut gives the same word).
fn unit(k: usize, a: Format, b: Format, op: IntOp, saturate: bool) -> DotUnit {
    let block = if saturate { k } else { k.min(MAX_BLOCK) };
    DotUnit {
        formats: Formats {
            a,
            b,
            c: format::S32,
            d: format::S32,
            scale: None,
        },
        block,
        model: Model::IDpa(IDpa { op, saturate }),
    }
}

fn shape_mnk(shape: &str) -> (usize, usize, usize) {
    let num = |from: char, to: Option<char>| -> usize {
        let i = shape.find(from).map_or(0, |i| i + 1);
        let j = to
            .and_then(|t| shape[i..].find(t))
            .map_or(shape.len(), |j| i + j);
        shape[i..j].parse().unwrap_or(0)
    };
    (num('m', Some('n')), num('n', Some('k')), num('k', None))
}

struct Rows<'a> {
    arch: Arch,
    out: &'a mut Vec<Instruction>,
}

impl Rows<'_> {
    fn push(&mut self, op: Op, shape: &str, name: String, layout: Layout, unit: DotUnit) {
        let (m, n, k) = shape_mnk(shape);
        let evidence = crate::evidence::of(self.arch, op, &name);
        self.out.push(Instruction {
            arch: self.arch,
            op,
            mnemonic: ptx(op, &name, k, &unit.formats),
            name,
            m,
            n,
            k,
            blocks: 1,
            layout,
            unit,
            note: Some(NOTE),
            evidence,
            sparse: None,
        });
    }

    /// `mma.sync.aligned.shape.row.col{.satfinite}.s32.atype.btype.s32` for every pair of
    /// `types`, without and with `.satfinite`.
    fn mma(&mut self, shape: &str, types: [Format; 2], layout: Layout) {
        let (_, _, k) = shape_mnk(shape);
        for saturate in [false, true] {
            for a in types {
                for b in types {
                    let sat = if saturate { ".satfinite" } else { "" };
                    let name = format!("{shape}{sat}.s32.{}.{}.s32", a.name, b.name);
                    let u = unit(k, a, b, IntOp::Mul, saturate);
                    self.push(Op::Mma, shape, name, layout, u);
                }
            }
        }
    }

    /// `mma.sync.aligned.shape.row.col.s32.b1.b1.s32.bitOp.popc` (no `.satfinite`).
    fn mma_b1(&mut self, shape: &str, bit_op: IntOp) {
        let (_, _, k) = shape_mnk(shape);
        let op_name = match bit_op {
            IntOp::Mul => "and",
            IntOp::Xor => "xor",
        };
        let name = format!("{shape}.s32.b1.b1.s32.{op_name}.popc");
        let u = unit(k, format::B1, format::B1, bit_op, false);
        self.push(Op::Mma, shape, name, Layout::Bits, u);
    }
}

/// Turing (sm_75): the first integer shapes, m8n8k16 (s8/u8), m8n8k32 (s4/u4) and m8n8k128
/// with `.xor.popc` only (`.and.popc` needs sm_80, PTX ISA "mma", Target ISA notes).
pub(crate) fn sm75(arch: Arch, out: &mut Vec<Instruction>) {
    let mut r = Rows { arch, out };
    r.mma("m8n8k16", BYTE, Layout::Plain);
    r.mma("m8n8k32", NIBBLE, Layout::PackedInt4);
    r.mma_b1("m8n8k128", IntOp::Xor);
}

/// sm_80 and later: the Turing shapes with `.and.popc` besides `.xor.popc`, and the m16n8
/// shapes, m16n8k16/k32 (s8/u8), m16n8k32/k64 (s4/u4), m16n8k128/k256 (b1).
pub(crate) fn sm80(arch: Arch, out: &mut Vec<Instruction>) {
    let mut r = Rows { arch, out };
    for shape in ["m8n8k16", "m16n8k16", "m16n8k32"] {
        r.mma(shape, BYTE, Layout::Plain);
    }
    for shape in ["m8n8k32", "m16n8k32", "m16n8k64"] {
        r.mma(shape, NIBBLE, Layout::PackedInt4);
    }
    for shape in ["m8n8k128", "m16n8k128", "m16n8k256"] {
        for op in [IntOp::Xor, IntOp::Mul] {
            r.mma_b1(shape, op);
        }
    }
}

/// The widths N of integer `wgmma`: 8, 16, 24, then every multiple of 16 to 256 (PTX ISA 9.0,
/// "wgmma.mma_async", the integer and single-bit `.shape` lists).
fn wgmma_int_widths() -> impl Iterator<Item = usize> {
    [8, 16, 24].into_iter().chain((32..=256).step_by(16))
}

/// Hopper `wgmma.mma_async.sync.aligned.shape{.satfinite}.s32.atype.btype` (m64nNk32, s8/u8)
/// and `wgmma.mma_async.sync.aligned.shape.s32.b1.b1.and.popc` (m64nNk256; `.op = {.and}`
/// only).
pub(crate) fn wgmma(out: &mut Vec<Instruction>) {
    let mut r = Rows {
        arch: Arch::Hopper,
        out,
    };
    for n in wgmma_int_widths() {
        let shape = format!("m64n{n}k32");
        for saturate in [false, true] {
            for a in BYTE {
                for b in BYTE {
                    let sat = if saturate { ".satfinite" } else { "" };
                    let name = format!("{shape}{sat}.s32.{}.{}", a.name, b.name);
                    let u = unit(32, a, b, IntOp::Mul, saturate);
                    r.push(Op::Wgmma, &shape, name, Layout::Plain, u);
                }
            }
        }
    }
    for n in wgmma_int_widths() {
        let shape = format!("m64n{n}k256");
        let name = format!("{shape}.s32.b1.b1.and.popc");
        let u = unit(256, format::B1, format::B1, IntOp::Mul, false);
        r.push(Op::Wgmma, &shape, name, Layout::Bits, u);
    }
}

/// Blackwell `tcgen05.mma.cta_group::1.kind::i8`: s8/u8 A and B, s32 D, K = 32, M = 64 and
/// 128 and the widths of the other kinds; saturation by the instruction descriptor.
pub(crate) fn tcgen05(out: &mut Vec<Instruction>) {
    let mut r = Rows {
        arch: Arch::Blackwell,
        out,
    };
    for m in [64, 128] {
        for n in (8..=256).step_by(8) {
            let shape = format!("m{m}n{n}k32");
            for saturate in [false, true] {
                for a in BYTE {
                    for b in BYTE {
                        let sat = if saturate { ".satfinite" } else { "" };
                        let name = format!("{shape}.kind::i8{sat}.s32.{}.{}", a.name, b.name);
                        let u = unit(32, a, b, IntOp::Mul, saturate);
                        r.push(Op::Tcgen05Mma, &shape, name, Layout::Plain, u);
                    }
                }
            }
        }
    }
}
