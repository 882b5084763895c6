//! Checks of the kernel's building blocks against the plain code they shadow: the decode
//! tables against [`Format::decode`], the arithmetic 16-bit decoders against the tables, and the
//! direct rounding (`FastRound`) against the single rounding routine (`round::reference`, which
//! goes through [`crate::round`]), and Sliced-FDPA's last addition against the model's. Whole
//! dot products are compared in `tests/fast_paths.rs`. Run by `tests/internal_checks.rs` (the
//! `internal-checks` feature: `models/fma.rs` says why).

use super::round::{reference, FastRound};
use super::table::{self, Bf16Dec, Dec, F16Dec, Table8, Tf32Dec};
use crate::format::{self, Format};
use crate::model::{NanStyle, Output};
use crate::{Rounding, Value};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub fn tables_match_decode() {
    for fmt in format::ALL {
        let Some(t) = table::table(fmt) else {
            assert!(!table::tabulable(fmt), "{}", fmt.name);
            continue;
        };
        for bits in 0..1u64 << fmt.storage_bits {
            assert_eq!(
                t.entries[bits as usize],
                table::pack(fmt.decode(bits), fmt),
                "{} {bits:#x}",
                fmt.name
            );
        }
        if fmt.storage_bits <= 8 {
            let t8 = Table8::of(fmt).unwrap();
            for bits in 0..256u64 {
                assert_eq!(t8.get(bits), table::pack(fmt.decode(bits), fmt));
            }
        }
    }
}

fn decoder_matches<D: Dec>(d: D, fmt: &Format, words: impl Iterator<Item = u64>) {
    for bits in words {
        let want = table::pack(fmt.decode(bits), fmt);
        let got = d.get(bits);
        assert_eq!(got & table::SPECIAL, want & table::SPECIAL, "{bits:#x}");
        if want & table::SPECIAL != 0 {
            continue;
        }
        assert_eq!(table::sig(got), table::sig(want), "{bits:#x}");
        assert_eq!(table::neg(got), table::neg(want), "{bits:#x}");
        if table::sig(want) != 0 {
            assert_eq!(got, want, "{bits:#x}");
        }
    }
}

pub fn arithmetic_16_bit_decoders_match_tables() {
    decoder_matches(F16Dec {}, &format::FP16, 0..1u64 << 16);
    decoder_matches(Bf16Dec {}, &format::BF16, 0..1u64 << 16);
}

pub fn tf32_decoder_matches_format_decode() {
    // Every tf32 code in an fp32 word, with the 13 low bits (not part of the format) clear and
    // set at random: NaNs whose payload lies only there read as Inf in both.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(19);
    let words: Vec<u64> = (0..1u64 << 19)
        .flat_map(|code| [code << 13, code << 13 | (rng.random::<u64>() & 0x1fff)])
        .collect();
    decoder_matches(Tf32Dec, &format::TF32, words.into_iter());
}

pub fn fast_round_matches_round_encode() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let cases = [
        (format::FP32, format::FP32, Rounding::TowardZero),
        (format::E8M13, format::FP32, Rounding::TowardZero),
        (format::FP16, format::FP16, Rounding::NearestEven),
        (format::FP32, format::FP32, Rounding::NearestEven),
        (format::BF16, format::FP32, Rounding::NearestEven),
    ];
    for (rho, d, mode) in cases {
        for nz in [true, false] {
            let out = Output::fused(rho, mode, nz);
            let fr = FastRound::new(&out, &d).expect("fast rounding");
            for i in 0..200_000 {
                let bits = rng.random_range(1..58);
                let mut sum = (rng.random::<u64>() >> (64 - bits)) as i64;
                if i % 3 == 0 {
                    // Near ties and carries: runs of ones and zeros.
                    sum |= (1i64 << rng.random_range(0..40)) - 1;
                }
                if rng.random::<bool>() {
                    sum = -sum;
                }
                let exp = rng.random_range(-240..140);
                let zn = rng.random::<bool>();
                assert_eq!(
                    fr.round(sum, exp, zn),
                    reference(&out, &d, sum, exp, zn),
                    "{} {mode:?} sum {sum} exp {exp}",
                    rho.name
                );
            }
        }
    }
}

