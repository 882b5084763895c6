//! `mma gemm` holds its matrices as 8-byte words and nothing more per element: no decoded
//! copy of an input, no per-element `Result`, no transposed copy of B (the reliability issue:
//! a 32 MB f16 A needed 533 MB). Measured as the peak resident size of the child process
//! (`getrusage(RUSAGE_CHILDREN)`), in a test binary of its own so that no other test's child
//! counts.

use std::fs;
use std::path::Path;

/// A `.npy` of `rows × cols` uint16 words, all 0x3C00 (f16 1.0).
fn ones_f16_bits(path: &Path, rows: usize, cols: usize) {
    npy_words(path, "<u2", rows, cols, 0x3C00);
}

#[test]
fn gemm_holds_eight_bytes_per_element() {
    let dir = tempfile::tempdir().unwrap();
    // A: 4096 × 2048 f16 (16 MiB in the file, 64 MiB as words); B: 2048 × 8; D: 4096 × 8.
    let (m, k, n) = (4096, 2048, 8);
    let (a, b, d) = (
        dir.path().join("a.npy"),
        dir.path().join("b.npy"),
        dir.path().join("d.npy"),
    );
    ones_f16_bits(&a, m, k);
    ones_f16_bits(&b, k, n);
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_mma"))
        .args([
            "gemm",
            "--arch",
            "H100",
            "--instr",
            "m64n8k16.f32.f16.f16",
            "--a-bits",
            "--b-bits",
            "--threads",
            "1",
            "--a",
        ])
        .arg(&a)
        .arg("--b")
        .arg(&b)
        .arg("-o")
        .arg(&d)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    // SAFETY: getrusage writes the struct it is given; RUSAGE_CHILDREN covers the children
    // this process has waited for (the one above).
    let peak_kib = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut u), 0);
        u.ru_maxrss as usize
    };
    let words_mib = m * k * 8 / (1 << 20);
    let peak_mib = peak_kib / 1024;
    // The words of A (64 MiB) plus the process itself; before, a decoded copy, a vector of
    // `Result<u64, String>` (32 bytes each) and the words were alive at once (over 300 MiB).
    assert!(
        peak_mib < words_mib + 48,
        "peak {peak_mib} MiB for {words_mib} MiB of A's words"
    );
    // D: every product is 2048 ones, exactly 2048 (f32 0x45000000).
    let out = fs::read(&d).unwrap();
    let tail = &out[out.len() - 4..];
    assert_eq!(f32::from_le_bytes(tail.try_into().unwrap()), 2048.0);
}

/// A `.npy` of `rows × cols` words of `descr` (`<u1`, `<u2`), each `word`.
fn npy_words(path: &Path, descr: &str, rows: usize, cols: usize, word: u16) {
    let mut h =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(h.len() as u16).to_le_bytes());
    bytes.extend_from_slice(h.as_bytes());
    for _ in 0..rows * cols {
        match descr {
            "<u1" => bytes.push(word as u8),
            _ => bytes.extend_from_slice(&word.to_le_bytes()),
        }
    }
    fs::write(path, bytes).unwrap();
}

/// A product whose D (40,000 × 40,000 outputs, 12.8 GB as 8-byte words) cannot fit under a
/// 1 GiB address-space limit is an error naming what did not fit and exit status 2, by
/// instruction and as a library GEMM (before: Rust's allocation failure aborted the process,
/// exit 134, "memory allocation of 12800000000 bytes failed").
#[test]
fn a_product_too_large_for_memory_is_an_error_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let (m, k, n) = (40_000, 16, 40_000);
    let p = |name: &str| dir.path().join(name);
    npy_words(&p("a16.npy"), "<u2", m, k, 0x3C00);
    npy_words(&p("b16.npy"), "<u2", k, n, 0x3C00);
    npy_words(&p("a8.npy"), "<u1", m, k, 0x38);
    npy_words(&p("b8.npy"), "<u1", k, n, 0x38);
    let s = |name: &str| p(name).to_str().unwrap().to_string();
    let runs: [Vec<String>; 2] = [
        [
            "gemm",
            "--arch",
            "H100",
            "--instr",
            "m64n8k16.f32.f16.f16",
            "--a-bits",
            "--b-bits",
        ]
        .map(String::from)
        .into_iter()
        .chain(["--a".into(), s("a16.npy"), "--b".into(), s("b16.npy")])
        .collect(),
        ["gemm", "--gpu", "RTX 4060", "--a-bits", "--b-bits"]
            .map(String::from)
            .into_iter()
            .chain(["--a".into(), s("a8.npy"), "--b".into(), s("b8.npy")])
            .collect(),
    ];
    for args in runs {
        let cmd = format!(
            "ulimit -v 1048576; exec \"$0\" \"$@\" --threads 1 -o {}",
            s("d.npy")
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&cmd)
            .arg(env!("CARGO_BIN_EXE_mma"))
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("do not fit in memory"), "{args:?}: {err}");
        assert!(!p("d.npy").exists(), "{args:?}");
    }
}
