//! Criterion benches of the hot paths: plain decoding, the T-FDPA align-and-truncate block, the
//! rounding routine, and whole dot products of a few instructions (plain model, per-dot kernel,
//! and the batch evaluation `Kernel::dots`, eight dot products across vector lanes).
//!
//!     cargo bench -p mma-bench --bench hot_paths

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use mma_core::format::{self, Format};
use mma_core::model::{NanStyle, Output, OutputRounding};
use mma_core::models::ftz_mul_add::FtzMulAdd;
use mma_core::models::gst_fdpa::GstFdpa;
use mma_core::models::t_fdpa::{truncated_sum, TFdpa};
use mma_core::models::tr_fdpa::TrFdpa;
use mma_core::term::Term;
use mma_core::{round, DotUnit, Exact, Formats, Model, RoundOpts, Rounding, Value};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn out(fmt: Format, mode: Rounding) -> Output {
    Output::fused(fmt, mode, true)
}

/// Hopper f16 (F 25, L 16), Ampere bf16 (F 24, L 8), Ada e4m3 (F 13, L 16, E8M13), RTX
/// Blackwell mxf4nvf4 block16 ue4m3 (GST, F 35), CDNA2 bf16_1k (FTZ-MulAdd, P 4), CDNA3 f16
/// (TR-FDPA, F 24, F2 31): the catalogs' parameters.
fn units() -> Vec<(&'static str, DotUnit, usize)> {
    let t = |a, c, f, e_zero, block, o| DotUnit {
        formats: Formats {
            a,
            b: a,
            c,
            d: format::FP32,
            scale: None,
        },
        block,
        model: Model::TFdpa(TFdpa { f, e_zero, out: o }),
    };
    let rz = out(format::FP32, Rounding::TowardZero);
    vec![
        (
            "hopper_f16_k16",
            t(format::FP16, format::FP32, 25, -133, 16, rz),
            16,
        ),
        (
            "ampere_bf16_k16",
            t(format::BF16, format::FP32, 24, -132, 8, rz),
            16,
        ),
        (
            "ada_e4m3_k32",
            t(
                format::E4M3,
                format::FP32,
                13,
                -132,
                16,
                out(format::E8M13, Rounding::TowardZero),
            ),
            32,
        ),
        (
            "rtx_mxf4nvf4_k64",
            DotUnit {
                formats: Formats {
                    a: format::E2M1,
                    b: format::E2M1,
                    c: format::FP32,
                    d: format::FP32,
                    scale: Some((format::UE4M3, 16)),
                },
                block: 64,
                model: Model::GstFdpa(GstFdpa {
                    g: 16,
                    f: 35,
                    e_zero: -139,
                    group_floor: None,
                    out: rz,
                }),
            },
            64,
        ),
        (
            "cdna2_bf16_1k_k8",
            DotUnit {
                formats: Formats {
                    a: format::BF16,
                    b: format::BF16,
                    c: format::FP32,
                    d: format::FP32,
                    scale: None,
                },
                block: 8,
                model: Model::FtzMulAdd(FtzMulAdd {
                    p: 4,
                    acc: format::FP32,
                    nan: NanStyle::DefaultQuiet,
                }),
            },
            8,
        ),
        (
            "cdna3_f16_k8",
            DotUnit {
                formats: Formats {
                    a: format::FP16,
                    b: format::FP16,
                    c: format::FP32,
                    d: format::FP32,
                    scale: None,
                },
                block: 8,
                model: Model::TrFdpa(TrFdpa {
                    f: 24,
                    f2: 31,
                    e_zero_c: -126,
                    e_norm_min: -126,
                    product_inf_exp: None,
                    out: Output {
                        rho: OutputRounding {
                            fmt: format::FP32,
                            mode: Rounding::NearestEven,
                            opts: RoundOpts::IEEE,
                        },
                        nan: NanStyle::DefaultQuiet,
                        neg_zero_to_pos: false,
                    },
                }),
            },
            8,
        ),
    ]
}

fn finite(fmt: &Format, rng: &mut impl Rng) -> u64 {
    let mask = if fmt.width() < 8 {
        (1u64 << fmt.width()) - 1
    } else {
        fmt.storage_mask()
    };
    loop {
        let w = rng.random::<u64>() & mask;
        if let Value::Finite { exp, .. } = fmt.decode(w) {
            if fmt.exp_bits < 8 || exp.abs() < 40 {
                return w;
            }
        }
    }
}

