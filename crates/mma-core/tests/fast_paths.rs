//! The fast paths against the plain ones: whole dot products of hand-built units on random inputs with specials, zeros and subnormals, and for
//! the AMD models (FTZ-MulAdd, TR-FDPA, GTR-FDPA) inputs built for their corner cases:
//! cancellations, large exponent spreads, products near `2^128`, C near the drop threshold.
//! (The whole AMD catalog is checked the same way in mma-amd's `fast_catalog` test; the decode
//! tables and the direct rounding are tested inside the crate, `src/kernel/checks.rs`.)

use mma_core::format::{self, Format, Specials};
use mma_core::model::NanStyle;
use mma_core::models::e_fdpa::EFdpa;
use mma_core::models::ftz_mul_add::FtzMulAdd;
use mma_core::models::gst_fdpa::GstFdpa;
use mma_core::models::gtr_fdpa::GtrFdpa;
use mma_core::models::sliced_fdpa::SlicedFdpa;
use mma_core::models::tr_fdpa::TrFdpa;
use mma_core::{DotUnit, Formats, Model, Rounding, Value};

use crate::common;

use common::{amd_out, compare_batch, compare_batch_with, nv_out, tfdpa, word};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn compare(unit: &DotUnit, k: usize, n: usize, seed: u64) {
    let kern = unit.kernel();
    // Every unit here has a per-dot kernel (tf32 through its arithmetic decoder).
    assert!(kern.is_fast(), "{unit:?}");
    let f = &unit.formats;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let s = unit.scales_for(k);
    let sf = f.scale.map_or(format::UE8M0, |(x, _)| x);
    let (mut cases, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let a: Vec<u64> = (0..k).map(|_| word(&f.a, &mut rng)).collect();
        let b: Vec<u64> = (0..k).map(|_| word(&f.b, &mut rng)).collect();
        let c = word(&f.c, &mut rng);
        let sa: Vec<u64> = (0..s).map(|_| word(&sf, &mut rng)).collect();
        let sb: Vec<u64> = (0..s).map(|_| word(&sf, &mut rng)).collect();
        // Half of the cases with specials removed, so that the fast path really runs.
        let clean = |fmt: &Format, w: u64| match fmt.decode(w) {
            Value::Nan | Value::Inf { .. } => 0,
            _ => w,
        };
        let (a, b, c) = if rng.random::<bool>() {
            (
                a.iter().map(|&w| clean(&f.a, w)).collect(),
                b.iter().map(|&w| clean(&f.b, w)).collect(),
                clean(&f.c, c),
            )
        } else {
            (a, b, c)
        };
        let want = unit.dot_plain_scaled(&a, &b, c, &sa, &sb);
        assert_eq!(
            kern.dot_scaled(&a, &b, c, &sa, &sb),
            want,
            "{unit:?}\na {a:x?}\nb {b:x?}\nc {c:x}\nsa {sa:x?} sb {sb:x?}"
        );
        cases.push((a, b, c, sa, sb));
        plain.push(want);
    }
    compare_batch_with(unit, k, &cases, &plain);
}

