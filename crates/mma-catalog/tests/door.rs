//! The one door covers every row of both vendor catalogs, finds each by its own names, and
//! says which argument is wrong.
#![cfg(all(feature = "nvidia", feature = "amd"))]

use std::ptr;

use mma_catalog::{find, instructions, select, vendor_of, CatalogError, Vendor};

#[test]
fn every_row_of_both_catalogs_is_listed_once_and_found_by_its_names() {
    let rows: Vec<_> = instructions().collect();
    let (nv, amd) = (mma_nvidia::catalog(), mma_amd::catalog());
    assert_eq!(rows.len(), nv.len() + amd.len());
    // NVIDIA's rows first, each the vendor row itself (the same unit in memory).
    for (r, i) in rows.iter().zip(nv) {
        assert_eq!(r.vendor, Vendor::Nvidia);
        assert!(ptr::eq(r.unit, &i.unit));
        assert_eq!(
            (r.arch, r.op, r.name),
            (i.arch.name(), i.op.name(), i.name.as_str())
        );
    }
    for (r, i) in rows[nv.len()..].iter().zip(amd) {
        assert_eq!(r.vendor, Vendor::Amd);
        assert!(ptr::eq(r.unit, &i.unit));
        assert_eq!(
            (r.arch, r.op, r.name, r.blocks),
            (i.arch.name(), i.op.name(), i.name.as_str(), i.blocks)
        );
    }
    for r in &rows {
        // By vendor, architecture, operation and name; and without the vendor.
        let by_all = find(Some(r.vendor), r.arch, Some(r.op), r.name).unwrap();
        assert!(
            ptr::eq(by_all.unit, r.unit),
            "{} {} {}",
            r.arch,
            r.op,
            r.name
        );
        // By the assembly spelling where it names one instruction: AMD's mnemonics and PTX
        // `mma.sync` (wgmma and tcgen05 spellings leave shape or types to the descriptor).
        if r.vendor == Vendor::Amd || r.op == "MMA" {
            let by_spelling = find(None, r.arch, None, r.mnemonic).unwrap();
            assert!(
                ptr::eq(by_spelling.unit, r.unit),
                "{} {}",
                r.arch,
                r.mnemonic
            );
        }
        assert_eq!(vendor_of(r.arch), Some(r.vendor));
    }
}

#[test]
fn the_vendor_comes_from_the_architecture_when_not_named() {
    for (arch, vendor, name) in [
        ("H100", Vendor::Nvidia, "Hopper"),
        ("sm_90a", Vendor::Nvidia, "Hopper"),
        ("RTX 4090", Vendor::Nvidia, "Ada Lovelace"),
        ("MI300X", Vendor::Amd, "CDNA3"),
        ("gfx90a", Vendor::Amd, "CDNA2"),
        ("cdna1", Vendor::Amd, "CDNA1"),
    ] {
        assert_eq!(vendor_of(arch), Some(vendor), "{arch}");
        assert_eq!(vendor.arch(arch), Ok(name), "{arch}");
    }
    assert_eq!(vendor_of("Pascal"), None);
    assert_eq!(mma_catalog::vendor_or_default("Pascal"), Vendor::Nvidia);
    assert_eq!(Vendor::parse(" AMD "), Ok(Vendor::Amd));
    assert_eq!(
        Vendor::Amd.architectures(),
        ["CDNA1", "CDNA2", "CDNA3", "CDNA4"]
    );
}

