//! `mma gemm` on `.npy` files, checked element by element against the model evaluated one dot
//! product at a time ([`mma::DotUnit::dot`], K walked in steps of the instruction's K
//! with D fed back as C, which is what the command claims to do), and its error paths.

use crate::common;
use common::mma;
use mma::cases::{self, Target};
use mma::format::{BF16, E4M3, FP16, FP32};
use mma::Format;
use mma_cli::npy::{self, Matrix};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};

/// Random finite words of `fmt` with exponents in a narrow band (no overflow in any sum).
fn random(fmt: &Format, rng: &mut Xoshiro256PlusPlus, count: usize) -> Vec<u64> {
    (0..count)
        .map(|_| {
            let man = rng.random::<u64>() & ((1 << fmt.man_bits) - 1);
            let e = (fmt.bias as i64 + rng.random_range(-3..=3)) as u64;
            let s = rng.random::<bool>() as u64;
            (s << (fmt.exp_bits + fmt.man_bits) | e << fmt.man_bits | man) << fmt.lsb
        })
        .collect()
}

fn save(dir: &Path, name: &str, fmt: &Format, rows: usize, cols: usize, words: &[u64]) -> PathBuf {
    let p = dir.join(name);
    let m = Matrix {
        rows,
        cols,
        words: words.to_vec(),
    };
    npy::write(&p, "test", fmt, &m).expect("write npy");
    p
}

/// D[i][j] by the model, one dot product per instruction step along K.
fn per_dot(
    t: &Target,
    (m, n, k): (usize, usize, usize),
    a: &[u64],
    b: &[u64],
    c: &[u64],
) -> Vec<u64> {
    let mut d = vec![0; m * n];
    for i in 0..m {
        for j in 0..n {
            let col: Vec<u64> = (0..k).map(|r| b[r * n + j]).collect();
            let mut acc = c[i * n + j];
            for k0 in (0..k).step_by(t.k) {
                acc = t
                    .unit
                    .dot(&a[i * k + k0..i * k + k0 + t.k], &col[k0..k0 + t.k], acc);
            }
            d[i * n + j] = acc;
        }
    }
    d
}

struct Case {
    vendor: &'static str,
    arch: &'static str,
    instr: &'static str,
    /// How A and B are stored: float arrays of values, or raw bits.
    bits: bool,
    /// The array format A and B are written in (values are exact in the operand format).
    file_fmt: Format,
}

fn run_case(case: &Case, split_k: usize) {
    let t = cases::resolve(case.vendor, case.arch, None, case.instr).expect("instruction");
    let f = t.unit.formats;
    let (m, n, k) = (5, 3, 3 * t.k * split_k);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(k as u64);
    let a = random(&f.a, &mut rng, m * k);
    let b = random(&f.b, &mut rng, k * n);
    let c = random(&f.c, &mut rng, m * n);
    let dir = tempfile::tempdir().expect("tempdir");
    // Values written as float arrays: re-encode each element in the file's format (exact:
    // the file format is wider than the operand's).
    let as_file = |fmt: &Format, xs: &[u64]| -> Vec<u64> {
        if case.bits {
            return xs.to_vec();
        }
        xs.iter()
            .map(|&x| {
                let v = fmt.decode(x);
                let r = mma::round::convert(
                    &case.file_fmt,
                    v,
                    mma::Rounding::NearestEven,
                    mma::RoundOpts::IEEE,
                );
                case.file_fmt.encode(r, case.file_fmt.default_nan())
            })
            .collect()
    };
    let ff = if case.bits { f.a } else { case.file_fmt };
    let pa = save(dir.path(), "a.npy", &ff, m, k, &as_file(&f.a, &a));
    let pb = save(dir.path(), "b.npy", &ff, k, n, &as_file(&f.b, &b));
    let pc = save(dir.path(), "c.npy", &f.c, m, n, &c);
    let pd = dir.path().join("d.npy");
    let s = |p: &Path| p.display().to_string();
    let sk = split_k.to_string();
    let mut args = vec![
        "gemm",
        "--vendor",
        case.vendor,
        "--arch",
        case.arch,
        "--instr",
        case.instr,
    ];
    let (sa, sb, sc, sd) = (s(&pa), s(&pb), s(&pc), s(&pd));
    args.extend([
        "--a",
        &sa,
        "--b",
        &sb,
        "--c",
        &sc,
        "-o",
        &sd,
        "--split-k",
        &sk,
    ]);
    if case.bits {
        args.extend(["--a-bits", "--b-bits"]);
    }
    let (code, out, err) = mma(&args);
    assert_eq!(code, 0, "{}: {err}", case.instr);
    assert!(out.contains(&format!("D: {m}×{n}")), "{out}");
    let got = npy::read(&pd, "-o", &f.d, npy::Input::Values).expect("D");
    assert_eq!((got.rows, got.cols), (m, n));
    let want = if split_k == 1 {
        per_dot(&t, (m, n, k), &a, &b, &c)
    } else {
        // Each slice from +0, then ((C + P0) + P1) in f32 with the host's IEEE addition.
        assert_eq!(f.d, FP32);
        let ks = k / split_k;
        let mut d: Vec<f32> = c.iter().map(|&x| f32::from_bits(x as u32)).collect();
        for p in 0..split_k {
            let sa: Vec<u64> = (0..m)
                .flat_map(|i| a[i * k + p * ks..i * k + (p + 1) * ks].to_vec())
                .collect();
            let sbm: Vec<u64> = b[p * ks * n..(p + 1) * ks * n].to_vec();
            let part = per_dot(&t, (m, n, ks), &sa, &sbm, &vec![0; m * n]);
            for (x, y) in d.iter_mut().zip(part) {
                *x += f32::from_bits(y as u32);
            }
        }
        d.iter().map(|x| x.to_bits() as u64).collect()
    };
    assert_eq!(got.words, want, "{} split-k {split_k}", case.instr);
}