#[test]
fn tfdpa_fast_matches_plain() {
    let rz32 = nv_out(format::FP32, Rounding::TowardZero, true);
    let e8m13 = nv_out(format::E8M13, Rounding::TowardZero, true);
    let rne16 = nv_out(format::FP16, Rounding::NearestEven, true);
    let rd32 = nv_out(format::FP32, Rounding::Down, false);
    let (f16, bf16, f32) = (format::FP16, format::BF16, format::FP32);
    let units = [
        tfdpa(f16, f16, f32, rz32, f32, 25, 16),
        tfdpa(f16, f16, f16, rne16, f16, 24, 8),
        tfdpa(bf16, bf16, f32, rz32, f32, 24, 8),
        tfdpa(bf16, bf16, f32, rd32, f32, 23, 4),
        tfdpa(format::E4M3, format::E4M3, f32, e8m13, f32, 13, 16),
        tfdpa(format::E5M2, format::E4M3, f16, rne16, f16, 25, 32),
        tfdpa(format::E2M1, format::E3M2, f32, rz32, f32, 25, 32),
        tfdpa(format::E2M3, format::E5M2, f32, rz32, f32, 25, 64),
        // The vector block (AVX2 builds): every format pair it decodes, blocks of 8 to 64 at
        // the largest F whose sums fit its 32-bit lanes, and one F too large for them.
        tfdpa(bf16, bf16, f32, rz32, f32, 25, 16),
        tfdpa(f16, f16, f32, rz32, f32, 26, 8),
        tfdpa(f16, f16, f32, rz32, f32, 26, 16),
        tfdpa(format::E5M2, format::E5M2, f32, e8m13, f32, 24, 32),
        tfdpa(format::E4M3, format::E5M2, f32, rz32, f32, 23, 64),
        tfdpa(format::E5M2, format::E4M3, f16, rne16, f16, 13, 32),
        tfdpa(format::E4M3, format::E4M3, f32, rz32, f32, 25, 32),
        tfdpa(format::E2M1, format::E2M1, f32, rz32, f32, 26, 8),
        tfdpa(format::E3M2, format::E3M2, f32, rz32, f32, 24, 32),
        tfdpa(format::E2M3, format::E2M3, f32, rz32, f32, 23, 64),
        // Mixed fp8/fp6/fp4 pairs of `kind::f8f6f4` (F = 25, blocks of 32: the lanes sum each
        // half of the block in i32).
        tfdpa(format::E2M1, format::E4M3, f32, rz32, f32, 25, 32),
        tfdpa(format::E5M2, format::E2M3, f32, rz32, f32, 25, 32),
        tfdpa(format::E3M2, format::E2M1, f32, rz32, f32, 25, 32),
        // tf32 (Hopper/Blackwell F = 25, blocks of 8; Ampere F = 24, blocks of 4).
        tfdpa(format::TF32, format::TF32, f32, rz32, f32, 25, 8),
        tfdpa(format::TF32, format::TF32, f32, rz32, f32, 24, 16),
        tfdpa(format::TF32, format::TF32, f32, rz32, f32, 24, 4),
        // Blocks of four in lanes (Volta fp16 F = 23 to fp32 and to fp16; bf16).
        tfdpa(f16, f16, f32, rz32, f32, 23, 4),
        tfdpa(f16, f16, f16, rne16, f16, 23, 4),
        tfdpa(bf16, bf16, f32, rz32, f32, 24, 4),
        // Volta fp16 C with fp32 D: the lanes widen C (subnormal fp16 C per dot).
        tfdpa(f16, f16, f16, rz32, f32, 23, 4),
        tfdpa(f16, f16, f16, rz32, f32, 24, 8),
    ];
    let avx2 = mma_core::Isa::detect() != mma_core::Isa::Portable;
    for u in &units[units.len() - 2..] {
        assert_eq!(u.kernel().is_batched_for(u.block), avx2, "{}", u.describe());
    }
    for (i, u) in units.iter().enumerate() {
        // K below the block too: a shorter first block (8 takes the vector path, 4 does not).
        for k in [4, 8, u.block, 2 * u.block, 3 * u.block] {
            compare(u, k, 3000, i as u64 * 100 + k as u64);
        }
    }
}

/// Sliced-FDPA (Hopper/Blackwell `mma.sync` fp8): its passes through the T-FDPA kernel, C
/// added last; fp16 passes with RNE (H100, B200) and fp32 passes with RZ (B200), the last
/// addition RNE or RZ, K of one and two blocks, and a block whose passes have lengths the
/// T-FDPA kernel does not take (plain model).
#[test]
fn sliced_fast_matches_plain() {
    let rz32 = nv_out(format::FP32, Rounding::TowardZero, true);
    let rne16 = nv_out(format::FP16, Rounding::NearestEven, true);
    let (e4, e5, f16, f32) = (format::E4M3, format::E5M2, format::FP16, format::FP32);
    let sliced = |a, b, cd, out, block, group, last| {
        let t = tfdpa(a, b, cd, out, cd, 25, block);
        let Model::TFdpa(pass) = t.model else {
            unreachable!("tfdpa() builds a T-FDPA unit")
        };
        DotUnit {
            model: Model::SlicedFdpa(SlicedFdpa {
                pass,
                group,
                passes: 2,
                last,
                last_format: None,
            }),
            ..t
        }
    };
    let units = [
        sliced(e4, e4, f16, rne16, 32, 2, Rounding::NearestEven),
        sliced(e5, e4, f16, rne16, 32, 2, Rounding::NearestEven),
        sliced(e4, e5, f32, rz32, 32, 2, Rounding::NearestEven),
        sliced(e5, e5, f32, rz32, 16, 4, Rounding::TowardZero),
    ];
    let avx2 = mma_core::Isa::detect() != mma_core::Isa::Portable;
    for (i, u) in units.iter().enumerate() {
        // Whole blocks run their passes in lanes (`sliced_dots`), K = 12 one dot at a time.
        let kern = u.kernel();
        assert_eq!(kern.is_batched_for(u.block), avx2, "{}", u.describe());
        assert_eq!(kern.is_batched_for(2 * u.block), avx2, "{}", u.describe());
        assert!(!kern.is_batched_for(12), "{}", u.describe());
        for k in [u.block, 2 * u.block, 12] {
            compare(u, k, 3000, 4000 + i as u64 * 100 + k as u64);
        }
    }
}

