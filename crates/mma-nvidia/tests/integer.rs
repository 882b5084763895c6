//! The integer rows of the NVIDIA catalog (`src/catalog_int.rs`): `mma.sync` s8/u8, s4/u4 and
//! b1, Hopper's integer `wgmma` and Blackwell's `tcgen05.mma` `kind::i8`. Every expected word is
//! derived by hand beside its case (exact integer sums, then wrap modulo 2^32 or clamp to
//! [-2^31, 2^31 - 1]); A and B go through the row's layout (`pack`, then `unpack`) before the
//! dot, so that the packings are checked on the way.

use mma_core::catalog::{Evidence, Layout};
use mma_core::format::{self, Format};
use mma_core::models::int_dpa::IntOp;
use mma_core::Model;
use mma_nvidia::{catalog, find, Arch, Instruction, Op};

fn row(arch: &str, name: &str) -> &'static Instruction {
    find(arch, None, name).unwrap_or_else(|e| panic!("{arch} {name}: {e}"))
}

/// D of `ins` with every element of A equal to `a` and of B to `b` (element codes, not
/// storage words): packed by the row's layout, unpacked again, then the dot.
fn dot_fill(ins: &Instruction, a: u64, b: u64, c: u64) -> u64 {
    let f = &ins.unit.formats;
    let a = packed_round_trip(ins.layout, &f.a, &vec![a; ins.k]);
    let b = packed_round_trip(ins.layout, &f.b, &vec![b; ins.k]);
    ins.dot(&a, &b, c)
}

fn packed_round_trip(layout: Layout, fmt: &Format, elements: &[u64]) -> Vec<u64> {
    let words = layout.pack(fmt, elements);
    assert_eq!(words.len(), layout.words_for(elements.len()));
    let back = layout.unpack(fmt, &words).expect("packed words unpack");
    assert_eq!(back, elements, "{layout:?} round trip");
    back
}

/// A dense integer row (the sparse ones, derived from them, are `tests/sparse.rs`'s).
fn is_int(i: &Instruction) -> bool {
    matches!(i.unit.model, Model::IDpa(_)) && i.sparse.is_none()
}

#[test]
fn s8_overflow_wraps_or_saturates() {
    // m16n8k16, A = B = 16 × 127 (0x7f), C = 0x7fffffff = 2147483647.
    // Exact: 16 · 127² = 16 · 16129 = 258064; + 2147483647 = 2147741711 = 2^31 + 258063,
    // 258063 = 0x3F00F, so the word modulo 2^32 is 0x8003F00F; `.satfinite` clamps to
    // 2^31 - 1 = 0x7fffffff.
    for arch in ["Ampere", "Ada", "Hopper", "Blackwell", "RTX Blackwell"] {
        let wrap = row(arch, "m16n8k16.s32.s8.s8.s32");
        let sat = row(arch, "m16n8k16.satfinite.s32.s8.s8.s32");
        assert_eq!(
            dot_fill(wrap, 0x7f, 0x7f, 0x7fff_ffff),
            0x8003_f00f,
            "{arch}"
        );
        assert_eq!(
            dot_fill(sat, 0x7f, 0x7f, 0x7fff_ffff),
            0x7fff_ffff,
            "{arch}"
        );
    }
    // Negative: A = 16 × -128 (0x80), B = 16 × 127, C = 0x80000000 = -2^31.
    // Exact: 16 · (-16256) = -260096 = -0x3F800; - 2^31 = -2147743744. Modulo 2^32:
    // 2^31 - 0x3F800 = 0x7FFC0800; saturated: -2^31 = 0x80000000.
    let wrap = row("Ampere", "m16n8k16.s32.s8.s8.s32");
    let sat = row("Ampere", "m16n8k16.satfinite.s32.s8.s8.s32");
    assert_eq!(dot_fill(wrap, 0x80, 0x7f, 0x8000_0000), 0x7ffc_0800);
    assert_eq!(dot_fill(sat, 0x80, 0x7f, 0x8000_0000), 0x8000_0000);
    // Within range the two agree: 16 · 127² + 0 = 258064 = 0x3F010.
    assert_eq!(dot_fill(sat, 0x7f, 0x7f, 0), 0x0003_f010);
    assert_eq!(dot_fill(wrap, 0x7f, 0x7f, 0), 0x0003_f010);
}

