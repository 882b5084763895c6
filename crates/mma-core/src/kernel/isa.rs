//! The instruction set a kernel runs on, detected at run time.
//!
//! The vector paths (lanes across dot products, the AVX2 per-dot blocks) and the per-dot
//! kernels' BMI2 shifts, LZCNT and FMA are compiled into functions marked
//! `#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]` (the `x86-64-v3` level less
//! MOVBE), and the lane routines a second time with AVX-512 F, BW, DQ and VL added (sixteen dot
//! products per vector instead of eight). A [`Kernel`](super::Kernel) takes a set only when the
//! CPU it runs on has all of its features. One binary built for plain x86-64 (a dependent
//! crate's default build, a Python wheel) is therefore both portable and fast; a build that
//! enables the features at compile time gets the same code. Every instruction set gives the
//! same bits.
//!
//! On AArch64 the lane routines are compiled for Advanced SIMD ([`Isa::Neon`], four dot
//! products per 128-bit vector), which every AArch64 CPU has (the Armv8-A baseline that
//! `aarch64-unknown-linux-gnu` and `aarch64-apple-darwin` assume), so they need no
//! `#[target_feature]` and no detection beyond confirming it.
//!
//! Two environment variables cap the choice of [`Isa::detect`], for testing and measuring the
//! narrower sets on a wider CPU: `MMA_FORCE_SCALAR` (anything but `0` or empty) makes it answer
//! [`Isa::Portable`]; `MMA_ISA` set to `portable`, `avx2`, `avx512` or `neon` makes it answer
//! the best set this CPU has up to that one (another value, or a set of another architecture,
//! is reported on standard error once and ignored).

use std::sync::OnceLock;

/// An instruction set the kernels are compiled for, from the narrowest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Isa {
    /// Plain Rust compiled for the build's target: any CPU.
    Portable,
    /// x86-64 with AVX2, BMI1, BMI2, FMA, F16C and LZCNT (Haswell, Zen 1 and later).
    Avx2,
    /// [`Isa::Avx2`] and AVX-512 F, BW, DQ and VL (Skylake-SP, Ice Lake, Sapphire Rapids,
    /// Zen 4 and later): the lane routines sixteen dot products wide.
    Avx512,
    /// AArch64 Advanced SIMD (every AArch64 CPU: Apple M-series, NVIDIA Grace, AWS Graviton):
    /// the lane routines four dot products wide.
    Neon,
}

impl Isa {
    /// Every instruction set, from the narrowest.
    pub const ALL: [Isa; 4] = [Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::Neon];

    /// The best instruction set of this CPU, honouring `MMA_FORCE_SCALAR` and `MMA_ISA` (module
    /// docs); detected once per process.
    pub fn detect() -> Isa {
        static DETECTED: OnceLock<Isa> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            let set = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
            if set("MMA_FORCE_SCALAR").is_some_and(|v| v != "0") {
                return Isa::Portable;
            }
            let best = Isa::best_supported();
            let cap = match set("MMA_ISA") {
                None => best,
                Some(v) => match Isa::ALL.into_iter().find(|i| i.name() == v) {
                    Some(i) if i.family() == best.family() || i == Isa::Portable => i,
                    Some(_) => {
                        eprintln!("mma: MMA_ISA={v:?} is not an instruction set of this CPU's architecture: ignored");
                        best
                    }
                    None => {
                        eprintln!(
                            "mma: MMA_ISA={v:?} is not one of portable, avx2, avx512, neon: ignored"
                        );
                        best
                    }
                },
            };
            Isa::ALL
                .into_iter()
                .rev()
                .find(|i| i.is_supported() && i.family() == best.family() && *i <= cap)
                .unwrap_or(Isa::Portable)
        })
    }

    /// The best instruction set this CPU supports, ignoring `MMA_FORCE_SCALAR` and `MMA_ISA`.
    pub fn best_supported() -> Isa {
        Isa::ALL
            .into_iter()
            .rev()
            .find(|i| i.is_supported())
            .unwrap_or(Isa::Portable)
    }

    /// Whether this CPU can run kernels compiled for `self`.
    pub fn is_supported(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("bmi1")
                    && std::arch::is_x86_feature_detected!("bmi2")
                    && std::arch::is_x86_feature_detected!("fma")
                    && std::arch::is_x86_feature_detected!("f16c")
                    && std::arch::is_x86_feature_detected!("lzcnt")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                Isa::Avx2.is_supported()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
            }
            #[cfg(not(target_arch = "x86_64"))]
            Isa::Avx2 | Isa::Avx512 => false,
            // Advanced SIMD is part of the AArch64 baseline the build targets assume; the
            // detection macro confirms it (and answers `true` without a system call).
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => std::arch::is_aarch64_feature_detected!("neon"),
            #[cfg(not(target_arch = "aarch64"))]
            Isa::Neon => false,
        }
    }

    /// The architecture a set belongs to (the portable set to every one): `MMA_ISA` caps the
    /// choice within it.
    fn family(self) -> u8 {
        match self {
            Isa::Portable => 0,
            Isa::Avx2 | Isa::Avx512 => 1,
            Isa::Neon => 2,
        }
    }

    /// The name `mma bench` and `--json` outputs print, and `MMA_ISA` takes: `portable`,
    /// `avx2`, `avx512` or `neon`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Neon => "neon",
        }
    }

    /// Dot products per vector of the lane routines (0: none).
    pub(crate) fn lanes(self) -> usize {
        match self {
            Isa::Portable => 0,
            Isa::Avx2 => 8,
            Isa::Avx512 => 16,
            Isa::Neon => 4,
        }
    }

    /// Whether kernels of this set run the AVX2 code (the per-dot vector blocks, GST-FDPA's
    /// lanes, and the lanes of this width or wider).
    pub(super) fn has_avx2(self) -> bool {
        matches!(self, Isa::Avx2 | Isa::Avx512)
    }
}
