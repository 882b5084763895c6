//! The threaded matrix driver against the plain model stepped along K, for several thread
//! counts, with the per-dot kernels and the lane-wise ones (eight columns at a time, and the
//! T/TR/GTR-FDPA lanes with A and B decoded once).

use crate::common;

use mma_core::format;
use mma_core::model::{NanStyle, Output, OutputRounding};
use mma_core::models::ftz_mul_add::FtzMulAdd;
use mma_core::models::gst_fdpa::GstFdpa;
use mma_core::models::gtr_fdpa::GtrFdpa;
use mma_core::models::t_fdpa::TFdpa;
use mma_core::models::tr_fdpa::TrFdpa;
use mma_core::GemmIn;
use mma_core::{DotUnit, Formats, Model, RoundOpts, Rounding, ShapeError, Value};
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

/// A TR-FDPA unit with fp32 C and D (`F2` = 31, C's zero exponent and the normal limit -126).
fn tr_unit(
    (a, b): (format::Format, format::Format),
    block: usize,
    f: u32,
    product_inf_exp: Option<i32>,
) -> DotUnit {
    DotUnit {
        formats: Formats {
            a,
            b,
            c: format::FP32,
            d: format::FP32,
            scale: None,
        },
        block,
        model: Model::TrFdpa(TrFdpa {
            f,
            f2: 31,
            e_zero_c: -126,
            e_norm_min: -126,
            product_inf_exp,
            out: common::amd_out(),
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
                unit.dot_plain_scaled(
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
        unit.mma_scaled(shape, &a, &b, &c, &sa, &sb, &mut d)
            .unwrap();
        assert_eq!(d, want);
    }
    // In rounds of rows (B prepared once for all of them): the same bits, and `between` told
    // after each round how many rows are done.
    for (rows, threads) in [(1, 1), (8, 2), (13, 0)] {
        let mut d = vec![u64::MAX; m * n];
        let mut done = Vec::new();
        let between = |r: usize| -> Result<(), ()> {
            done.push(r);
            Ok(())
        };
        let run = unit.gemm_in_rounds(shape, ks, &x, &mut d, threads, rows, between);
        assert_eq!(run, Ok(Ok(())), "rows {rows}");
        assert_eq!(d, want, "rows {rows}, threads {threads}");
        // Rounds are whole tasks of eight rows: 1 and 8 give rounds of 8, 13 of 16.
        let round = rows.next_multiple_of(8);
        let want_done: Vec<usize> = (1..=m.div_ceil(round))
            .map(|i| (i * round).min(m))
            .collect();
        assert_eq!(done, want_done, "rows {rows}");
    }
}

#[test]
fn gemm_in_rounds_stops_where_between_says() {
    // 37 rows in rounds of 8: `between` stops the product after the second round, so rows
    // 0..16 are D and rows 16.. keep what the caller put there.
    let u = bf16_unit();
    let (m, n, k) = (37, 20, 32);
    let a: Vec<u64> = (0..m * k).map(|i| 0x3F80 + (i as u64 % 7)).collect();
    let b: Vec<u64> = (0..n * k).map(|i| 0xBF00 + (i as u64 % 5)).collect();
    let c = vec![0u64; m * n];
    let x = GemmIn {
        a: &a,
        b_cols: &b,
        c: &c,
        scale_a: &[],
        scale_b: &[],
    };
    let want = stepped_mma(&u, (m, n, k), 16, &x);
    let mut d = vec![u64::MAX; m * n];
    let stop = |r: usize| if r >= 16 { Err(r) } else { Ok(()) };
    let run = u.gemm_in_rounds((m, n, k), 16, &x, &mut d, 1, 8, stop);
    assert_eq!(run, Ok(Err(16)));
    assert_eq!(d[..16 * n], want[..16 * n]);
    assert!(d[16 * n..].iter().all(|&w| w == u64::MAX));
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
    let tr = tr_unit((format::FP16, format::FP16), 8, 24, None);
    check(&tr, (17, 33, 32), 8, 5);
    for u in [&u, &ftz, &tr] {
        assert_eq!(
            u.kernel().is_batched(),
            mma_core::Isa::detect() != mma_core::Isa::Portable
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
            group_floor: None,
            out: rz32(),
        }),
    };
    check(&u, (19, 23, 128), 64, 4);
}

/// K = 0: no instruction runs, D is C (on the lanes' units too).
#[test]
fn gemm_of_depth_zero_is_c() {
    let u = bf16_unit();
    let c: Vec<u64> = (0..3 * 17).map(|i| (i as f32).to_bits() as u64).collect();
    let x = GemmIn {
        a: &[],
        b_cols: &[],
        c: &c,
        scale_a: &[],
        scale_b: &[],
    };
    let mut d = vec![0u64; 3 * 17];
    u.gemm((3, 17, 0), 16, &x, &mut d, 1).unwrap();
    assert_eq!(d, c);
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

/// Words of `fmt` from `common::word` (zeros, subnormals, the top binade, Inf/NaN), the
/// Inf/NaN ones replaced by zeros unless `specials`.
fn words(
    fmt: &format::Format,
    len: usize,
    specials: bool,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<u64> {
    (0..len)
        .map(|_| {
            let w = common::word(fmt, rng);
            match fmt.decode(w) {
                Value::Nan | Value::Inf { .. } if !specials => 0,
                _ => w,
            }
        })
        .collect()
}

/// `unit.gemm` against the plain model stepped along K on words with every kind of value:
/// Inf/NaN only in every fourth row of A, every fifth column of B and every third C, so that
/// most dot products stay finite and run on the lanes.
fn check_values(unit: &DotUnit, (m, n, k): (usize, usize, usize), ks: usize, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let f = unit.formats;
    let a: Vec<u64> = (0..m)
        .flat_map(|i| words(&f.a, k, i % 4 == 0, &mut rng))
        .collect();
    let b: Vec<u64> = (0..n)
        .flat_map(|j| words(&f.b, k, j % 5 == 0, &mut rng))
        .collect();
    let c: Vec<u64> = (0..m * n)
        .flat_map(|ij| words(&f.c, 1, ij % 3 == 0, &mut rng))
        .collect();
    let x = GemmIn {
        a: &a,
        b_cols: &b,
        c: &c,
        scale_a: &[],
        scale_b: &[],
    };
    let want = stepped_mma(unit, (m, n, k), ks, &x);
    for threads in [1, 2] {
        let mut d = vec![0u64; m * n];
        unit.gemm((m, n, k), ks, &x, &mut d, threads).unwrap();
        for (ij, (got, want)) in d.iter().zip(&want).enumerate() {
            let (i, j) = (ij / n, ij % n);
            assert_eq!(
                got,
                want,
                "{}: D[{i}][{j}], threads {threads}\na {:x?}\nb {:x?}\nc {:x}",
                unit.describe(),
                &a[i * k..(i + 1) * k],
                &b[j * k..(j + 1) * k],
                c[ij]
            );
        }
    }
}

#[test]
fn gemm_lanes_match_plain_on_every_kind_of_value() {
    use common::{nv_out, tfdpa};
    use format::{BF16, E2M1, E3M2, E4M3, E4M3_FNUZ, E5M2, FP16, FP32, TF32};
    let rz32 = nv_out(FP32, Rounding::TowardZero, true);
    let rne32 = nv_out(FP32, Rounding::NearestEven, false);
    let rne16 = nv_out(FP16, Rounding::NearestEven, false);
    // T-FDPA: every block length of the lanes, fp32 and fp16 C/D, RZ and RNE, each stage's
    // formats (fp16, bf16, fp8/fp6/fp4, tf32).
    let t_units = [
        (tfdpa(BF16, BF16, FP32, rz32, FP32, 25, 16), 32),
        (tfdpa(FP16, FP16, FP16, rne16, FP16, 24, 8), 16),
        (tfdpa(E4M3, E5M2, FP32, rz32, FP32, 25, 32), 32),
        (tfdpa(E2M1, E3M2, FP32, rne32, FP32, 25, 32), 64),
        (tfdpa(TF32, TF32, FP32, rz32, FP32, 24, 4), 8),
        (tfdpa(TF32, TF32, FP32, rz32, FP32, 25, 8), 8),
        (tfdpa(BF16, BF16, FP32, rne32, FP32, 23, 4), 4),
        // A zero exponent inside the products' range (a synthetic unit): products below it
        // count at their own exponent, zero products at e_zero; the lanes leave such
        // blocks to the per-dot kernel.
        (synthetic_e_zero_unit(), 16),
    ];
    let amd = |a, b| Formats {
        a,
        b,
        c: FP32,
        d: FP32,
        scale: None,
    };
    let gtr = |a, b, block, c_drop| DotUnit {
        formats: amd(a, b),
        block,
        model: Model::GtrFdpa(GtrFdpa {
            f: 24,
            f2: 31,
            e_zero_c: -126,
            e_norm_min: -126,
            c_drop,
            out: common::amd_out(),
        }),
    };
    let amd_units = [
        (tr_unit((FP16, FP16), 8, 24, Some(128)), 16),
        (tr_unit((BF16, BF16), 16, 25, Some(128)), 32),
        (tr_unit((TF32, TF32), 4, 24, Some(128)), 8),
        (gtr(E4M3_FNUZ, E4M3_FNUZ, 16, 25), 32),
        (gtr(FP16, FP16, 8, 25), 16),
    ];
    for (i, (u, ks)) in t_units.iter().chain(&amd_units).enumerate() {
        // Each unit has lanes on an AVX2 CPU: the matrix lanes are what runs.
        assert_eq!(
            u.kernel().is_batched_for(*ks),
            mma_core::Isa::detect() != mma_core::Isa::Portable,
            "{}",
            u.describe()
        );
        // Columns not a multiple of eight (a tail through the per-dot kernel), several
        // instructions along K.
        check_values(u, (11, 29, 4 * ks), *ks, 40 + i as u64);
    }
}

/// Products beyond f32's range, where the lanes' f32 products are Inf: bf16 `2^100 · 2^28 =
/// 2^128` and `2^100 · 2^27 = 2^127`, summed with C = 0. Exactly `1.5 · 2^128`: beyond fp32,
/// so D is +Inf (RZ with overflow to Inf, the unit's output); a lane that took the f32 products
/// at face value would sum `Inf` (truncated to `i32::MIN`) and `2^24` to a negative number.
#[test]
fn gemm_lanes_leave_products_beyond_f32_to_the_model() {
    let u = bf16_unit();
    let bf = |e: i32| ((127 + e) as u64) << 7;
    let (n, k) = (8, 16);
    let mut a = vec![0u64; k];
    (a[0], a[1]) = (bf(100), bf(100));
    let mut b = vec![0u64; n * k];
    for j in 0..n {
        (b[j * k], b[j * k + 1]) = (bf(28), bf(27));
    }
    let want = f32::INFINITY.to_bits() as u64;
    one_row(&u, (n, k), (&a, &b, &vec![0u64; n]), want);
}

/// Products below the zero exponent count at their own exponent when every product is
/// non-zero: with e_zero = -20 and F = 25, sixteen products of fp16 `2^-12 · (±2^-12)` (eight
/// of each sign) have exponent -24, so e_max = max(-24, C's -30) = -24 and the grid is 2^-49;
/// the products cancel and C = 2^-30 · (1 + 2^-17) lies on the grid, so D = C (RZ, exact). A
/// lane that put e_max at the zero exponent would truncate C to the grid 2^-45: D = 2^-30.
#[test]
fn gemm_lanes_leave_products_below_the_zero_exponent_to_the_model() {
    let u = synthetic_e_zero_unit();
    let (n, k) = (8, 16);
    let a = vec![0x0c00u64; k];
    let b: Vec<u64> = (0..n * k)
        .map(|i| if i % 2 == 0 { 0x0c00 } else { 0x8c00 })
        .collect();
    let c_val = 2f32.powi(-30) * (1.0 + 2f32.powi(-17));
    let c = vec![c_val.to_bits() as u64; n];
    one_row(&u, (n, k), (&a, &b, &c), c_val.to_bits() as u64);
}

/// A T-FDPA unit (fp16 inputs, fp32 C and D, RZ, F = 25, blocks of 16) whose zero exponent,
/// -20, lies inside the products' range: a synthetic unit.
fn synthetic_e_zero_unit() -> DotUnit {
    let rz32 = common::nv_out(format::FP32, Rounding::TowardZero, true);
    let fp16 = format::FP16;
    DotUnit {
        model: Model::TFdpa(TFdpa {
            f: 25,
            e_zero: -20,
            out: rz32,
        }),
        ..common::tfdpa(fp16, fp16, format::FP32, rz32, format::FP32, 25, 16)
    }
}

/// One row of D (`n` columns of depth `k`, one instruction) by `unit.gemm`: every element is
/// `want`, and the plain model stepped along K agrees.
fn one_row(unit: &DotUnit, (n, k): (usize, usize), (a, b, c): (&[u64], &[u64], &[u64]), want: u64) {
    let x = GemmIn {
        a,
        b_cols: b,
        c,
        scale_a: &[],
        scale_b: &[],
    };
    let mut d = vec![0u64; n];
    unit.gemm((1, n, k), k, &x, &mut d, 1).unwrap();
    assert_eq!(d, vec![want; n]);
    assert_eq!(d, stepped_mma(unit, (1, n, k), k, &x));
}

/// A block without a non-zero product aligns C below the zero exponent, whatever C's own
/// exponent: with e_zero = -20 (a synthetic unit) and F = 25, C = 2^-30 · (1 + 2^-23) keeps
/// only the bits down to 2^(-20 - 25) = 2^-45, so D = 2^-30 (RZ). A lane that aligned to C's
/// exponent instead would keep C whole.
#[test]
fn gemm_lanes_align_c_below_the_zero_exponent() {
    let u = synthetic_e_zero_unit();
    let (n, k) = (8, 16);
    let (a, b) = (vec![0u64; k], vec![0x3c00u64; n * k]);
    let c_val = 2f32.powi(-30) * (1.0 + 2f32.powi(-23));
    let c = vec![c_val.to_bits() as u64; n];
    one_row(&u, (n, k), (&a, &b, &c), 2f32.powi(-30).to_bits() as u64);
}

/// The matrix lanes skip the per-block check of the smallest product where the smallest
/// exponent codes of a row of A and of a panel of B (over all of K) already keep every product
/// inside f32's normal range and above the zero exponent, and keep the check elsewhere. bf16
/// T-FDPA and TR-FDPA on normal values with exponents -40 to 10 and zeros (rows and panels
/// that need no check: products at or above 2^-80), except row 3, whose elements are 2^-126
/// to 2^-124, and column 20, which holds the subnormal -5 · 2^-133 (its panel is checked for
/// every row). Row 3 has C = 0, and columns 26 to 37 exponents -20 to -15 only: their products
/// with row 3, 2^-146 to 2^-138, are subnormal as f32 and decide a subnormal D, which the
/// model gives. D against the plain model stepped along K, so that rows and panels of both
/// kinds meet in one product. (Where the alignment's scale is inside f32's range, a product
/// of at most 22 significant bits rounded to f32's subnormal grid truncates as the exact one
/// would, so a bound that let row 3 through would still pass here; the case that needs the
/// check is the zero exponent, and a bound that ignored it fails
/// `gemm_lanes_leave_products_below_the_zero_exponent_to_the_model`: tried once.)
#[test]
fn gemm_lanes_check_small_products_where_the_operands_need_it() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
    let mut normal = || -> u64 {
        if rng.random_range(0..10) == 0 {
            return 0;
        }
        let sign = rng.random_range(0..2u64) << 15;
        let exp = rng.random_range(127 - 40..=127 + 10u64);
        sign | (exp << 7) | rng.random_range(0..128u64)
    };
    let (m, n, k) = (7, 40, 64);
    let mut a: Vec<u64> = (0..m * k).map(|_| normal()).collect();
    let mut b: Vec<u64> = (0..n * k).map(|_| normal()).collect();
    for (e, w) in a[3 * k..4 * k].iter_mut().enumerate() {
        *w = ((e as u64 % 2) << 15) | ((1 + e as u64 % 3) << 7) | ((e as u64 * 37) % 128);
    }
    for (i, w) in b[26 * k..38 * k].iter_mut().enumerate() {
        *w = ((i as u64 % 2) << 15) | ((107 + i as u64 % 6) << 7) | ((i as u64 * 53) % 128);
    }
    b[20 * k + 9] = 0x8005;
    let c: Vec<u64> = (0..m * n)
        .map(|ij| match ij / n {
            3 => 0,
            _ => (ij as f32 / 64.0 - 2.0).to_bits() as u64,
        })
        .collect();
    let x = GemmIn {
        a: &a,
        b_cols: &b,
        c: &c,
        scale_a: &[],
        scale_b: &[],
    };
    let tr = tr_unit((format::BF16, format::BF16), 16, 25, Some(128));
    for u in [bf16_unit(), tr] {
        let want = stepped_mma(&u, (m, n, k), 16, &x);
        let mut d = vec![0u64; m * n];
        u.gemm((m, n, k), 16, &x, &mut d, 1).unwrap();
        assert_eq!(d, want, "{}", u.describe());
    }
}