/// Sliced-FDPA's last addition (`scalar/sliced.rs` `LastAdd`, and the vector kernels'
/// `x86/last_add.rs` where this CPU has them) against the plain model's
/// `SlicedFdpa::add_c_last`: every fp16 word (Inf and NaN included) against a set of partners
/// (zeros, the extremes, words one apart, random words), and random fp32 pairs with exponents
/// close enough to cancel and far enough to take the far-apart rule, with Inf and NaN pairs,
/// for the passes' outputs of Hopper and Blackwell
/// (RNE to fp16, RZ to fp32; -0 to +0 or kept) with `last` = RNE.
pub fn sliced_last_add_matches_add_c_last() {
    use super::scalar::sliced::LastAdd;
    use crate::model::Formats;
    use crate::models::sliced_fdpa::SlicedFdpa;
    use crate::models::t_fdpa::TFdpa;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for (d, pass_mode) in [
        (format::FP16, Rounding::NearestEven),
        (format::FP32, Rounding::TowardZero),
    ] {
        for nz in [true, false] {
            let f = Formats {
                a: format::E4M3,
                b: format::E4M3,
                c: d,
                d,
                scale: None,
            };
            let m = SlicedFdpa {
                pass: TFdpa {
                    f: 25,
                    e_zero: -21,
                    out: Output::fused(d, pass_mode, nz),
                },
                group: 2,
                passes: 2,
                last: Rounding::NearestEven,
                last_format: None,
            };
            let last = LastAdd::new(&m, &f).expect("an IEEE last addition");
            let special = |w: u64| matches!(d.decode(w), Value::Inf { .. } | Value::Nan);
            let mut wants = Vec::new();
            let mut check = |pairs: &[(u64, u64)]| {
                wants.clear();
                for &(x, y) in pairs {
                    let want = m.add_c_last(&f, x, y, &d);
                    match last.add(x, y) {
                        Some(got) => assert_eq!(got, want, "{} {x:#x} + {y:#x}", d.name),
                        // Only Inf/NaN terms are left to the plain model.
                        None => assert!(special(x) || special(y)),
                    }
                    wants.push(want);
                }
                check_last_lanes(&last, pairs, &wants);
            };
            let sign = 1u64 << (d.storage_bits - 1);
            let max = ((1u64 << d.exp_bits) - 1) << d.man_bits;
            let mut partners = vec![0, sign, 1, sign | 1, max - 1, sign | (max - 1), max, 0x3c00];
            partners.extend((0..40).map(|_| rng.random::<u64>() & d.storage_mask()));
            let mut pairs = Vec::new();
            if d == format::FP16 {
                for x in 0..1u64 << 16 {
                    // Cancellation first, so that the vector kernels (multiples of eight) take it.
                    pairs.clear();
                    pairs.extend([(x, x ^ sign), (x, (x + 1) ^ sign)]);
                    for &y in &partners {
                        pairs.extend([(x, y), (x, y ^ sign)]);
                    }
                    check(&pairs);
                }
            } else {
                for _ in 0..400_000 {
                    let x = rng.random::<u64>() & d.storage_mask();
                    // Exponent fields 0 to 45 apart: cancellation, carries, the far-apart rule.
                    let ex = (x >> d.man_bits) & 0xff;
                    let ey = ex.saturating_sub(rng.random_range(0..46));
                    let y =
                        (rng.random::<u64>() & (sign | ((1 << d.man_bits) - 1))) | ey << d.man_bits;
                    pairs.extend([(x, y), (y, x), (x, x ^ sign)]);
                }
                for &y in &partners {
                    pairs.extend([(0x3f80_0000, y), (y, y)]);
                }
                // Infs of opposite signs (NaN), a NaN with a finite term and with an Inf.
                pairs.extend([(max, max | sign), (max | sign, max), (max | 1, 0x3f80_0000)]);
                pairs.extend([(sign, max | 0x40_0000), (max | 0x40_0001, max | sign)]);
                check(&pairs);
            }
        }
    }
}

