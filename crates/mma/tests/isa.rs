//! Run-time instruction-set selection: every distinct unit of both catalogs gives the same bits
//! through the portable kernels and through the vector ones of this architecture (AVX2 and
//! AVX-512 on x86-64, where this CPU has them; NEON on AArch64, which `.ci/run` runs under
//! qemu), one dot product at a time and in batches; and a kernel made the default way takes the
//! best instruction set of this CPU, whatever the build's target flags.

use mma::{DotUnit, Format};
use mma::{Isa, Kernel};
use std::collections::HashSet;

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

/// A storage word of `fmt`: random bits, one time in four an exponent field near the bias
/// (so that sums cancel and stay finite), one in eight a special or extreme exponent.
fn word(fmt: &Format, g: &mut Gen) -> u64 {
    let (e, m) = (fmt.exp_bits, fmt.man_bits);
    let r = g.next();
    let exp_max = (1u64 << e) - 1;
    let exp = match r % 8 {
        0 => [0, exp_max][(r >> 3) as usize % 2],
        1 | 2 => (exp_max / 2 + (r >> 3) % 4).saturating_sub(2),
        _ => (r >> 3) & exp_max,
    };
    let sign = if fmt.signed { (r >> 20) & 1 } else { 0 };
    let code = (sign << (e + m)) | (exp << m) | ((r >> 24) & ((1u64 << m) - 1));
    code << fmt.lsb
}

fn units() -> Vec<(String, DotUnit, usize)> {
    let mut seen = HashSet::new();
    let nv = mma::nvidia::catalog()
        .iter()
        .map(|i| (format!("{} {}", i.arch, i.name), i.unit, i.k));
    let amd = mma::amd::catalog()
        .iter()
        .map(|i| (format!("{} {}", i.arch, i.name), i.unit, i.k));
    nv.chain(amd)
        .filter(|(_, u, k)| seen.insert((*u, *k)))
        .collect()
}

/// Every vector instruction set against the portable kernels on every distinct unit, batches
/// of two groups of sixteen, one of eight and a tail (so that the AVX-512 routines run their
/// last group through the AVX2 lanes; 43 is not a multiple of NEON's four either). Returns the
/// number of units on lanes, per set.
fn compare_with_portable(isa: Isa) -> usize {
    let mut g = Gen(0x243f_6a88_85a3_08d3);
    let mut lanes = 0;
    for (name, unit, k0) in units() {
        let portable = Kernel::with_isa(unit, Isa::Portable).unwrap();
        let vector = Kernel::with_isa(unit, isa).unwrap();
        assert_eq!(vector.isa(), isa);
        assert!(
            !portable.is_batched(),
            "{name}: lanes in the portable kernel"
        );
        lanes += usize::from(vector.is_batched_for(k0));
        let f = unit.formats;
        for k in [k0, 2 * k0] {
            let n = 43; // 16 + 16 + 8 + 3
            let s = unit.scales_for(k);
            let a: Vec<u64> = (0..n * k).map(|_| word(&f.a, &mut g)).collect();
            let b: Vec<u64> = (0..n * k).map(|_| word(&f.b, &mut g)).collect();
            let c: Vec<u64> = (0..n).map(|_| word(&f.c, &mut g)).collect();
            let scale = |g: &mut Gen| f.scale.map_or(0, |(sf, _)| word(&sf, g) & 0x7f);
            let sa: Vec<u64> = (0..n * s).map(|_| scale(&mut g)).collect();
            let sb: Vec<u64> = (0..n * s).map(|_| scale(&mut g)).collect();
            let (mut dp, mut dv) = (vec![0; n], vec![0; n]);
            portable
                .dots_scaled(k, &a, &b, &c, &sa, &sb, &mut dp)
                .unwrap();
            vector
                .dots_scaled(k, &a, &b, &c, &sa, &sb, &mut dv)
                .unwrap();
            assert_eq!(dp, dv, "{name} K={k} {}: batches differ", isa.name());
            for i in 0..n {
                let (ai, bi) = (&a[i * k..(i + 1) * k], &b[i * k..(i + 1) * k]);
                let (sai, sbi) = (&sa[i * s..(i + 1) * s], &sb[i * s..(i + 1) * s]);
                let p = portable.dot_scaled(ai, bi, c[i], sai, sbi);
                assert_eq!(
                    p,
                    vector.dot_scaled(ai, bi, c[i], sai, sbi),
                    "{name} K={k} #{i}"
                );
                assert_eq!(p, dp[i], "{name} K={k} #{i}: batch vs per dot");
            }
        }
    }
    lanes
}

