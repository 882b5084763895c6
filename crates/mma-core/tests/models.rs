//! Hand-derived cases for each model, with the derivation next to each case.

use mma_core::format::{self, Format};
use mma_core::models::e_fdpa::EFdpa;
use mma_core::models::fma::Fma;
use mma_core::models::gst_fdpa::GstFdpa;
use mma_core::models::sliced_fdpa::SlicedFdpa;
use mma_core::models::st_fdpa::StFdpa;
use mma_core::models::t_fdpa::TFdpa;
use mma_core::{DotUnit, Formats, Model, NanStyle, Output, OutputRounding, RoundOpts, Rounding};

fn nv_out(fmt: Format, mode: Rounding) -> Output {
    Output::fused(fmt, mode, true)
}

fn formats(a: Format, d: Format) -> Formats {
    Formats {
        a,
        b: a,
        c: d,
        d,
        scale: None,
    }
}

/// A T-FDPA unit on f16 inputs with fp32 output rounded toward zero.
fn tfdpa_f16(f: u32, block: usize) -> DotUnit {
    DotUnit {
        formats: formats(format::FP16, format::FP32),
        block,
        model: Model::TFdpa(TFdpa {
            f,
            e_zero: -133,
            out: nv_out(format::FP32, Rounding::TowardZero),
        }),
    }
}

const ONE: u64 = 0x3c00; // f16 1.0
const TWO_M12: u64 = 0x0c00; // f16 2^-12 (biased exponent 3)
const NEG_TWO_M13: u64 = 0x8800; // f16 -2^-13 (biased exponent 2)

#[test]
fn t_fdpa_keeps_exactly_f_fraction_bits() {
    // Products 1·1 = 1 (e = 0) and 2^-12·(-2^-13) = -2^-25; e_max = 0. With F = 25 the small
    // term survives: 1 - 2^-25, which truncates (RZ, fp32 ulp 2^-24 below 1) to 1 - 2^-24 =
    // 0x3f7fffff. With F = 24 the term truncates toward zero to 0: the sum is exactly 1.0.
    let a = [ONE, TWO_M12];
    let b = [ONE, NEG_TWO_M13];
    assert_eq!(tfdpa_f16(25, 16).dot(&a, &b, 0), 0x3f7f_ffff);
    assert_eq!(tfdpa_f16(24, 16).dot(&a, &b, 0), 0x3f80_0000);
    assert_eq!(tfdpa_f16(23, 16).dot(&a, &b, 0), 0x3f80_0000);
}

#[test]
fn t_fdpa_zero_terms_take_e_zero() {
    // One product 2^-140·... cannot be formed in f16; use C instead: C = 2^-140 (fp32
    // subnormal 0x00000200 = 2^9·2^-149), all products zero. Zero products have e = e_zero =
    // -133, so e_max = -133 > -140 and C is truncated to F = 25 bits below 2^-133: 2^-140 is
    // 7 bits below, it survives exactly and RZ returns it. With e_zero = -100, C lies 40 bits
    // below e_max and truncates to 0: the result is +0.
    let c = 0x0000_0200;
    let mut u = tfdpa_f16(25, 16);
    assert_eq!(u.dot(&[0, 0], &[0, 0], c), c);
    u.model = Model::TFdpa(TFdpa {
        f: 25,
        e_zero: -100,
        out: nv_out(format::FP32, Rounding::TowardZero),
    });
    assert_eq!(u.dot(&[0, 0], &[0, 0], c), 0);
}

#[test]
fn t_fdpa_chains_blocks_through_the_output_format() {
    // Block 1: 1·1 + 2^-12·(-2^-13) = 1 - 2^-25, rounded RZ to fp32: 1 - 2^-24. Block 2 adds
    // 2^-12·2^-12 = 2^-24 to that C: exactly 1.0 (0x3f800000). One block of 4 gives
    // 1 - 2^-25 + 2^-24 = 1 + 2^-25, truncated to 1.0 as well; with C = 0 and a block of 2 the
    // chain shows: the intermediate RZ lost 2^-25, which the second block cannot restore.
    let a = [ONE, TWO_M12, TWO_M12, 0];
    let b = [ONE, NEG_TWO_M13, TWO_M12, 0];
    assert_eq!(tfdpa_f16(25, 2).dot(&a, &b, 0), 0x3f80_0000);
    // A case where chaining changes the result: block 1 = 1 - 2^-25 -> RZ 1 - 2^-24;
    // block 2 adds -2^-25: 1 - 2^-24 - 2^-25 -> RZ 1 - 2^-23 (0x3f7ffffe). In one block:
    // 1 - 2^-25 - 2^-25 = 1 - 2^-24 exactly (0x3f7fffff).
    let a = [ONE, TWO_M12, TWO_M12, 0];
    let b = [ONE, NEG_TWO_M13, NEG_TWO_M13, 0];
    assert_eq!(tfdpa_f16(25, 2).dot(&a, &b, 0), 0x3f7f_fffe);
    assert_eq!(tfdpa_f16(25, 4).dot(&a, &b, 0), 0x3f7f_ffff);
}

