//! Every CDNA1-CDNA4 instruction's fast path (`DotUnit::dot`) against its plain model
//! (`DotUnit::dot_plain`) on random inputs: any words (specials, subnormals, zeros), elements
//! around a common exponent (cancellation, carries), exactly cancelling pairs, large exponent
//! spreads, and C at the scale of the products, near GTR-FDPA's drop threshold, or subnormal.

use mma_core::format::{Format, Specials};
use mma_core::Model;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn any_word(fmt: &Format, rng: &mut impl Rng) -> u64 {
    let x = rng.random::<u64>() & fmt.storage_mask();
    let man = x & (((1u64 << fmt.man_bits) - 1) << fmt.lsb);
    let sign = x & (1 << (fmt.lsb + fmt.exp_bits + fmt.man_bits));
    match rng.random_range(0..6) {
        0 => sign,
        1 => sign | man,
        _ => x,
    }
}

fn near(fmt: &Format, e: i32, rng: &mut impl Rng) -> u64 {
    let top = (1i32 << fmt.exp_bits) - if fmt.specials == Specials::Ieee { 2 } else { 1 };
    let field = (e + fmt.bias).clamp(1, top) as u64;
    let man = rng.random::<u64>() & ((1u64 << fmt.man_bits) - 1);
    let sign = (rng.random::<bool>() as u64) << (fmt.exp_bits + fmt.man_bits);
    (sign | field << fmt.man_bits | man) << fmt.lsb
}

/// Cases of one K for `Kernel::dots`: A rows, B rows, C, and the plain model's D.
type Batch = (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>);

#[test]
fn amd_fast_paths_match_plain() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    let mut checked = 0;
    let mut vector = 0;
    for ins in mma_amd::catalog() {
        let u = &ins.unit;
        let f = &u.formats;
        let kern = u.kernel();
        // CDNA4's block-scaled rows (`scale_f32_*_f8f6f4_*`) run the plain model: no fast
        // GTR-FDPA path applies scale factors (`kernel/plan.rs`).
        if f.scale.is_some() {
            assert!(!kern.is_fast(), "{}", ins.name);
            continue;
        }
        let fast_expected = match u.model {
            Model::FtzMulAdd(_) | Model::GtrFdpa(_) => true,
            // fp32/fp64 FMA chains (RNE) in the machine's fused multiply-add.
            Model::Fma(_) => true,
            // fp16/bf16 by their decoders, xf32 (tf32 in fp32 words) by its shifted one.
            Model::TrFdpa(_) => true,
            // CDNA1 fp16/bf16: the exact sum in i128 (`kernel/scalar/e_fdpa.rs`).
            Model::EFdpa(_) => true,
            _ => continue,
        };
        assert_eq!(kern.is_fast(), fast_expected, "{}", ins.name);
        if matches!(
            mma_core::Isa::detect(),
            mma_core::Isa::Avx2 | mma_core::Isa::Avx512
        ) && matches!(
            ins.name.as_str(),
            "f32_32x32x8_f16" | "f32_16x16x32_fp8_fp8"
        ) {
            // The vector TR-FDPA / GTR-FDPA blocks (x86-64 with AVX2 only) and their lane-wise
            // batch.
            assert!(kern.is_vector(), "{}", ins.name);
            assert!(kern.is_batched(), "{}", ins.name);
            vector += 1;
        }
        // CDNA4's f8f6f4 rows with fp6/fp4 operands run the fast scalar path only.
        let narrow = f.a.width() < 8 || f.b.width() < 8;
        if mma_core::Isa::detect() != mma_core::Isa::Portable && !narrow {
            // Every AMD instruction runs on the lanes at its own K: the FMA chains, FTZ-MulAdd,
            // CDNA1 E-FDPA, GTR-FDPA fp8, TR-FDPA fp16/bf16 (the multi-block forms with K = 4
            // as a short last block) and xf32.
            assert!(kern.is_batched_for(ins.k), "{}", ins.name);
        }
        // Cases by K (the instruction's or twice it), for `Kernel::dots` after the loop.
        let mut batches: [Batch; 2] = Default::default();
        checked += 1;
        let sign_b = 1u64 << (f.b.lsb + f.b.exp_bits + f.b.man_bits);
        for _ in 0..3000 {
            let k = ins.k * rng.random_range(1..=2);
            let bias_a = 1 - f.a.bias..=(1 << f.a.exp_bits) - 2 - f.a.bias;
            let bias_b = 1 - f.b.bias..=(1 << f.b.exp_bits) - 2 - f.b.bias;
            let (ca, cb) = (rng.random_range(bias_a), rng.random_range(bias_b));
            let spread = [0, 2, 10, 60][rng.random_range(0..4)];
            let elem = |fmt: &Format, centre: i32, rng: &mut Xoshiro256PlusPlus| {
                if rng.random_range(0..6) == 0 {
                    any_word(fmt, rng)
                } else {
                    near(fmt, centre + rng.random_range(-spread..=spread), rng)
                }
            };
            let a: Vec<u64> = (0..k).map(|_| elem(&f.a, ca, &mut rng)).collect();
            let mut b: Vec<u64> = (0..k).map(|_| elem(&f.b, cb, &mut rng)).collect();
            let mut a = a;
            if rng.random::<bool>() {
                let step = rng.random_range(1..=2);
                for i in (0..k.saturating_sub(step)).step_by(2 * step) {
                    a[i + step] = a[i];
                    b[i + step] = b[i] ^ sign_b;
                }
            }
            let c = match rng.random_range(0..5) {
                0 => any_word(&f.c, &mut rng),
                1 => near(&f.c, ca + cb + rng.random_range(-28..=-22), &mut rng),
                2 => rng.random::<u64>() & 0x807f_ffff & f.c.storage_mask(),
                _ => near(&f.c, ca + cb + rng.random_range(-3..=3), &mut rng),
            };
            let want = u.dot_plain(&a, &b, c);
            assert_eq!(
                u.dot(&a, &b, c),
                want,
                "{}\na {a:x?}\nb {b:x?}\nc {c:x}",
                ins.name
            );
            let x = &mut batches[k / ins.k - 1];
            x.0.extend(&a);
            x.1.extend(&b);
            x.2.push(c);
            x.3.push(want);
        }
        // The same cases through the batch evaluation (eight at a time across lanes where the
        // kernel has it), against the plain results.
        for (i, (a, b, c, want)) in batches.iter().enumerate() {
            let k = ins.k * (i + 1);
            let mut d = vec![0u64; c.len()];
            kern.dots(k, a, b, c, &mut d).unwrap();
            for (j, (got, want)) in d.iter().zip(want).enumerate() {
                assert_eq!(
                    got,
                    want,
                    "{} dots, case {j}\na {:x?}\nb {:x?}\nc {:x}",
                    ins.name,
                    &a[j * k..(j + 1) * k],
                    &b[j * k..(j + 1) * k],
                    c[j]
                );
            }
        }
    }
    assert!(checked >= 30, "{checked}");
    if matches!(
        mma_core::Isa::detect(),
        mma_core::Isa::Avx2 | mma_core::Isa::Avx512
    ) {
        // CDNA3's and CDNA4's (the same units).
        assert_eq!(vector, 4);
    }
}
