//! Library calls at their edges: ue4m3 scale bytes with bit 7 set, lengths that do not fit,
//! and batch sizes whose element counts overflow. None may give a silently wrong result.

use mma::{DotUnit, ShapeError};
use std::panic::{catch_unwind, AssertUnwindSafe};

const NVFP4: &str = "m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3";

fn nvfp4() -> &'static DotUnit {
    &mma::nvidia::find("RTX Blackwell", None, NVFP4)
        .unwrap()
        .unit
}

/// A small deterministic generator (xorshift64*), enough to vary operands.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// ue4m3 is e4m3 without a sign: bit 7 of the byte is ignored, so a scale byte with bit 7 set
/// reads as its low 7 bits (0xb8 as 0x38 = 1.0), on every path.
#[test]
fn ue4m3_scale_bit7_is_ignored() {
    let unit = nvfp4();
    let k = 64;
    let s = unit.scales_for(k);
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let n = 37;
    let a: Vec<u64> = (0..n * k).map(|_| g.next() & 0xf).collect();
    let b: Vec<u64> = (0..n * k).map(|_| g.next() & 0xf).collect();
    // Scales 2^-3 .. 2^3 (codes 0x20..0x50): no NaN code (0x7f) and a finite result.
    let low: Vec<u64> = (0..n * s).map(|_| 0x20 + g.next() % 0x30).collect();
    let high: Vec<u64> = low.iter().map(|x| x | 0x80).collect();
    let c: Vec<u64> = (0..n).map(|_| g.next() & 0x3fff_ffff).collect();
    let (mut d_low, mut d_high) = (vec![0; n], vec![0; n]);
    let kern = unit.kernel();
    kern.dots_scaled(k, &a, &b, &c, &low, &low, &mut d_low)
        .unwrap();
    kern.dots_scaled(k, &a, &b, &c, &high, &high, &mut d_high)
        .unwrap();
    assert_eq!(d_low, d_high);
    for i in 0..n {
        let (ai, bi) = (&a[i * k..(i + 1) * k], &b[i * k..(i + 1) * k]);
        let (sl, sh) = (&low[i * s..(i + 1) * s], &high[i * s..(i + 1) * s]);
        assert!(unit.check_scaled(ai, bi, c[i], sh, sh).is_ok());
        assert_eq!(unit.dot_scaled(ai, bi, c[i], sh, sl), d_low[i]);
        assert_eq!(unit.dot_plain_scaled(ai, bi, c[i], sh, sh), d_low[i]);
    }
    // Hand-derived: A = B = e2m1 1.0 (code 2) in element 0 only, scales 0xb8 (1.0) and 0xc0
    // (0x40 = 2.0): 1·1·1·2 + 0 = 2.0.
    let mut a1 = vec![0u64; k];
    let mut b1 = vec![0u64; k];
    a1[0] = 2;
    b1[0] = 2;
    let sa = vec![0xb8u64; s];
    let sb = vec![0xc0u64; s];
    assert_eq!(unit.dot_scaled(&a1, &b1, 0, &sa, &sb), 0x4000_0000);
}

/// A case-file line with such a scale is accepted and reads the same as its low 7 bits.
#[test]
fn ue4m3_scale_bit7_in_case_files() {
    let line = |scale: &str| {
        let a = vec!["22"; 32];
        format!(
            r#"{{"arch":"RTX Blackwell","instr":"{NVFP4}","a":{a:?},"b":{a:?},"c":"00000000","scale_a":["{scale}","38","38","38"],"scale_b":["38","38","38","38"]}}"#
        )
    };
    let eval = |l: &str| {
        let case = mma::cases::parse_line(l).unwrap();
        mma::cases::evaluate(&case).unwrap().1
    };
    // Hand-derived: 64 products of 1·1, scales 1 (0x38) everywhere: 64.0 = 0x42800000.
    assert_eq!(eval(&line("38")), 0x4280_0000);
    assert_eq!(eval(&line("b8")), 0x4280_0000);
}

fn panic_message(f: impl FnOnce() -> u64) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// `dot` with A and B of different lengths, or the wrong number of scale factors, panics with
/// a message naming the mismatch (documented), on every entry point; `check` returns it.
#[test]
fn mismatched_lengths_are_named_not_truncated() {
    let hopper = &mma::nvidia::find("H100", None, "m64n8k16.f32.f16.f16")
        .unwrap()
        .unit;
    let (a, b) = (vec![0x3c00u64; 16], vec![0x3c00u64; 15]);
    for m in [
        panic_message(|| hopper.dot(&a, &b, 0)),
        panic_message(|| hopper.dot_plain(&a, &b, 0)),
        panic_message(|| hopper.kernel().dot(&a, &b, 0)),
        panic_message(|| hopper.dot(&b, &a, 0)),
    ] {
        assert!(m.contains("A has") && m.contains("B has"), "{m}");
    }
    assert_eq!(
        hopper.check(&a, &b, 0),
        Err(ShapeError::LengthMismatch { a: 16, b: 15 })
    );
    let unit = nvfp4();
    let (a, b) = (vec![0u64; 64], vec![0u64; 64]);
    let m = panic_message(|| unit.dot_scaled(&a, &b, 0, &[0x38; 3], &[0x38; 4]));
    assert!(m.contains("need 4 scale factors"), "{m}");
    let m = panic_message(|| unit.dot_scaled(&a, &b, 0, &[0x38; 4], &[]));
    assert!(m.contains("got 4 (A) and 0 (B)"), "{m}");
}

/// `n·k` beyond `usize` is an error naming the operand, not a wrapped length.
#[test]
fn batch_sizes_that_overflow_are_errors() {
    let unit = &mma::nvidia::find("H100", None, "m64n8k16.f32.f16.f16")
        .unwrap()
        .unit;
    let kern = unit.kernel();
    let c = vec![0u64; 4];
    let mut d = vec![0u64; 4];
    let k = usize::MAX / 2;
    let r = kern.dots::<u64, u64>(k, &[], &[], &c, &mut d);
    assert_eq!(
        r,
        Err(ShapeError::TooLarge {
            which: "A",
            rows: 4,
            cols: k
        })
    );
    let mut d1 = vec![0u64; 2];
    let r = unit.mma((2, 1, usize::MAX), &[], &[], &[0; 2], &mut d1);
    assert!(
        matches!(r, Err(ShapeError::TooLarge { which: "A", .. })),
        "{r:?}"
    );
}

/// The unscaled entry points on a block-scaled unit: the scale factors are missing, an error
/// that names them (K = 64 with one ue4m3 scale per 16 elements: 4 wanted, 0 given), never a
/// result computed without them.
#[test]
fn an_unscaled_call_on_a_scaled_unit_names_the_missing_scales() {
    let unit = nvfp4();
    let (k, n) = (64, 2);
    let (a, b, c) = (vec![0u64; n * k], vec![0u64; n * k], vec![0u64; n]);
    let missing = Err(ShapeError::Scales {
        which: "scale_a",
        got: 0,
        want: 4,
    });
    assert_eq!(unit.check(&a[..k], &b[..k], 0), missing);
    // Batches and matrices count the scales of every row: two of four each, 8 wanted.
    let all_rows = Err(ShapeError::Matrix {
        which: "scale_a",
        got: 0,
        want: 8,
    });
    let mut d = vec![0u64; n];
    assert_eq!(unit.kernel().dots(k, &a, &b, &c, &mut d), all_rows);
    let mut d = vec![0u64; 4];
    assert_eq!(unit.mma((2, 2, k), &a, &b, &[0; 4], &mut d), all_rows);
}
