//! Tests of the lane paths beyond the per-family comparisons of `fast_paths.rs`: ST-FDPA's
//! per-lane scale exponents, the FMA chains, and blocks whose sums leave the 32-bit lanes.

use crate::common;

use common::{compare_batch, compare_batch_with, nv_out, tfdpa, word};
use mma_core::format;
use mma_core::model::NanStyle;
use mma_core::models::fma::Fma;
use mma_core::models::st_fdpa::StFdpa;
use mma_core::{DotUnit, Formats, Model, Rounding};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// ST-FDPA (`kind::mxf8f6f4`: one ue8m0 scale per 32 elements, F = 25, RZ to fp32): the lane
/// path, which raises every non-zero product's exponent by the scale pair's, against the plain
/// model, for several fp8/fp6/fp4 pairs; random words include NaN scales (0xff) and scales far
/// from 1, which push products below e_zero or out of f32's range.
#[test]
fn st_fdpa_lanes_match_plain() {
    let rz32 = nv_out(format::FP32, Rounding::TowardZero, true);
    let avx2 = mma_core::Isa::detect() != mma_core::Isa::Portable;
    for (i, (fa, fb)) in [
        (format::E4M3, format::E4M3),
        (format::E5M2, format::E2M1),
        (format::E2M3, format::E3M2),
        (format::E2M1, format::E4M3),
    ]
    .into_iter()
    .enumerate()
    {
        let unit = DotUnit {
            formats: Formats {
                a: fa,
                b: fb,
                c: format::FP32,
                d: format::FP32,
                scale: Some((format::UE8M0, 32)),
            },
            block: 32,
            model: Model::StFdpa(StFdpa {
                f: 25,
                e_zero: -133,
                out: rz32,
            }),
        };
        assert_eq!(unit.kernel().is_batched(), avx2);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(900 + i as u64);
        let mut cases = Vec::new();
        for n in 0..6000 {
            let a: Vec<u64> = (0..32).map(|_| word(&fa, &mut rng)).collect();
            let b: Vec<u64> = (0..32).map(|_| word(&fb, &mut rng)).collect();
            // Scales near 1 mostly (products and C of similar size), any code otherwise.
            let scale = |rng: &mut Xoshiro256PlusPlus| {
                if n % 3 == 0 {
                    rng.random::<u64>() & 0xff
                } else {
                    rng.random_range(120..135)
                }
            };
            let (sa, sb) = (vec![scale(&mut rng)], vec![scale(&mut rng)]);
            let c = if n % 2 == 0 {
                ((rng.random::<f32>() - 0.5) * 64.0).to_bits() as u64
            } else {
                word(&format::FP32, &mut rng)
            };
            cases.push((a, b, c, sa, sb));
        }
        compare_batch(&unit, 32, &cases);
    }
}

/// The fp32/fp64 FMA chains in the machine's fused multiply-add against the plain model
/// (exact sum, one rounding per step): words clustered around one exponent (cancellation,
/// ties, carries), any words (specials, subnormals, zeros of both signs), K of 1 to 16.
#[test]
fn fma_chain_fast_matches_plain() {
    for fmt in [format::FP32, format::FP64] {
        for (k, block) in [(1, 1), (2, 2), (4, 4), (4, 2), (16, 16)] {
            let unit = DotUnit {
                formats: Formats {
                    a: fmt,
                    b: fmt,
                    c: fmt,
                    d: fmt,
                    scale: None,
                },
                block,
                model: Model::Fma(Fma {
                    mode: Rounding::NearestEven,
                    nan: NanStyle::AllOnes,
                }),
            };
            let kern = unit.kernel();
            assert!(kern.is_fast());
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(k as u64 * 7 + block as u64);
            let man = (1u64 << fmt.man_bits) - 1;
            let near = |rng: &mut Xoshiro256PlusPlus| {
                if rng.random_range(0..6) == 0 {
                    return word(&fmt, rng);
                }
                let e = (fmt.bias + rng.random_range(-3..=3)) as u64;
                let sign = (rng.random::<u64>() & 1) << (fmt.exp_bits + fmt.man_bits);
                sign | e << fmt.man_bits | (rng.random::<u64>() & man)
            };
            let (mut cases, mut plain) = (Vec::new(), Vec::new());
            for _ in 0..20_000 {
                let a: Vec<u64> = (0..k).map(|_| near(&mut rng)).collect();
                let b: Vec<u64> = (0..k).map(|_| near(&mut rng)).collect();
                let c = near(&mut rng);
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
            compare_batch_with(&unit, k, &cases, &plain);
        }
    }
}

/// Blocks whose aligned products sum beyond `i32`: 32 products of the largest E4M3 magnitude
/// (1.75 · 2^8) at F = 25 are each about 2^26.6, and their sum about 2^31.6. The lanes sum
/// each half of the block within `i32` and must flag the lanes whose halves overflow when
/// added; the per-dot kernel then gives the plain model's bits.
#[test]
fn lanes_flag_sums_beyond_i32() {
    let rz32 = nv_out(format::FP32, Rounding::TowardZero, true);
    let unit = tfdpa(
        format::E4M3,
        format::E4M3,
        format::FP32,
        rz32,
        format::FP32,
        25,
        32,
    );
    let avx2 = mma_core::Isa::detect() != mma_core::Isa::Portable;
    assert_eq!(unit.kernel().is_batched(), avx2);
    let mut cases = Vec::new();
    for i in 0..24u64 {
        // All positive, all negative, or one sign flipped (just below the limit).
        let a: Vec<u64> = (0..32)
            .map(|k| {
                0x7e | if i % 3 == 1 || (i % 3 == 2 && k == 0) {
                    0x80
                } else {
                    0
                }
            })
            .collect();
        let b = vec![0x7eu64; 32];
        let c = [0u64, 0x3f80_0000, 0xbf80_0000, 0x4f00_0000][(i % 4) as usize];
        cases.push((a, b, c, vec![], vec![]));
    }
    compare_batch(&unit, 32, &cases);
}