#[test]
fn gst_fast_matches_plain() {
    let rz32 = nv_out(format::FP32, Rounding::TowardZero, true);
    for (sf, per) in [
        (format::UE4M3, 16),
        (format::UE8M0, 32),
        (format::UE8M0, 16),
    ] {
        let unit = DotUnit {
            formats: Formats {
                a: format::E2M1,
                b: format::E2M1,
                c: format::FP32,
                d: format::FP32,
                scale: Some((sf, per)),
            },
            block: 64,
            model: Model::GstFdpa(GstFdpa {
                g: 16,
                f: 35,
                e_zero: -139,
                group_floor: None,
                out: rz32,
            }),
        };
        // The per-dot vector block is compiled for x86-64 (AVX2) only; GST-FDPA's lanes for
        // every vector instruction set (AVX2, AVX-512 through AVX2's, NEON).
        let isa = mma_core::Isa::detect();
        let avx2 = matches!(isa, mma_core::Isa::Avx2 | mma_core::Isa::Avx512);
        assert_eq!(unit.kernel().is_vector(), avx2);
        // The lane path (`Kernel::dots`) takes a scale per 16 or 32 elements.
        assert_eq!(unit.kernel().is_batched(), isa != mma_core::Isa::Portable);
        compare(&unit, 64, 20_000, per as u64);
        compare(&unit, 128, 5_000, per as u64 + 1);
        let small = DotUnit { block: 32, ..unit };
        compare(&small, 32, 5_000, per as u64 + 2);
        gst_cancel(&unit, 20_000, per as u64 + 3);
        // Round to nearest even (no catalog unit does; the lanes support it).
        let rne = DotUnit {
            model: Model::GstFdpa(GstFdpa {
                g: 16,
                f: 35,
                e_zero: -139,
                group_floor: None,
                out: nv_out(format::FP32, Rounding::NearestEven, false),
            }),
            ..unit
        };
        compare(&rne, 64, 5_000, per as u64 + 4);
        gst_cancel(&rne, 5_000, per as u64 + 5);
    }
}

/// GST-FDPA fp4 blocks whose groups cancel exactly (the group sum is 0 but its scale still
/// counts for the largest exponent), with finite scales of any size (zero included) and C
/// near the products' scale, subnormal or zero.
fn gst_cancel(unit: &DotUnit, n: usize, seed: u64) {
    let kern = unit.kernel();
    let f = &unit.formats;
    let (sf, _) = f.scale.unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let k = 64;
    let s = unit.scales_for(k);
    let sign = sign_bit(&f.b);
    let (mut cases, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let mut a: Vec<u64> = (0..k).map(|_| rng.random_range(0..16)).collect();
        let mut b: Vec<u64> = (0..k).map(|_| rng.random_range(0..16)).collect();
        for g in 0..k / 16 {
            match rng.random_range(0..3) {
                0 => {
                    // Every pair cancels: the group sum is exactly zero.
                    for i in (16 * g..16 * g + 16).step_by(2) {
                        a[i + 1] = a[i];
                        b[i + 1] = b[i] ^ sign;
                    }
                }
                1 => {
                    a[16 * g..16 * g + 16].fill(0);
                }
                _ => {}
            }
        }
        let finite = |rng: &mut Xoshiro256PlusPlus| loop {
            let w = word(&sf, rng);
            if !matches!(sf.decode(w), Value::Nan | Value::Inf { .. }) {
                return w;
            }
        };
        let sa: Vec<u64> = (0..s).map(|_| finite(&mut rng)).collect();
        let sb: Vec<u64> = (0..s).map(|_| finite(&mut rng)).collect();
        let c = match rng.random_range(0..4) {
            0 => 0,
            1 => rng.random::<u64>() & 0x807f_ffff,
            2 => 0x8000_0000,
            _ => word(&f.c, &mut rng),
        };
        let want = unit.dot_plain_scaled(&a, &b, c, &sa, &sb);
        assert_eq!(
            kern.dot_scaled(&a, &b, c, &sa, &sb),
            want,
            "{unit:?}\na {a:x?}\nb {b:x?}\nc {c:x}\nsa {sa:x?} sb {sb:x?}"
        );
        cases.push((a, b, c, sa, sb));
        plain.push(want);
    }
    compare_batch_with(unit, k, &cases, &plain);
}