#[cfg(target_arch = "x86_64")]
#[test]
fn portable_and_avx2_kernels_agree_on_every_unit() {
    if Kernel::with_isa(units()[0].1, Isa::Avx2).is_none() {
        // A CPU without AVX2 has one instruction set: nothing to compare, and it must say so.
        assert!(!Isa::Avx2.is_supported());
        eprintln!("this CPU has no AVX2: only the portable kernels exist here");
        return;
    }
    // The lane paths cover most of the catalog (docs/performance.md, "Lanes across dot products").
    let lanes = compare_with_portable(Isa::Avx2);
    assert!(lanes > 100, "only {lanes} units took lanes");
}

/// AVX-512 where the CPU has it. Where it does not, the check cannot run, and the test fails
/// unless told so (`MMA_ALLOW_NO_AVX512=1`, which `.ci/run` sets on such a CPU and reports at
/// its end): a skipped comparison must not pass silently.
#[cfg(target_arch = "x86_64")]
#[test]
fn portable_and_avx512_kernels_agree_on_every_unit() {
    if !Isa::Avx512.is_supported() {
        assert!(Kernel::with_isa(units()[0].1, Isa::Avx512).is_none());
        let allowed = std::env::var_os("MMA_ALLOW_NO_AVX512").is_some_and(|v| v == "1");
        assert!(
            allowed,
            "this CPU has no AVX-512, so its kernels were not compared; set \
             MMA_ALLOW_NO_AVX512=1 to accept that"
        );
        eprintln!("this CPU has no AVX-512: its kernels were NOT compared here");
        return;
    }
    let lanes = compare_with_portable(Isa::Avx512);
    assert!(lanes > 100, "only {lanes} units took lanes");
}

/// NEON on every AArch64 CPU (the architecture's baseline): it must be there.
#[cfg(target_arch = "aarch64")]
#[test]
fn portable_and_neon_kernels_agree_on_every_unit() {
    assert!(
        Isa::Neon.is_supported(),
        "an AArch64 CPU without Advanced SIMD"
    );
    let lanes = compare_with_portable(Isa::Neon);
    assert!(lanes > 100, "only {lanes} units took lanes");
}

#[test]
fn the_default_kernel_takes_the_best_instruction_set_of_this_cpu() {
    let unit = mma::nvidia::find("H100", None, "m64n8k16.f32.f16.f16")
        .unwrap()
        .unit;
    let forced = std::env::var_os("MMA_FORCE_SCALAR").is_some_and(|v| !v.is_empty() && v != "0");
    // `MMA_ISA` caps the choice (a set of this architecture; `.ci/run` sets none or one).
    let cap = std::env::var("MMA_ISA")
        .ok()
        .and_then(|v| Isa::ALL.into_iter().find(|i| i.name() == v))
        .unwrap_or(Isa::best_supported());
    let want = if forced {
        Isa::Portable
    } else {
        Isa::ALL
            .into_iter()
            .rev()
            .find(|i| i.is_supported() && *i <= cap)
            .unwrap()
    };
    assert_eq!(unit.kernel().isa(), want);
    assert_eq!(unit.kernel().is_batched(), want != Isa::Portable);
}
