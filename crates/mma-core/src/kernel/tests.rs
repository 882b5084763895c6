//! Unit tests of the kernel's building blocks against the plain code they shadow: the decode
//! tables against [`Format::decode`], the arithmetic 16-bit decoders against the tables, and the
//! direct rounding ([`FastRound`]) against the single rounding routine (`round::reference`, which
//! goes through [`crate::round`]). Whole dot products are compared in `tests/fast_paths.rs`.

use super::round::{reference, FastRound};
use super::table::{self, Bf16Dec, Dec, F16Dec, Table8, Tf32Dec};
use crate::format::{self, Format};
use crate::model::{NanStyle, Output, OutputRounding};
use crate::{RoundOpts, Rounding};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn nv_out(fmt: Format, mode: Rounding, neg_zero_to_pos: bool) -> Output {
    Output {
        rho: OutputRounding {
            fmt,
            mode,
            opts: RoundOpts::INF_ON_OVERFLOW,
        },
        nan: NanStyle::AllOnes,
        neg_zero_to_pos,
    }
}

#[test]
fn tables_match_decode() {
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

#[test]
fn arithmetic_16_bit_decoders_match_tables() {
    decoder_matches(F16Dec {}, &format::FP16, 0..1u64 << 16);
    decoder_matches(Bf16Dec {}, &format::BF16, 0..1u64 << 16);
}

#[test]
fn tf32_decoder_matches_format_decode() {
    // Every tf32 code in an fp32 word, with the 13 low bits (not part of the format) clear and
    // set at random: NaNs whose payload lies only there read as Inf in both.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(19);
    let words: Vec<u64> = (0..1u64 << 19)
        .flat_map(|code| [code << 13, code << 13 | (rng.random::<u64>() & 0x1fff)])
        .collect();
    decoder_matches(Tf32Dec, &format::TF32, words.into_iter());
}

#[test]
fn fast_round_matches_round_encode() {
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
            let out = nv_out(rho, mode, nz);
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
