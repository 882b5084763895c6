//! One test per entry of the crate's DIFFERENCES section (and per point where the AMD paper's
//! MATLAB model and mmasim disagree that was decided in mmasim's favour), with the expected bits derived by hand.

use mma_amd::{find, known_difference, KnownDifference};

fn pad(v: &[u64], k: usize) -> Vec<u64> {
    let mut out = v.to_vec();
    out.resize(k, 0);
    out
}

#[test]
fn difference_1_cdna3_fp8_nan_or_inf_c_is_not_dropped() {
    let ins = find("CDNA3", "f32_32x32x16_bf8_bf8").unwrap();
    // bf8 0x7f = 1.75·2^15 (57344); the product is 1.53125·2^31 (e_max = 31 > 24), so mmasim
    // drops a C with frexp exponent -1 and returns the product, 0x4f440000. IEEE: a NaN C
    // gives NaN (default quiet NaN 0x7fc00000), an Inf C gives Inf of its sign.
    let a = pad(&[0x7f], 16);
    let nan_c = 0x7fc0_0000;
    assert_eq!(ins.dot(&a, &a, nan_c), 0x7fc0_0000);
    assert_eq!(ins.dot(&a, &a, 0xff80_0000), 0xff80_0000);
    assert_eq!(ins.dot(&a, &a, 0x7f80_0000), 0x7f80_0000);
    assert_eq!(
        known_difference(ins, &a, &a, nan_c),
        Some(KnownDifference::NonFiniteCDropped)
    );
    // A finite C is never in the class, even when it is dropped.
    assert_eq!(known_difference(ins, &a, &a, 0x3f80_0000), None);
    // With small products mmasim keeps the Inf C too, and so does this crate: 1·1 + Inf.
    let one = pad(&[0x40], 16);
    assert_eq!(ins.dot(&one, &one, 0x7f80_0000), 0x7f80_0000);
}

#[test]
fn difference_2_cdna1_sum_of_negative_zeros_is_negative_zero() {
    // bf16 (-0)·1 + (-0)·2 + (-0): every addend is -0, so the IEEE sum is -0 (0x80000000);
    // mmasim returns +0.
    let ins = find("CDNA1", "f32_32x32x2bf16").unwrap();
    let a = [0x8000, 0x8000];
    let b = [0x3f80, 0x4000];
    assert_eq!(ins.dot(&a, &b, 0x8000_0000), 0x8000_0000);
    assert_eq!(
        known_difference(ins, &a, &b, 0x8000_0000),
        Some(KnownDifference::NegativeZeroSum)
    );
    // One +0 addend makes the sum +0, as in mmasim, and is not in the class.
    assert_eq!(ins.dot(&a, &b, 0), 0);
    assert_eq!(known_difference(ins, &a, &b, 0), None);
}

#[test]
fn decided_for_mmasim_cdna2_flushed_subnormal_times_inf_is_nan() {
    // fp16 0x0001 (2^-24) is flushed to +0 before the multiply, so 0·Inf = NaN (0x7fc00000).
    // The MATLAB model of the AMD paper gives Inf; mmasim gives NaN, as does this crate.
    let ins = find("CDNA2", "f32_4x4x4f16").unwrap();
    let a = [0x0001, 0, 0, 0];
    let b = [0x7c00, 0, 0, 0];
    assert_eq!(ins.dot(&a, &b, 0), 0x7fc0_0000);
    assert_eq!(known_difference(ins, &a, &b, 0), None);
}

#[test]
fn decided_for_mmasim_cdna3_zero_sum_is_positive() {
    // TR-FDPA sums in two's-complement fixed point: (-0)·1 + ... + (-0) is +0, unlike IEEE.
    let ins = find("CDNA3", "f32_32x32x8_f16").unwrap();
    let a = [0x8000; 8];
    let b = [0x3c00; 8];
    assert_eq!(ins.dot(&a, &b, 0x8000_0000), 0);
}
