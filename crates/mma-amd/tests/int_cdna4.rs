//! The integer MFMAs (`v_mfma_i32_*`, i8 → i32) of every CDNA generation and CDNA4 (gfx950):
//! hand-derived cases and look-ups. Words are raw storage words: s8 127 = 0x7f, -128 = 0x80;
//! s32 in two's complement; f16 1.0 = 0x3c00, -1.0 = 0xbc00; bf16 1.0 = 0x3f80; OCP e4m3 1.0 =
//! 0x38 (bias 7), e2m3 1.0 = 0x08 (bias 1), e2m1 1.0 = 0x2 (bias 1).

use mma_amd::{catalog, find, Arch};
use mma_core::catalog::Evidence;
use mma_core::Model;

fn dot(arch: &str, instr: &str, a: &[u64], b: &[u64], c: u64) -> u64 {
    find(arch, None, instr).expect("catalog entry").dot(a, b, c)
}

/// The f16 word of a small positive integer (exact: at most 11 significant bits).
fn f16_int(n: u64) -> u64 {
    let e = 63 - n.leading_zeros() as u64;
    let mant = ((n << 10) >> e) & 0x3ff;
    (e + 15) << 10 | mant
}

// ---- i8 → i32: the exact sum, wrapped modulo 2^32 ----

#[test]
fn i8_sum_wraps_modulo_2_to_32() {
    // 16 × 127 × 127 = 16 × 16129 = 258064 = 0x3f010; 0x7fffffff + 0x3f010 = 0x8003f00f, which
    // as an s32 is 2^31 - 1 + 258064 - 2^32 = -2147225585: the sum wraps, it does not
    // saturate (no i8 MFMA has a clamp).
    let a = [0x7f; 16];
    for (arch, instr) in [
        ("CDNA1", "i32_16x16x16i8"),
        ("CDNA2", "v_mfma_i32_16x16x16i8"),
        ("CDNA3", "i32_32x32x16_i8"),
        ("CDNA4", "i32_32x32x16_i8"),
    ] {
        assert_eq!(
            dot(arch, instr, &a, &a, 0x7fff_ffff),
            0x8003_f00f,
            "{arch} {instr}"
        );
    }
}

#[test]
fn i8_extremes() {
    // -128 × -128 = 16384 = 2^14; 16 of them = 2^18 = 0x40000, exact.
    let m = [0x80; 16];
    assert_eq!(dot("CDNA3", "i32_32x32x16_i8", &m, &m, 0), 0x0004_0000);
    // K = 64 (CDNA4's 16x16x64): 64 × 2^14 = 2^20 = 0x100000; plus C = 0x7fffffff gives
    // 0x800fffff (wrapped).
    let m = [0x80; 64];
    assert_eq!(
        dot("MI355X", "v_mfma_i32_16x16x64_i8", &m, &m, 0x7fff_ffff),
        0x800f_ffff
    );
    // -128 × 127 = -16256; 64 of them = -1040384 = -0xfe000. With C = -2^31 (0x80000000) the
    // exact sum -2^31 - 0xfe000 wraps to 2^31 - 0xfe000 = 0x7ff02000.
    let p = [0x7f; 64];
    assert_eq!(
        dot("gfx950", "i32_16x16x64_i8", &m, &p, 0x8000_0000),
        0x7ff0_2000
    );
    // Without C: -0xfe000 = 0xfff02000.
    assert_eq!(dot("CDNA4", "i32_16x16x64_i8", &m, &p, 0), 0xfff0_2000);
    // K = 4 (the 4x4x4 16-block form): 1·-1 + 2·2 + -3·3 + 4·-128 = -1 + 4 - 9 - 512 = -518
    // = 0xfffffdfa, and C = 518 cancels it to 0.
    let (a, b) = ([0x01, 0x02, 0xfd, 0x04], [0xff, 0x02, 0x03, 0x80]);
    assert_eq!(dot("CDNA1", "i32_4x4x4i8", &a, &b, 0), 0xffff_fdfa);
    assert_eq!(dot("MI300X", "i32_4x4x4_16b_i8", &a, &b, 518), 0);
}

