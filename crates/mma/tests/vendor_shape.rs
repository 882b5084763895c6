//! Both vendor catalogs have one shape: the same row type (`mma::catalog::Instruction`), and
//! `catalog`, `parse_arch`, `find` and `find_in` with the same signatures, and one error shape.

use mma::catalog::{Instruction, Layout};

/// Every row finds itself through `find` by arch, op and name, and through `find_in`.
fn finds_itself<A: Copy + std::fmt::Display, O: Copy + std::fmt::Display>(
    rows: &'static [Instruction<A, O>],
    find: impl Fn(&str, Option<&str>, &str) -> Option<&'static Instruction<A, O>>,
    find_in: impl Fn(A, Option<O>, &str) -> Option<&'static Instruction<A, O>>,
) {
    for i in rows {
        let by_op = find(&i.arch.to_string(), Some(&i.op.to_string()), &i.name);
        assert!(
            by_op.is_some_and(|j| std::ptr::eq(i, j)),
            "{} {}",
            i.arch,
            i.name
        );
        let known = find_in(i.arch, Some(i.op), &i.name);
        assert!(
            known.is_some_and(|j| std::ptr::eq(i, j)),
            "{} {}",
            i.arch,
            i.name
        );
    }
}

#[test]
fn both_catalogs_find_every_row_the_same_way() {
    finds_itself(
        mma::nvidia::catalog(),
        |a, o, n| mma::nvidia::find(a, o, n).ok(),
        |a, o, n| mma::nvidia::find_in(a, o, n).ok(),
    );
    finds_itself(
        mma::amd::catalog(),
        |a, o, n| mma::amd::find(a, o, n).ok(),
        |a, o, n| mma::amd::find_in(a, o, n).ok(),
    );
}

#[test]
fn mnemonics_are_the_assembly_spellings() {
    // NVIDIA `mma.sync`: the PTX spelling looks the instruction up again (the fp8 rows of
    // Hopper and Blackwell, which mmasim does not list, included).
    let mut fp8 = 0;
    for i in mma::nvidia::catalog() {
        assert_eq!((i.blocks, i.m > 0), (1, true), "{}", i.name);
        if i.op == mma::nvidia::Op::Mma {
            assert!(
                i.mnemonic.starts_with("mma.sync.aligned."),
                "{}",
                i.mnemonic
            );
            let again = mma::nvidia::find(i.arch.name(), None, &i.mnemonic).unwrap();
            assert!(std::ptr::eq(i, again), "{}", i.mnemonic);
            fp8 += i.note.is_some() as usize;
        }
    }
    // 2 shapes × 2 outputs × 4 type pairs, on Hopper and Blackwell.
    assert!(fp8 >= 32, "{fp8}");
    let h = mma::nvidia::find("H100", None, "m16n8k32.f16.e4m3.e5m2.f16").unwrap();
    assert_eq!(
        h.mnemonic,
        "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16"
    );
    for i in mma::amd::catalog() {
        // A sparse row's name carries its `smfmac_` (`crates/mma-amd/src/sparse.rs`).
        let want = if i.sparse.is_some() {
            format!("v_{}", i.name)
        } else {
            format!("v_mfma_{}", i.name)
        };
        assert_eq!(i.mnemonic, want);
        // CDNA4's f8f6f4 rows hold fp6/fp4 one to a byte; only CDNA4's rows carry a note (the
        // CDNA3 behaviour each carries over) and the sparse rows (the reading they take).
        let byte = i.name.contains("_f8f6f4_");
        let layout = if byte { Layout::Byte } else { Layout::Plain };
        assert_eq!(i.layout, layout, "{}", i.name);
        assert_eq!(
            i.note.is_some(),
            i.arch == mma::amd::Arch::Cdna4 || i.sparse.is_some(),
            "{}",
            i.name
        );
    }
}

