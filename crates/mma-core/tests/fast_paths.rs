//! The fast paths against the plain ones: decode tables, the direct rounding, and whole dot
//! products of hand-built units on random inputs with specials, zeros and subnormals. (The
//! whole NVIDIA catalog is checked the same way in mma-nvidia's `fast_catalog` test.)

use mma_core::fast::round::{reference, FastRound};
use mma_core::fast::table::{self, Bf16Dec, Dec, F16Dec, Table8};
use mma_core::format::{self, Format};
use mma_core::gst_fdpa::GstFdpa;
use mma_core::model::{NanStyle, Output, OutputRounding};
use mma_core::t_fdpa::TFdpa;
use mma_core::{DotUnit, Formats, Model, RoundOpts, Rounding, Value};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[test]
fn tables_match_decode() {
    for fmt in format::ALL {
        let Some(t) = table::table(fmt) else {
            assert!(!table::tabulable(fmt), "{}", fmt.name);
            continue;
        };
        for bits in 0..1u64 << fmt.storage_bits {
            assert_eq!(
                t.get(bits),
                table::pack(fmt.decode(bits), fmt),
                "{} {bits:#x}",
                fmt.name
            );
            // Bits above the storage width are ignored, as decode ignores them.
            assert_eq!(t.get(bits | 1 << 40), t.get(bits));
        }
        if fmt.storage_bits <= 8 {
            let t8 = Table8::of(fmt).unwrap();
            for bits in 0..256u64 {
                assert_eq!(t8.get(bits), table::pack(fmt.decode(bits), fmt));
            }
        }
    }
}

fn ieee16_matches<D: Dec>(d: D, fmt: &Format) {
    for bits in 0..1u64 << 16 {
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
    ieee16_matches(F16Dec {}, &format::FP16);
    ieee16_matches(Bf16Dec {}, &format::BF16);
}

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

/// A random word of `fmt`: any encoding, or one biased toward zeros, subnormals, the largest
/// binade and specials.
pub fn word(fmt: &Format, rng: &mut impl Rng) -> u64 {
    let width = if fmt.storage_bits == 8 && fmt.width() < 8 {
        fmt.width()
    } else {
        fmt.storage_bits
    };
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let x = rng.random::<u64>() & mask;
    let sign = if fmt.signed {
        x & (1 << (fmt.lsb + fmt.exp_bits + fmt.man_bits))
    } else {
        0
    };
    let man = x & (((1u64 << fmt.man_bits) - 1) << fmt.lsb);
    let exp_field = |e: u64| e << (fmt.lsb + fmt.man_bits);
    match rng.random_range(0..10) {
        0 => sign,                                            // zero
        1 => sign | man,                                      // subnormal
        2 => sign | man | exp_field((1 << fmt.exp_bits) - 1), // Inf/NaN/top binade
        3 => sign | man | exp_field(rng.random_range(0..3)),  // tiny
        _ => x,
    }
}

fn tfdpa(a: Format, b: Format, c: Format, out: Output, d: Format, f: u32, block: usize) -> DotUnit {
    DotUnit {
        formats: Formats {
            a,
            b,
            c,
            d,
            scale: None,
        },
        block,
        model: Model::TFdpa(TFdpa {
            f,
            e_zero: -133,
            out,
        }),
    }
}

fn compare(unit: &DotUnit, k: usize, n: usize, seed: u64) {
    let kern = unit.kernel();
    assert!(kern.is_fast(), "{unit:?}");
    let f = &unit.formats;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let s = unit.scales_for(k);
    let sf = f.scale.map_or(format::UE8M0, |(x, _)| x);
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
        assert_eq!(
            kern.dot(&a, &b, c, &sa, &sb),
            unit.dot_plain(&a, &b, c, &sa, &sb),
            "{unit:?}\na {a:x?}\nb {b:x?}\nc {c:x}\nsa {sa:x?} sb {sb:x?}"
        );
    }
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
    ];
    for (i, u) in units.iter().enumerate() {
        for k in [u.block, 2 * u.block, 3 * u.block] {
            compare(u, k, 3000, i as u64 * 100 + k as u64);
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
                out: rz32,
            }),
        };
        compare(&unit, 64, 20_000, per as u64);
        compare(&unit, 128, 5_000, per as u64 + 1);
    }
}