#[test]
fn integer_rows_are_idpa_wrapping_and_unverified() {
    let mut per_arch = [0usize; 4];
    for i in catalog().iter().filter(|i| i.name.starts_with("i32_")) {
        per_arch[Arch::ALL.iter().position(|&a| a == i.arch).unwrap()] += 1;
        assert_eq!(i.evidence, Evidence::Unverified, "{}", i.name);
        assert_eq!(
            (i.unit.formats.a.name, i.unit.formats.d.name),
            ("s8", "s32")
        );
        assert_eq!(i.unit.block, i.k, "{}", i.name);
        match i.unit.model {
            Model::IDpa(p) => assert!(!p.saturate, "{}", i.name),
            ref m => panic!("{}: {m:?}", i.name),
        }
    }
    assert_eq!(per_arch, [5, 5, 5, 7]);
    // Every other CDNA1-CDNA3 row stays backed by mmasim's corpus.
    for i in catalog() {
        // (The sparse rows, derived from dense ones, are `tests/sparse.rs`'s.)
        if i.arch != Arch::Cdna4 && !i.name.starts_with("i32_") && i.sparse.is_none() {
            assert_eq!(i.evidence, Evidence::Reference, "{}", i.name);
        }
    }
    // CDNA3 dropped CDNA1/CDNA2's 32x32x8 and 16x16x16 i8 forms.
    assert!(find("CDNA3", None, "v_mfma_i32_32x32x8i8").is_err());
}

// ---- CDNA4 ----

#[test]
fn cdna4_by_its_names() {
    for name in [
        "CDNA4",
        "cdna4",
        "MI350",
        "MI350X",
        "mi355x",
        "AMD Instinct MI355X",
        "gfx950",
    ] {
        assert_eq!(mma_amd::parse_arch(name).unwrap(), Arch::Cdna4, "{name}");
    }
    let rows: Vec<_> = catalog()
        .iter()
        .filter(|i| i.arch == Arch::Cdna4 && i.sparse.is_none())
        .collect();
    assert!(rows.len() >= 20);
    for i in &rows {
        for product in ["MI355X", "MI350X", "gfx950"] {
            assert_eq!(
                find(product, None, &i.name).unwrap(),
                *i,
                "{product} {}",
                i.name
            );
            assert_eq!(find(product, None, &i.mnemonic).unwrap(), *i);
        }
        assert_eq!(i.evidence, Evidence::Unverified, "{}", i.name);
        let note = i.note.expect("every CDNA4 row says what it carries over");
        assert!(
            note.contains("CDNA4 ISA") && note.contains("CDNA3"),
            "{note}"
        );
    }
    // xf32 is gone; the new instructions are there, by builtin too.
    assert!(find("MI355X", None, "f32_32x32x4_xf32").is_err());
    for n in [
        "__builtin_amdgcn_mfma_f32_16x16x32_f16",
        "__builtin_amdgcn_mfma_f32_16x16x32_bf16",
        "v_mfma_f32_32x32x16_f16",
        "v_mfma_f32_32x32x16_bf16",
        "__builtin_amdgcn_mfma_i32_16x16x64_i8",
        "v_mfma_i32_32x32x32_i8",
        "f32_16x16x128_f8f6f4_fp8_fp4",
        "v_mfma_f32_32x32x64_f8f6f4_bf6_fp8",
    ] {
        find("gfx950", None, n).unwrap_or_else(|e| panic!("{n}: {e}"));
    }
    // The bare f8f6f4 mnemonic leaves A and B to cbsz/blgp: several rows.
    assert!(matches!(
        find("gfx950", None, "v_mfma_f32_16x16x128_f8f6f4"),
        Err(mma_amd::CatalogError::Ambiguous { .. })
    ));
    let f = find("gfx950", None, "f32_32x32x64_f8f6f4_bf6_fp4").unwrap();
    assert_eq!(
        (
            f.unit.formats.a.name,
            f.unit.formats.b.name,
            f.k,
            f.unit.block
        ),
        ("e3m2", "e2m1", 64, 16)
    );
    // Block lengths carried over from CDNA3: f16/bf16 L = 8 at the doubled K.
    assert_eq!(
        find("gfx950", None, "f32_16x16x32_f16").unwrap().unit.block,
        8
    );
}

