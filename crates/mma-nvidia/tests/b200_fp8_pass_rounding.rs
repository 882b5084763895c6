//! B200 `mma.sync.m16n8k32` E5M2 with fp32 output: record 3,936 of the published file
//! (Khattak & Mikaitis, MATLAB-tensor-core toolbox, BSD-2), quoted in full below because the
//! `shared/hw` excerpt does not hold it. It is the one record known to separate the ways a
//! Sliced-FDPA pass can round (`crates/mma-nvidia/docs/fp8-mma-sync.md`, "Pass rounding").
//!
//! Hand derivation (all values exact multiples of 2^-20, the quantum of these operands'
//! products): pass 1 (k mod 4 in {0, 1}) sums to an fp32 number; pass 2 adds its products to
//! pass 1's result and gives -9827841.75 · 2^-20, which needs 26 significant bits and is not
//! an fp32 number. Toward zero it becomes -9827841.5 · 2^-20, to nearest -9827842 · 2^-20. C
//! (0x3f01684f) is then added and rounded to nearest even. Only the toward-zero pass gives
//! the GPU's 0xc10ddf7c; the nearest-even pass (and an exact sum rounded once) give
//! 0xc10ddf7d.

use mma_core::format::{self, Format};
use mma_core::models::sliced_fdpa::SlicedFdpa;
use mma_core::round::convert;
use mma_core::{DotUnit, Model, RoundOpts, Rounding};

const A: [u32; 32] = [
    0xc0000000, 0xbf000000, 0xbf200000, 0xbea00000, 0xbce00000, 0x3d800000, 0x3f600000, 0xbec00000,
    0x3fa00000, 0x3d800000, 0x40000000, 0xbf400000, 0xbd200000, 0x3f000000, 0x3f200000, 0xbfa00000,
    0xbec00000, 0x3f000000, 0xbf800000, 0x3f800000, 0x3e600000, 0x3f000000, 0xbfc00000, 0x3fa00000,
    0xbe400000, 0x3f200000, 0x3f200000, 0x3ce00000, 0xbfa00000, 0xbfe00000, 0xbf800000, 0xbf200000,
];
const B: [u32; 32] = [
    0x3ee00000, 0xbf600000, 0xbec00000, 0x3ea00000, 0x38800000, 0xbf000000, 0x3e000000, 0xbee00000,
    0x3f600000, 0xbf800000, 0xbf800000, 0xbf800000, 0xbfc00000, 0x3f800000, 0xbf400000, 0x3f000000,
    0xbe800000, 0xc0000000, 0x3ea00000, 0xbee00000, 0x3f800000, 0xc0000000, 0x3e400000, 0xbee00000,
    0x3e800000, 0xbde00000, 0xbf600000, 0x3f600000, 0x3fa00000, 0x3f600000, 0x3f200000, 0x3fc00000,
];
const C: u32 = 0x3f01684f;
/// The GPU's D with fp32 output.
const D_FP32: u32 = 0xc10ddf7c;
/// The GPU's D with fp16 output, as the binary32 word of the binary16 value.
const D_FP16_AS_FP32: u32 = 0xc10de000;

/// A binary32 word holding a value exact in `fmt`, as `fmt`'s storage bits.
fn narrow(fmt: &Format, w: u32) -> u64 {
    let v = format::FP32.decode(w as u64);
    let r = convert(fmt, v, Rounding::NearestEven, RoundOpts::IEEE);
    assert_eq!(
        r.to_f64(),
        v.to_f64(),
        "{w:08x} is not exact in {}",
        fmt.name
    );
    fmt.encode(r, fmt.default_nan())
}

fn operands() -> (Vec<u64>, Vec<u64>) {
    let a = A.iter().map(|&w| narrow(&format::E5M2, w)).collect();
    let b = B.iter().map(|&w| narrow(&format::E5M2, w)).collect();
    (a, b)
}

fn b200(name: &str) -> &'static DotUnit {
    &mma_nvidia::find("B200", Some("MMA"), name).unwrap().unit
}

#[test]
fn fp32_output_passes_round_toward_zero() {
    let unit = b200("m16n8k32.f32.e5m2.e5m2.f32");
    let (a, b) = operands();
    assert_eq!(unit.dot(&a, &b, C as u64), D_FP32 as u64);
    assert_eq!(unit.dot_plain(&a, &b, C as u64), D_FP32 as u64);
    let mut d = [0u64; 1];
    unit.kernel().dots(32, &a, &b, &[C as u64], &mut d).unwrap();
    assert_eq!(d[0], D_FP32 as u64);

    // The record's discriminating power: the same mechanism with nearest-even passes misses
    // the GPU by one ulp (the hand derivation above).
    let Model::SlicedFdpa(s) = unit.model else {
        panic!("B200 fp8 with fp32 output is a Sliced-FDPA unit");
    };
    let mut nearest = s;
    nearest.pass.out.rho.mode = Rounding::NearestEven;
    let other = DotUnit {
        model: Model::SlicedFdpa(SlicedFdpa { ..nearest }),
        ..*unit
    };
    assert_eq!(other.dot(&a, &b, C as u64), 0xc10ddf7d);
}

#[test]
fn fp16_output_passes_round_to_nearest() {
    // C was rounded to binary16 before the operation (the records' convention).
    let unit = b200("m16n8k32.f16.e5m2.e5m2.f16");
    let (a, b) = operands();
    let c16 = {
        let v = convert(
            &format::FP16,
            format::FP32.decode(C as u64),
            Rounding::NearestEven,
            RoundOpts::IEEE,
        );
        format::FP16.encode(v, format::FP16.default_nan())
    };
    let want = narrow(&format::FP16, D_FP16_AS_FP32);
    assert_eq!(unit.dot(&a, &b, c16), want);
    assert_eq!(unit.dot_plain(&a, &b, c16), want);
}