/// A word of `fmt` with scientific exponent `e` clamped to the normal range, a random mantissa
/// and sign.
fn near(fmt: &Format, e: i32, rng: &mut impl Rng) -> u64 {
    let top = (1i32 << fmt.exp_bits) - if fmt.specials == Specials::Ieee { 2 } else { 1 };
    let field = (e + fmt.bias).clamp(1, top) as u64;
    let man = rng.random::<u64>() & ((1u64 << fmt.man_bits) - 1);
    let sign = if fmt.signed && rng.random::<bool>() {
        1u64 << (fmt.exp_bits + fmt.man_bits)
    } else {
        0
    };
    (sign | field << fmt.man_bits | man) << fmt.lsb
}

/// Normal exponent range of a format.
fn e_range(fmt: &Format) -> (i32, i32) {
    let top = (1i32 << fmt.exp_bits) - if fmt.specials == Specials::Ieee { 2 } else { 1 };
    (1 - fmt.bias, top - fmt.bias)
}

/// The sign bit of a signed format's storage word.
fn sign_bit(fmt: &Format) -> u64 {
    1u64 << (fmt.lsb + fmt.exp_bits + fmt.man_bits)
}

/// Operands for the AMD models' corner cases: elements around a random centre exponent with a
/// random spread (0 to 40 binades), random words (specials, subnormals), zeros, pairs that
/// cancel exactly (next or next-but-one element, for GTR-FDPA's even/odd groups), products
/// near 2^128, and a C that cancels a product or the whole sum, sits near the C-drop threshold
/// `e_max - 25`, or is subnormal, zero or special.
pub fn amd_case(f: &Formats, k: usize, rng: &mut impl Rng) -> (Vec<u64>, Vec<u64>, u64) {
    let (lo_a, hi_a) = e_range(&f.a);
    let (lo_b, hi_b) = e_range(&f.b);
    let (ca, cb) = if rng.random_range(0..8) == 0 {
        // Products near the Inf threshold of TR-FDPA (only reachable with bf16).
        (
            hi_a.min(63) + rng.random_range(-1..=1),
            hi_b.min(64) + rng.random_range(-1..=1),
        )
    } else {
        (rng.random_range(lo_a..=hi_a), rng.random_range(lo_b..=hi_b))
    };
    let spread = [0, 1, 3, 12, 40][rng.random_range(0..5)];
    let elem = |fmt: &Format, centre: i32, rng: &mut Xoshiro256PlusPlus| -> u64 {
        match rng.random_range(0..12) {
            0 => word(fmt, rng),
            1 => 0,
            2 if fmt.specials == Specials::Ieee => sign_bit(fmt),
            _ => near(fmt, centre + rng.random_range(-spread..=spread), rng),
        }
    };
    let mut r = Xoshiro256PlusPlus::seed_from_u64(rng.random());
    let mut a: Vec<u64> = (0..k).map(|_| elem(&f.a, ca, &mut r)).collect();
    let mut b: Vec<u64> = (0..k).map(|_| elem(&f.b, cb, &mut r)).collect();
    let cancel = rng.random_range(0..3);
    if cancel > 0 && k >= 2 {
        let step = cancel; // 1: neighbours, 2: same parity
        for i in (0..k.saturating_sub(step)).step_by(2 * step) {
            if f.b.signed && rng.random_range(0..4) != 0 {
                a[i + step] = a[i];
                b[i + step] = b[i] ^ sign_bit(&f.b);
            }
        }
    }
    let val = |fmt: &Format, w: u64| fmt.decode(w).to_f64();
    let prods: Vec<f64> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| val(&f.a, x) * val(&f.b, y))
        .collect();
    let c = match rng.random_range(0..9) {
        0 => word(&f.c, rng),
        1 => 0,
        2 => sign_bit(&f.c),
        3 => ((-prods[0]) as f32).to_bits() as u64,
        4 => ((-prods.iter().sum::<f64>()) as f32).to_bits() as u64,
        5 => {
            // Around the drop threshold: e_max is about ca + cb (+1).
            near(&f.c, ca + cb + rng.random_range(-28..=-22), rng)
        }
        6 => rng.random::<u64>() & 0x807f_ffff, // subnormal fp32
        _ => near(&f.c, ca + cb + rng.random_range(-4..=4), rng),
    };
    let c = c & f.c.storage_mask();
    (a, b, c)
}

