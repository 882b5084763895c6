//! The I-DPA kernel path (`kernel/scalar/int_dpa.rs`: per dot, and whole rows on `u8` and
//! `u64` words for every instruction set) against the plain model, on the unit shapes of the
//! NVIDIA and AMD integer catalogs built by hand (s8/u8 and s4/u4 pairs, b1 with XOR and AND,
//! saturating with one block of K, wrapping in blocks of at most 64): random words (bits above
//! an element's width set too, which both ignore), and the extremes (all -128, all 127, all
//! 255, C = i32::MIN and i32::MAX) where the wrap and the clamp act. The catalogs' own rows
//! are swept in mma-cli's `integer_kernel_catalog` test.

use crate::common::{compare_batch_with, Case};
use mma_core::format::{Format, B1, S32, S4, S8, U4, U8};
use mma_core::models::int_dpa::{IDpa, IntOp};
use mma_core::{DotUnit, Formats, Model};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn unit(a: Format, b: Format, block: usize, op: IntOp, saturate: bool) -> DotUnit {
    DotUnit {
        formats: Formats {
            a,
            b,
            c: S32,
            d: S32,
            scale: None,
        },
        block,
        model: Model::IDpa(IDpa { op, saturate }),
    }
}

/// A word of `fmt`'s storage byte: any bits (above the width too), or an extreme value.
fn word(fmt: &Format, rng: &mut impl Rng) -> u64 {
    let (lo, hi) = fmt.int_range().expect("an integer format");
    match rng.random_range(0..6) {
        0 => fmt.int_word(lo).unwrap(),
        1 => fmt.int_word(hi).unwrap(),
        _ => rng.random::<u64>() & 0xff,
    }
}

fn c_word(rng: &mut impl Rng) -> u64 {
    match rng.random_range(0..5) {
        0 => 0x8000_0000,
        1 => 0x7fff_ffff,
        2 => rng.random::<u32>() as u64 & 0x8000_ffff,
        _ => rng.random::<u32>() as u64,
    }
}

/// Random cases and the extremes of `unit` at K = `k` through every path of the kernel.
fn check(unit: &DotUnit, k: usize, seed: u64) {
    let kern = unit.kernel();
    assert!(kern.is_fast(), "{}", unit.describe());
    let f = &unit.formats;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut cases: Vec<Case> = Vec::new();
    // The extremes: every element the format's least or greatest value, C at either end of s32.
    let ends = |fmt: &Format| {
        let (lo, hi) = fmt.int_range().unwrap();
        [fmt.int_word(lo).unwrap(), fmt.int_word(hi).unwrap()]
    };
    for wa in ends(&f.a) {
        for wb in ends(&f.b) {
            for c in [0x8000_0000, 0x7fff_ffff, 0] {
                cases.push((vec![wa; k], vec![wb; k], c, vec![], vec![]));
            }
        }
    }
    for _ in 0..61 {
        let a = (0..k).map(|_| word(&f.a, &mut rng)).collect();
        let b = (0..k).map(|_| word(&f.b, &mut rng)).collect();
        cases.push((a, b, c_word(&mut rng), vec![], vec![]));
    }
    let plain: Vec<u64> = cases
        .iter()
        .map(|(a, b, c, _, _)| unit.dot_plain(a, b, *c))
        .collect();
    for ((a, b, c, _, _), want) in cases.iter().zip(&plain) {
        assert_eq!(
            kern.dot(a, b, *c),
            *want,
            "{}\na {a:x?}\nb {b:x?}\nc {c:x}",
            unit.describe()
        );
    }
    compare_batch_with(unit, k, &cases, &plain);
}

/// `mma.sync`/`wgmma`/`tcgen05.mma` s8/u8 (K = 16, 32) and s4/u4 (K = 32, 64), with and
/// without `.satfinite`; AMD `v_mfma_i32_*` s8 (K = 4 to 64, wrapping).
#[test]
fn byte_and_nibble_units_match_the_model() {
    let mut seed = 0;
    for (pair, ks) in [([S8, U8], [16, 32, 64]), ([S4, U4], [32, 64, 32])] {
        for a in pair {
            for b in pair {
                for k in ks {
                    for saturate in [false, true] {
                        let block = if saturate { k } else { k.min(64) };
                        seed += 1;
                        check(&unit(a, b, block, IntOp::Mul, saturate), k, seed);
                    }
                }
            }
        }
    }
    for k in [4, 8, 16, 32, 64] {
        seed += 1;
        check(&unit(S8, S8, k, IntOp::Mul, false), k, seed);
    }
}

/// `.b1` with `.xor.popc` and `.and.popc` (K = 128, 256 in blocks of 64), and K spanning
/// several instructions' worth of blocks, or none (C alone through one block).
#[test]
fn b1_units_and_long_k_match_the_model() {
    let mut seed = 100;
    for op in [IntOp::Xor, IntOp::Mul] {
        for k in [128, 256, 0, 1, 65] {
            seed += 1;
            check(&unit(B1, B1, 64, op, false), k, seed);
        }
    }
    // Saturating chains over several instructions: one clamp per block.
    for k in [0, 5, 64, 96] {
        seed += 1;
        check(&unit(S8, S8, 32, IntOp::Mul, true), k, seed);
    }
}

/// A unit whose elements are wider than eight bits (s32 × s32) keeps the plain model: the
/// kernel's `i32` partial sums would not be exact.
#[test]
fn wide_elements_stay_on_the_plain_model() {
    assert!(!unit(S32, S32, 4, IntOp::Mul, false).kernel().is_fast());
}