const CASES: [Case; 4] = [
    Case {
        vendor: "nvidia",
        arch: "Hopper",
        instr: "m64n8k16.f32.f16.f16",
        bits: false,
        file_fmt: FP16,
    },
    Case {
        vendor: "nvidia",
        arch: "Ampere",
        instr: "m16n8k16.f32.bf16.bf16.f32",
        bits: true,
        file_fmt: BF16,
    },
    Case {
        vendor: "nvidia",
        arch: "Hopper",
        instr: "m16n8k32.f32.e4m3.e4m3.f32",
        bits: false,
        file_fmt: FP32,
    },
    Case {
        vendor: "amd",
        arch: "CDNA3",
        instr: "f32_32x32x4_2b_f16",
        bits: false,
        file_fmt: FP16,
    },
];

#[test]
fn gemm_equals_the_model_dot_by_dot() {
    for case in &CASES {
        run_case(case, 1);
    }
}

#[test]
fn split_k_reduces_in_fp32_in_slice_order() {
    run_case(&CASES[0], 2);
    run_case(&CASES[3], 3);
}

#[test]
fn fp8_bits_and_errors_name_the_argument() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let s = |p: PathBuf| p.display().to_string();
    let instr = ["gemm", "--arch", "H100", "--instr", "m64n8k16.f32.f16.f16"];
    let run = |extra: &[&str]| {
        let mut v = instr.to_vec();
        v.extend_from_slice(extra);
        mma(&v)
    };
    let ones = vec![0x3c00u64; 2 * 16];
    let a = s(save(d, "a.npy", &FP16, 2, 16, &ones));
    let b = s(save(d, "b.npy", &FP16, 16, 2, &ones));
    let out = s(d.join("d.npy"));
    // Sixteen 1·1 products: 16 in every element (0x41800000).
    let (code, _, err) = run(&["--a", &a, "--b", &b, "-o", &out]);
    assert_eq!(code, 0, "{err}");
    let got = npy::read(Path::new(&out), "-o", &FP32, npy::Input::Values).expect("D");
    assert_eq!(got.words, [0x4180_0000; 4]);
    // Wrong shape: B with 8 rows for an A with K = 16.
    let b8 = s(save(d, "b8.npy", &FP16, 8, 2, &ones[..16]));
    let (code, _, err) = run(&["--a", &a, "--b", &b8, "-o", &out]);
    assert_eq!(code, 2);
    assert!(err.contains("--b: expected 16 rows"), "{err}");
    // K not a multiple of the instruction's K.
    let a8 = s(save(d, "a8.npy", &FP16, 2, 8, &ones[..16]));
    let (code, _, err) = run(&["--a", &a8, "--b", &b8, "-o", &out]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--a: K = 8 must be a positive multiple of the instruction's K = 16"),
        "{err}"
    );
    // A dtype the instruction does not take: uint8 bits for f16 A; uint16 without --a-bits.
    let u8s = s(save(d, "u8.npy", &E4M3, 2, 16, &[0x38; 32]));
    let (code, _, err) = run(&["--a", &u8s, "--a-bits", "--b", &b, "-o", &out]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "--a: dtype uint8 is not taken for f16 (raw f16 encodings are read from a uint16 array)"
        ),
        "{err}"
    );
    let u16s = s(save(d, "u16.npy", &BF16, 2, 16, &ones));
    let (code, _, err) = run(&["--a", &u16s, "--b", &b, "-o", &out]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--a: dtype uint16 is not taken for f16") && err.contains("--a-bits"),
        "{err}"
    );
    // A value not exact in the format: f32 1 + 2^-12 at row 1, column 3 of an f16 A.
    let mut w = vec![0x3f80_0000u64; 32];
    w[16 + 3] = 0x3f80_0800;
    let bad = s(save(d, "bad.npy", &FP32, 2, 16, &w));
    let (code, _, err) = run(&["--a", &bad, "--b", &b, "-o", &out]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--a: element [1, 3]: ") && err.contains("not exactly representable in f16"),
        "{err}"
    );
    // Unreadable file; a file that is not .npy.
    let (code, _, err) = run(&["--a", "no-such.npy", "--b", &b, "-o", &out]);
    assert_eq!(code, 2);
    assert!(err.contains("--a: cannot read no-such.npy"), "{err}");
    std::fs::write(d.join("x.npy"), "not npy").expect("write");
    let (code, _, err) = run(&["--a", &s(d.join("x.npy")), "--b", &b, "-o", &out]);
    assert_eq!(code, 2);
    assert!(err.contains("--a: cannot read"), "{err}");
    // D cannot be written: a failure, exit 1.
    let (code, _, err) = run(&["--a", &a, "--b", &b, "-o", &s(d.join("no/such/dir/d.npy"))]);
    assert_eq!(code, 1);
    assert!(err.contains("-o: cannot write"), "{err}");
    // Block-scaled instruction without scales.
    let (code, _, err) = mma(&[
        "gemm",
        "--arch",
        "B200",
        "--instr",
        "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0",
        "--a",
        &a,
        "--b",
        &b,
        "-o",
        &out,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("is block-scaled: give --scale-a"), "{err}");
}