#[test]
fn t_fdpa_special_values_and_signs() {
    let u = tfdpa_f16(25, 16);
    // 0·Inf is invalid: the all-ones NaN 0x7fffffff.
    assert_eq!(u.dot(&[0x7c00], &[0], 0), 0x7fff_ffff);
    // Inf - Inf between products: NaN.
    assert_eq!(u.dot(&[0x7c00, 0xfc00], &[ONE, ONE], 0), 0x7fff_ffff);
    // Inf product plus finite C: +Inf 0x7f800000.
    assert_eq!(u.dot(&[0x7c00], &[ONE], 0x3f80_0000), 0x7f80_0000);
    // -1·1 + 1 = exact zero, and -0·1 + -0 = -0: both returned as +0.
    assert_eq!(u.dot(&[0xbc00], &[ONE], 0x3f80_0000), 0);
    assert_eq!(u.dot(&[0x8000], &[ONE], 0x8000_0000), 0);
    // bf16 overflow: 0x7f7f (≈ 3.39e38) · 2 ≈ 6.8e38 > fp32 max; RZ would clamp, the NVIDIA
    // rule gives +Inf.
    let bf = DotUnit {
        formats: formats(format::BF16, format::FP32),
        block: 16,
        model: Model::TFdpa(TFdpa {
            f: 25,
            e_zero: -133,
            out: nv_out(format::FP32, Rounding::TowardZero),
        }),
    };
    assert_eq!(bf.dot(&[0x7f7f], &[0x4000], 0), 0x7f80_0000);
}