/// The fast path of `unit` against its plain model on `n` [`amd_case`]s and `n` cases of
/// random words, for `k` elements.
fn compare_amd(unit: &DotUnit, k: usize, n: usize, seed: u64) {
    let kern = unit.kernel();
    assert!(kern.is_fast(), "{unit:?}");
    let f = &unit.formats;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut cases, mut plain) = (Vec::new(), Vec::new());
    for i in 0..2 * n {
        let (a, b, c) = if i % 2 == 0 {
            amd_case(f, k, &mut rng)
        } else {
            (
                (0..k).map(|_| word(&f.a, &mut rng)).collect(),
                (0..k).map(|_| word(&f.b, &mut rng)).collect(),
                word(&f.c, &mut rng),
            )
        };
        let want = unit.dot_plain(&a, &b, c);
        assert_eq!(
            kern.dot(&a, &b, c),
            want,
            "{}\na {a:x?}\nb {b:x?}\nc {c:x}",
            unit.describe()
        );
        cases.push((a, b, c, vec![], vec![]));
        plain.push(want);
    }
    compare_batch_with(unit, k, &cases, &plain);
}

fn amd_formats(a: Format, b: Format) -> Formats {
    Formats {
        a,
        b,
        c: format::FP32,
        d: format::FP32,
        scale: None,
    }
}

#[test]
fn ftz_mul_add_fast_matches_plain() {
    for (fmt, p) in [
        (format::FP16, 4),
        (format::BF16, 4),
        (format::BF16, 2),
        (format::FP16, 2),
        (format::BF16, 8),
    ] {
        for (k, block) in [(2, 2), (4, 4), (8, 8), (16, 16), (6, 6), (16, 8), (12, 4)] {
            let unit = DotUnit {
                formats: amd_formats(fmt, fmt),
                block,
                model: Model::FtzMulAdd(FtzMulAdd {
                    p,
                    acc: format::FP32,
                    nan: NanStyle::DefaultQuiet,
                }),
            };
            compare_amd(&unit, k, 4000, (p * 100 + k) as u64);
        }
    }
}

#[test]
fn ftz_native_flush_boundaries() {
    // Products and sums that land exactly at, just below and just above 2^-126, whose flush
    // decides the result; all through the fast path and the plain model.
    let unit = DotUnit {
        formats: amd_formats(format::BF16, format::BF16),
        block: 4,
        model: Model::FtzMulAdd(FtzMulAdd {
            p: 4,
            acc: format::FP32,
            nan: NanStyle::DefaultQuiet,
        }),
    };
    let kern = unit.kernel();
    let bf = |x: f32| (x.to_bits() >> 16) as u64;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for _ in 0..200_000 {
        // x·y near 2^-126: exponents summing to about -126, random mantissas and signs.
        let ex = rng.random_range(-126..=0);
        let ey = -126 - ex + rng.random_range(-2..=1);
        let mut a = [0u64; 4];
        let mut b = [0u64; 4];
        for i in 0..4 {
            let mx = 1.0 + rng.random_range(0..128) as f32 / 128.0;
            let my = 1.0 + rng.random_range(0..128) as f32 / 128.0;
            let sx = if rng.random::<bool>() { -1.0 } else { 1.0 };
            a[i] = bf(sx * mx * 2f32.powi(ex));
            b[i] = bf(my * 2f32.powi(ey.clamp(-126, 127)));
        }
        let c = (rng.random::<u32>() & 0x80ff_ffff) as u64;
        assert_eq!(
            kern.dot(&a, &b, c),
            unit.dot_plain(&a, &b, c),
            "a {a:x?} b {b:x?} c {c:x}"
        );
    }
}

fn tr_unit(a: Format, b: Format, block: usize, e_zero_c: i32, f: u32) -> DotUnit {
    DotUnit {
        formats: amd_formats(a, b),
        block,
        model: Model::TrFdpa(TrFdpa {
            f,
            f2: 31,
            e_zero_c,
            e_norm_min: -126,
            product_inf_exp: Some(128),
            out: amd_out(),
        }),
    }
}

/// E-FDPA (CDNA1 fp16 blocks of 4, bf16 blocks of 2, and other lengths, chained K and a last
/// block shorter than the rest), with RNE and, for the sign of exact zeros, RD output. The
/// cases put C at the products' scale, far from them (the kernel leaves those to the plain
/// model), cancelling them, subnormal, zero or special.
#[test]
fn efdpa_fast_matches_plain() {
    let mut seed = 3000;
    for (fmt, block) in [
        (format::FP16, 4),
        (format::BF16, 2),
        (format::FP16, 1),
        (format::BF16, 8),
        (format::FP16, 16),
        (format::E4M3, 4),
    ] {
        for mode in [Rounding::NearestEven, Rounding::Down] {
            let mut out = amd_out();
            out.rho.mode = mode;
            let unit = DotUnit {
                formats: amd_formats(fmt, fmt),
                block,
                model: Model::EFdpa(EFdpa { out }),
            };
            // The lanes (AVX2): fp16 and bf16, blocks of 2 to 16, round to nearest even.
            let lanes = mma_core::Isa::detect() != mma_core::Isa::Portable
                && (fmt == format::FP16 || fmt == format::BF16)
                && block >= 2
                && mode == Rounding::NearestEven;
            assert_eq!(
                unit.kernel().is_batched_for(2 * block),
                lanes,
                "{}",
                unit.describe()
            );
            for k in [block, 2 * block, 3 * block + block / 2] {
                seed += 1;
                compare_amd(&unit, k, 3000, seed);
            }
        }
    }
}

