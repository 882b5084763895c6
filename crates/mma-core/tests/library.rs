//! The library GEMM (`mma_core::library`): hand-derived cases for each step (the pairwise
//! order, promotion at exactly 128 elements, double rounding to bf16 at a tie, FP8
//! saturation, NaN and Inf rows, K = 0), the binary32 steps against the host's IEEE
//! arithmetic and the `half` crate, and the walk against the unit's own chains composed by
//! hand.

use mma_core::format::{self, E4M3, E5M2, FP32};
use mma_core::library::{
    combine_one, Assign, Epilogue, Fp32, Fp8Overflow, GemmRecipe, LibraryGemm, Narrow, NarrowStep,
    Order, ScaleStep, Scales, Split, SplitK,
};
use mma_core::models::t_fdpa::TFdpa;
use mma_core::{DotUnit, Formats, GemmIn, Model, NanStyle, Output, OutputRounding};
use mma_core::{RoundOpts, Rounding};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The RTX 4060's FP8 unit (Ada `mma.sync` e4m3 → f32): T-FDPA, blocks of 16, 13 fraction
/// bits, e_zero -132, truncated to E8M13, NaN 0x7FFFFFFF, -0 as +0 (the first paper's Ada
/// parameters, as the NVIDIA catalog builds them).
fn ada(a: mma_core::Format, b: mma_core::Format) -> DotUnit {
    DotUnit {
        formats: Formats {
            a,
            b,
            c: FP32,
            d: FP32,
            scale: None,
        },
        block: 16,
        model: Model::TFdpa(TFdpa {
            f: 13,
            e_zero: -132,
            out: Output {
                rho: OutputRounding {
                    fmt: format::E8M13,
                    mode: Rounding::TowardZero,
                    opts: RoundOpts::INF_ON_OVERFLOW,
                },
                nan: NanStyle::AllOnes,
                neg_zero_to_pos: true,
            },
        }),
    }
}

fn cublaslt(tile: usize, assign: Assign) -> GemmRecipe {
    GemmRecipe {
        promote_every: Some(128),
        split_k: SplitK {
            tile,
            assign,
            orders: vec![Order::Serial, Order::Pairwise],
        },
        epilogue: Epilogue {
            scale: ScaleStep::FmaPlusZero,
            narrow: NarrowStep::ViaFp32,
            fp8_overflow: Fp8Overflow::Saturate,
        },
    }
}

const ONE: u32 = 0x3F80_0000;

fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// The host's IEEE result, its NaN made canonical (0x7FFFFFFF).
fn host(x: f32) -> u32 {
    if x.is_nan() {
        0x7FFF_FFFF
    } else {
        x.to_bits()
    }
}

/// A binary32 pattern: random bits, or (often) near specials, subnormals and ties.
fn pattern(rng: &mut Xoshiro256PlusPlus) -> u32 {
    let r: u32 = rng.random();
    match rng.random_range(0..6) {
        0 => r,
        1 => r & 0x807F_FFFF,                              // zero or subnormal
        2 => r | 0x7F80_0000,                              // Inf or NaN
        3 => (r & 0x8000_0000) | 0x3F80_0000 | (r & 0xFF), // near ±1, few bits
        4 => (r & 0x80FF_FFFF) | 0x4B00_0000,              // near 2^23: integer spacing
        _ => (r & 0x8FFF_FFFF) | 0x0080_0000,              // small normals
    }
}

#[test]
fn binary32_steps_are_the_hosts_ieee_arithmetic() {
    let fp = Fp32::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(36);
    for _ in 0..400_000 {
        let (x, y) = (pattern(&mut rng), pattern(&mut rng));
        assert_eq!(fp.add(x, y), host(f(x) + f(y)), "{x:#x} + {y:#x}");
        assert_eq!(fp.mul(x, y), host(f(x) * f(y)), "{x:#x} * {y:#x}");
        // FFMA with a +0 addend: exact zero products give +0 (IEEE: -0 + +0 = +0).
        assert_eq!(
            fp.mul_add_zero(x, y),
            host(f(x).mul_add(f(y), 0.0)),
            "{x:#x} * {y:#x} + 0"
        );
    }
}