/// The vector last addition on `pairs` (the passes' result, C): where this CPU has the vector
/// kernels (x86-64) it takes the leading multiple of eight and gives `want[i]` (the plain
/// model's sum of pair `i`) for each (Inf and NaN terms included), leaving the rest as they
/// were; elsewhere it takes none.
fn check_last_lanes(last: &super::scalar::sliced::LastAdd, pairs: &[(u64, u64)], want: &[u64]) {
    let l = last
        .lanes()
        .expect("fp16 or fp32 D rounded to itself: a vector addition");
    let acc: Vec<u64> = pairs.iter().map(|p| p.0).collect();
    let mut cd: Vec<u64> = pairs.iter().map(|p| p.1).collect();
    let isa = super::Isa::detect();
    let done = super::arch::last_add(isa, l, &acc, &mut cd);
    // The vector last addition is compiled for x86-64 (AVX2) only.
    let vector = isa.has_avx2();
    assert_eq!(done, if vector { pairs.len() / 8 * 8 } else { 0 });
    for (i, &(x, y)) in pairs.iter().enumerate() {
        if i < done {
            assert_eq!(cd[i], want[i], "lanes: {x:#x} + {y:#x}");
        } else {
            assert_eq!(cd[i], y, "not taken: {x:#x} + {y:#x}");
        }
    }
}

/// Sliced-FDPA's reordering of byte operands (`Words::permute`, by a byte shuffle per row on
/// the vector instruction sets, `x86/permute.rs`) against its definition, element `from +
/// order[j]` of each row: blocks of 16 and 32 (shuffled) and 8 and 24 (the loop), the passes'
/// order and random permutations, rows longer than the block at every offset, the last row
/// ending at the slice's end; and an order that repeats an element (not a permutation: the
/// loop takes it).
pub fn byte_permute_matches_its_definition() {
    use super::dots::permuted;
    use super::words::{Permuted, Words};
    use super::{Isa, Kernel};
    use crate::models::fma::Fma;
    use crate::unit::{DotUnit, Model};
    let unit = DotUnit {
        formats: crate::model::Formats {
            a: format::E4M3,
            b: format::E4M3,
            c: format::FP32,
            d: format::FP32,
            scale: None,
        },
        block: 1,
        model: Model::Fma(Fma {
            mode: Rounding::NearestEven,
            nan: NanStyle::AllOnes,
        }),
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(61);
    let mut checked = 0;
    for isa in Isa::ALL.into_iter().filter(|i| i.is_supported()) {
        let kern = Kernel::with_isa(unit, isa).unwrap();
        for n in [16usize, 32, 8, 24] {
            let passes: Vec<usize> = (0..2)
                .flat_map(|p| (0..n).filter(move |&j| (j / 2) % 2 == p))
                .collect();
            let mut random: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                random.swap(i, rng.random_range(0..=i));
            }
            let mut repeated = random.clone();
            repeated[n - 1] = repeated[0];
            for order in [passes, random, repeated] {
                let k = 2 * n + 5;
                let rows = 37;
                let x: Vec<u8> = (0..rows * k).map(|_| rng.random()).collect();
                for from in [0, 1, n, k - n] {
                    let mut out = Permuted::default();
                    let got = permuted(Words::U8(&x), &kern, 3..rows, k, (from, &order), &mut out);
                    let Words::U8(got) = got else {
                        panic!("the permutation changed the word width");
                    };
                    let x = &x;
                    let want: Vec<u8> = (3..rows)
                        .flat_map(|r| order.iter().map(move |&j| x[r * k + from + j]))
                        .collect();
                    assert_eq!(got, &want[..], "{isa:?} n {n} from {from} {order:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 48, "{checked}");
}