#[test]
fn each_error_names_its_argument() {
    let field = |e: CatalogError| (e.field(), e.to_string());
    let (f, m) = field(Vendor::parse("intel").unwrap_err());
    assert_eq!(
        (f, m.as_str()),
        (
            "vendor",
            "vendor \"intel\" is unknown; expected \"nvidia\" or \"amd\""
        )
    );
    // An architecture neither catalog knows goes to NVIDIA's, which lists the closest names.
    let (f, m) = field(find(None, "H1000", None, "m64n8k16.f32.f16.f16").unwrap_err());
    assert_eq!(f, "arch");
    assert!(
        m.starts_with("unknown NVIDIA architecture or GPU \"H1000\"") && m.contains("h100"),
        "{m}"
    );
    let (f, m) = field(find(Some(Vendor::Amd), "H100", None, "f32_32x32x8_f16").unwrap_err());
    assert_eq!(f, "arch");
    assert!(m.starts_with("unknown AMD architecture `H100`"), "{m}");
    let (f, m) = field(find(None, "MI300X", Some("WGMMA"), "f32_32x32x8_f16").unwrap_err());
    assert_eq!(f, "op");
    assert!(m.contains("every AMD instruction here is an MFMA"), "{m}");
    let (f, _) = field(find(None, "H100", Some("MMX"), "m64n8k16.f32.f16.f16").unwrap_err());
    assert_eq!(f, "op");
    let (f, m) = field(find(None, "H100", None, "m64n8k17.f32.f16.f16").unwrap_err());
    assert_eq!(f, "instr");
    assert!(m.contains("m64n8k17"), "{m}");
    let (f, m) = field(find(None, "MI300X", None, "f32_32x32x9_f16").unwrap_err());
    assert_eq!(f, "instr");
    assert!(m.contains("f32_32x32x9_f16"), "{m}");
    // A 5 MB name gives a message of a line.
    let huge = "x".repeat(5 << 20);
    for e in [
        find(None, &huge, None, "m").unwrap_err(),
        find(None, "H100", None, &huge).unwrap_err(),
        select(None, Some(&huge)).unwrap_err(),
        Vendor::parse(&huge).unwrap_err(),
    ] {
        assert!(e.to_string().len() < 1000, "{} bytes", e.to_string().len());
    }
}

#[test]
fn select_lists_a_vendor_and_an_architecture_or_says_why_not() {
    let all = select(None, None).unwrap();
    assert_eq!(all.len(), instructions().count());
    let amd = select(Some(Vendor::Amd), None).unwrap();
    assert_eq!(amd.len(), mma_amd::catalog().len());
    let hopper = select(None, Some("H100")).unwrap();
    let want = mma_nvidia::catalog()
        .iter()
        .filter(|i| i.arch == mma_nvidia::Arch::Hopper)
        .count();
    assert_eq!(hopper.len(), want);
    assert!(hopper
        .iter()
        .all(|r| r.arch == "Hopper" && r.vendor == Vendor::Nvidia));
    assert_eq!(select(Some(Vendor::Nvidia), Some("sm_90")).unwrap(), hopper);
    // Another vendor's architecture is an error, not an empty list.
    let e = select(Some(Vendor::Amd), Some("Hopper")).unwrap_err();
    assert_eq!(
        (e.field(), e.to_string().as_str()),
        ("arch", "\"Hopper\" is not among the amd architectures")
    );
    let e = select(None, Some("Pascal")).unwrap_err();
    assert_eq!(e.field(), "arch");
    assert!(
        e.to_string().starts_with("unknown architecture \"Pascal\""),
        "{e}"
    );
}