fn decode(c: &mut Criterion) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let words: Vec<u64> = (0..1024).map(|_| rng.random::<u64>() & 0xffff).collect();
    let mut g = c.benchmark_group("decode_1024");
    g.bench_function("f16_plain_decode", |b| {
        b.iter(|| {
            words
                .iter()
                .map(|&w| matches!(format::FP16.decode(black_box(w)), Value::Finite { .. }) as u32)
                .sum::<u32>()
        })
    });
    g.bench_function("e4m3_plain_decode", |b| {
        b.iter(|| {
            words
                .iter()
                .map(|&w| {
                    matches!(
                        format::E4M3.decode(black_box(w & 0xff)),
                        Value::Finite { .. }
                    ) as u32
                })
                .sum::<u32>()
        })
    });
    g.finish();
}

fn align_truncate(c: &mut Criterion) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let terms: Vec<Term> = (0..17)
        .map(|_| {
            Term::product(
                format::FP16.decode(finite(&format::FP16, &mut rng)),
                &format::FP16,
                format::FP16.decode(finite(&format::FP16, &mut rng)),
                &format::FP16,
                -133,
            )
        })
        .collect();
    c.bench_function("tfdpa_truncated_sum_17_terms", |b| {
        b.iter(|| truncated_sum(black_box(&terms), 25))
    });
}

fn rounding(c: &mut Criterion) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let xs: Vec<(i64, i32)> = (0..1024)
        .map(|_| ((rng.random::<i64>() >> 20), rng.random_range(-160..100)))
        .collect();
    let o = out(format::FP32, Rounding::TowardZero);
    let mut g = c.benchmark_group("round_1024");
    g.bench_function("round_encode", |b| {
        b.iter(|| {
            xs.iter()
                .map(|&(s, e)| {
                    let x = Exact {
                        neg: s < 0,
                        mag: s.unsigned_abs() as u128,
                        exp: e,
                        sticky: false,
                    };
                    o.round_encode(&format::FP32, black_box(x), false)
                })
                .fold(0, |a, b| a ^ b)
        })
    });
    g.bench_function("round_value", |b| {
        b.iter(|| {
            xs.iter()
                .map(|&(s, e)| {
                    let x = Exact {
                        neg: s < 0,
                        mag: s.unsigned_abs() as u128,
                        exp: e,
                        sticky: false,
                    };
                    round::round(
                        &format::FP32,
                        black_box(x),
                        Rounding::TowardZero,
                        RoundOpts::INF_ON_OVERFLOW,
                    )
                    .is_neg() as u64
                })
                .sum::<u64>()
        })
    });
    g.finish();
}

fn dots(c: &mut Criterion) {
    let mut g = c.benchmark_group("dot_256");
    for (name, unit, k) in units() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let f = unit.formats;
        let n = 256;
        let s = unit.scales_for(k);
        let sf = f.scale.map_or(format::UE8M0, |(x, _)| x);
        let a: Vec<u64> = (0..n * k).map(|_| finite(&f.a, &mut rng)).collect();
        let bm: Vec<u64> = (0..n * k).map(|_| finite(&f.b, &mut rng)).collect();
        let cw: Vec<u64> = (0..n)
            .map(|_| (rng.random::<f32>() - 0.5).to_bits() as u64)
            .collect();
        let sa: Vec<u64> = (0..n * s).map(|_| finite(&sf, &mut rng)).collect();
        let sb: Vec<u64> = (0..n * s).map(|_| finite(&sf, &mut rng)).collect();
        let kern = unit.kernel();
        let run = |plain: bool| {
            (0..n)
                .map(|i| {
                    let args = (
                        &a[i * k..(i + 1) * k],
                        &bm[i * k..(i + 1) * k],
                        cw[i],
                        &sa[i * s..(i + 1) * s],
                        &sb[i * s..(i + 1) * s],
                    );
                    if plain {
                        unit.dot_plain_scaled(args.0, args.1, args.2, args.3, args.4)
                    } else {
                        kern.dot_scaled(args.0, args.1, args.2, args.3, args.4)
                    }
                })
                .fold(0, |x, y| x ^ y)
        };
        g.bench_function(format!("{name}_plain"), |b| b.iter(|| run(true)));
        g.bench_function(format!("{name}_kernel"), |b| b.iter(|| run(false)));
        // The batch evaluation (eight dot products across vector lanes where the kernel has
        // it), on the same inputs.
        let mut d = vec![0u64; n];
        g.bench_function(format!("{name}_dots"), |b| {
            b.iter(|| {
                kern.dots_scaled(k, &a, &bm, &cw, &sa, &sb, &mut d).unwrap();
                black_box(&d);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, decode, align_truncate, rounding, dots);
criterion_main!(benches);