#[test]
fn bulk_addition_is_the_same_by_host_or_integer_steps() {
    let fp = Fp32::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(40);
    let acc: Vec<u32> = (0..100_000).map(|_| pattern(&mut rng)).collect();
    let words: Vec<u64> = (0..100_000).map(|_| u64::from(pattern(&mut rng))).collect();
    let (mut host_sum, mut integer_sum) = (acc.clone(), acc);
    fp.add_all(&mut host_sum, &words, true);
    fp.add_all(&mut integer_sum, &words, false);
    assert_eq!(host_sum, integer_sum);
}

#[test]
fn narrowing_is_round_to_nearest_even() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(37);
    let (bf, hf) = (
        Narrow::new(format::BF16, false),
        Narrow::new(format::FP16, false),
    );
    for _ in 0..400_000 {
        let x = pattern(&mut rng);
        let v = f(x);
        let want_bf = if v.is_nan() {
            0x7FFF
        } else {
            half::bf16::from_f32(v).to_bits()
        };
        let want_hf = if v.is_nan() {
            0x7FFF
        } else {
            half::f16::from_f32(v).to_bits()
        };
        assert_eq!(bf.apply(x), u64::from(want_bf), "bf16 of {x:#x}");
        assert_eq!(hf.apply(x), u64::from(want_hf), "f16 of {x:#x}");
    }
}

/// The pairwise trees for S = 2..7, written out from the order's definition (`h = ceil(S/2)`;
/// slot i pairs P_i with P_{i+h} unless that is the last partial, which starts the sum).
fn pairwise_by_hand(p: &[f32]) -> f32 {
    match p.len() {
        2 => p[1] + p[0],
        3 => (p[2] + p[0]) + p[1],
        4 => (p[3] + (p[0] + p[2])) + p[1],
        5 => ((p[4] + (p[0] + p[3])) + p[1]) + p[2],
        6 => ((p[5] + (p[0] + p[3])) + (p[1] + p[4])) + p[2],
        7 => (((p[6] + (p[0] + p[4])) + (p[1] + p[5])) + p[2]) + p[3],
        _ => unreachable!(),
    }
}

#[test]
fn the_pairwise_order_for_two_to_seven_parts() {
    let fp = Fp32::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(38);
    for s in 2..=7 {
        for _ in 0..20_000 {
            // Mixed magnitudes, so that the order shows in the rounding.
            let p: Vec<f32> = (0..s)
                .map(|_| {
                    let e = rng.random_range(-30..30);
                    rng.random_range(-1.0f32..1.0) * 2f32.powi(e)
                })
                .collect();
            let bits: Vec<u32> = p.iter().map(|x| x.to_bits()).collect();
            assert_eq!(
                combine_one(&fp, &bits, Order::Pairwise),
                pairwise_by_hand(&p).to_bits(),
                "S = {s}: {p:?}"
            );
        }
        // From S = 3, one input where the orders differ: P_0 = P_1 = 1, the last partial
        // 2^24, the rest 0. Serially 1 + 1 = 2 joins 2^24 exactly (2^24 + 2); pairwise, each
        // 1 (P_0 and P_1 are never paired with each other) meets 2^24 alone, and 2^24 + 1 is
        // a tie that rounds back to the even 2^24.
        if s >= 3 {
            let mut p = vec![0f32; s];
            p[0] = 1.0;
            p[1] = 1.0;
            p[s - 1] = 16_777_216.0;
            let bits: Vec<u32> = p.iter().map(|x| x.to_bits()).collect();
            assert_eq!(
                f(combine_one(&fp, &bits, Order::Serial)),
                16_777_218.0,
                "S = {s}"
            );
            assert_eq!(
                f(combine_one(&fp, &bits, Order::Pairwise)),
                16_777_216.0,
                "S = {s}"
            );
        }
    }
}