/// The E-FDPA lanes' exactness bound and tie rule (`lanes/e_fdpa.rs`), where an `f64` sum that
/// dropped a bit would round differently: C = 2^m, a product 2^(m-24) (a tie for fp32's last
/// place) and a second, tiny product p with a full significand (|p| < 4 · 2^t, t the sum of its
/// factors' exponents, t <= m - 25). Exactly, for p > 0 the sum is above the tie and below
/// 2^m + 3 · 2^(m-24) and rounds up to 2^m + 2^(m-23); for p < 0 (taken where t <= m - 27, so
/// |p| < 2^(m-25)) it lies between 2^m and the tie and rounds down to 2^m. An `f64` sum that
/// lost p (p below half of its last place, 2^(m-53)) is the tie itself,
/// which alone would round to even, 2^m: right for p < 0 by chance, wrong for p > 0. Swept
/// over m, p's exponent and sign, lanes against the plain model: without the bound (every sum
/// taken as exact) the far cases with p > 0 fail. The blocks of two (`lanes/e_fdpa_sum3.rs`)
/// take the half-ulp product and p as an `f32` sum rounded to odd, which keeps it off the
/// tie: without that rounding the cases with p > 0 fail there, and the cases with p < 0
/// check the other direction of its step.
#[test]
fn efdpa_lanes_window_boundary() {
    let pow2 = |fmt: &Format, e: i32| ((e + fmt.bias) as u64) << fmt.man_bits << fmt.lsb;
    for (fmt, block) in [(format::FP16, 4), (format::BF16, 2)] {
        let unit = DotUnit {
            formats: amd_formats(fmt, fmt),
            block,
            model: Model::EFdpa(EFdpa { out: amd_out() }),
        };
        let (lo, hi) = e_range(&fmt);
        // The largest significand: all mantissa bits set (odd, ma + 1 bits).
        let full = |e: i32| pow2(&fmt, e) | (((1u64 << fmt.man_bits) - 1) << fmt.lsb);
        let (mut cases, mut plain) = (Vec::new(), Vec::new());
        let mut tie_cases = 0;
        for m in (2 * lo + 24).max(-120)..=(2 * hi + 24).min(120) {
            let (i1, j1) = ((m - 24) / 2, (m - 24) - (m - 24) / 2);
            for t in (2 * lo).max(m - 110)..m - 24 {
                let (i2, j2) = (t / 2, t - t / 2);
                if i2 < lo || j2 < lo || i1 > hi || j1 > hi {
                    continue;
                }
                for (sign, up) in [(0, 1), (1u64 << (fmt.storage_bits - 1), 0)] {
                    if up == 0 && t > m - 27 {
                        continue;
                    }
                    let mut a = vec![pow2(&fmt, i1), full(i2)];
                    let mut b = vec![pow2(&fmt, j1), full(j2) | sign];
                    a.resize(block, 0);
                    b.resize(block, 0);
                    let c = ((m + 127) as u64) << 23;
                    let want = unit.dot_plain(&a, &b, c);
                    // The hand derivation above: up for p > 0, down (C itself) for p < 0.
                    assert_eq!(want, c + up, "m {m} t {t} up {up}");
                    tie_cases += 1;
                    cases.push((a, b, c, vec![], vec![]));
                    plain.push(want);
                }
            }
        }
        assert!(tie_cases > 1000, "{tie_cases}");
        // Pad to a multiple of eight with copies, so that every case goes through the lanes.
        while cases.len() % 8 != 0 {
            cases.push(cases[0].clone());
            plain.push(plain[0]);
        }
        compare_batch_with(&unit, block, &cases, &plain);
    }
}

