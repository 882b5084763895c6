//! One batch of dot products of a catalog instruction through `Kernel::dots`, or of a native
//! f32 FMA chain of the same K: the work whose executed instructions
//! `.ci/count-aarch64-instructions` counts under qemu (NEON lanes against the portable kernels
//! and the native chain, where emulated time means nothing). The operands are made first in
//! every mode; `none` stops there, so that the difference of two counts is the dot products'.
//!
//!     cargo run --release --example dots_once -p mma --features nvidia,amd -- \
//!         MODE ROWS VENDOR ARCH OP NAME
//!
//! MODE is `dots` (the instruction's kernel, the instruction set `Isa::detect` chose: `MMA_ISA`
//! and `MMA_FORCE_SCALAR` cap it), `native` (an f32 FMA chain over K per row) or `none`. It
//! prints the instruction set, K and a checksum of the results (so that nothing is left out).

use mma::{DotUnit, Format};

/// xorshift64*: enough to vary operands.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// A finite word of `fmt` with an exponent field within two of the bias (no Inf/NaN code, so
/// that no lane leaves the common case): the data a workload's dot products see.
fn word(fmt: &Format, g: &mut Gen) -> u64 {
    let (e, m) = (fmt.exp_bits, fmt.man_bits);
    let r = g.next();
    let mid = ((1u64 << e) - 1) / 2;
    let exp = (mid + (r >> 8) % 4).saturating_sub(2).max(1);
    let sign = if fmt.signed { (r >> 20) & 1 } else { 0 };
    let man = (r >> 24) & ((1u64 << m) - 1);
    ((sign << (e + m)) | (exp << m) | man) << fmt.lsb
}

fn unit_of(vendor: &str, arch: &str, op: &str, name: &str) -> Result<(DotUnit, usize), String> {
    let vendor = mma::catalog::Vendor::parse(vendor).map_err(|e| e.to_string())?;
    let i = mma::catalog::find(Some(vendor), arch, Some(op), name).map_err(|e| e.to_string())?;
    Ok((*i.unit, i.k))
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, rows, vendor, arch, op, name] = &args[..] else {
        return Err("usage: dots_once MODE ROWS VENDOR ARCH OP NAME".into());
    };
    let n: usize = rows
        .parse()
        .map_err(|_| format!("ROWS: not a count: {rows:?}"))?;
    let (unit, k) = unit_of(vendor, arch, op, name)?;
    let f = unit.formats;
    let s = unit.scales_for(k);
    let mut g = Gen(0x243f_6a88_85a3_08d3);
    let a: Vec<u64> = (0..n * k).map(|_| word(&f.a, &mut g)).collect();
    let b: Vec<u64> = (0..n * k).map(|_| word(&f.b, &mut g)).collect();
    let c: Vec<u64> = (0..n).map(|_| word(&f.c, &mut g)).collect();
    // Scale factors of one (the biased exponent of 2^0) keep the products in range.
    let one = |g: &mut Gen| {
        f.scale.map_or(0, |(sf, _)| {
            let _ = g.next();
            (sf.bias as u64) << sf.man_bits
        })
    };
    let sa: Vec<u64> = (0..n * s).map(|_| one(&mut g)).collect();
    let sb: Vec<u64> = (0..n * s).map(|_| one(&mut g)).collect();
    // The native chain's values, already decoded (what a native dot product reads); made in
    // every mode so that only the dot products differ between modes.
    let (fa, fb): (Vec<f32>, Vec<f32>) = (0..n * k)
        .map(|i| ((i % 7) as f32 * 0.25, (i % 5) as f32 * 0.5))
        .unzip();
    let kern = unit.kernel();
    let mut sum = 0u64;
    match mode.as_str() {
        "dots" => {
            let mut d = vec![0u64; n];
            kern.dots_scaled(k, &a, &b, &c, &sa, &sb, &mut d)
                .map_err(|e| e.to_string())?;
            sum = d.iter().fold(0, |x, &y| x.wrapping_add(y));
        }
        "native" => {
            // The same count of f32 fused multiply-adds, as `mma bench`'s baseline.
            for (ra, rb) in fa.chunks_exact(k).zip(fb.chunks_exact(k)) {
                let mut acc = 1.0f32;
                for (&x, &y) in ra.iter().zip(rb) {
                    acc = x.mul_add(y, acc);
                }
                sum = sum.wrapping_add(u64::from(acc.to_bits()));
            }
        }
        "none" => {}
        other => return Err(format!("MODE: one of dots, native, none (got {other:?})")),
    }
    println!("{} K={k} rows={n} checksum={sum:#x}", kern.isa().name());
    Ok(())
}