/// One row of A and one column of B (K elements, e4m3 words), through the library GEMM.
#[allow(clippy::too_many_arguments)]
fn one_dot(
    unit: &DotUnit,
    recipe: &GemmRecipe,
    a: &[u64],
    b: &[u64],
    fast: bool,
    split: Split,
    scales: Scales,
    out: &mma_core::Format,
) -> u64 {
    let call = LibraryGemm {
        m: 1,
        n: 1,
        k: a.len(),
        a,
        b_cols: b,
        fast_accum: fast,
        split,
    };
    unit.library_gemm(32, recipe, &call, scales, out, 1)
        .expect("a valid call")[0]
}

#[test]
fn promotion_happens_at_exactly_128_elements() {
    // e4m3: 0x70 is 2^7 (biased exponent 14), 0x38 is 1. Element 0 is 2^7 · 2^7 = 2^14; a
    // product 1 · 1 at element j. In one chain, the block holding j aligns 1 to 2^14 with 13
    // fraction bits (quantum 2): truncated away, 16384. Promoted every 128 elements, an
    // element j >= 128 starts a new chain (from +0, giving exactly 1) whose result is added
    // in binary32: 16385. At j = 127 the 1 is still in the first chain: 16384.
    let unit = ada(E4M3, E4M3);
    let recipe = cublaslt(64, Assign::Interleaved);
    for (j, slow, fast) in [(127usize, 16384f32, 16384f32), (128, 16385.0, 16384.0)] {
        let mut a = vec![0u64; 256];
        let mut b = vec![0u64; 256];
        a[0] = 0x70;
        b[0] = 0x70;
        a[j] = 0x38;
        b[j] = 0x38;
        for (fast_accum, want) in [(false, slow), (true, fast)] {
            let d = one_dot(
                &unit,
                &recipe,
                &a,
                &b,
                fast_accum,
                Split::NONE,
                Scales::ONE,
                &FP32,
            );
            assert_eq!(f(d as u32), want, "j = {j}, fast = {fast_accum}");
        }
    }
}

#[test]
fn bf16_outputs_are_rounded_twice() {
    // acc = 6737101 · 2^-25 (binary32 0x3E4D999A) and alpha = 5: acc · alpha is exactly
    // 1 + 2^-8 + 2^-25. In binary32 (quantum 2^-23 at 1) that is within 2^-25 of 1 + 2^-8,
    // so y = 1 + 2^-8 (0x3F808000): exactly halfway between the bf16 neighbours 1 and
    // 1 + 2^-7, a tie that rounds to the even 1.0 (0x3F80). Rounded once from the exact
    // product, which lies above the tie, it would be 1 + 2^-7 (0x3F81).
    let acc = 0x3E4D_999A;
    let scales = Scales {
        a: 0x40A0_0000,
        b: ONE,
        result: None,
    };
    let mut e = cublaslt(64, Assign::Interleaved).epilogue;
    let y = e.prepare(&FP32, scales).unwrap().apply(acc);
    assert_eq!(y, 0x3F80_8000);
    assert_eq!(e.prepare(&format::BF16, scales).unwrap().apply(acc), 0x3F80);
    e.narrow = NarrowStep::Direct;
    assert_eq!(e.prepare(&format::BF16, scales).unwrap().apply(acc), 0x3F81);
}

