//! Structured sparsity's selectors: every legal one, illegal ones refused by group, and the
//! disabled positions without effect, checked against a dense unit by hand.

use mma_core::format::FP32;
use mma_core::models::fma::Fma;
use mma_core::sparse::{SparseError, Sparsity};
use mma_core::{DotUnit, Formats, Model, NanStyle, Rounding};

const S24: Sparsity = Sparsity::TWO_OF_FOUR;

#[test]
fn every_legal_two_of_four_selector() {
    // The six pairs i0 < i1 of 0..4, and their PTX metadata nibbles (i0 | i1 << 2):
    // (0,1) 0x4, (0,2) 0x8, (0,3) 0xc, (1,2) 0x9, (1,3) 0xd, (2,3) 0xe.
    let legal = [
        ([0, 1], 0x4),
        ([0, 2], 0x8),
        ([0, 3], 0xc),
        ([1, 2], 0x9),
        ([1, 3], 0xd),
        ([2, 3], 0xe),
    ];
    let b = [10, 11, 12, 13];
    for (pair, nibble) in legal {
        assert_eq!(S24.check(4, &pair), Ok(()));
        assert_eq!(Sparsity::nibble(pair), nibble);
        assert_eq!(Sparsity::pair(nibble), pair);
        // B's elements at the two positions.
        let want: Vec<u64> = pair.iter().map(|&i| 10 + u64::from(i)).collect();
        assert_eq!(S24.gather(&b, &pair), Ok(want));
    }
    // Every other pair of 0..4 is refused: equal indices, decreasing ones.
    let mut refused = 0;
    for i0 in 0..4u8 {
        for i1 in 0..4u8 {
            if i0 >= i1 {
                assert!(S24.check(4, &[i0, i1]).is_err(), "{i0},{i1}");
                refused += 1;
            }
        }
    }
    assert_eq!(refused, 16 - 6);
}

#[test]
fn illegal_selectors_are_named_by_group() {
    // Group 1 (elements 4..8) selects positions 3 and 3.
    assert_eq!(
        S24.check(8, &[0, 1, 3, 3]),
        Err(SparseError::Selector {
            group: 1,
            indices: vec![3, 3],
            why: "indices must increase within a group"
        })
    );
    // An index of 4 lies beyond a group of 4.
    let e = S24.check(4, &[0, 4]).unwrap_err();
    assert!(e.to_string().starts_with("group 0: selector [0, 4]"), "{e}");
    // K = 8 keeps 4 elements: 3 indices are too few.
    let e = S24.check(8, &[0, 1, 2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "3 metadata indices for K = 8; 2:4 sparsity keeps 4"
    );
    // 1:2 (tf32): one index per pair, 0 or 1.
    let s12 = Sparsity::ONE_OF_TWO;
    assert_eq!(s12.check(4, &[1, 0]), Ok(()));
    assert!(s12.check(4, &[2, 0]).is_err());
    assert_eq!(s12.gather(&[5, 6, 7, 8], &[1, 0]), Ok(vec![6, 7]));
}

#[test]
fn disabled_positions_have_no_effect() {
    // An fp32 FMA chain (a dense unit of block 1): the sparse dot is that unit on the kept
    // elements of A and the selected ones of B. Dense logical A = [2, NaN, Inf, 3]
    // selecting positions 0 and 3: 2·b0 + 3·b3 + c = 2·1 + 3·4 + 0.5 = 14.5 = 0x41680000,
    // the NaN and the Inf at the disabled positions 1 and 2 never read.
    let unit = DotUnit {
        formats: Formats {
            a: FP32,
            b: FP32,
            c: FP32,
            d: FP32,
            scale: None,
        },
        block: 1,
        model: Model::Fma(Fma {
            mode: Rounding::NearestEven,
            nan: NanStyle::DefaultQuiet,
        }),
    };
    let a = [0x4000_0000, 0x7fc0_0000, 0x7f80_0000, 0x4040_0000];
    let b = [0x3f80_0000, 0x7fc0_0000, 0xff80_0000, 0x4080_0000];
    let meta = [0, 3];
    let ac = S24.compress(&a, &meta).unwrap();
    let bg = S24.gather(&b, &meta).unwrap();
    assert_eq!(ac, [0x4000_0000, 0x4040_0000]);
    assert_eq!(unit.dot(&ac, &bg, 0x3f00_0000), 0x4168_0000);
    // A compressed row expands to the dense logical one, zeros at the disabled positions.
    assert_eq!(
        S24.expand(&ac, &meta, 4, 0),
        Ok(vec![0x4000_0000, 0, 0, 0x4040_0000])
    );
    assert!(S24.expand(&ac[..1], &meta, 4, 0).is_err());
}

/// The fp4 kinds' pair-wise pattern: 4 of each 8 as two adjacent pairs. The metadata gives
/// each kept element's index in its group of 8, so the legal selectors are the 6 choices of
/// two pairs p < q of the group's 4 pairs: (2p, 2p + 1, 2q, 2q + 1).
#[test]
fn every_legal_pair_selector_and_the_illegal_ones() {
    let s = Sparsity::PAIRS_FOUR_OF_EIGHT;
    assert_eq!(s.name(), "4:8-pairs");
    assert_eq!(Sparsity::by_name("4:8-pairs"), Some(s));
    assert_eq!(s.stored(16), 8);
    let b: Vec<u64> = (20..28).collect();
    let mut legal = 0;
    for p in 0..4u8 {
        for q in p + 1..4 {
            let sel = [2 * p, 2 * p + 1, 2 * q, 2 * q + 1];
            assert_eq!(s.check(8, &sel), Ok(()), "{sel:?}");
            let want: Vec<u64> = sel.iter().map(|&i| 20 + u64::from(i)).collect();
            assert_eq!(s.gather(&b, &sel), Ok(want));
            legal += 1;
        }
    }
    assert_eq!(legal, 6);
    // Increasing but not in pairs: (0, 2, 4, 5) splits a pair; (1, 2, 4, 5) starts a pair at
    // an odd index. Both are named by their group (the second group here).
    for bad in [[0u8, 2, 4, 5], [1, 2, 4, 5]] {
        let mut meta = vec![0u8, 1, 2, 3];
        meta.extend(bad);
        assert_eq!(
            s.check(16, &meta),
            Err(SparseError::Selector {
                group: 1,
                indices: bad.to_vec(),
                why: "kept elements come in adjacent pairs 2i, 2i + 1"
            })
        );
    }
    // The 2:4 pattern of the same indices' first half stays legal there: pairs are the fp4
    // kinds' rule only.
    assert_eq!(S24.check(4, &[0, 2]), Ok(()));
}
