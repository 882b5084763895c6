//! Every integer instruction of the NVIDIA and AMD catalogs (I-DPA: s8/u8, s4/u4, b1 with XOR
//! and AND, with and without saturation) through the kernel's integer path against the plain
//! model: `Kernel::dot`, and `Kernel::dots` on `u64` and on `u8` words (what `mma bench` and a
//! NumPy caller pass), for every instruction set this CPU has, on random words and on the
//! extremes (all elements the least or greatest value, C = i32::MIN and i32::MAX). Here rather
//! than in mma-core, whose tests cannot see the vendor catalogs; the hand-built units of the
//! same shapes are in mma-core's `integer_kernel` test.

use mma::{Isa, Kernel, Model};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[test]
fn every_integer_instruction_matches_the_model() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(58);
    let isas: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.is_supported()).collect();
    let mut checked = 0;
    for r in mma::catalog::instructions() {
        let (unit, k) = (*r.unit, r.k);
        if !matches!(unit.model, Model::IDpa(_)) {
            continue;
        }
        let f = &unit.formats;
        assert!(unit.kernel().is_fast(), "{}: no integer kernel", r.name);
        let ends = |fmt: &mma::Format| {
            let (lo, hi) = fmt.int_range().expect("an integer format");
            [fmt.int_word(lo).unwrap(), fmt.int_word(hi).unwrap()]
        };
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for wa in ends(&f.a) {
            for wb in ends(&f.b) {
                for wc in [0x8000_0000u64, 0x7fff_ffff] {
                    a.extend(std::iter::repeat_n(wa, k));
                    b.extend(std::iter::repeat_n(wb, k));
                    c.push(wc);
                }
            }
        }
        // Random bytes: bits above a nibble's or a bit's width too, which the model ignores.
        for _ in 0..21 {
            a.extend((0..k).map(|_| rng.random::<u8>() as u64));
            b.extend((0..k).map(|_| rng.random::<u8>() as u64));
            c.push(rng.random::<u32>() as u64);
        }
        let n = c.len();
        let row = |x: &[u64], i: usize| x[i * k..(i + 1) * k].to_vec();
        let want: Vec<u64> = (0..n)
            .map(|i| unit.dot_plain(&row(&a, i), &row(&b, i), c[i]))
            .collect();
        let (a8, b8): (Vec<u8>, Vec<u8>) = (
            a.iter().map(|&w| w as u8).collect(),
            b.iter().map(|&w| w as u8).collect(),
        );
        for &isa in &isas {
            let kern = Kernel::with_isa(unit, isa).expect("supported");
            let per_dot: Vec<u64> = (0..n)
                .map(|i| kern.dot(&row(&a, i), &row(&b, i), c[i]))
                .collect();
            assert_eq!(per_dot, want, "{} ({}): dot", r.name, isa.name());
            let mut d = vec![0u64; n];
            kern.dots(k, &a, &b, &c, &mut d).unwrap();
            assert_eq!(d, want, "{} ({}): dots on u64", r.name, isa.name());
            let mut d8 = vec![0u64; n];
            kern.dots(k, &a8, &b8, &c, &mut d8).unwrap();
            assert_eq!(d8, want, "{} ({}): dots on u8", r.name, isa.name());
        }
        checked += 1;
    }
    // Turing, Ampere, Ada, Hopper, Blackwell and the CDNA integer rows: well over a hundred.
    assert!(checked > 100, "only {checked} integer instructions");
}