/// E-FDPA chains whose C is infinite with every product finite (CDNA1 bf16, blocks of 2, K =
/// 4): IEEE addition gives that Inf, which the lanes now pass on instead of leaving the lane to
/// the per-dot kernel. Hand derivation per case (bf16 2^e is `(e + 127) << 7`, 1.0 = 0x3F80):
/// a first block 2^100 · 2^100 = 2^200 overflows fp32 to +Inf (round to nearest), and the
/// second block then adds finite products to it; -Inf plus 2^200 stays -Inf.
#[test]
fn efdpa_lanes_pass_an_infinite_c_on() {
    let unit = DotUnit {
        formats: amd_formats(format::BF16, format::BF16),
        block: 2,
        model: Model::EFdpa(EFdpa { out: amd_out() }),
    };
    let (big, nbig, one, none) = (0x7180u64, 0xF180u64, 0x3F80u64, 0xBF80u64);
    let (pinf, ninf) = (0x7f80_0000u64, 0xff80_0000u64);
    // (a, b, c, D)
    type Case4 = ([u64; 4], [u64; 4], u64, u64);
    let cases: [Case4; 8] = [
        ([big, 0, one, one], [big, 0, one, one], 0, pinf),
        ([nbig, 0, one, one], [big, 0, one, one], 0, ninf),
        ([one; 4], [none; 4], pinf, pinf),
        ([big, 0, one, 0], [big, 0, one, 0], ninf, ninf),
        // Finite control: 1 + 4 · 1 · 1 = 5.
        ([one; 4], [one; 4], 0x3f80_0000, 0x40a0_0000),
        ([0; 4], [0; 4], pinf, pinf),
        ([big, 0, 0, 0], [nbig, 0, 0, 0], pinf, pinf),
        ([one; 4], [one; 4], ninf, ninf),
    ];
    let kern = unit.kernel();
    let flat = |f: fn(&Case4) -> &[u64; 4]| -> Vec<u64> {
        cases.iter().flat_map(|x| f(x).iter().copied()).collect()
    };
    let (a, b) = (flat(|x| &x.0), flat(|x| &x.1));
    let c: Vec<u64> = cases.iter().map(|x| x.2).collect();
    let mut d = vec![0u64; 8];
    kern.dots(4, &a, &b, &c, &mut d).unwrap();
    let want: Vec<u64> = cases.iter().map(|x| x.3).collect();
    assert_eq!(d, want);
    for (x, &w) in cases.iter().zip(&want) {
        assert_eq!(unit.dot_plain(&x.0, &x.1, x.2), w);
    }
    let batch: Vec<_> = cases
        .iter()
        .map(|x| (x.0.to_vec(), x.1.to_vec(), x.2, vec![], vec![]))
        .collect();
    compare_batch(&unit, 4, &batch);
}

#[test]
fn tr_fdpa_fast_matches_plain() {
    let (f16, bf16) = (format::FP16, format::BF16);
    let units = [
        tr_unit(f16, f16, 8, -126, 24),
        tr_unit(bf16, bf16, 8, -126, 24),
        tr_unit(bf16, bf16, 4, -126, 24),
        tr_unit(f16, f16, 4, -100, 24),
        tr_unit(bf16, bf16, 8, -140, 20),
        tr_unit(format::E4M3_FNUZ, format::E5M2_FNUZ, 8, -126, 24),
        tr_unit(format::E5M2, format::E4M3, 16, -126, 24),
        tr_unit(format::E4M3_FNUZ, format::E4M3_FNUZ, 16, -126, 24),
        tr_unit(format::E5M2_FNUZ, format::E5M2_FNUZ, 8, -126, 24),
        tr_unit(bf16, bf16, 16, -126, 24),
        tr_unit(f16, f16, 16, -126, 25),
        // CDNA3 xf32: tf32 in fp32 words, blocks of 4.
        tr_unit(format::TF32, format::TF32, 4, -126, 24),
    ];
    // The vector block (x86-64 with AVX2 only) runs these format pairs for blocks of 8 and 16;
    // the lanes every unit here, for whole blocks and (blocks above 4) a last block of 4.
    let avx2 = matches!(
        mma_core::Isa::detect(),
        mma_core::Isa::Avx2 | mma_core::Isa::Avx512
    );
    for u in &units {
        let kern = u.kernel();
        assert_eq!(
            kern.is_vector(),
            avx2 && u.block % 8 == 0,
            "{}",
            u.describe()
        );
        // The lanes: every vector instruction set (AVX2, AVX-512, NEON).
        let lanes = mma_core::Isa::detect() != mma_core::Isa::Portable;
        assert_eq!(kern.is_batched_for(u.block), lanes, "{}", u.describe());
        assert_eq!(kern.is_batched_for(u.block + 4), lanes, "{}", u.describe());
        assert!(!kern.is_batched_for(u.block + 2), "{}", u.describe());
    }
    for (i, u) in units.iter().enumerate() {
        // Whole blocks, and a shorter last block (alone, or after whole ones).
        for k in [
            u.block,
            2 * u.block,
            4 * u.block,
            4,
            2 * u.block + 4,
            u.block + 2,
        ] {
            compare_amd(u, k, 5000, 1000 + i as u64 * 100 + k as u64);
        }
    }
}

