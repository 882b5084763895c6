//! The exact dot product (`ExactDot`) on hand-derived cases: every bit of the sum, specials, and
//! the signs of exact zeros. The oracle's tests hold it to the fold of IEEE products and sums on
//! random blocks (crates/mma-oracle/tests/dot_report_bounds.rs).

use mma_core::format::{E4M3, FP16, FP32, FP64, UE8M0};
use mma_core::{ExactDot, Format, Formats};

fn f(a: Format, c: Format) -> Formats {
    Formats {
        a,
        b: a,
        c,
        d: c,
        scale: None,
    }
}

fn finite(neg: bool, mag: &[u64], exp: i32, zero_rd: bool) -> ExactDot {
    ExactDot::Finite {
        neg,
        mag: mag.to_vec(),
        exp,
        zero_neg: false,
        zero_neg_rd: zero_rd,
    }
}

#[test]
fn exact_sums_by_hand() {
    let h = f(FP16, FP32);
    // f16 1·1 + 2^-24·1 (0x0001, the least subnormal) + f32 2^24 (0x4b800000). f16 1.0 is
    // sig 2^10 at 2^-10, 0x0001 sig 1 at 2^-24, f32 2^24 sig 2^23 at 2^1: the summands
    // are 2^20 at 2^-20, 2^10 at 2^-34 and 2^23 at 2^1; at the lowest exponent, 2^-34,
    // 2^34 + 2^10 + 2^58, every bit kept.
    assert_eq!(
        ExactDot::of(&h, &[0x3c00, 0x0001], &[0x3c00, 0x3c00], 0x4b80_0000),
        finite(false, &[(1 << 58) + (1 << 34) + (1 << 10)], -34, true)
    );
    // fp64 2^1023 (0x7fe0...: sig 2^52 at 2^971) squared is 2^2046, plus the least fp64
    // subnormal 2^-1074 as C: 2^3120 at 2^-1074, 3,121 bits, limb 48 holding bit 48.
    let d = f(FP64, FP64);
    let ExactDot::Finite { neg, mag, exp, .. } =
        ExactDot::of(&d, &[0x7fe0_0000_0000_0000], &[0x7fe0_0000_0000_0000], 1)
    else {
        panic!("not finite");
    };
    assert_eq!((neg, exp, mag.len()), (false, -1074, 49));
    assert_eq!((mag[0], mag[48]), (1, 1 << 48));
    assert!(mag[1..48].iter().all(|&l| l == 0));
    // A negative sum: f16 -3·1 + f32 1 = -2. f16 -3 (0xc200) is sig 3·2^9 at 2^-9, so the
    // product is 3·2^19 at 2^-19; f32 1 is 2^23 at 2^-23: at 2^-23, -3·2^23 + 2^23 = -2^24.
    assert_eq!(
        ExactDot::of(&h, &[0xc200], &[0x3c00], 0x3f80_0000),
        finite(true, &[1 << 24], -23, true)
    );
    // Cancellation to zero: 1·1 + f32 -1 is +0, and -0 in RD.
    let z = ExactDot::of(&h, &[0x3c00], &[0x3c00], 0xbf80_0000);
    assert_eq!(z, finite(false, &[], -23, true));
    assert!(!z.sign(false) && z.sign(true));
    // Zeros only: (-0)·1 + (-0) is -0 in every direction; (+0)·1 + (-0) is +0, RD -0.
    let nz = ExactDot::of(&h, &[0x8000], &[0x3c00], 0x8000_0000);
    assert!(nz.sign(false) && nz.sign(true));
    let pz = ExactDot::of(&h, &[0x0000], &[0x3c00], 0x8000_0000);
    assert!(!pz.sign(false) && pz.sign(true));
    // C alone keeps its sign in every direction, zero or not.
    assert!(ExactDot::of(&h, &[], &[], 0x8000_0000).sign(false));
    assert!(!ExactDot::of(&h, &[], &[], 0x0000_0000).sign(true));
    assert_eq!(
        ExactDot::of(&h, &[], &[], 0x3f80_0000),
        finite(false, &[1 << 23], -23, false)
    );
    // Inf·0 is NaN; +Inf and -Inf together are NaN; one Inf wins over finite summands.
    assert_eq!(ExactDot::of(&h, &[0x7c00], &[0x0000], 0), ExactDot::Nan);
    assert_eq!(
        ExactDot::of(&h, &[0x7c00, 0xfc00], &[0x3c00, 0x3c00], 0),
        ExactDot::Nan
    );
    assert_eq!(
        ExactDot::of(&h, &[0xfc00], &[0x3c00], 0x3f80_0000),
        ExactDot::Inf { neg: true }
    );
    // Scales: e4m3 1.0 (0x38: sig 8 at 2^-3) squared, times ue8m0 2^1 (0x80) and 2^-1
    // (0x7e): 64 at 2^-6, which is 1.
    let sc = Formats {
        scale: Some((UE8M0, 32)),
        ..f(E4M3, FP32)
    };
    assert_eq!(
        ExactDot::of_scaled(&sc, &[0x38], &[0x38], 0, &[0x80], &[0x7e]),
        finite(false, &[64], -6, true)
    );
    // A NaN scale (ue8m0 0xff) is NaN whatever the elements.
    assert_eq!(
        ExactDot::of_scaled(&sc, &[0x00], &[0x38], 0, &[0xff], &[0x7f]),
        ExactDot::Nan
    );
}