#[test]
fn u8_and_s8_mixed_signedness() {
    // m16n8k32 .u8.s8: A = 32 × 0xFF (u8 255), B = 32 × 0x80 (s8 -128), C = 0.
    // 255 · -128 = -32640; · 32 = -1044480 = -0xFF000 → 2^32 - 0xFF000 = 0xFFF01000.
    let us = row("Ampere", "m16n8k32.s32.u8.s8.s32");
    assert_eq!(dot_fill(us, 0xff, 0x80, 0), 0xfff0_1000);
    // The same bytes as .s8.u8: A = 0xFF is s8 -1, B = 0x80 is u8 128.
    // -1 · 128 · 32 = -4096 = -0x1000 → 0xFFFFF000.
    let su = row("Ampere", "m16n8k32.s32.s8.u8.s32");
    assert_eq!(dot_fill(su, 0xff, 0x80, 0), 0xffff_f000);
    // .u8.u8: 255 · 255 = 65025 = 0xFE01; · 32 = 0x1FC020; C = 0.
    let uu = row("Ampere", "m16n8k32.s32.u8.u8.s32");
    assert_eq!(dot_fill(uu, 0xff, 0xff, 0), 0x001f_c020);
    // One element different from the rest: A = [0xFF, 0, ...] (s8: -1, 0, ...),
    // B = [0x80, ...] as u8 128: -1 · 128 = -128 = 0xFFFFFF80; + C = 0x100 gives 0x80.
    let mut a = vec![0u64; 32];
    a[0] = 0xff;
    assert_eq!(su.dot(&a, &[0x80; 32], 0x100), 0x80);
}

#[test]
fn s8_extremes_on_turing_m8n8k16() {
    // -128 · -128 = 16384 = 0x4000; · 16 = 0x40000; + C = 5 → 0x40005.
    let ss = row("Turing", "m8n8k16.s32.s8.s8.s32");
    assert_eq!(dot_fill(ss, 0x80, 0x80, 5), 0x0004_0005);
    // u8 · u8: 255² = 0xFE01; · 16 = 0xFE010; C = -1 (0xffffffff) → 0xFE00F.
    let uu = row("Turing", "m8n8k16.satfinite.s32.u8.u8.s32");
    assert_eq!(dot_fill(uu, 0xff, 0xff, 0xffff_ffff), 0x000f_e00f);
    assert_eq!(ss.k, 16);
    assert_eq!(ss.unit.block, 16);
}

#[test]
fn s4_u4_packing_and_extremes() {
    // Packing: two nibbles per byte, element 2i in the low nibble. s4 elements [1, -2]
    // (codes 0x1, 0xE) make the byte 0xE1; [-8, 7] make 0x78.
    let ins = row("Ampere", "m16n8k64.s32.s4.s4.s32");
    assert_eq!(ins.layout, Layout::PackedInt4);
    assert_eq!(
        ins.layout.pack(&format::S4, &[0x1, 0xe, 0x8, 0x7]),
        [0xe1, 0x78]
    );
    assert_eq!(
        ins.layout.unpack(&format::S4, &[0xe1, 0x78]).unwrap(),
        [0x1, 0xe, 0x8, 0x7]
    );
    // A word above a byte holds no pair of nibbles.
    assert!(ins.layout.unpack(&format::S4, &[0x100]).is_err());
    // m16n8k64 s4: A = 64 × -8 (0x8), B = 64 × 7: -56 · 64 = -3584 = -0xE00 → 0xFFFFF200.
    assert_eq!(dot_fill(ins, 0x8, 0x7, 0), 0xffff_f200);
    // -8 · -8 = 64; · 64 = 4096 = 0x1000; + C = 0x10 → 0x1010.
    assert_eq!(dot_fill(ins, 0x8, 0x8, 0x10), 0x0000_1010);
    // Overflow: 7 · 7 · 64 = 3136 = 0xC40; + C = 0x7fffffff → 0x80000C3F wrapped,
    // 0x7fffffff with .satfinite.
    assert_eq!(dot_fill(ins, 0x7, 0x7, 0x7fff_ffff), 0x8000_0c3f);
    let sat = row("Ampere", "m16n8k64.satfinite.s32.s4.s4.s32");
    assert_eq!(dot_fill(sat, 0x7, 0x7, 0x7fff_ffff), 0x7fff_ffff);
    assert_eq!(sat.unit.block, 64);
    // m8n8k32 u4 (Turing): 15 · 15 = 225; · 32 = 7200 = 0x1C20; + C = -1 → 0x1C1F.
    let uu = row("Turing", "m8n8k32.s32.u4.u4.s32");
    assert_eq!(dot_fill(uu, 0xf, 0xf, 0xffff_ffff), 0x0000_1c1f);
    // m8n8k32 s4 · u4: A = -8, B = 15: -120 · 32 = -3840 = -0xF00 → 0xFFFFF100.
    let su = row("Turing", "m8n8k32.s32.s4.u4.s32");
    assert_eq!(dot_fill(su, 0x8, 0xf, 0), 0xffff_f100);
    // The same nibble 0xF as s4 is -1: u4 · s4 with A = 15, B = 0xF (-1):
    // -15 · 32 = -480 = -0x1E0 → 0xFFFFFE20.
    let us = row("Turing", "m8n8k32.s32.u4.s4.s32");
    assert_eq!(dot_fill(us, 0xf, 0xf, 0), 0xffff_fe20);
}