#[test]
fn fp8_outputs_saturate() {
    // y ∈ {0, 1e-30, 500, +Inf, NaN, -Inf, 464, 449}. e4m3 (max 448 = 0x7E, NaN 0x7F): zeros
    // and 1e-30 (below half the smallest subnormal 2^-9) are +0; 500, +Inf, 464 and 449
    // saturate to 448; -Inf to -448 (0xFE). e5m2 (2 fraction bits, max 57344 = 0x7B): 500 is
    // 1.953 · 2^8, nearest 2 · 2^8 = 512 (0x60); 464 = 1.8125 · 2^8 and 449 are nearest
    // 1.75 · 2^8 = 448 (0x5F); ±Inf saturate to ±57344 (0x7B, 0xFB).
    let ys: [f32; 8] = [
        0.0,
        1e-30,
        500.0,
        f32::INFINITY,
        f32::NAN,
        f32::NEG_INFINITY,
        464.0,
        449.0,
    ];
    let e = cublaslt(64, Assign::Interleaved).epilogue;
    let run = |out, result: Option<u32>| -> Vec<u64> {
        let p = e
            .prepare(
                out,
                Scales {
                    a: ONE,
                    b: ONE,
                    result,
                },
            )
            .unwrap();
        ys.iter().map(|y| p.apply(y.to_bits())).collect()
    };
    assert_eq!(
        run(&E4M3, None),
        [0x00, 0x00, 0x7E, 0x7E, 0x7F, 0xFE, 0x7E, 0x7E]
    );
    assert_eq!(
        run(&E5M2, None),
        [0x00, 0x00, 0x60, 0x7B, 0x7F, 0xFB, 0x5F, 0x5F]
    );
    // A result scale of -1 is a second binary32 multiply without the +0 addend: +0 · -1 is
    // -0 (0x80), and every sign flips.
    assert_eq!(
        run(&E4M3, Some(0xBF80_0000)),
        [0x80, 0x80, 0xFE, 0xFE, 0x7F, 0x7E, 0xFE, 0xFE]
    );
    // The IEEE alternative: e4m3 has no Inf, so overflow is NaN; e5m2 overflows to Inf.
    let mut ieee = e.clone();
    ieee.fp8_overflow = Fp8Overflow::Ieee;
    let p = ieee.prepare(&E4M3, Scales::ONE).unwrap();
    assert_eq!(p.apply(500f32.to_bits()), 0x7F);
    let p = ieee.prepare(&E5M2, Scales::ONE).unwrap();
    assert_eq!(p.apply(f32::INFINITY.to_bits()), 0x7C);
}

#[test]
fn nan_and_inf_rows() {
    // e5m2 A (Inf 0x7C, NaN 0x7E) times e4m3 B. Row 0: +Inf · 1 → +Inf. Row 1: NaN → NaN.
    // Row 2: +Inf · 1 and -Inf · 1 (0xFC) in one dot → NaN. Row 3: Inf · 0 → NaN. Outputs:
    // f32 Inf 0x7F800000 and NaN 0x7FFFFFFF; bf16 0x7F80, 0x7FFF; e4m3 saturates Inf to 0x7E.
    let unit = ada(E5M2, E4M3);
    let recipe = cublaslt(64, Assign::Interleaved);
    let k = 256;
    let mut a = vec![0x3Cu64; 4 * k]; // e5m2 1.0
    let b = vec![0x38u64; k]; // e4m3 1.0
    a[0] = 0x7C;
    a[k + 5] = 0x7E;
    a[2 * k] = 0x7C;
    a[2 * k + 200] = 0xFC;
    let mut b3 = b.clone();
    b3[7] = 0;
    a[3 * k + 7] = 0x7C;
    fn call<'a>(a: &'a [u64], b: &'a [u64], k: usize, fast: bool) -> LibraryGemm<'a> {
        LibraryGemm {
            m: 4,
            n: 1,
            k,
            a,
            b_cols: b,
            fast_accum: fast,
            split: Split {
                parts: 3,
                order: Order::Pairwise,
            },
        }
    }
    for fast in [false, true] {
        let d = unit
            .library_gemm(32, &recipe, &call(&a, &b, k, fast), Scales::ONE, &FP32, 1)
            .unwrap();
        assert_eq!(
            d[..3],
            [0x7F80_0000, 0x7FFF_FFFF, 0x7FFF_FFFF],
            "fast = {fast}"
        );
        let d3 = unit
            .library_gemm(32, &recipe, &call(&a, &b3, k, fast), Scales::ONE, &FP32, 1)
            .unwrap();
        assert_eq!(d3[3], 0x7FFF_FFFF, "fast = {fast}");
        let bf = unit
            .library_gemm(
                32,
                &recipe,
                &call(&a, &b, k, fast),
                Scales::ONE,
                &format::BF16,
                1,
            )
            .unwrap();
        assert_eq!(bf[..2], [0x7F80, 0x7FFF]);
        let e4 = unit
            .library_gemm(32, &recipe, &call(&a, &b, k, fast), Scales::ONE, &E4M3, 1)
            .unwrap();
        assert_eq!(e4[..2], [0x7E, 0x7F]);
    }
}

