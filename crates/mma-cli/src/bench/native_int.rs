//! The native baseline of `mma bench`'s integer rows: a plain Rust i8 × i8 → i32 dot chain
//! (i16 where an operand is u8) with wrapping adds, as the fp32 fused chain is the
//! floating-point rows' baseline; compiled for the widest vector instructions the CPU has, as
//! the model's integer kernel is. Its own file to keep `bench.rs` within the files' size.

use mma::Format;

/// The integer operands decoded for the baseline: i8 (i16 where an operand is u8), C in i32.
pub(super) enum NativeInt {
    I8(Vec<i8>, Vec<i8>, Vec<i32>),
    I16(Vec<i16>, Vec<i16>, Vec<i32>),
}

impl NativeInt {
    /// The integer operands' values (`Format::int_value`) in the narrowest native type that
    /// holds both A's and B's.
    pub(super) fn of(f: &mma::Formats, a: &[u64], b: &[u64], c: &[u64]) -> NativeInt {
        fn vals<T: TryFrom<i64>>(fmt: &Format, w: &[u64]) -> Vec<T> {
            w.iter()
                .map(|&x| {
                    T::try_from(fmt.int_value(x).unwrap_or(0))
                        .ok()
                        .expect("in range")
                })
                .collect()
        }
        let c = vals::<i32>(&f.c, c);
        let fits_i8 = |fmt: &Format| {
            fmt.int_range()
                .is_some_and(|(lo, hi)| lo >= -128 && hi <= 127)
        };
        if fits_i8(&f.a) && fits_i8(&f.b) {
            NativeInt::I8(vals(&f.a, a), vals(&f.b, b), c)
        } else {
            NativeInt::I16(vals(&f.a, a), vals(&f.b, b), c)
        }
    }

    /// The native type's name, for the table.
    pub(super) fn name(&self) -> &'static str {
        match self {
            NativeInt::I8(..) => "i8",
            NativeInt::I16(..) => "i16",
        }
    }

    /// One pass of the baseline over rows of `k` elements into `out`.
    pub(super) fn run(&self, k: usize, out: &mut [i32]) {
        match self {
            NativeInt::I8(a, b, c) => native_int(a, b, c, k, out),
            NativeInt::I16(a, b, c) => native_int(a, b, c, k, out),
        }
    }
}

/// The native integer baseline: `acc = c; acc = acc.wrapping_add(a_i·b_i)` over K, on the
/// decoded values (the compiler vectorizes it: integer addition has no order to keep).
#[inline(always)]
fn native_int_body<T: Copy + Into<i32>>(a: &[T], b: &[T], c: &[i32], k: usize, out: &mut [i32]) {
    for ((ra, rb), (&c0, o)) in a
        .chunks_exact(k)
        .zip(b.chunks_exact(k))
        .zip(c.iter().zip(out.iter_mut()))
    {
        let mut acc = c0;
        for (&x, &y) in ra.iter().zip(rb) {
            acc = acc.wrapping_add(x.into() * y.into());
        }
        *o = acc;
    }
}

/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn native_int_avx2<T: Copy + Into<i32>>(
    a: &[T],
    b: &[T],
    c: &[i32],
    k: usize,
    out: &mut [i32],
) {
    native_int_body(a, b, c, k, out)
}

/// # Safety
/// The CPU must have AVX-512 F and BW and AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx2")]
#[inline(never)]
unsafe fn native_int_avx512<T: Copy + Into<i32>>(
    a: &[T],
    b: &[T],
    c: &[i32],
    k: usize,
    out: &mut [i32],
) {
    native_int_body(a, b, c, k, out)
}

/// Runs the native integer baseline compiled for the widest vector instructions the CPU has
/// (as the model's integer kernel is), whatever the build's target features.
fn native_int<T: Copy + Into<i32>>(a: &[T], b: &[T], c: &[i32], k: usize, out: &mut [i32]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512f") && has!("avx512bw") && has!("avx2") {
            // SAFETY: the CPU supports AVX-512 F/BW and AVX2, checked just above.
            unsafe { native_int_avx512(a, b, c, k, out) };
            return;
        }
        if has!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { native_int_avx2(a, b, c, k, out) };
            return;
        }
    }
    native_int_body(a, b, c, k, out)
}
