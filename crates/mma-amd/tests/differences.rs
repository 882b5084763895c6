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
    let ins = find("CDNA3", None, "f32_32x32x16_bf8_bf8").unwrap();
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
    let ins = find("CDNA1", None, "f32_32x32x2bf16").unwrap();
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
    let ins = find("CDNA2", None, "f32_4x4x4f16").unwrap();
    let a = [0x0001, 0, 0, 0];
    let b = [0x7c00, 0, 0, 0];
    assert_eq!(ins.dot(&a, &b, 0), 0x7fc0_0000);
    assert_eq!(known_difference(ins, &a, &b, 0), None);
}

#[test]
fn decided_for_mmasim_cdna3_zero_sum_is_positive() {
    // TR-FDPA sums in two's-complement fixed point: (-0)·1 + ... + (-0) is +0, unlike IEEE.
    let ins = find("CDNA3", None, "f32_32x32x8_f16").unwrap();
    let a = [0x8000; 8];
    let b = [0x3c00; 8];
    assert_eq!(ins.dot(&a, &b, 0x8000_0000), 0);
}

#[test]
fn difference_3_cdna3_fp8_nan_operand_before_the_last_block_is_not_dropped() {
    // K = 32 in two blocks of 16. bf8 (E5M2 FNUZ) 0x80 is NaN; 0x7f = 1.75·2^15 = 57344.
    // Block 1 holds the NaN, so its result is NaN; block 2's product 57344² = 1.53125·2^31
    // (e_max = 31 > 24) makes mmasim drop the NaN partial result as a C (frexp exponent -1)
    // and return the product, 0x4f440000. IEEE: NaN (CDNA3: default quiet NaN 0x7fc00000).
    let ins = find("CDNA3", None, "f32_16x16x32_bf8_bf8").unwrap();
    let mut a = vec![0u64; 32];
    let mut b = vec![0u64; 32];
    a[0] = 0x80;
    b[0] = 0x40; // 1.0
    a[16] = 0x7f;
    b[16] = 0x7f;
    assert_eq!(ins.dot(&a, &b, 0), 0x7fc0_0000);
    assert_eq!(ins.unit.dot_plain(&a, &b, 0), 0x7fc0_0000);
    assert_eq!(
        known_difference(ins, &a, &b, 0),
        Some(KnownDifference::NanOperandDropped)
    );
    // The same NaN in B is in the class too.
    assert_eq!(
        known_difference(ins, &b, &a, 0),
        Some(KnownDifference::NanOperandDropped)
    );
    // A NaN in the last block propagates in mmasim as well: not in the class.
    let (mut a2, mut b2) = (vec![0u64; 32], vec![0u64; 32]);
    a2[17] = 0x80;
    b2[17] = 0x40;
    a2[16] = 0x7f;
    b2[16] = 0x7f;
    assert_eq!(ins.dot(&a2, &b2, 0), 0x7fc0_0000);
    assert_eq!(known_difference(ins, &a2, &b2, 0), None);
    // A single-block instruction never is.
    let one_block = find("CDNA3", None, "f32_32x32x16_bf8_bf8").unwrap();
    assert_eq!(known_difference(one_block, &a[..16], &b[..16], 0), None);
}

/// The AMD paper measured a negative NaN for +Inf + -Inf on CDNA1 (crate docs, "NaN"):
/// 0xffc00000 is the default quiet NaN with the sign bit set. CDNA2 and CDNA3 have no
/// measurement and return the positive default NaN 0x7fc00000 (assumed).
#[test]
fn inf_minus_inf_nan_sign_per_architecture() {
    let dots = |arch: &str, name: &str, a: &[u64], b: &[u64]| {
        let ins = find(arch, None, name).unwrap();
        let per_dot = ins.dot(a, b, 0);
        assert_eq!(per_dot, ins.unit.dot_plain(a, b, 0), "{arch} {name}");
        let mut d = [0u64; 9];
        let (aa, bb): (Vec<u64>, Vec<u64>) = (a.repeat(9), b.repeat(9));
        ins.unit
            .kernel()
            .dots(a.len(), &aa, &bb, &[0; 9], &mut d)
            .unwrap();
        assert!(d.iter().all(|&x| x == per_dot), "{arch} {name}: {d:x?}");
        per_dot
    };
    // fp32 FMA chain (K = 2): (+Inf)·1 then + (-Inf)·1.
    let (a32, b32) = ([0x7f80_0000, 0xff80_0000], [0x3f80_0000, 0x3f80_0000]);
    assert_eq!(dots("CDNA1", "f32_32x32x2f32", &a32, &b32), 0xffc0_0000);
    assert_eq!(dots("CDNA2", "f32_32x32x2f32", &a32, &b32), 0x7fc0_0000);
    // bf16 E-FDPA on CDNA1, FTZ-MulAdd on CDNA2: products +Inf and -Inf.
    let (a16, b16) = ([0x7f80, 0xff80], [0x3f80, 0x3f80]);
    assert_eq!(dots("CDNA1", "f32_32x32x2bf16", &a16, &b16), 0xffc0_0000);
    assert_eq!(dots("CDNA2", "f32_32x32x2bf16", &a16, &b16), 0x7fc0_0000);
    // fp16 TR-FDPA on CDNA3 (K = 8).
    let mut a8 = [0u64; 8];
    let b8 = [0x3c00u64; 8];
    a8[0] = 0x7c00;
    a8[1] = 0xfc00;
    assert_eq!(dots("CDNA3", "f32_32x32x8_f16", &a8, &b8), 0x7fc0_0000);
}