#[test]
fn amd_takes_its_one_operation_or_none() {
    let plain = mma::amd::find("MI300X", None, "f32_32x32x8_f16").unwrap();
    for op in ["MFMA", "mfma"] {
        let i = mma::amd::find("MI300X", Some(op), "f32_32x32x8_f16").unwrap();
        assert!(std::ptr::eq(plain, i));
    }
    let err = mma::amd::find("MI300X", Some("WGMMA"), "f32_32x32x8_f16").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown operation `WGMMA`: every AMD instruction here is an MFMA (leave op out or give MFMA)"
    );
}

#[test]
fn parse_arch_returns_the_error_with_close_names() {
    assert_eq!(
        mma::nvidia::parse_arch("H100"),
        Ok(mma::nvidia::Arch::Hopper)
    );
    assert_eq!(mma::amd::parse_arch("MI300X"), Ok(mma::amd::Arch::Cdna3));
    // The same look-up without an error, as the door chooses a vendor with.
    assert_eq!(
        mma::nvidia::Arch::named("sm_90a"),
        Some(mma::nvidia::Arch::Hopper)
    );
    assert_eq!(
        mma::amd::Arch::named("AMD Instinct MI300X"),
        Some(mma::amd::Arch::Cdna3)
    );
    assert_eq!(
        (
            mma::nvidia::Arch::named("MI300X"),
            mma::amd::Arch::named("H100")
        ),
        (None, None)
    );
    let nv = mma::nvidia::parse_arch("H1000").unwrap_err().to_string();
    assert!(
        nv.starts_with("unknown NVIDIA architecture or GPU \"H1000\"; known: "),
        "{nv}"
    );
    assert!(nv.contains("h100"), "{nv}");
    let amd = mma::amd::parse_arch("MI3000X").unwrap_err().to_string();
    assert!(amd.contains("did you mean: mi300x"), "{amd}");
}

/// The argument a vendor catalog's error is about, read through one set of patterns: this
/// compiles only while both crates' `CatalogError`s have the same variants and fields.
macro_rules! fault {
    ($e:expr, $($vendor:ident)::+) => {{
        use $($vendor)::+::CatalogError as E;
        match $e {
            E::UnknownArch { input, near } => ("arch", input, near),
            E::UnknownOp { input, near } => ("op", input, near),
            E::UnknownInstruction { arch: _, input, hint: _ } => ("instr", input, Vec::new()),
            E::Ambiguous { arch: _, input, candidates } => ("instr", input, candidates),
            other => panic!("a variant the shape does not list: {other:?}"),
        }
    }};
}

#[test]
fn both_catalogs_fail_in_one_shape() {
    let nv = |a, o: Option<&str>, n| fault!(mma::nvidia::find(a, o, n).unwrap_err(), mma::nvidia);
    let amd = |a, o: Option<&str>, n| fault!(mma::amd::find(a, o, n).unwrap_err(), mma::amd);
    let (f, input, near) = nv("H1000", None, "m16n8k16.f32.bf16.bf16.f32");
    assert_eq!((f, input.as_str()), ("arch", "H1000"));
    assert!(near.iter().any(|n| n == "h100"), "{near:?}");
    let (f, input, near) = amd("MI3000X", None, "f32_32x32x8_f16");
    assert_eq!((f, input.as_str()), ("arch", "MI3000X"));
    assert!(near.iter().any(|n| n == "mi300x"), "{near:?}");
    let (f, input, _) = nv("H100", Some("WMMA"), "m64n8k16.f32.f16.f16");
    assert_eq!((f, input.as_str()), ("op", "WMMA"));
    let (f, input, near) = amd("MI300X", Some("WGMMA"), "f32_32x32x8_f16");
    assert_eq!(
        (f, input.as_str(), near),
        (
            "op",
            "WGMMA",
            vec!["MFMA".to_string(), "SMFMAC".to_string()]
        )
    );
    let (f, input, _) = nv("H100", None, "m64n8k17.f32.f16.f16");
    assert_eq!((f, input.as_str()), ("instr", "m64n8k17.f32.f16.f16"));
    let (f, input, _) = amd("MI300X", None, "f32_32x32x9_f16");
    assert_eq!((f, input.as_str()), ("instr", "f32_32x32x9_f16"));
}
