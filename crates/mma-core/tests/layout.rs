//! `Layout::pack` and `Layout::unpack`, the one home of how elements sit in a layout's storage
//! words: expected words derived by hand, the bits written beside each case.

use mma_core::catalog::{BadWord, ByteMask, Layout, Misfit};
use mma_core::format::{E2M1, E2M3, E3M2, E4M3, FP16, UE8M0};

#[test]
fn plain_words_are_the_elements() {
    // f16 1.0 = 0 01111 0000000000 = 0x3c00, -2.0 = 1 10000 0000000000 = 0xc000: as they are.
    assert_eq!(
        Layout::Plain.pack(&FP16, &[0x3c00, 0xc000]),
        [0x3c00, 0xc000]
    );
    assert_eq!(
        Layout::Plain.unpack(&FP16, &[0x3c00, 0xc000]),
        Ok(vec![0x3c00, 0xc000])
    );
    // 0x1_0000 has bit 16 set, beyond f16's 16 storage bits: no f16 word.
    assert_eq!(
        Layout::Plain.unpack(&FP16, &[0x3c00, 0x1_0000]),
        Err(BadWord {
            index: 1,
            word: 0x1_0000,
            why: Misfit::Invalid { format: "f16" }
        })
    );
    assert_eq!(Layout::Plain.per_word(), 1);
    assert_eq!(Layout::Plain.word_bits(&FP16), 16);
    assert_eq!(Layout::Plain.hex_digits(&FP16), 4);
}

#[test]
fn byte_places_fp4_in_bits_5_to_2_and_fp6_in_5_to_0() {
    // e2m1 1.0 = 0 01 0 = 0b0010; in bits 5:2 of a byte: 0b00_0010_00 = 0x08.
    // e2m1 -6.0 = 1 11 1 = 0b1111 → 0b00_1111_00 = 0x3c.
    assert_eq!(Layout::Byte.pack(&E2M1, &[0x2, 0xf]), [0x08, 0x3c]);
    assert_eq!(
        Layout::Byte.unpack(&E2M1, &[0x08, 0x3c]),
        Ok(vec![0x2, 0xf])
    );
    // 0x09 = 0b00_0010_01: bit 0 set, outside bits 5:2.
    assert_eq!(
        Layout::Byte.unpack(&E2M1, &[0x09]),
        Err(BadWord {
            index: 0,
            word: 0x09,
            why: Misfit::Fp4Bits
        })
    );
    // e3m2 -0.0625 (subnormal, -0.01b × 2^-2) in bits 5:0: 1 000 01 → 0b10_0001 = 0x21, the
    // byte as it is.
    assert_eq!(Layout::Byte.pack(&E3M2, &[0x21]), [0x21]);
    assert_eq!(Layout::Byte.unpack(&E3M2, &[0x21]), Ok(vec![0x21]));
    // 0x61 = 0b01_10_0001: bit 6 set, above bit 5.
    assert_eq!(
        Layout::Byte
            .unpack(&E2M3, &[0x21, 0x61])
            .map_err(|e| (e.index, e.why)),
        Err((1, Misfit::Fp6Bits))
    );
    // e4m3: the byte is the element, all 256 of them valid.
    assert_eq!(
        Layout::Byte.unpack(&E4M3, &[0xff, 0x00]),
        Ok(vec![0xff, 0x00])
    );
    // The messages case files and the Python package print.
    assert_eq!(
        Misfit::Fp4Bits.to_string(),
        "an fp4 element in a byte must sit in bits 5:2 with the other bits zero"
    );
    assert_eq!(
        Misfit::Fp6Bits.to_string(),
        "an fp6 element must sit in bits 5:0 with bits 7:6 zero"
    );
    assert_eq!(
        Layout::Byte.misfit(&E4M3).to_string(),
        "not a valid e4m3 encoding"
    );
}

#[test]
fn packed_fp4_puts_element_2i_in_the_high_nibble() {
    // Elements 0x2 (1.0), 0xf (-6.0), 0x1 (0.5), 0x0: bytes 0x2f and 0x10.
    assert_eq!(
        Layout::PackedFp4.pack(&E2M1, &[0x2, 0xf, 0x1, 0x0]),
        [0x2f, 0x10]
    );
    assert_eq!(
        Layout::PackedFp4.unpack(&E2M1, &[0x2f, 0x10]),
        Ok(vec![0x2, 0xf, 0x1, 0x0])
    );
    // An odd count: the last byte's low nibble is zero, 0x7 → 0x70.
    assert_eq!(Layout::PackedFp4.pack(&E2M1, &[0x7]), [0x70]);
    assert_eq!(Layout::fp4_pair(0xa5), [0xa, 0x5]);
    assert_eq!(
        Layout::PackedFp4.unpack(&E2M1, &[0x100]).map_err(|e| e.why),
        Err(Misfit::NotAByte)
    );
    assert_eq!(Layout::PackedFp4.per_word(), 2);
    assert_eq!(Layout::PackedFp4.words_for(64), 32);
    assert_eq!(Layout::PackedFp4.element(&E2M1, 0x22), None);
}

#[test]
fn byte_masks_describe_each_byte() {
    // fp4 in bits 5:2: bits 7:6 and 1:0 zero (!0x3c = 0xc3), code = byte >> 2.
    assert_eq!(
        Layout::Byte.byte_mask(&E2M1),
        Some(ByteMask {
            zero: 0xc3,
            shift: 2
        })
    );
    assert_eq!(
        Layout::Byte.byte_mask(&E2M3),
        Some(ByteMask {
            zero: 0xc0,
            shift: 0
        })
    );
    // A plain fp6 word in a byte: the same six low bits.
    assert_eq!(
        Layout::Plain.byte_mask(&E3M2),
        Some(ByteMask {
            zero: 0xc0,
            shift: 0
        })
    );
    // ue8m0 and e4m3 take every byte.
    assert_eq!(
        Layout::Plain.byte_mask(&UE8M0),
        Some(ByteMask { zero: 0, shift: 0 })
    );
    assert_eq!(
        Layout::Byte.byte_mask(&E4M3),
        Some(ByteMask { zero: 0, shift: 0 })
    );
    // Two elements to a byte, or a word wider than a byte: no one-element mask.
    assert_eq!(Layout::PackedFp4.byte_mask(&E2M1), None);
    assert_eq!(Layout::Plain.byte_mask(&FP16), None);
    // Every mask agrees with `element` on every byte.
    for (layout, fmt) in [
        (Layout::Byte, E2M1),
        (Layout::Byte, E2M3),
        (Layout::Plain, E3M2),
        (Layout::Plain, UE8M0),
    ] {
        let m = layout.byte_mask(&fmt).unwrap();
        for b in 0..=255u8 {
            let by_mask = (b & m.zero == 0).then_some(u64::from(b >> m.shift));
            assert_eq!(
                layout.element(&fmt, u64::from(b)),
                by_mask,
                "{fmt:?} {b:#x}"
            );
        }
    }
}
