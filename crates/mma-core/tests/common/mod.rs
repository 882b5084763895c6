//! Helpers shared by the fast-path tests: random words, hand-built units, and the batch
//! comparison of `Kernel::dots` with the plain model.

#![allow(dead_code)]

use mma_core::format::Format;
use mma_core::model::{NanStyle, Output, OutputRounding};
use mma_core::models::t_fdpa::TFdpa;
use mma_core::{DotUnit, Formats, Isa, Kernel, Model, RoundOpts, Rounding, Word};
use rand::Rng;

/// An NVIDIA-style output: rounding `mode` to `fmt`, overflow to Inf, the all-ones NaN.
pub fn nv_out(fmt: Format, mode: Rounding, neg_zero_to_pos: bool) -> Output {
    Output::fused(fmt, mode, neg_zero_to_pos)
}

/// The AMD output: RNE to fp32 with IEEE subnormals and overflow, the default quiet NaN.
pub fn amd_out() -> Output {
    Output {
        rho: OutputRounding {
            fmt: mma_core::format::FP32,
            mode: Rounding::NearestEven,
            opts: RoundOpts::IEEE,
        },
        nan: NanStyle::DefaultQuiet,
        neg_zero_to_pos: false,
    }
}

/// A random word of `fmt`: any encoding, or one biased toward zeros, subnormals, the largest
/// binade and specials.
pub fn word(fmt: &Format, rng: &mut impl Rng) -> u64 {
    let width = if fmt.storage_bits == 8 && fmt.width() < 8 {
        fmt.width()
    } else {
        fmt.storage_bits
    };
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let x = rng.random::<u64>() & mask;
    let sign = if fmt.signed {
        x & (1 << (fmt.lsb + fmt.exp_bits + fmt.man_bits))
    } else {
        0
    };
    let man = x & (((1u64 << fmt.man_bits) - 1) << fmt.lsb);
    let exp_field = |e: u64| e << (fmt.lsb + fmt.man_bits);
    match rng.random_range(0..10) {
        0 => sign,                                            // zero
        1 => sign | man,                                      // subnormal
        2 => sign | man | exp_field((1 << fmt.exp_bits) - 1), // Inf/NaN/top binade
        3 => sign | man | exp_field(rng.random_range(0..3)),  // tiny
        _ => x,
    }
}

/// A T-FDPA unit (e_zero = -133) of the given formats, output, `F` and block.
pub fn tfdpa(
    a: Format,
    b: Format,
    c: Format,
    out: Output,
    d: Format,
    f: u32,
    block: usize,
) -> DotUnit {
    DotUnit {
        formats: Formats {
            a,
            b,
            c,
            d,
            scale: None,
        },
        block,
        model: Model::TFdpa(TFdpa {
            f,
            e_zero: -133,
            out,
        }),
    }
}

/// One case: A, B, C and the scale factors.
pub type Case = (Vec<u64>, Vec<u64>, u64, Vec<u64>, Vec<u64>);

/// The instruction sets the batch comparisons run: the one `Isa::detect` chose and every
/// narrower vector set this CPU has (so that an AVX-512 machine checks the AVX2 lanes too; the
/// portable kernels where detection chose them, as `MMA_FORCE_SCALAR=1` makes it).
pub fn isas_to_check() -> Vec<Isa> {
    let best = Isa::detect();
    Isa::ALL
        .into_iter()
        .filter(|&i| i <= best && i.is_supported() && (i != Isa::Portable || best == Isa::Portable))
        .collect()
}

/// `Kernel::dots` (and `Kernel::dots_threaded`) over `cases` (all of `k` elements; their number
/// is rarely a multiple of eight or sixteen, so the tails run too) against the plain model,
/// case by case, for every instruction set of [`isas_to_check`].
pub fn compare_batch(unit: &DotUnit, k: usize, cases: &[Case]) {
    let plain: Vec<u64> = cases
        .iter()
        .map(|(a, b, c, sa, sb)| unit.dot_plain_scaled(a, b, *c, sa, sb))
        .collect();
    compare_batch_with(unit, k, cases, &plain);
}

/// [`compare_batch`] against `plain`, the plain model's result of each case, computed once by
/// the caller (the plain model is most of these tests' time, under qemu most of all).
pub fn compare_batch_with(unit: &DotUnit, k: usize, cases: &[Case], plain: &[u64]) {
    assert_eq!(plain.len(), cases.len(), "one plain result per case");
    for isa in isas_to_check() {
        let kern = Kernel::with_isa(*unit, isa).expect("a supported instruction set");
        compare_batch_on(&kern, unit, k, cases, plain);
    }
}