#[test]
fn b1_and_xor_popcount() {
    // Packing: eight bits per byte, element 8i in bit 0. Elements 0 and 9 set → [0x01, 0x02].
    let and = row("Ampere", "m16n8k256.s32.b1.b1.s32.and.popc");
    assert_eq!(and.layout, Layout::Bits);
    let mut e = vec![0u64; 16];
    e[0] = 1;
    e[9] = 1;
    assert_eq!(and.layout.pack(&format::B1, &e), [0x01, 0x02]);
    assert_eq!(and.layout.unpack(&format::B1, &[0x01, 0x02]).unwrap(), e);
    // Wrapping, cut into blocks of 64 (the engine's largest; wrap-around is associative).
    assert_eq!(and.unit.block, 64);
    // AND of all ones over K = 256: popc = 256 = 0x100; + C = 0x10 → 0x110.
    assert_eq!(dot_fill(and, 1, 1, 0x10), 0x110);
    // All ones AND all ones with C = 0x7fffffff: 2^31 - 1 + 256 = 2^31 + 255 → 0x800000FF
    // (no `.satfinite` for b1: it wraps).
    assert_eq!(dot_fill(and, 1, 1, 0x7fff_ffff), 0x8000_00ff);
    // Complementary patterns: A bytes 0xAA, B bytes 0x55 (bits alternate, never both set).
    let a = Layout::Bits.unpack(&format::B1, &[0xaa; 32]).unwrap();
    let b = Layout::Bits.unpack(&format::B1, &[0x55; 32]).unwrap();
    // AND: no bit in common, popc 0: D = C = 7.
    assert_eq!(and.dot(&a, &b, 7), 7);
    // XOR: every bit differs, popc = 256; C = 0 → 0x100.
    let xor = row("Ampere", "m16n8k256.s32.b1.b1.s32.xor.popc");
    assert_eq!(xor.dot(&a, &b, 0), 0x100);
    // XOR of equal patterns: popc 0; C = -1 stays 0xffffffff.
    assert_eq!(xor.dot(&a, &a, 0xffff_ffff), 0xffff_ffff);
    // A = 0xF0 bytes, B = 0xFF bytes over K = 128 (m16n8k128): AND popc = 4 · 16 = 64 = 0x40,
    // XOR popc = 64 too (the low nibbles); C = 1 → 0x41.
    let a = Layout::Bits.unpack(&format::B1, &[0xf0; 16]).unwrap();
    let b = Layout::Bits.unpack(&format::B1, &[0xff; 16]).unwrap();
    assert_eq!(
        row("Ampere", "m16n8k128.s32.b1.b1.s32.and.popc").dot(&a, &b, 1),
        0x41
    );
    assert_eq!(
        row("Ampere", "m16n8k128.s32.b1.b1.s32.xor.popc").dot(&a, &b, 1),
        0x41
    );
    // Turing's m8n8k128 .xor.popc: all ones XOR all zeros, popc 128; + C = -1 → 127 = 0x7F.
    let t = row("Turing", "m8n8k128.s32.b1.b1.s32.xor.popc");
    assert_eq!(dot_fill(t, 1, 0, 0xffff_ffff), 0x7f);
}