#[test]
fn report_needs_the_oracle_or_gives_max_and_mean() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let s = |p: PathBuf| p.display().to_string();
    // 1 + 2^-10 (f16 0x3c01) times itself, 16 times: exact 16·(1 + 2^-9 + 2^-20), which f32
    // holds (21 bits): error 0 on Hopper's T-FDPA (F = 25 keeps every product bit).
    let w = vec![0x3c01u64; 16];
    let a = s(save(d, "a.npy", &FP16, 1, 16, &w));
    let b = s(save(d, "b.npy", &FP16, 16, 1, &w));
    let (code, out, err) = mma(&[
        "gemm",
        "--arch",
        "H100",
        "--instr",
        "m64n8k16.f32.f16.f16",
        "--a",
        &a,
        "--b",
        &b,
        "-o",
        &s(d.join("d.npy")),
        "--report",
    ]);
    if cfg!(feature = "oracle") {
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("max 0 ulp, mean 0 ulp over 1 elements"),
            "{out}"
        );
    } else {
        assert_eq!(code, 2);
        assert!(err.contains("--report needs the exact oracle"), "{err}");
    }
}

#[test]
fn a_unit_file_runs_a_gemm_too() {
    // The catalog unit written as a unit file runs the same GEMM as the catalog name.
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let (code, unit, err) = mma(&[
        "list",
        "--arch",
        "H100",
        "--instr",
        "m64n8k16.f32.f16.f16",
        "--unit-file",
    ]);
    assert_eq!(code, 0, "{err}");
    let u = d.join("unit.json");
    std::fs::write(&u, unit).expect("write unit");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let a = random(&FP16, &mut rng, 4 * 32);
    let b = random(&FP16, &mut rng, 32 * 2);
    let s = |p: PathBuf| p.display().to_string();
    let (pa, pb) = (
        s(save(d, "a.npy", &FP16, 4, 32, &a)),
        s(save(d, "b.npy", &FP16, 32, 2, &b)),
    );
    let (d1, d2) = (s(d.join("d1.npy")), s(d.join("d2.npy")));
    let (c1, _, e1) = mma(&["gemm", "--unit", &s(u), "--a", &pa, "--b", &pb, "-o", &d1]);
    let (c2, _, e2) = mma(&[
        "gemm",
        "--arch",
        "H100",
        "--instr",
        "m64n8k16.f32.f16.f16",
        "--a",
        &pa,
        "--b",
        &pb,
        "-o",
        &d2,
        "--threads",
        "1",
    ]);
    assert_eq!((c1, c2), (0, 0), "{e1}{e2}");
    let read = |p: &str| npy::read(Path::new(p), "-o", &FP32, npy::Input::Values).expect("D");
    let t = cases::resolve("nvidia", "H100", None, "m64n8k16.f32.f16.f16").expect("instr");
    let want = per_dot(&t, (4, 2, 32), &a, &b, &[0; 8]);
    assert_eq!(read(&d1).words, want);
    assert_eq!(read(&d2).words, want);
}