#[test]
fn k_zero_is_positive_zero_whatever_the_scales() {
    let unit = ada(E4M3, E4M3);
    let recipe = cublaslt(64, Assign::Interleaved);
    let call = LibraryGemm {
        m: 2,
        n: 3,
        k: 0,
        a: &[],
        b_cols: &[],
        fast_accum: false,
        split: Split::NONE,
    };
    let nan_scales = Scales {
        a: 0x7FC0_0000,
        b: 0xFF80_0000,
        result: Some(0xBF80_0000),
    };
    for out in [FP32, format::BF16, format::FP16, E4M3, E5M2] {
        let d = unit
            .library_gemm(32, &recipe, &call, nan_scales, &out, 1)
            .unwrap();
        assert_eq!(d, [0u64; 6], "{}", out.name);
    }
}

/// Each part's binary32 result by hand: the part's k-tiles (interleaved or contiguous), its
/// elements in order, chains of 128 (one chain when `fast`) each a `DotUnit::gemm` over the
/// chain's elements padded to whole instructions of 32, their results added from +0.
fn parts_by_hand(
    unit: &DotUnit,
    a: &[u64],
    b: &[u64],
    (tile, assign): (usize, Assign),
    parts: usize,
    fast: bool,
) -> Vec<u32> {
    let fp = Fp32::new();
    let k = a.len();
    let tiles = k.div_ceil(tile);
    let own: Vec<Vec<usize>> = match assign {
        Assign::Interleaved => (0..parts)
            .map(|p| (p..tiles).step_by(parts).collect())
            .collect(),
        Assign::Contiguous => {
            let q = tiles.div_ceil(parts);
            (0..parts)
                .map(|p| (p * q..((p + 1) * q).min(tiles)).collect())
                .collect()
        }
    };
    let mut out = Vec::new();
    for ts in &own {
        let elems: Vec<usize> = ts
            .iter()
            .flat_map(|&t| t * tile..((t + 1) * tile).min(k))
            .collect();
        let window = if fast { usize::MAX } else { 128 };
        let mut part = 0u32;
        let mut first = true;
        for chunk in elems.chunks(window.min(elems.len().max(1))) {
            let mut ca: Vec<u64> = chunk.iter().map(|&i| a[i]).collect();
            let mut cb: Vec<u64> = chunk.iter().map(|&i| b[i]).collect();
            let padded = ca.len().div_ceil(32) * 32;
            ca.resize(padded, 0);
            cb.resize(padded, 0);
            let mut d = [0u64];
            let x = GemmIn {
                a: &ca,
                b_cols: &cb,
                c: &[0],
                scale_a: &[],
                scale_b: &[],
            };
            unit.gemm((1, 1, padded), 32, &x, &mut d, 1).unwrap();
            part = if fast && first {
                d[0] as u32
            } else {
                fp.add(part, d[0] as u32)
            };
            first = false;
        }
        out.push(part);
    }
    out
}

/// The walk against the unit composed by hand: each part's chains as `DotUnit::gemm` calls
/// over the part's elements (promotion windows of 128 of its own K), added in binary32.
#[test]
fn the_walk_is_the_units_chains_composed() {
    let unit = ada(E4M3, E4M3);
    let fp = Fp32::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(39);
    for (assign, tile) in [(Assign::Interleaved, 64), (Assign::Contiguous, 128)] {
        let recipe = cublaslt(tile, assign);
        for &k in &[16usize, 48, 128, 208, 1040] {
            for parts in [1usize, 2, 3, 5] {
                let words = |n: usize, rng: &mut Xoshiro256PlusPlus| -> Vec<u64> {
                    (0..n)
                        .map(|_| u64::from(rng.random::<u8>() & 0x77))
                        .collect()
                };
                let (a, b) = (words(k, &mut rng), words(k, &mut rng));
                for fast in [false, true] {
                    let split = Split {
                        parts,
                        order: Order::Serial,
                    };
                    let got = one_dot(&unit, &recipe, &a, &b, fast, split, Scales::ONE, &FP32);
                    // By hand: the tiles of each part, its chains, the serial sum.
                    let total = parts_by_hand(&unit, &a, &b, (tile, assign), parts, fast)
                        .into_iter()
                        .reduce(|t, p| fp.add(t, p));
                    let want = total.unwrap_or(0);
                    // y = fp32(acc · 1 + 0): acc itself (never -0).
                    assert_eq!(
                        got as u32, want,
                        "{assign:?} K = {k} S = {parts} fast = {fast}"
                    );
                }
            }
        }
    }
}

