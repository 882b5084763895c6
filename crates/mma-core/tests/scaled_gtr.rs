//! Block-scaled GTR-FDPA (AMD CDNA4 `v_mfma_scale_f32_*_f8f6f4`, `models/gtr_fdpa.rs`) as a unit
//! no catalog holds: CDNA3's GTR-FDPA parameters (F = 24, F2 = 31, C dropped 25 bits below),
//! OCP e4m3 A and B, fp32 C and D, a ue8m0 scale per 32 elements, L = 16. Words: e4m3 1.0 =
//! 0x38 (bias 7), 2^-9 = 0x01 (the smallest subnormal); ue8m0 2^(s - 127) = s, NaN = 0xff; fp32
//! 2^e = (e + 127) << 23.

use mma_core::format::{E4M3, FP32, UE8M0};
use mma_core::models::gtr_fdpa::GtrFdpa;
use mma_core::{
    DotUnit, Formats, Model, NanStyle, Output, OutputRounding, RoundOpts, Rounding, UnitFile,
};

fn gtr(scale: bool, block: usize) -> DotUnit {
    DotUnit {
        formats: Formats {
            a: E4M3,
            b: E4M3,
            c: FP32,
            d: FP32,
            scale: scale.then_some((UE8M0, 32)),
        },
        block,
        model: Model::GtrFdpa(GtrFdpa {
            f: 24,
            f2: 31,
            e_zero_c: -126,
            e_norm_min: -126,
            c_drop: 25,
            out: Output {
                rho: OutputRounding {
                    fmt: FP32,
                    mode: Rounding::NearestEven,
                    opts: RoundOpts::IEEE,
                },
                nan: NanStyle::DefaultQuiet,
                neg_zero_to_pos: false,
            },
        }),
    }
}

#[test]
fn scales_shift_each_scale_block_exactly() {
    // K = 64, A = B = 1.0, two scale blocks. A's first scale 128 (×2), B's first 128 (×2): the
    // 32 products of the first scale block are 4 each, the second's 1: 32·4 + 32·1 = 160 =
    // 1.25·2^7 = 0x43200000. Every block of 16 sums small integers and C exactly.
    let (u, one) = (gtr(true, 16), [0x38u64; 64]);
    assert_eq!(
        u.dot_scaled(&one, &one, 0, &[128, 127], &[128, 127]),
        0x4320_0000
    );
    // The plain model gives the same word (dot_scaled runs the kernel, which sends scaled
    // GTR units to the plain model).
    assert_eq!(
        u.dot_plain_scaled(&one, &one, 0, &[128, 127], &[128, 127]),
        0x4320_0000
    );
    // C is not scaled: C = 1.0 (0x3f800000) with every scale 126 (×1/2 each, so each product
    // 1/4): 64/4 + 1 = 17 = 1.0625·2^4 = 0x41880000.
    assert_eq!(
        u.dot_scaled(&one, &one, 0x3f80_0000, &[126, 126], &[126, 126]),
        0x4188_0000
    );
}

#[test]
fn a_nan_scale_gives_the_units_nan() {
    // NanStyle::DefaultQuiet in fp32: 0x7fc00000, also when every product is zero.
    let u = gtr(true, 16);
    let zero = [0u64; 64];
    let one = [0x38u64; 64];
    assert_eq!(
        u.dot_scaled(&one, &one, 0, &[127, 0xff], &[127, 127]),
        0x7fc0_0000
    );
    assert_eq!(
        u.dot_scaled(&zero, &zero, 0x3f80_0000, &[127, 127], &[0xff, 127]),
        0x7fc0_0000
    );
}

#[test]
fn a_tiny_scale_moves_products_below_cs_window() {
    // One block of 16 (K = 32, one scale pair: A 0 = 2^-127, B 127 = 1). Element 0: 1.0 · 1.0
    // → 2^-127; element 1: 2^-9 · 2^-9 = 2^-18 → 2^-145; the rest 0. C = 2^-103 (0x0c000000).
    // The group sums (2^-127 even, 2^-145 odd) meet at e = -127 with 24 fraction bits (2^-145
    // is kept), but C sets e_max = -103 and the product sum is floored to 2^(-103 - 32) =
    // 2^-135: 2^-145 is lost. C + 2^-127 = 2^-103·(1 + 2^-24), a tie at fp32, rounds to even:
    // 2^-103 = 0x0c000000. The exact sum 2^-103·(1 + 2^-24 + 2^-42) rounds up to 0x0c000001.
    let u = gtr(true, 16);
    let mut a = [0u64; 32];
    (a[0], a[1]) = (0x38, 0x01);
    assert_eq!(u.dot_scaled(&a, &a, 0x0c00_0000, &[0], &[127]), 0x0c00_0000);
    // Unscaled (scale 127 both), the same elements are 1 + 2^-18 and C is dropped (2^-103 is
    // far below 2^(0 - 25)): 1 + 2^-18 = 0x3f800020.
    assert_eq!(
        u.dot_scaled(&a, &a, 0x0c00_0000, &[127], &[127]),
        0x3f80_0020
    );
    // Scales 0 and 0: products 2^-254 and 2^-272. A zero C counts with e_zero_c = -126, so
    // e_max = -126 and the product sum, floored to 2^(-126 - 32), is 0: the result is +0 (the
    // exact 2^-254 rounds to +0 in fp32 as well).
    assert_eq!(u.dot_scaled(&a, &a, 0, &[0], &[0]), 0);
}

#[test]
fn unscaled_gtr_is_unchanged_and_fast() {
    // The unscaled unit keeps its fast path; the scaled one runs the plain model.
    assert!(gtr(false, 16).kernel().is_fast());
    assert!(!gtr(true, 16).kernel().is_fast());
    let one = [0x38u64; 32];
    assert_eq!(gtr(false, 16).dot(&one, &one, 0), 0x4200_0000);
}

#[test]
fn unit_files_take_scales_on_gtr_fdpa() {
    let json = |l: usize| {
        format!(
            r#"{{"a":"e4m3","b":"e4m3","c":"f32","d":"f32","scale":"ue8m0","scale_block":32,"k":64,"L_max":{l},"model":"GTR-FDPA","params":{{"F":24,"F2":31,"e_zero_c":-126,"e_norm_min":-126,"c_drop":25,"rho":"RNE-FP32","overflow":"ieee","nan":"default","neg_zero_to_pos":false}}}}"#
        )
    };
    let read = |l| DotUnit::try_from(&serde_json::from_str::<UnitFile>(&json(l)).unwrap());
    assert_eq!(read(16).unwrap(), gtr(true, 16));
    assert!(read(64).is_ok());
    // A block of 24 straddles scale blocks: element k of a block takes scale k / 32.
    let e = read(24).unwrap_err();
    assert!(
        e.to_string().contains("must divide the elements per scale"),
        "{e}"
    );
}