#[test]
fn cdna4_f16_bf16_exact_small_sums() {
    // 32 products 1·1 = 32 (0x42000000): every partial sum is a small integer, exact at every
    // step of TR-FDPA (no bit lost to alignment or rounding), so any block length gives it.
    let one = [0x3c00; 32];
    assert_eq!(
        dot("MI355X", "f32_16x16x32_f16", &one, &one, 0),
        0x4200_0000
    );
    let one_bf = [0x3f80; 32];
    assert_eq!(
        dot("MI355X", "f32_16x16x32_bf16", &one_bf, &one_bf, 0),
        0x4200_0000
    );
    // a = 1..16 (K = 16, 32x32x16), b = 1: 1 + ... + 16 = 136 = 0x43080000; with C = 0.5 the
    // sum 136.5 (0x43088000) is exact too.
    let a: Vec<u64> = (1..=16).map(f16_int).collect();
    let b = [0x3c00; 16];
    assert_eq!(dot("gfx950", "f32_32x32x16_f16", &a, &b, 0), 0x4308_0000);
    assert_eq!(
        dot("gfx950", "f32_32x32x16_f16", &a, &b, 0x3f00_0000),
        0x4308_8000
    );
    // Exact cancellation across the four blocks of 8: +1 in the first 16, -1 in the last 16,
    // C = 1.0: 16 - 16 + 1 = 1.0.
    let mut a = [0x3c00u64; 32];
    a[16..].fill(0xbc00);
    assert_eq!(
        dot("CDNA4", "f32_16x16x32_f16", &a, &one, 0x3f80_0000),
        0x3f80_0000
    );
}

#[test]
fn cdna4_fp8_is_ocp_not_fnuz() {
    // 0x38 is 1.0 in OCP e4m3 (bias 7) and 0.5 in FNUZ e4m3 (bias 8): 32 products give 32.0
    // (0x42000000) on CDNA4 and 32 · 0.25 = 8.0 (0x41000000) on CDNA3.
    let w = [0x38; 32];
    assert_eq!(dot("CDNA4", "f32_16x16x32_fp8_fp8", &w, &w, 0), 0x4200_0000);
    assert_eq!(dot("CDNA3", "f32_16x16x32_fp8_fp8", &w, &w, 0), 0x4100_0000);
    // f8f6f4: e4m3 1.0 × e2m3 1.0, 64 times = 64.0 (0x42800000); e2m1 1.0 × e2m1 1.0, 128
    // times = 128.0 (0x43000000); every partial sum exact.
    let (fp8, fp6, fp4) = ([0x38; 64], [0x08; 64], [0x2; 128]);
    assert_eq!(
        dot("gfx950", "f32_32x32x64_f8f6f4_fp8_fp6", &fp8, &fp6, 0),
        0x4280_0000
    );
    assert_eq!(
        dot("gfx950", "f32_16x16x128_f8f6f4_fp4_fp4", &fp4, &fp4, 0),
        0x4300_0000
    );
}

// ---- CDNA4 block-scaled f8f6f4 (`v_mfma_scale_f32_*_f8f6f4`): GTR-FDPA with ue8m0 scales ----