#[test]
fn block_scaled_gemm_takes_scale_arrays() {
    // Blackwell mxf4: e2m1 A and B as raw codes (uint8), ue8m0 scales (uint8), one per 32
    // elements: M×(K/32) for A, (K/32)×N for B. K = 2·64 (two instructions).
    let instr = "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0";
    let t = cases::resolve("nvidia", "B200", None, instr).expect("instruction");
    let f = t.unit.formats;
    let (sf, per) = f.scale.expect("block-scaled");
    let (m, n, k) = (3, 2, 2 * t.k);
    let s = k / per;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let a: Vec<u64> = (0..m * k).map(|_| rng.random_range(0..16)).collect();
    let b: Vec<u64> = (0..k * n).map(|_| rng.random_range(0..16)).collect();
    // Scales 2^-3 .. 2^3 (ue8m0 code 127 ± 3).
    let sa: Vec<u64> = (0..m * s).map(|_| rng.random_range(124..=130)).collect();
    let sb: Vec<u64> = (0..s * n).map(|_| rng.random_range(124..=130)).collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let p = |x: PathBuf| x.display().to_string();
    let (pa, pb) = (
        p(save(d, "a.npy", &f.a, m, k, &a)),
        p(save(d, "b.npy", &f.b, k, n, &b)),
    );
    let (psa, psb) = (
        p(save(d, "sa.npy", &sf, m, s, &sa)),
        p(save(d, "sb.npy", &sf, s, n, &sb)),
    );
    let out = p(d.join("d.npy"));
    let (code, _, err) = mma(&[
        "gemm",
        "--arch",
        "B200",
        "--instr",
        instr,
        "--a",
        &pa,
        "--a-bits",
        "--b",
        &pb,
        "--b-bits",
        "--scale-a",
        &psa,
        "--scale-b",
        &psb,
        "--scale-bits",
        "-o",
        &out,
    ]);
    assert_eq!(code, 0, "{err}");
    let got = npy::read(Path::new(&out), "-o", &f.d, npy::Input::Values).expect("D");
    let spi = t.k / per; // scales per instruction
    for i in 0..m {
        for j in 0..n {
            let col: Vec<u64> = (0..k).map(|r| b[r * n + j]).collect();
            let scol: Vec<u64> = (0..s).map(|r| sb[r * n + j]).collect();
            let mut acc = 0;
            for step in 0..k / t.k {
                let (k0, s0) = (step * t.k, step * spi);
                acc = t.unit.dot_scaled(
                    &a[i * k + k0..i * k + k0 + t.k],
                    &col[k0..k0 + t.k],
                    acc,
                    &sa[i * s + s0..i * s + s0 + spi],
                    &scol[s0..s0 + spi],
                );
            }
            assert_eq!(got.words[i * n + j], acc, "D[{i}][{j}]");
        }
    }
    // A scale array of the wrong shape is named.
    let (code, _, err) = mma(&[
        "gemm",
        "--arch",
        "B200",
        "--instr",
        instr,
        "--a",
        &pa,
        "--a-bits",
        "--b",
        &pb,
        "--b-bits",
        "--scale-a",
        &psb,
        "--scale-b",
        &psb,
        "--scale-bits",
        "-o",
        &out,
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("--scale-a: expected {m}×{s}")),
        "{err}"
    );
}