/// [`compare_batch_with`] through one kernel of `unit`.
fn compare_batch_on(kern: &Kernel, unit: &DotUnit, k: usize, cases: &[Case], plain: &[u64]) {
    let kern = *kern;
    let flat =
        |f: fn(&Case) -> &Vec<u64>| -> Vec<u64> { cases.iter().flat_map(f).copied().collect() };
    let (a, b) = (flat(|x| &x.0), flat(|x| &x.1));
    let (sa, sb) = (flat(|x| &x.3), flat(|x| &x.4));
    let c: Vec<u64> = cases.iter().map(|x| x.2).collect();
    let mut d = vec![0u64; cases.len()];
    kern.dots_scaled(k, &a, &b, &c, &sa, &sb, &mut d).unwrap();
    // Spread over threads (chunks of 4096): the same bits.
    let mut dt = vec![0u64; cases.len()];
    kern.dots_threaded(2, k, &a, &b, &c, &sa, &sb, &mut dt)
        .unwrap();
    assert_eq!(dt, d, "dots_threaded");
    // A and B in their storage width (what a NumPy caller passes): the same bits. Every lane
    // routine of an unscaled unit has a copy that reads that width directly (fp64: `u64`).
    let f = &unit.formats;
    let width = |fmt: &Format| match fmt.storage_bits {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        _ => 8,
    };
    let narrow = width(&f.a).max(width(&f.b));
    if kern.is_batched() && f.scale.is_none() && narrow < 8 {
        assert_eq!(
            kern.stored_width(),
            Some(narrow),
            "storage-width lanes: {}",
            unit.describe()
        );
    } else {
        assert_eq!(kern.stored_width(), None, "{}", unit.describe());
    }
    let stored = dots_stored(&kern, k, (&a, &f.a), (&b, &f.b), &c, (&sa, &sb));
    assert_eq!(
        stored,
        d,
        "dots on storage-width words: {}",
        unit.describe()
    );
    for (i, (a, b, c, sa, sb)) in cases.iter().enumerate() {
        assert_eq!(
            d[i],
            plain[i],
            "batch ({}, {}), case {i}: {}\na {a:x?}\nb {b:x?}\nc {c:x}\nsa {sa:x?} sb {sb:x?}",
            if kern.is_batched_for(k) {
                "lanes"
            } else {
                "per dot"
            },
            kern.isa().name(),
            unit.describe()
        );
    }
}

/// [`Kernel::dots`] with A and B narrowed to the smallest unsigned word that holds their
/// format's storage bits.
fn dots_stored(
    kern: &Kernel,
    k: usize,
    (a, fa): (&[u64], &Format),
    (b, fb): (&[u64], &Format),
    c: &[u64],
    (sa, sb): (&[u64], &[u64]),
) -> Vec<u64> {
    fn narrow<W: Word + TryFrom<u64>>(x: &[u64]) -> Vec<W> {
        let cut = |&w: &u64| W::try_from(w).ok().expect("a word wider than its format");
        x.iter().map(cut).collect()
    }
    fn with_b<A: Word>(
        kern: &Kernel,
        k: usize,
        a: &[A],
        (b, fb): (&[u64], &Format),
        c: &[u64],
        (sa, sb): (&[u64], &[u64]),
    ) -> Vec<u64> {
        let mut d = vec![0u64; c.len()];
        match fb.storage_bits {
            0..=8 => kern.dots_scaled(k, a, &narrow::<u8>(b), c, sa, sb, &mut d),
            9..=16 => kern.dots_scaled(k, a, &narrow::<u16>(b), c, sa, sb, &mut d),
            17..=32 => kern.dots_scaled(k, a, &narrow::<u32>(b), c, sa, sb, &mut d),
            _ => kern.dots_scaled(k, a, b, c, sa, sb, &mut d),
        }
        .unwrap();
        d
    }
    let rest = ((b, fb), c, (sa, sb));
    match fa.storage_bits {
        0..=8 => with_b(kern, k, &narrow::<u8>(a), rest.0, rest.1, rest.2),
        9..=16 => with_b(kern, k, &narrow::<u16>(a), rest.0, rest.1, rest.2),
        17..=32 => with_b(kern, k, &narrow::<u32>(a), rest.0, rest.1, rest.2),
        _ => with_b(kern, k, a, rest.0, rest.1, rest.2),
    }
}