#[test]
fn cdna4_scaled_rows_and_names() {
    let scaled: Vec<_> = catalog()
        .iter()
        .filter(|i| i.arch == Arch::Cdna4 && i.name.starts_with("scale_"))
        .collect();
    assert_eq!(scaled.len(), 50);
    for i in &scaled {
        // Same model and parameters as the unscaled row of the same shape and pair, plus the
        // scale (ue8m0 per 32 elements).
        let plain = find("gfx950", None, &i.name["scale_".len()..]).unwrap();
        let mut want = plain.unit;
        want.formats.scale = Some((mma_core::format::UE8M0, 32));
        assert_eq!(i.unit, want, "{}", i.name);
        assert_eq!((i.k, i.unit.block, i.layout), (plain.k, 16, plain.layout));
        assert_eq!(i.evidence, Evidence::Unverified, "{}", i.name);
        assert!(
            i.mnemonic.starts_with("v_mfma_scale_f32_"),
            "{}",
            i.mnemonic
        );
        let note = i.note.unwrap();
        assert!(
            note.contains("ue8m0") && note.contains("assumption"),
            "{note}"
        );
    }
    // By mnemonic with the pair, by builtin-style names, and the bare mnemonic is ambiguous
    // among the 25 pairs (cbsz/blgp choose), never an unscaled row.
    let f = find("MI355X", None, "v_mfma_scale_f32_16x16x128_f8f6f4_fp8_fp4").unwrap();
    assert_eq!(f.name, "scale_f32_16x16x128_f8f6f4_fp8_fp4");
    assert_eq!(
        find("gfx950", None, "f32_32x32x64_scale_f8f6f4_bf6_fp8")
            .unwrap()
            .name,
        "scale_f32_32x32x64_f8f6f4_bf6_fp8"
    );
    match find("gfx950", None, "v_mfma_scale_f32_32x32x64_f8f6f4") {
        Err(mma_amd::CatalogError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates.len(), 25);
            assert!(candidates.iter().all(|c| c.starts_with("v_mfma_scale_")));
        }
        other => panic!("{other:?}"),
    }
    // The unscaled bare mnemonic still names only unscaled rows.
    match find("gfx950", None, "v_mfma_f32_32x32x64_f8f6f4") {
        Err(mma_amd::CatalogError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates.len(), 25);
            assert!(candidates.iter().all(|c| !c.contains("scale")));
        }
        other => panic!("{other:?}"),
    }
    assert!(find("CDNA3", None, "v_mfma_scale_f32_16x16x128_f8f6f4_fp8_fp8").is_err());
}

#[test]
fn cdna4_scaled_hand_derived() {
    let u = find("gfx950", None, "scale_f32_16x16x128_f8f6f4_fp8_fp8")
        .unwrap()
        .unit;
    let one = [0x38u64; 128];
    // K = 128, four scale blocks of 32. A's first scale 128 (×2), every other 127 (×1): 32
    // products of 2 and 96 of 1 = 64 + 96 = 160 = 1.25·2^7 = 0x43200000 (every block of 16
    // sums small integers exactly).
    let s1 = [127u64; 4];
    let mut sa = s1;
    sa[0] = 128;
    assert_eq!(u.dot_scaled(&one, &one, 0, &sa, &s1), 0x4320_0000);
    // Both first scales 128: 32 · 4 + 96 = 224 = 1.75·2^7 = 0x43600000.
    assert_eq!(u.dot_scaled(&one, &one, 0, &sa, &sa), 0x4360_0000);
    // fp4 × fp4 (e2m1 1.0 = 0x2) on the 32x32x64 form: scales 129 and 125 (×4, ×1/4) cancel:
    // 64 products of 1 = 64 = 0x42800000.
    let v = find("gfx950", None, "v_mfma_scale_f32_32x32x64_f8f6f4_fp4_fp4")
        .unwrap()
        .unit;
    let fp4 = [0x2u64; 64];
    assert_eq!(
        v.dot_scaled(&fp4, &fp4, 0, &[129, 129], &[125, 125]),
        0x4280_0000
    );
    // A NaN scale (0xff) gives CDNA4's NaN, the default quiet NaN 0x7fc00000, also with zero
    // products.
    let mut nan = s1;
    nan[3] = 0xff;
    assert_eq!(u.dot_scaled(&one, &one, 0, &s1, &nan), 0x7fc0_0000);
    assert_eq!(u.dot_scaled(&[0; 128], &one, 0, &nan, &s1), 0x7fc0_0000);
    // Scale 2^-127 (0x00) for A's first scale block: its products are 2^-127 each. The first
    // block of 16 sums them to 2^-123 (C = +0 counts at 2^-126: both kept, exact), the second
    // block adds 2^-123 more: 2^-122 (normal fp32, exact). The third block's products are 1
    // (e_max = 0), and C = 2^-122 lies more than 25 bits below e_max: dropped. So
    // 16 + 16 + 16 + 16 + 16 + 16 = 96 = 0x42c00000, where the unscaled sum is 128.
    let mut tiny = s1;
    tiny[0] = 0;
    assert_eq!(u.dot_scaled(&one, &one, 0, &tiny, &s1), 0x42c0_0000);
}