#[test]
fn gtr_fdpa_fast_matches_plain() {
    let (e4, e5) = (format::E4M3_FNUZ, format::E5M2_FNUZ);
    let gtr = |a, b, block, c_drop, e_zero_c| DotUnit {
        formats: amd_formats(a, b),
        block,
        model: Model::GtrFdpa(GtrFdpa {
            f: 24,
            f2: 31,
            e_zero_c,
            e_norm_min: -126,
            c_drop,
            out: amd_out(),
        }),
    };
    let units = [
        gtr(e4, e4, 16, 25, -126),
        gtr(e5, e5, 16, 25, -126),
        gtr(e4, e5, 16, 25, -126),
        gtr(e5, e4, 16, 25, -126),
        gtr(e4, e4, 8, 25, -126),
        gtr(e5, e5, 16, 10, -30),
        gtr(format::FP16, format::FP16, 16, 25, -126),
        gtr(format::BF16, format::BF16, 16, 25, -126),
        gtr(format::E4M3, format::E5M2, 16, 25, -126),
        gtr(e5, e4, 8, 3, -126),
        gtr(e4, e4, 4, 25, -126),
    ];
    for u in &units {
        let want = matches!(
            mma_core::Isa::detect(),
            mma_core::Isa::Avx2 | mma_core::Isa::Avx512
        ) && u.block % 8 == 0;
        assert_eq!(u.kernel().is_vector(), want, "{}", u.describe());
    }
    for (i, u) in units.iter().enumerate() {
        for k in [u.block, 2 * u.block, 4 * u.block] {
            compare_amd(u, k, 5000, 2000 + i as u64 * 100 + k as u64);
        }
    }
}

/// The open questions' alternative parameters (`last_format`, `group_floor`) have no fast
/// path of their own: the kernel must still give the plain model's words, never those of the
/// catalog's unit without them.
#[test]
fn open_question_parameters_give_the_plain_models_words() {
    let sliced: DotUnit = serde_json::from_str(
        r#"{"a":"e4m3","b":"e4m3","c":"f32","d":"f32","L_max":32,"model":"Sliced-FDPA",
        "params":{"F":13,"e_zero":-133,"group":32,"last":"RNE-FP32","nan":"all-ones",
        "neg_zero_to_pos":true,"overflow":"inf","passes":1,"rho":"RZ-E8M13"}}"#,
    )
    .unwrap();
    let floor: DotUnit = serde_json::from_str(
        r#"{"a":"e2m1","b":"e2m1","c":"f32","d":"f32","scale":"ue8m0","scale_block":32,
        "L_max":64,"model":"GST-FDPA","params":{"F":35,"G":16,"e_zero":-4096,
        "group_floor":-174,"nan":"all-ones","neg_zero_to_pos":true,"overflow":"inf",
        "rho":"RZ-FP32"}}"#,
    )
    .unwrap();
    for (i, u) in [sliced, floor].iter().enumerate() {
        // The parameters survive a unit file's round trip.
        let again: DotUnit = serde_json::from_str(&serde_json::to_string(u).unwrap()).unwrap();
        assert_eq!(&again, u);
        let kern = u.kernel();
        let f = &u.formats;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(77 + i as u64);
        let k = u.block;
        let s = u.scales_for(k);
        let sf = f.scale.map_or(format::UE8M0, |(x, _)| x);
        for _ in 0..3000 {
            let a: Vec<u64> = (0..k).map(|_| word(&f.a, &mut rng)).collect();
            let b: Vec<u64> = (0..k).map(|_| word(&f.b, &mut rng)).collect();
            let c = word(&f.c, &mut rng);
            // Small scales too, where the group floor acts.
            let sa: Vec<u64> = (0..s).map(|_| word(&sf, &mut rng) & 0x3f).collect();
            let sb: Vec<u64> = (0..s).map(|_| word(&sf, &mut rng) & 0x3f).collect();
            assert_eq!(
                kern.dot_scaled(&a, &b, c, &sa, &sb),
                u.dot_plain_scaled(&a, &b, c, &sa, &sb),
                "{}\na {a:x?}\nb {b:x?}\nc {c:x}\nsa {sa:x?} sb {sb:x?}",
                u.describe()
            );
        }
    }
}
