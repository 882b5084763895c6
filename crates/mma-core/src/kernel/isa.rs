//! The instruction set a kernel runs on, detected at run time.
//!
//! The vector paths (lanes across dot products, the AVX2 per-dot blocks) and the per-dot
//! kernels' BMI2 shifts, LZCNT and FMA are compiled into functions marked
//! `#[target_feature(enable = "avx2,bmi1,bmi2,fma,f16c,lzcnt")]` (the `x86-64-v3` level less
//! MOVBE), and a [`Kernel`](super::Kernel) takes them only when the CPU it runs on has all of
//! these features. One binary built for plain x86-64 (a dependent crate's default build, a
//! Python wheel) is therefore both portable and fast; a build that enables the features at
//! compile time gets the same code.
//!
//! Setting the environment variable `MMA_FORCE_SCALAR` (to anything but `0` or empty) makes
//! [`Isa::detect`] answer [`Isa::Portable`]: the portable kernels, with the same results, for
//! testing them on any machine.

use std::sync::OnceLock;

/// An instruction set the kernels are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Plain Rust compiled for the build's target: any CPU.
    Portable,
    /// x86-64 with AVX2, BMI1, BMI2, FMA, F16C and LZCNT (Haswell, Zen 1 and later).
    Avx2,
}

impl Isa {
    /// The best instruction set of this CPU, honouring `MMA_FORCE_SCALAR` (module docs);
    /// detected once per process.
    pub fn detect() -> Isa {
        static DETECTED: OnceLock<Isa> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            let forced =
                std::env::var_os("MMA_FORCE_SCALAR").is_some_and(|v| !v.is_empty() && v != "0");
            if forced {
                Isa::Portable
            } else {
                Isa::best_supported()
            }
        })
    }

    /// The best instruction set this CPU supports, ignoring `MMA_FORCE_SCALAR`.
    pub fn best_supported() -> Isa {
        if Isa::Avx2.is_supported() {
            Isa::Avx2
        } else {
            Isa::Portable
        }
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
            #[cfg(not(target_arch = "x86_64"))]
            Isa::Avx2 => false,
        }
    }

    /// The name `mma bench` and `--json` outputs print: `portable` or `avx2`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
        }
    }
}
