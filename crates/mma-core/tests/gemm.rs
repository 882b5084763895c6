//! The threaded matrix driver against the plain model stepped along K, for several thread
//! counts, with the per-dot kernels and the lane-wise ones (eight columns at a time).

use mma_core::format;
use mma_core::model::{NanStyle, Output, OutputRounding};
use mma_core::models::ftz_mul_add::FtzMulAdd;
use mma_core::models::gst_fdpa::GstFdpa;
use mma_core::models::t_fdpa::TFdpa;
use mma_core::models::tr_fdpa::TrFdpa;
use mma_core::GemmIn;
use mma_core::{DotUnit, Formats, Model, RoundOpts, Rounding, ShapeError};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn rz32() -> Output {
    Output {
        rho: OutputRounding {
            fmt: format::FP32,
            mode: Rounding::TowardZero,
            opts: RoundOpts::INF_ON_OVERFLOW,
        },
        nan: NanStyle::AllOnes,
        neg_zero_to_pos: true,
    }
}

fn bf16_unit() -> DotUnit {
    DotUnit {
        formats: Formats {
            a: format::BF16,
            b: format::BF16,
            c: format::FP32,
            d: format::FP32,
            scale: None,
        },
        block: 16,
        model: Model::TFdpa(TFdpa {
            f: 25,
            e_zero: -133,
            out: rz32(),
        }),
    }
}

/// Serial reference: one plain-model dot product per element and K step, D fed back as C.
fn stepped_mma(
    unit: &DotUnit,
    (m, n, k): (usize, usize, usize),
    ks: usize,
    x: &GemmIn,
) -> Vec<u64> {
    let s = unit.scales_for(k);
    let sps = s / (k / ks);
    let mut acc = x.c.to_vec();
    for t in 0..k / ks {
        let a: Vec<u64> = (0..m)
            .flat_map(|i| x.a[i * k + t * ks..i * k + (t + 1) * ks].to_vec())
            .collect();
        let b: Vec<u64> = (0..n)
            .flat_map(|j| x.b_cols[j * k + t * ks..j * k + (t + 1) * ks].to_vec())
            .collect();
        let sa: Vec<u64> = (0..m)
            .flat_map(|i| x.scale_a[i * s + t * sps..i * s + (t + 1) * sps].to_vec())
            .collect();
        let sb: Vec<u64> = (0..n)
            .flat_map(|j| x.scale_b[j * s + t * sps..j * s + (t + 1) * sps].to_vec())
            .collect();
        // The plain model, not the fast kernels the driver runs.
        let sps_ = sps;
        acc = (0..m * n)
            .map(|ij| {
                let (i, j) = (ij / n, ij % n);
                unit.dot_plain(
                    &a[i * ks..(i + 1) * ks],
                    &b[j * ks..(j + 1) * ks],
                    acc[ij],
                    &sa[i * sps_..(i + 1) * sps_],
                    &sb[j * sps_..(j + 1) * sps_],
                )
            })
            .collect();
    }
    acc
}

fn check(unit: &DotUnit, shape: (usize, usize, usize), ks: usize, seed: u64) {
    let (m, n, k) = shape;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let f = unit.formats;
    let mask = |fmt: &format::Format| {
        if fmt.width() < 8 {
            (1u64 << fmt.width()) - 1
        } else {
            fmt.storage_mask()
        }
    };
    let a: Vec<u64> = (0..m * k)
        .map(|_| rng.random::<u64>() & mask(&f.a) & 0xbfff)
        .collect();
    let b: Vec<u64> = (0..n * k)
        .map(|_| rng.random::<u64>() & mask(&f.b) & 0xbfff)
        .collect();
    let c: Vec<u64> = (0..m * n)
        .map(|_| (rng.random::<f32>() - 0.5).to_bits() as u64)
        .collect();
    let s = unit.scales_for(k);
    let sf = f.scale.map_or(format::UE8M0, |(x, _)| x);
    let sa: Vec<u64> = (0..m * s)
        .map(|_| rng.random::<u64>() & mask(&sf))
        .collect();
    let sb: Vec<u64> = (0..n * s)
        .map(|_| rng.random::<u64>() & mask(&sf))
        .collect();
    let x = GemmIn {
        a: &a,
        b_cols: &b,
        c: &c,
        scale_a: &sa,
        scale_b: &sb,
    };
    let want = stepped_mma(unit, shape, ks, &x);
    for threads in [1, 2, 3, 0] {
        let mut d = vec![0u64; m * n];
        unit.gemm(shape, ks, &x, &mut d, threads).unwrap();
        assert_eq!(d, want, "threads {threads}");
    }
    if ks == k {
        let mut d = vec![0u64; m * n];
        unit.mma(shape, &a, &b, &c, &sa, &sb, &mut d).unwrap();
        assert_eq!(d, want);
    }
}

#[test]
fn gemm_matches_serial_mma_for_any_thread_count() {
    let u = bf16_unit();
    check(&u, (37, 70, 64), 16, 1);
    check(&u, (20, 9, 48), 48, 2);
    check(&u, (64, 130, 32), 16, 3);
    // The lane-wise kernels (eight columns at a time) of the other model families.
    let ftz = DotUnit {
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
    };
    check(&ftz, (19, 41, 64), 8, 4);
    let tr = DotUnit {
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
    };
    check(&tr, (17, 33, 32), 8, 5);
    for u in [&u, &ftz, &tr] {
        assert_eq!(
            u.kernel().is_batched(),
            mma_core::Isa::detect() == mma_core::Isa::Avx2
        );
    }
}

#[test]
fn gemm_with_block_scales() {
    let u = DotUnit {
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
            out: rz32(),
        }),
    };
    check(&u, (19, 23, 128), 64, 4);
}

#[test]
fn gemm_rejects_bad_shapes() {
    let u = bf16_unit();
    let z = vec![0u64; 16 * 16];
    let x = GemmIn {
        a: &z,
        b_cols: &z,
        c: &z,
        scale_a: &[],
        scale_b: &[],
    };
    let mut d = vec![0u64; 16 * 16];
    assert!(matches!(
        u.gemm((16, 16, 16), 5, &x, &mut d, 1),
        Err(ShapeError::Ragged { .. })
    ));
    assert!(matches!(
        u.gemm((16, 16, 15), 16, &x, &mut d, 1),
        Err(ShapeError::Matrix { .. })
    ));
}
