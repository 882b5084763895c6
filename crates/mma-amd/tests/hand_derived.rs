//! Hand-derived cases, one group per model, each with its derivation. Operands are raw storage
//! words: fp16 1.0 = 0x3c00, 2^-12 = 0x0c00, 2^-24 = 0x0001 (subnormal); bf16 2^-12 = 0x3980;
//! bf8 (E5M2 FNUZ, bias 16) 1.0 = 0x40, 2^-12 = 0x10, 2^-13 = 0x0c.

use mma_amd::find;

fn dot(arch: &str, instr: &str, a: &[u64], b: &[u64], c: u64) -> u64 {
    find(arch, None, instr).expect("catalog entry").dot(a, b, c)
}

/// `v` followed by zeros up to `k` elements.
fn pad(v: &[u64], k: usize) -> Vec<u64> {
    let mut out = v.to_vec();
    out.resize(k, 0);
    out
}

// ---- CDNA1: E-FDPA, exact sum rounded once ----

#[test]
fn cdna1_rounds_the_exact_sum_once() {
    // Products 1, 2^-24 and 2^-48 (2^-24·2^-24, subnormal fp16 inputs kept). The exact sum
    // 1 + 2^-24 + 2^-48 lies just above the midpoint between 1 and 1 + 2^-23, so RNE rounds
    // up to 1 + 2^-23 = 0x3f800001. Rounding after each addition would give 1.0 (the tie
    // 1 + 2^-24 goes to even), and flushing subnormals would too.
    let a = [0x3c00, 0x0c00, 0x0001, 0];
    assert_eq!(dot("CDNA1", "f32_4x4x4f16", &a, &a, 0), 0x3f80_0001);
}

#[test]
fn cdna1_negative_zero_sum_is_negative() {
    // (-0)·1 + 0·0 + 0·0 + 0·0 + (-0): the products are -0, +0, +0, +0, so the IEEE sum is +0;
    // with every product -0 as well as C, the sum is -0 (0x80000000).
    let a = [0x8000, 0, 0, 0];
    let b = [0x3c00, 0, 0, 0];
    assert_eq!(dot("CDNA1", "f32_4x4x4f16", &a, &b, 0x8000_0000), 0);
    let a = [0x8000; 4];
    let b = [0x3c00; 4];
    assert_eq!(
        dot("CDNA1", "f32_4x4x4f16", &a, &b, 0x8000_0000),
        0x8000_0000
    );
}

// ---- CDNA2: FTZ-MulAdd ----

#[test]
fn cdna2_flushes_subnormal_inputs() {
    // 2^-24 (subnormal fp16) · 2^10 = 2^-14 exactly, a normal fp32 number, but the input is
    // flushed to +0 first: the result is +0.
    let a = [0x0001, 0, 0, 0];
    let b = [0x6400, 0, 0, 0];
    assert_eq!(dot("CDNA2", "f32_4x4x4f16", &a, &b, 0), 0);
    // CDNA1 keeps it: 2^-14 = 0x38800000.
    assert_eq!(dot("CDNA1", "f32_4x4x4f16", &a, &b, 0), 0x3880_0000);
}

#[test]
fn cdna2_flushes_a_subnormal_sum() {
    // bf16 (-2^-63)·(1.5·2^-63) = -1.5·2^-126, normal. C = 2^-125 (0x01000000). The group sum
    // is the product itself; C + sum = 2^-125 - 1.5·2^-126 = 2^-127, subnormal, flushed to +0.
    // IEEE arithmetic would give 2^-127 = 0x00400000.
    let a = [0xa000, 0, 0, 0];
    let b = [0x2040, 0, 0, 0];
    assert_eq!(dot("CDNA2", "f32_4x4x4bf16_1k", &a, &b, 0x0100_0000), 0);
}

#[test]
fn cdna2_sums_products_as_a_pairwise_tree() {
    // Products [2^-24, 2^-24, 1, 0]: (2^-24 + 2^-24) + (1 + 0) = 1 + 2^-23 = 0x3f800001.
    let a = [0x0c00, 0x0c00, 0x3c00, 0];
    assert_eq!(dot("CDNA2", "f32_4x4x4f16", &a, &a, 0), 0x3f80_0001);
    // Products [1, 2^-24, 2^-24, 0]: (1 + 2^-24) rounds to 1 (tie to even), plus (2^-24 + 0)
    // rounds to 1 again: 0x3f800000, although the exact sum is the same as above.
    let a = [0x3c00, 0x0c00, 0x0c00, 0];
    assert_eq!(dot("CDNA2", "f32_4x4x4f16", &a, &a, 0), 0x3f80_0000);
}

#[test]
fn cdna2_bf16_groups_of_two_without_1k() {
    // C = 1, products [2^-24, 0, 2^-24, 0]. P = 2: 1 + (2^-24 + 0) ties to 1, twice: 1.0.
    // P = 4 (`_1k`): the group sum is 2^-23 and 1 + 2^-23 = 0x3f800001.
    let a = [0x3980, 0, 0x3980, 0];
    assert_eq!(
        dot("CDNA2", "f32_32x32x4bf16", &a, &a, 0x3f80_0000),
        0x3f80_0000
    );
    assert_eq!(
        dot("CDNA2", "f32_32x32x4bf16_1k", &a, &a, 0x3f80_0000),
        0x3f80_0001
    );
}