/// A random e4m3 element (zero one time in eight, else a normal of exponent -3..=4) and the
/// same element times 2^shift (`shift` in -3..=3: still a normal, exponent -6..=7).
fn e4m3_pair(rng: &mut rand_xoshiro::Xoshiro256PlusPlus, shift: i32) -> (u64, u64) {
    use rand::Rng;
    let sign = (rng.random::<bool>() as u64) << 7;
    if rng.random_range(0..8) == 0 {
        return (sign, sign);
    }
    let (e, m) = (rng.random_range(-3..=4), rng.random_range(0..8u64));
    let word = |e: i32| sign | ((e + 7) as u64) << 3 | m;
    (word(e), word(e + shift))
}

#[test]
fn cdna4_scaled_equals_unscaled_on_premultiplied_inputs() {
    use rand::{Rng, SeedableRng};
    // A ue8m0 scale is a power of two, so a scaled block is the unscaled block with each
    // element multiplied by its scale, wherever that is an e4m3 normal (the same value and the
    // same exponent, hence the same alignment): scales 2^-3..2^3 on elements of exponent
    // -3..=4. B: scaled as A in half the cases, else any word (NaN, subnormals) with scale 1.
    // C: zero, near the products, near the drop threshold, or any word. 2 × 300 cases.
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(58);
    for shape in ["16x16x128", "32x32x64"] {
        let scaled = format!("scale_f32_{shape}_f8f6f4_fp8_fp8");
        let s = find("gfx950", None, &scaled).unwrap();
        let p = find("gfx950", None, &format!("f32_{shape}_f8f6f4_fp8_fp8")).unwrap();
        let k = s.k;
        for case in 0..300 {
            let scale_b = case % 2 == 0;
            let sa: Vec<u64> = (0..k / 32).map(|_| rng.random_range(124..=130)).collect();
            let sb: Vec<u64> = (0..k / 32)
                .map(|_| {
                    if scale_b {
                        rng.random_range(124..=130)
                    } else {
                        127
                    }
                })
                .collect();
            let (mut a, mut a_pre, mut b, mut b_pre) = (vec![], vec![], vec![], vec![]);
            for i in 0..k {
                let (x, x_pre) = e4m3_pair(&mut rng, sa[i / 32] as i32 - 127);
                a.push(x);
                a_pre.push(x_pre);
                let (y, y_pre) = if scale_b {
                    e4m3_pair(&mut rng, sb[i / 32] as i32 - 127)
                } else {
                    let w = rng.random::<u64>() & 0xff;
                    (w, w)
                };
                b.push(y);
                b_pre.push(y_pre);
            }
            let mut near = |lo: u64, hi: u64| {
                (rng.random_range(lo..=hi) << 23) | (rng.random::<u64>() & 0x807f_ffff)
            };
            let c = match case % 4 {
                0 => 0,
                1 => near(120, 134),
                2 => near(95, 110),
                _ => rng.random::<u64>() & 0xffff_ffff,
            };
            assert_eq!(
                s.unit.dot_scaled(&a, &b, c, &sa, &sb),
                p.unit.dot(&a_pre, &b_pre, c),
                "{scaled} case {case}\na {a:x?}\nb {b:x?}\nc {c:x}\nsa {sa:?}\nsb {sb:?}"
            );
        }
    }
}
