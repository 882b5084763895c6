//! The catalog's contents and the accepted spellings of architectures and instructions.

use mma_amd::{catalog, find, parse_arch, Arch, CatalogError};
use std::collections::HashSet;

#[test]
fn catalog_has_every_mmasim_instruction() {
    // mmasim 2.1.1: CDNA1 15, CDNA2 7 + the 15 of CDNA1, CDNA3 27; then the i8 MFMAs of the
    // CDNA ISA guides (CDNA1/CDNA2 5, CDNA3 5), and CDNA4: 36 carried over or doubled-K,
    // 2 shapes × 25 format pairs of f8f6f4 and as many of the block-scaled scale_f8f6f4;
    // then the sparse v_smfmac derived from the dense rows (`src/sparse.rs`): CDNA3 14 (f16,
    // bf16 and i8 at two shapes, four fp8/bf8 pairs at two), CDNA4 20 (those and the
    // doubled-K f16, bf16 and i8).
    let count = |a: Arch| catalog().iter().filter(|i| i.arch == a).count();
    assert_eq!(
        (
            count(Arch::Cdna1),
            count(Arch::Cdna2),
            count(Arch::Cdna3),
            count(Arch::Cdna4)
        ),
        (20, 27, 46, 156)
    );
    for ins in catalog() {
        // A sparse row's name carries its `smfmac_` already.
        let prefix = if ins.sparse.is_some() {
            "v_"
        } else {
            "v_mfma_"
        };
        assert_eq!(ins.mnemonic, format!("{prefix}{}", ins.name));
        // Every instruction finds itself by its own names.
        assert_eq!(find(ins.arch.name(), None, &ins.name).unwrap(), ins);
        assert_eq!(find(ins.arch.name(), None, &ins.mnemonic).unwrap(), ins);
        assert!(ins.unit.block >= 1 && ins.unit.block <= ins.k.max(ins.unit.block));
    }
}

#[test]
fn names_are_unique_even_without_underscores() {
    for arch in Arch::ALL {
        let mut seen = HashSet::new();
        for ins in catalog().iter().filter(|i| i.arch == arch) {
            assert!(seen.insert(ins.name.replace('_', "")), "{}", ins.name);
        }
    }
}

#[test]
fn models_and_blocks_follow_the_parameter_table() {
    let model = |arch: &str, name: &str| {
        let i = find(arch, None, name).unwrap();
        (i.unit.model.name(), i.unit.block)
    };
    assert_eq!(model("CDNA1", "f32_32x32x8f16"), ("E-FDPA", 4));
    assert_eq!(model("CDNA1", "f32_32x32x4bf16"), ("E-FDPA", 2));
    assert_eq!(model("CDNA2", "f32_32x32x8f16"), ("FTZ-MulAdd", 8));
    assert_eq!(model("CDNA2", "f64_4x4x4f64"), ("FMA", 4));
    assert_eq!(model("CDNA3", "f32_16x16x8_xf32"), ("TR-FDPA", 4));
    assert_eq!(model("CDNA3", "f32_16x16x16_bf16"), ("TR-FDPA", 8));
    assert_eq!(model("CDNA3", "f32_16x16x32_fp8_bf8"), ("GTR-FDPA", 16));
    assert_eq!(find("CDNA3", None, "f32_4x4x4_16b_f16").unwrap().blocks, 16);
    assert_eq!(find("CDNA1", None, "f32_32x32x1f32").unwrap().blocks, 2);
}

#[test]
fn architecture_names() {
    for (name, arch) in [
        ("CDNA1", Arch::Cdna1),
        ("cdna3", Arch::Cdna3),
        ("MI100", Arch::Cdna1),
        ("mi210", Arch::Cdna2),
        ("MI250", Arch::Cdna2),
        ("MI250X", Arch::Cdna2),
        ("MI300A", Arch::Cdna3),
        ("mi300x", Arch::Cdna3),
        ("MI325X", Arch::Cdna3),
        ("gfx90a", Arch::Cdna2),
    ] {
        assert_eq!(parse_arch(name).unwrap(), arch, "{name}");
    }
    assert_eq!(Arch::Cdna2.name(), "CDNA2");
    match parse_arch("MI330") {
        Err(CatalogError::UnknownArch { input, near }) => {
            assert_eq!(input, "MI330");
            assert!(near.iter().any(|s| s.starts_with("mi3")), "{near:?}");
        }
        other => panic!("expected UnknownArch, got {other:?}"),
    }
}

#[test]
fn instruction_spellings() {
    let want = find("CDNA3", None, "f32_32x32x8_f16").unwrap();
    for s in [
        "v_mfma_f32_32x32x8_f16",
        "v_mfma_f32_32x32x8f16",
        "V_MFMA_F32_32X32X8_F16",
        "f32_32x32x8f16",
        "mfma_f32_32x32x8f16",
        "__builtin_amdgcn_mfma_f32_32x32x8f16",
    ] {
        assert_eq!(find("MI300X", None, s).unwrap(), want, "{s}");
    }
    // CDNA3 builtins keep the CDNA1/2 spellings of the renamed multi-block and _1k forms.
    assert_eq!(
        find("cdna3", None, "__builtin_amdgcn_mfma_f32_16x16x4f16")
            .unwrap()
            .name,
        "f32_16x16x4_4b_f16"
    );
    assert_eq!(
        find("cdna3", None, "__builtin_amdgcn_mfma_f32_32x32x8bf16_1k")
            .unwrap()
            .name,
        "f32_32x32x8_bf16"
    );
    // On CDNA2 the `_1k` suffix decides between two instructions of the same shape.
    assert_eq!(
        find("MI250X", None, "v_mfma_f32_32x32x4bf16_1k")
            .unwrap()
            .name,
        "f32_32x32x4bf16_1k"
    );
    assert_eq!(
        find("MI250X", None, "v_mfma_f32_32x32x4_bf16")
            .unwrap()
            .name,
        "f32_32x32x4bf16"
    );
    assert_eq!(
        find("cdna3", None, "v_mfma_f32_16x16x32_fp8_bf8")
            .unwrap()
            .name,
        "f32_16x16x32_fp8_bf8"
    );
}

#[test]
fn unknown_instructions_list_close_matches() {
    match find("CDNA3", None, "v_mfma_f32_32x32x8_f61") {
        Err(e @ CatalogError::UnknownInstruction { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("v_mfma_f32_32x32x8_f61"), "{msg}");
            assert!(msg.contains("v_mfma_f32_32x32x8_f16"), "{msg}");
        }
        other => panic!("expected UnknownInstruction, got {other:?}"),
    }
    // xf32 exists only on CDNA3, and the error says so.
    let msg = find("CDNA2", None, "v_mfma_f32_16x16x8_xf32")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("CDNA3 has it"), "{msg}");
}