#[test]
fn turing_has_xor_popc_only() {
    // PTX ISA, mma Target ISA notes: `.and.popc` requires sm_80.
    assert!(find("Turing", None, "m8n8k128.s32.b1.b1.s32.and.popc").is_err());
    assert!(find("Ampere", None, "m8n8k128.s32.b1.b1.s32.and.popc").is_ok());
    // The m16n8 integer shapes are sm_80's.
    assert!(find("Turing", None, "m16n8k32.s32.s8.s8.s32").is_err());
    // Volta has no integer mma.sync.
    assert!(!catalog().iter().any(|i| i.arch == Arch::Volta && is_int(i)));
}

#[test]
fn hopper_wgmma_integer() {
    // m64n256k32, A = B = 32 × 127, C = 0x7fffffff: 32 · 16129 = 516128; + 2^31 - 1 =
    // 2^31 + 516127, 516127 = 0x7E01F → 0x8007E01F wrapped, 0x7fffffff saturated.
    let wrap = row("Hopper", "m64n256k32.s32.s8.s8");
    let sat = row("Hopper", "m64n256k32.satfinite.s32.s8.s8");
    assert_eq!(dot_fill(wrap, 0x7f, 0x7f, 0x7fff_ffff), 0x8007_e01f);
    assert_eq!(dot_fill(sat, 0x7f, 0x7f, 0x7fff_ffff), 0x7fff_ffff);
    // u8 · s8: 255 · -1 (0xff) · 32 = -8160 = -0x1FE0 → 0xFFFFE020.
    let us = row("Hopper", "m64n8k32.s32.u8.s8");
    assert_eq!(dot_fill(us, 0xff, 0xff, 0), 0xffff_e020);
    // b1 AND over K = 256, all ones: 256 + C = 3 → 0x103.
    let b1 = row("Hopper", "m64n128k256.s32.b1.b1.and.popc");
    assert_eq!(dot_fill(b1, 1, 1, 3), 0x103);
    // The integer widths: 8, 16, 24, then multiples of 16 (n40 is not one).
    assert!(find("Hopper", None, "m64n40k32.s32.s8.s8").is_err());
    assert!(find("Hopper", None, "m64n24k32.s32.s8.s8").is_ok());
    assert!(find("Hopper", None, "m64n8k256.s32.b1.b1.xor.popc").is_err());
}

#[test]
fn blackwell_tcgen05_kind_i8() {
    // u8 · u8: 255² · 32 = 0xFE01 · 32 = 0x1FC020; C = 0.
    let uu = row("Blackwell", "m128n256k32.kind::i8.s32.u8.u8");
    assert_eq!(dot_fill(uu, 0xff, 0xff, 0), 0x001f_c020);
    // -128 · 127 · 32 = -520192 = -0x7F000; + C = -2^31: wraps to 2^31 - 0x7F000 =
    // 0x7FF81000, saturates to 0x80000000.
    let ss = row("Blackwell", "m64n8k32.kind::i8.s32.s8.s8");
    let sat = row("Blackwell", "m64n8k32.kind::i8.satfinite.s32.s8.s8");
    assert_eq!(dot_fill(ss, 0x80, 0x7f, 0x8000_0000), 0x7ff8_1000);
    assert_eq!(dot_fill(sat, 0x80, 0x7f, 0x8000_0000), 0x8000_0000);
    // The PTX spelling with the shape and types appended finds the same row.
    let p = find(
        "sm_100a",
        None,
        "tcgen05.mma.cta_group::1.kind::i8.m64n8k32.satfinite.s32.s8.s8",
    )
    .unwrap();
    assert!(std::ptr::eq(p, sat));
}