/// GPUs through the door: found by any name in any spelling; each dtype column resolves to
/// the vendor catalog's instruction (by hand from the tables: an A100's bf16 is Ampere's
/// `m16n8k16.f32.bf16.bf16.f32`, an H100's f16 Hopper's `wgmma` m64n8k16, an MI300X's e4m3fnuz
/// × e5m2fnuz CDNA3's `f32_32x32x16_fp8_bf8`, and a V100 has no bf16); an unknown GPU names the
/// known ones.
#[test]
fn gpus_by_name_and_their_instructions() {
    use mma_catalog::{find_gpu, gpus};
    let a100 = find_gpu("a-100").unwrap();
    assert_eq!((a100.name(), a100.vendor), ("A100", Vendor::Nvidia));
    let row = a100.instruction("bf16", None).unwrap().unwrap();
    assert_eq!(
        (row.arch, row.op, row.name),
        ("Ampere", "MMA", "m16n8k16.f32.bf16.bf16.f32")
    );
    let h100 = find_gpu("H100 SXM").unwrap();
    let row = h100.instruction("f16", None).unwrap().unwrap();
    assert_eq!(
        (row.arch, row.op, row.name),
        ("Hopper", "WGMMA", "m64n8k16.f32.f16.f16")
    );
    let mi = find_gpu("mi300x").unwrap();
    let row = mi
        .instruction("fp8", Some(("e4m3fnuz", "e5m2fnuz")))
        .unwrap()
        .unwrap();
    assert_eq!((row.arch, row.name), ("CDNA3", "f32_32x32x16_fp8_bf8"));
    assert!(find_gpu("V100")
        .unwrap()
        .instruction("bf16", None)
        .unwrap()
        .is_none());
    let err = find_gpu("H900").unwrap_err();
    assert_eq!(err.field(), "gpu");
    assert!(
        err.to_string()
            .starts_with("unknown GPU \"H900\"; known: V100, T4, A100"),
        "{err}"
    );
    let err = mi.instruction("fp8", Some(("e4m3", "e4m3"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "MI300X: \"e4m3\" is not one of its FP8 formats"
    );
    // Every GPU of both tables, NVIDIA's first; every platform named is a GPU's platform.
    let all = gpus();
    assert_eq!(all[0].name(), "V100");
    assert!(all.iter().any(|g| g.name() == "MI100"));
    assert_eq!(
        all.iter()
            .filter_map(|g| g.row.platform.as_deref())
            .collect::<Vec<_>>(),
        ["RTX 4060", "H100 PCIe"]
    );
}

/// Every GPU of both vendors' tables (`library/gpus.txt`): each dtype cell names an
/// instruction of the vendor's catalog on the row's architecture (the `fp8` cell for every pair
/// of the vendor's FP8 formats), each platform exists and issues, for every FP8 pair, the row's
/// instruction, and no name belongs to two rows.
#[test]
fn every_gpu_row_names_catalog_instructions_and_platforms() {
    use mma_catalog::gpus;
    use mma_core::gpu_table::{gpu_key, GPU_COLUMNS};
    let all = gpus();
    let mut names = std::collections::HashSet::new();
    let mut cells = 0;
    for g in &all {
        for n in &g.row.names {
            assert!(names.insert(gpu_key(n)), "{n} twice");
        }
        assert!(!g.row.evidence.is_empty(), "{}", g.name());
        let platform = g.row.platform.as_ref().map(|p| {
            assert_eq!(
                g.vendor,
                Vendor::Nvidia,
                "{}: platforms are NVIDIA's",
                g.name()
            );
            mma_nvidia::library::platform(p).unwrap_or_else(|e| panic!("{}: {e}", g.name()))
        });
        for col in GPU_COLUMNS {
            let pairs: Vec<Option<(&str, &str)>> = if col == "fp8" {
                let f = g.fp8_spellings();
                f.iter()
                    .flat_map(|a| f.iter().map(move |b| Some((a.0, b.0))))
                    .collect()
            } else {
                vec![None]
            };
            for pair in pairs {
                let Some(row) = g
                    .instruction(col, pair)
                    .unwrap_or_else(|e| panic!("{} {col} {pair:?}: {e}", g.name()))
                else {
                    continue;
                };
                assert_eq!(row.arch, g.row.arch.as_str(), "{} {col}", g.name());
                cells += 1;
                if let (Some(p), Some((a, b))) = (platform, pair) {
                    let fmt = |f: &str| mma_core::format::by_name(f).unwrap();
                    let issued = p.instruction(&fmt(a), &fmt(b)).unwrap();
                    assert_eq!(&issued.unit, row.unit, "{}: {a} x {b}", g.name());
                }
            }
        }
    }
    assert!(
        all.len() >= 12 && cells > 40,
        "{} GPUs, {cells} cells",
        all.len()
    );
}