/// The pairwise order through the walk, which adds each part as soon as the order allows
/// (holding the running sum and one slot, whatever S): the parts by hand, added as
/// `pairwise_by_hand` writes the tree out, for S = 2..7 on K long enough that every part has
/// tiles, and on K that leaves some parts empty (+0).
#[test]
fn the_walk_adds_parts_pairwise_as_the_tree_by_hand() {
    let unit = ada(E4M3, E4M3);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(40);
    for (assign, tile) in [(Assign::Interleaved, 64), (Assign::Contiguous, 64)] {
        let recipe = cublaslt(tile, assign);
        for &k in &[128usize, 448, 1040] {
            for parts in 2..=7 {
                let words = |rng: &mut Xoshiro256PlusPlus| -> Vec<u64> {
                    (0..k)
                        .map(|_| u64::from(rng.random::<u8>() & 0x77))
                        .collect()
                };
                let (a, b) = (words(&mut rng), words(&mut rng));
                for fast in [false, true] {
                    let split = Split {
                        parts,
                        order: Order::Pairwise,
                    };
                    let got = one_dot(&unit, &recipe, &a, &b, fast, split, Scales::ONE, &FP32);
                    let p: Vec<f32> = parts_by_hand(&unit, &a, &b, (tile, assign), parts, fast)
                        .into_iter()
                        .map(f)
                        .collect();
                    // y = fp32(acc · 1 + 0) is acc, but for -0, which the + 0 makes +0.
                    let want = pairwise_by_hand(&p) + 0.0;
                    assert_eq!(
                        got as u32,
                        want.to_bits(),
                        "{assign:?} K = {k} S = {parts} fast = {fast}"
                    );
                }
            }
        }
    }
}

/// A k-tile far longer than K (a recipe file's `split_k.tile` of 2^24, the most a recipe may
/// name) walks K, not the tile: the same chains as a tile of exactly K (one tile either way;
/// the windows past K would hold padding only, whose +0 chains change no sum that starts at
/// +0), so the same bits, without a chain per window of the tile. A larger tile is refused
/// naming the key.
#[test]
fn a_tile_longer_than_k_walks_k_and_sizes_are_bounded() {
    let unit = ada(E4M3, E4M3);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
    let k = 1040;
    let words = |rng: &mut Xoshiro256PlusPlus| -> Vec<u64> {
        (0..k)
            .map(|_| u64::from(rng.random::<u8>() & 0x77))
            .collect()
    };
    let (a, b) = (words(&mut rng), words(&mut rng));
    let huge = cublaslt(mma_core::library::MAX_RECIPE_SIZE, Assign::Interleaved);
    let exact = cublaslt(k, Assign::Interleaved);
    for fast in [false, true] {
        let got = one_dot(&unit, &huge, &a, &b, fast, Split::NONE, Scales::ONE, &FP32);
        let want = one_dot(&unit, &exact, &a, &b, fast, Split::NONE, Scales::ONE, &FP32);
        assert_eq!(got, want, "fast = {fast}");
    }
    let too_big = cublaslt(1 << 40, Assign::Interleaved);
    assert_eq!(
        too_big.check().unwrap_err().to_string(),
        "split_k.tile = 1099511627776: expected 1 to 16777216 elements"
    );
    let mut promote = cublaslt(64, Assign::Interleaved);
    promote.promote_every = Some(0);
    assert_eq!(
        promote.check().unwrap_err().to_string(),
        "promote_every = 0: expected 1 to 16777216 elements"
    );
}