#[test]
fn mnemonics_spell_ptx() {
    let cases = [
        (
            "Ampere",
            "m16n8k32.satfinite.s32.s8.u8.s32",
            "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32",
        ),
        (
            "Turing",
            "m8n8k32.s32.u4.s4.s32",
            "mma.sync.aligned.m8n8k32.row.col.s32.u4.s4.s32",
        ),
        (
            "RTX Blackwell",
            "m16n8k256.s32.b1.b1.s32.and.popc",
            "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc",
        ),
        (
            "Turing",
            "m8n8k128.s32.b1.b1.s32.xor.popc",
            "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc",
        ),
        (
            "Hopper",
            "m64n256k32.satfinite.s32.u8.s8",
            "wgmma.mma_async.sync.aligned.m64n256k32.satfinite.s32.u8.s8",
        ),
        (
            "Hopper",
            "m64n128k256.s32.b1.b1.and.popc",
            "wgmma.mma_async.sync.aligned.m64n128k256.s32.b1.b1.and.popc",
        ),
        (
            "Blackwell",
            "m128n64k32.kind::i8.s32.s8.u8",
            "tcgen05.mma.cta_group::1.kind::i8",
        ),
    ];
    for (arch, name, ptx) in cases {
        assert_eq!(row(arch, name).mnemonic, ptx, "{arch} {name}");
    }
}

#[test]
fn every_integer_row_is_found_and_unverified() {
    let rows: Vec<&Instruction> = catalog().iter().filter(|i| is_int(i)).collect();
    for i in &rows {
        let by_name = mma_nvidia::find_in(i.arch, Some(i.op), &i.name).unwrap();
        assert!(std::ptr::eq(by_name, *i), "{} {}", i.arch, i.name);
        // mma.sync and wgmma spell everything in PTX, so the mnemonic alone finds the row.
        if i.op != Op::Tcgen05Mma {
            let by_ptx = find(i.arch.sm(), None, &i.mnemonic).unwrap();
            assert!(std::ptr::eq(by_ptx, *i), "{}", i.mnemonic);
        }
        assert_eq!(i.evidence, Evidence::Unverified, "{} {}", i.arch, i.name);
        assert!(i.note.is_some());
        let f = &i.unit.formats;
        assert_eq!((f.c, f.d), (format::S32, format::S32));
        assert!(f.scale.is_none());
        let layout = match f.a.width() {
            8 => Layout::Plain,
            4 => Layout::PackedInt4,
            _ => Layout::Bits,
        };
        assert_eq!(i.layout, layout, "{}", i.name);
        let Model::IDpa(m) = i.unit.model else {
            unreachable!()
        };
        assert_eq!(m.saturate, i.name.contains(".satfinite"), "{}", i.name);
        assert_eq!(m.op == IntOp::Xor, i.name.contains(".xor."), "{}", i.name);
        // One clamp per instruction when saturating; wrapping cuts at most 64.
        let block = if m.saturate { i.k } else { i.k.min(64) };
        assert_eq!(i.unit.block, block, "{}", i.name);
        assert_eq!((f.a.integer, f.b.integer), (true, true));
        let _: &Format = &f.a;
    }
}

#[test]
fn integer_rows_per_arch_and_op() {
    // mma.sync: Turing 8 (m8n8k16: 4 type pairs × with/without .satfinite) + 8 (m8n8k32)
    // + 1 (m8n8k128 .xor) = 17; sm_80 and later 3 shapes × 8 for s8/u8, 3 × 8 for s4/u4 and
    // 3 shapes × 2 bit operations for b1 = 54. wgmma: 18 widths × 8 (s8/u8) + 18 (b1 .and)
    // = 162. tcgen05.mma kind::i8: 2 M × 32 N × 8 = 512.
    let count = |arch: Arch, op: Op| {
        catalog()
            .iter()
            .filter(|i| i.arch == arch && i.op == op && is_int(i))
            .count()
    };
    let expect = [
        (Arch::Volta, Op::Mma, 0),
        (Arch::Turing, Op::Mma, 17),
        (Arch::Ampere, Op::Mma, 54),
        (Arch::AdaLovelace, Op::Mma, 54),
        (Arch::Hopper, Op::Mma, 54),
        (Arch::Hopper, Op::Wgmma, 162),
        (Arch::Blackwell, Op::Mma, 54),
        (Arch::Blackwell, Op::Tcgen05Mma, 512),
        (Arch::RtxBlackwell, Op::Mma, 54),
    ];
    for (arch, op, n) in expect {
        assert_eq!(count(arch, op), n, "{arch} {op}");
    }
    let total = catalog().iter().filter(|i| is_int(i)).count();
    assert_eq!(total, 17 + 5 * 54 + 162 + 512);
}