// ---- CDNA3: TR-FDPA ----

#[test]
fn cdna3_round_down_is_sign_asymmetric() {
    // Products 1 and 2^-24, C = 2^-40. e_max = 0. The product sum 1 + 2^-24 is exact; C,
    // rounded down to 24 fraction bits, is 0. RNE of 1 + 2^-24 is a tie: 1.0 (0x3f800000).
    let a = pad(&[0x3c00, 0x0c00], 8);
    let c = 0x2b80_0000;
    assert_eq!(dot("CDNA3", "f32_32x32x8_f16", &a, &a, c), 0x3f80_0000);
    // Negated A and C: the product sum is -(1 + 2^-24); C = -2^-40 rounds down to -2^-24, so
    // the sum is -(1 + 2^-23), exact in fp32: 0xbf800001, not the negation of 0x3f800000.
    let na = pad(&[0xbc00, 0x8c00], 8);
    assert_eq!(
        dot("CDNA3", "f32_32x32x8_f16", &na, &a, c | 1 << 31),
        0xbf80_0001
    );
}

#[test]
fn cdna3_large_products_become_inf() {
    // bf16 2^127 · 2 = 2^128 >= 2^128: the product is +Inf before summation.
    let a = pad(&[0x7f00], 8);
    let b = pad(&[0x4000], 8);
    assert_eq!(dot("CDNA3", "f32_32x32x8_bf16", &a, &b, 0), 0x7f80_0000);
    // 2^128 - 2^128: the exact sum is 0, but the two products are +Inf and -Inf: NaN.
    let a = pad(&[0x7f00, 0xff00], 8);
    let b = pad(&[0x4000, 0x4000], 8);
    assert_eq!(dot("CDNA3", "f32_32x32x8_bf16", &a, &b, 0), 0x7fc0_0000);
}

#[test]
fn cdna3_xf32_ignores_the_low_mantissa_bits() {
    // A = 1 + 2^-23 (0x3f800001) is read as 1.0 by xf32, so 1·1 + 0 = 1.0 exactly.
    let a = pad(&[0x3f80_0001], 8);
    let b = pad(&[0x3f80_0000], 8);
    assert_eq!(dot("CDNA3", "f32_16x16x8_xf32", &a, &b, 0), 0x3f80_0000);
}

// ---- CDNA3: GTR-FDPA ----

#[test]
fn cdna3_fp8_sums_even_and_odd_products_separately() {
    // bf8 products: p0 = 1 (even) and p1 = p3 = p5 = p7 = 2^-12·2^-13 = 2^-25 (odd). The odd
    // group is aligned to its own exponent -25 and sums exactly to 2^-23, which survives the
    // alignment to e = 0: 1 + 2^-23 = 0x3f800001. One joint truncated sum (TR-FDPA) would
    // truncate each 2^-25 to 0 at 24 fraction bits and give 1.0.
    let a = pad(&[0x40, 0x10, 0, 0x10, 0, 0x10, 0, 0x10], 16);
    let b = pad(&[0x40, 0x0c, 0, 0x0c, 0, 0x0c, 0, 0x0c], 16);
    assert_eq!(dot("CDNA3", "f32_32x32x16_bf8_bf8", &a, &b, 0), 0x3f80_0001);
}

#[test]
fn cdna3_fp8_drops_a_small_c() {
    // Product 1 (e_max = 0). C = -2^-26 has exponent -26 < e_max - 25: dropped, 1.0 exactly.
    let a = pad(&[0x40], 16);
    assert_eq!(
        dot("CDNA3", "f32_32x32x16_bf8_bf8", &a, &a, 0xb280_0000),
        0x3f80_0000
    );
    // C = -2^-25 is kept; rounded down to 24 fraction bits it is -2^-24, and 1 - 2^-24 is
    // exact in fp32: 0x3f7fffff.
    assert_eq!(
        dot("CDNA3", "f32_32x32x16_bf8_bf8", &a, &a, 0xb300_0000),
        0x3f7f_ffff
    );
}

// ---- FMA (all generations) ----

#[test]
fn fp32_fma_chain_rounds_after_each_product() {
    // C = 1, products 2^-24 then 2^-24: fma(1, 2^-24, 1) ties to 1.0, twice; an exact sum
    // would give 1 + 2^-23. f32_16x16x4f32 has K = 4.
    let a = [0x3380_0000, 0x3380_0000, 0, 0];
    let b = [0x3f80_0000, 0x3f80_0000, 0, 0];
    assert_eq!(
        dot("CDNA1", "f32_16x16x4f32", &a, &b, 0x3f80_0000),
        0x3f80_0000
    );
    assert_eq!(
        dot("CDNA3", "f32_16x16x4_f32", &a, &b, 0x3f80_0000),
        0x3f80_0000
    );
}