#[test]
fn e_fdpa_rounds_the_exact_sum_once() {
    // 1 + 2^-24 + 2^-24 (f16 products 2^-12·2^-12): exact sum 1 + 2^-23 = 0x3f800001; a
    // sequential fp32 sum would round 1 + 2^-24 to 1 (tie to even) twice and give 1.0.
    let u = DotUnit {
        formats: formats(format::FP16, format::FP32),
        block: 4,
        model: Model::EFdpa(EFdpa {
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
    assert_eq!(
        u.dot(&[ONE, TWO_M12, TWO_M12], &[ONE, TWO_M12, TWO_M12], 0),
        0x3f80_0001
    );
    // IEEE zero signs: -0 + -0 is -0; 1 - 1 is +0 in RNE.
    assert_eq!(u.dot(&[0x8000], &[ONE], 0x8000_0000), 0x8000_0000);
    assert_eq!(u.dot(&[0xbc00], &[ONE], 0x3f80_0000), 0);
    // Inf - Inf: the IEEE default NaN of fp32.
    assert_eq!(u.dot(&[0x7c00, 0xfc00], &[ONE, ONE], 0), 0x7fc0_0000);
}

/// E-FDPA with an f64 C (a unit file may have one): with zero products and a C far below the
/// fixed anchor of 2^-352 the exact sum is C itself, so D is C, in the plain model, its trace
/// and the kernel alike. Before, the plain model's window stayed anchored for the products and
/// folded C's bits below 2^-352 into a sticky bit (D 0 in RNE, 2^-1074 in RU), while the kernel
/// returned C: `explain` and `dot` disagreed.
#[test]
fn e_fdpa_sums_a_tiny_f64_c_exactly() {
    let out = |mode| Output {
        rho: OutputRounding {
            fmt: format::FP64,
            mode,
            opts: RoundOpts::IEEE,
        },
        nan: NanStyle::DefaultQuiet,
        neg_zero_to_pos: false,
    };
    for mode in [Rounding::NearestEven, Rounding::Up, Rounding::TowardZero] {
        let u = DotUnit {
            formats: Formats {
                a: format::FP16,
                b: format::FP16,
                c: format::FP64,
                d: format::FP64,
                scale: None,
            },
            block: 4,
            model: Model::EFdpa(EFdpa { out: out(mode) }),
        };
        // 2^-1000 = 0x0170000000000000 (biased exponent 23); 3·2^-1070 is subnormal
        // (0x0000000000000018: 24·2^-1074).
        for c in [
            0x0170_0000_0000_0000u64,
            0x0000_0000_0000_0018,
            0x8170_0000_0000_0000,
        ] {
            let (a, b) = ([0u64; 4], [ONE; 4]);
            assert_eq!(u.dot_plain(&a, &b, c), c, "{mode:?} {c:#x}");
            assert_eq!(u.dot(&a, &b, c), c, "{mode:?} {c:#x}");
            assert_eq!(u.explain(&a, &b, c).d, c, "{mode:?} {c:#x}");
            // With a product of 1: 1 + 2^-1000 rounds to 1 (RNE, RZ) or to 1 + 2^-52 (RU).
            let (a1, b1) = ([ONE, 0, 0, 0], [ONE; 4]);
            let want = match (mode, c >> 63) {
                (Rounding::Up, 0) => 0x3FF0_0000_0000_0001,
                (Rounding::TowardZero, 1) => 0x3FEF_FFFF_FFFF_FFFF,
                _ => 0x3FF0_0000_0000_0000,
            };
            assert_eq!(u.dot_plain(&a1, &b1, c), want, "{mode:?} 1 + {c:#x}");
            assert_eq!(u.dot(&a1, &b1, c), want, "{mode:?} 1 + {c:#x}");
        }
    }
}

#[test]
fn fma_chain_rounds_after_every_step() {
    // fp32: c = fma(1, 1, 2^-24) = 1 + 2^-24 -> RNE 1.0 (tie, even); then fma(2^-24·1) + 1 ->
    // 1.0 again. The exact sum 1 + 2^-23 is not reached: 0x3f800000.
    let u = DotUnit {
        formats: formats(format::FP32, format::FP32),
        block: 1,
        model: Model::Fma(Fma {
            mode: Rounding::NearestEven,
            nan: NanStyle::DefaultQuiet,
        }),
    };
    let two_m24 = 0x3380_0000;
    assert_eq!(
        u.dot(
            &[0x3f80_0000, two_m24],
            &[0x3f80_0000, 0x3f80_0000],
            two_m24
        ),
        0x3f80_0000
    );
}

#[test]
fn st_fdpa_multiplies_products_by_their_scales() {
    // e4m3 1.0 (0x38) · 1.0 with ue8m0 scales 2^1 (0x80) and 2^-3 (0x7c): 2^-2 = 0x3e800000.
    let u = DotUnit {
        formats: Formats {
            a: format::E4M3,
            b: format::E4M3,
            c: format::FP32,
            d: format::FP32,
            scale: Some((format::UE8M0, 32)),
        },
        block: 32,
        model: Model::StFdpa(StFdpa {
            f: 25,
            e_zero: -133,
            out: nv_out(format::FP32, Rounding::TowardZero),
        }),
    };
    assert_eq!(
        u.dot_scaled(&[0x38], &[0x38], 0, &[0x80], &[0x7c]),
        0x3e80_0000
    );
    // A NaN scale (0xff) makes the result NaN even when the products are zero.
    assert_eq!(u.dot_scaled(&[0], &[0], 0, &[0xff], &[0x7f]), 0x7fff_ffff);
}

#[test]
fn gst_fdpa_group_exponent_comes_from_the_scales() {
    // Two groups of 2 (G = 2) of e2m1 products with unit scales (ue8m0 0x7f = 2^0).
    // Group 1: 6·6 + (-6)·6 = 0 — a cancelled group keeps the scale exponent 0 (not e_zero), so
    // e_max = 0 and C = 2^-30 (0x30800000) lies 30 bits below: truncated to F = 25 bits it
    // vanishes and the result is +0. If group 1 is all zero instead, it gets e_zero = -139,
    // e_max is C's exponent -30, and C survives exactly.
    let u = DotUnit {
        formats: Formats {
            a: format::E2M1,
            b: format::E2M1,
            c: format::FP32,
            d: format::FP32,
            scale: Some((format::UE8M0, 4)),
        },
        block: 4,
        model: Model::GstFdpa(GstFdpa {
            g: 2,
            f: 25,
            e_zero: -139,
            group_floor: None,
            out: nv_out(format::FP32, Rounding::TowardZero),
        }),
    };
    let c = 0x3080_0000;
    assert_eq!(
        u.dot_scaled(&[0x7, 0xf, 0, 0], &[0x7, 0x7, 0, 0], c, &[0x7f], &[0x7f]),
        0
    );
    assert_eq!(
        u.dot_scaled(&[0, 0, 0, 0], &[0x7, 0x7, 0, 0], c, &[0x7f], &[0x7f]),
        c
    );
}

/// `group_floor`, an open question's reading (`gst_fdpa.rs`), by hand. GST-FDPA G = 16,
/// F = 35, e2m1 with a ue8m0 scale per 32, K = 64, C = +0.
/// - Group 0: 2.0 · 2.0 (e2m1 `4`) under the scale pair 2^-75 · 2^-75 (`34`): 4 · 2^-150 =
///   2^-148, a term of exponent -150 (the scale pair's).
/// - Group 2: -1.0 · 1.0 (`a`, `2`) under 2^-90 · 2^-90 (`25`): -2^-180, exponent -180.
/// - Groups 1 and 3 are zero, C is +0: zero terms at e_zero.
///
/// With e_zero = -4096 the window's top is -150, the quantum 2^-185, and -2^-180 is kept:
/// 2^-148 - 2^-180 truncates toward zero to the subnormal 1 · 2^-149 (`00000001`). With
/// `group_floor` = -174 that result is subnormal, group 2's scale pair is below group 0's and
/// its kept value 2^-180 is below 2^-174: it is dropped and the sum 2^-148 gives `00000002`.
/// With the catalog's e_zero = -139 the zero terms put the top at -139 and the quantum at
/// 2^-174, -2^-180 truncates to 0, and the floor changes nothing: `00000002` either way.
#[test]
fn gst_fdpa_group_floor_drops_small_low_scale_groups_of_a_subnormal_result() {
    let unit = |e_zero: i32, group_floor: Option<i32>| DotUnit {
        formats: Formats {
            a: format::E2M1,
            b: format::E2M1,
            c: format::FP32,
            d: format::FP32,
            scale: Some((format::UE8M0, 32)),
        },
        block: 64,
        model: Model::GstFdpa(GstFdpa {
            g: 16,
            f: 35,
            e_zero,
            group_floor,
            out: nv_out(format::FP32, Rounding::TowardZero),
        }),
    };
    let mut a = [0u64; 64];
    let mut b = [0u64; 64];
    (a[0], b[0], a[32], b[32]) = (0x4, 0x4, 0xa, 0x2);
    let (sa, sb) = ([0x34, 0x25], [0x34, 0x25]);
    let d = |u: DotUnit| u.dot_scaled(&a, &b, 0, &sa, &sb);
    assert_eq!(d(unit(-4096, None)), 0x0000_0001);
    assert_eq!(d(unit(-4096, Some(-174))), 0x0000_0002);
    assert_eq!(d(unit(-139, None)), 0x0000_0002);
    assert_eq!(d(unit(-139, Some(-174))), 0x0000_0002);
}

#[test]
fn sliced_fdpa_adds_c_last() {
    // Passes over k mod 4 in {0,1} then {2,3}, each T-FDPA F = 25 rounding RNE to f16, then
    // + C rounded once. Products: k=0: 1, k=2: 2^-11 (2^-5·2^-6); C = 2^-11 (0x1000).
    // Pass 1: 1.0. Pass 2: 1 + 2^-11, a tie between 1 and 1 + 2^-10 -> even: 1.0.
    // Last: 1 + 2^-11 again -> 1.0 (0x3c00). Adding C first would give 1 + 2^-10 (0x3c01).
    let pass = TFdpa {
        f: 25,
        e_zero: -21,
        out: nv_out(format::FP16, Rounding::NearestEven),
    };
    let u = DotUnit {
        formats: formats(format::FP16, format::FP16),
        block: 4,
        model: Model::SlicedFdpa(SlicedFdpa {
            pass,
            group: 2,
            passes: 2,
            last: Rounding::NearestEven,
            last_format: None,
        }),
    };
    let a = [ONE, 0, 0x2800, 0]; // 2^-5
    let b = [ONE, 0, 0x2400, 0]; // 2^-6
    assert_eq!(u.dot(&a, &b, 0x1000), 0x3c00);
    let fused = DotUnit {
        formats: formats(format::FP16, format::FP16),
        block: 4,
        model: Model::TFdpa(pass),
    };
    assert_eq!(fused.dot(&a, &b, 0x1000), 0x3c01);
}
