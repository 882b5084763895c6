//! `mma gemm`'s checks and outputs (issue 56): `--explain` runs the run's own checks, the
//! instruction's product refuses the library GEMM's flags, a scale that binary32 cannot hold
//! is answered with its neighbours, outputs get the mode of an ordinary file, and `--threads`
//! never asks for more threads than there are pieces of work. Every expected message below is
//! written out in full, derived by hand from the platform files and the checks' texts.

use crate::common;
use common::mma;
use mma::format::{E4M3, FP16, FP32};
use mma::Format;
use mma_cli::npy::{self, Matrix};
use std::path::{Path, PathBuf};
use std::process::Command;

fn save(dir: &Path, name: &str, fmt: &Format, rows: usize, cols: usize, word: u64) -> String {
    let p = dir.join(name);
    let m = Matrix {
        rows,
        cols,
        words: vec![word; rows * cols],
    };
    npy::write(&p, "test", fmt, &m).expect("write npy");
    p.display().to_string()
}

/// A (16×64) and B (64×16) of e4m3 1.0 (0x38), as raw encodings: K = 64 and N = 16 are
/// multiples of 16, as torch._scaled_mm wants.
fn fp8_operands(dir: &Path) -> (String, String) {
    (
        save(dir, "a.npy", &E4M3, 16, 64, 0x38),
        save(dir, "b.npy", &E4M3, 64, 16, 0x38),
    )
}

fn library_call<'a>(gpu: &'a str, a: &'a str, b: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "gemm", "--gpu", gpu, "--a", a, "--b", b, "--a-bits", "--b-bits",
    ];
    v.extend_from_slice(extra);
    v
}

/// What stderr starts with on the unverified H100 PCIe platform (its evidence text).
fn h100_warning() -> String {
    let p = mma::nvidia::library::platform("H100 PCIe").expect("platform");
    format!(
        "warning: the H100 PCIe platform is unverified: {}\n",
        p.file.evidence.text
    )
}

/// Before issue 56, `--explain` printed a plan and exited 0 for each of these calls, which the
/// run refuses (and for `--out-dtype f64` printed "output f64: ... saturated"). Now the plan
/// is printed only after the run's own checks, so `--explain`, `--explain -o` and `-o` give
/// the same error (exit 2) and nothing on standard output, and no D is written:
///
/// - e4m3 × e4m3 → e5m2 on the RTX 4060: the platform file's rejection, "cuBLAS 12.8.3 /
///   sm_89 rejects e4m3 x e4m3 -> e5m2", reported as "RTX 4060: the GPU rejects this call:
///   ...";
/// - `--split-k 5000`: the recipe's check ("a split into 5000 parts: expected 1 to 4096"),
///   reported after the platform's name;
/// - pairwise on the H100 PCIe, whose recipe lists only "serial": "this library combines
///   split-K parts serial, not pairwise", after the unverified platform's warning;
/// - `--out-dtype f64`: PyTorch's out_dtype check, "torch._scaled_mm: out_dtype f64 is not
///   supported (float32, bfloat16, float16, float8_e4m3fn, float8_e5m2)".
#[test]
fn gemm_explain_refuses_what_the_run_refuses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = fp8_operands(dir.path());
    let pd = dir.path().join("d.npy");
    let d = pd.display().to_string();
    let cases: [(&str, &[&str], String); 4] = [
        (
            "RTX 4060",
            &["--out-dtype", "e5m2"],
            "error: RTX 4060: the GPU rejects this call: cuBLAS 12.8.3 / sm_89 rejects e4m3 x e4m3 -> e5m2\n".into(),
        ),
        (
            "RTX 4060",
            &["--split-k", "5000", "--split-order", "serial"],
            "error: RTX 4060: a split into 5000 parts: expected 1 to 4096\n".into(),
        ),
        (
            "H100 PCIe",
            &["--split-k", "2", "--split-order", "pairwise"],
            format!(
                "{}error: H100 PCIe: this library combines split-K parts serial, not pairwise\n",
                h100_warning()
            ),
        ),
        (
            "RTX 4060",
            &["--out-dtype", "f64"],
            "error: RTX 4060: the GPU rejects this call: torch._scaled_mm: out_dtype f64 is not supported (float32, bfloat16, float16, float8_e4m3fn, float8_e5m2)\n".into(),
        ),
    ];
    for (gpu, extra, want) in &cases {
        for tail in [&["--explain"][..], &["--explain", "-o", &d], &["-o", &d]] {
            let mut args = library_call(gpu, &a, &b, extra);
            args.extend_from_slice(tail);
            let (code, out, err) = mma(&args);
            assert_eq!(
                (code, out.as_str(), err.as_str()),
                (2, "", want.as_str()),
                "{args:?}"
            );
            assert!(!pd.exists(), "{args:?} wrote D");
        }
    }
    // The same split serially is valid on the H100 PCIe: the plan, exit 0.
    let args = library_call(
        "H100 PCIe",
        &a,
        &b,
        &["--split-k", "2", "--split-order", "serial", "--explain"],
    );
    let (code, out, err) = mma(&args);
    assert_eq!((code, err), (0, h100_warning()));
    assert!(
        out.contains("split: S = 2 serial [given on the command line]\n"),
        "{out}"
    );
}

/// Before issue 56 the instruction's product (--arch/--instr) ignored the library GEMM's
/// flags and wrote its f32 D. Each is now refused before any file is read (the operands here
/// are f16 ones, 16×16, a valid product without them), naming the flag; two are named
/// together.
#[test]
fn gemm_by_instruction_refuses_the_library_flags() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = save(dir.path(), "a.npy", &FP16, 16, 16, 0x3c00);
    let b = save(dir.path(), "b.npy", &FP16, 16, 16, 0x3c00);
    let pd = dir.path().join("d.npy");
    let d = pd.display().to_string();
    let run = |extra: &[&str]| {
        let mut v = vec![
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
            &d,
        ];
        v.extend_from_slice(extra);
        mma(&v)
    };
    let tail = " --gpu NAME (or --recipe FILE); an instruction's product (--arch/--instr, \
                --unit) writes D in the instruction's D format\n";
    for (extra, flag) in [
        (&["--library", "cublaslt"][..], "--library"),
        (&["--a-format", "e4m3"], "--a-format"),
        (&["--b-format", "e5m2"], "--b-format"),
        (&["--out-dtype", "bf16"], "--out-dtype"),
        (&["--scale-result", "2"], "--scale-result"),
        (&["--split-order", "serial"], "--split-order"),
        (&["--fast-accum"], "--fast-accum"),
        (&["--explain"], "--explain"),
    ] {
        let (code, out, err) = run(extra);
        let want = format!("error: {flag} is a flag of library GEMMs: it needs{tail}");
        assert_eq!((code, out.as_str(), err.as_str()), (2, "", want.as_str()));
        assert!(!pd.exists(), "{extra:?} wrote D");
    }
    let (code, _, err) = run(&["--fast-accum", "--out-dtype", "bf16"]);
    let want =
        format!("error: --out-dtype, --fast-accum are flags of library GEMMs: they need{tail}");
    assert_eq!((code, err.as_str()), (2, want.as_str()));
    // Without them: sixteen 1·1 products, 16 (0x41800000) in every element of the f32 D.
    let (code, _, err) = run(&[]);
    assert_eq!(code, 0, "{err}");
    let got = npy::read(&pd, "-o", &FP32, npy::Input::Values).expect("D");
    assert_eq!(got.words, vec![0x4180_0000; 256]);
}

/// A tensor-wise scale is a binary32 value and `gemm` has no --round: a value binary32
/// cannot hold is refused, quoted as typed, with its two neighbours in forms the flag reads
/// exactly. By hand:
///
/// - 0.1 = 0x1.99999999...p-4; binary32 keeps 24 bits: 0x1.999998p-4 = 13421772·2^-27 =
///   0.0999999940395355224609375 below, 0x1.99999ap-4 = 13421773·2^-27 =
///   0.100000001490116119384765625 above;
/// - 1e39 is above the largest binary32 value, 0x1.fffffep+127 = (2^24 - 1)·2^104 =
///   340282346638528859811704183484516925440 (as an exact decimal for people,
///   3.4028234663852885981170418348451692544e38: 42 characters, more than the 40 shown);
///   above it only inf;
/// - 1e-50 lies between 0 and the smallest subnormal 0x1p-149 (whose exact decimal, 105
///   significant digits, is too long to show).
#[test]
fn gemm_scale_that_binary32_cannot_hold_names_its_neighbours() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = fp8_operands(dir.path());
    let d = dir.path().join("d.npy").display().to_string();
    let tail = "is not a binary32 (float32) value; give one exactly, such as its neighbours";
    for (flag, value, near) in [
        (
            "--scale-a",
            "0.1",
            "0x1.999998p-4 (= 0.0999999940395355224609375) or 0x1.99999ap-4 (= 0.100000001490116119384765625)",
        ),
        (
            "--scale-b",
            "1e39",
            "0x1.fffffep+127 or inf",
        ),
        ("--scale-result", "1e-50", "0 or 0x1p-149"),
    ] {
        for extra in [&["--explain"][..], &["-o", &d]] {
            let mut args = library_call("RTX 4060", &a, &b, &[flag, value]);
            args.extend_from_slice(extra);
            let (code, out, err) = mma(&args);
            let want = format!("error: {flag}: {value:?} {tail} {near}\n");
            assert_eq!((code, out.as_str(), err.as_str()), (2, "", want.as_str()));
        }
    }
    // A value binary32 holds is taken in any spelling: 0.5 · 2 = 1, so D = 64 (64 products
    // of 1·1) in f32, 0x42800000.
    let args = library_call(
        "RTX 4060",
        &a,
        &b,
        &["--scale-a", "0x1p-1", "--scale-b", "2.000", "-o", &d],
    );
    let (code, _, err) = mma(&args);
    assert_eq!(code, 0, "{err}");
    let got = npy::read(Path::new(&d), "-o", &FP32, npy::Input::Values).expect("D");
    assert_eq!(got.words, vec![0x4280_0000; 256]);
}

/// `mma` under a umask set by the shell, as a user's shell sets it.
#[cfg(unix)]
fn mma_with_umask(umask: &str, args: &[&str]) -> (i32, String) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_mma"))
        .args(args)
        .output()
        .expect("run bash");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).expect("meta").permissions().mode() & 0o7777
}

/// Before issue 56 every new output was 0600 whatever the umask (the temporary file's mode
/// survived the rename). A new file now has 0666 less the umask, as `touch` or a shell's `>`
/// gives it: 0644 under umask 022, 0640 under 027; a file that is replaced keeps its own
/// mode (0604 set by hand stays 0604 under umask 077). Both writers are checked: `gemm -o`
/// (an .npy file) and `eval -o` (a case file).
#[cfg(unix)]
#[test]
fn gemm_and_eval_outputs_get_the_mode_of_an_ordinary_create() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let a = save(dir.path(), "a.npy", &FP16, 16, 16, 0x3c00);
    let b = save(dir.path(), "b.npy", &FP16, 16, 16, 0x3c00);
    let case = dir.path().join("in.jsonl");
    let ones = vec!["3c00"; 16];
    std::fs::write(
        &case,
        format!(
            "{{\"arch\":\"Hopper\",\"op\":\"WGMMA\",\"instr\":\"m64n8k16.f32.f16.f16\",\"a\":{ones:?},\"b\":{ones:?},\"c\":\"3f800000\"}}\n"
        ),
    )
    .expect("write case");
    let case = case.display().to_string();
    let writers = |out: &str| -> [Vec<String>; 2] {
        [
            [
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
                out,
            ]
            .map(String::from)
            .to_vec(),
            ["eval", &case, "-o", out].map(String::from).to_vec(),
        ]
    };
    for (i, name) in ["d.npy", "out.jsonl"].into_iter().enumerate() {
        for (umask, want) in [("022", 0o644), ("027", 0o640)] {
            let p: PathBuf = dir.path().join(format!("{umask}-{name}"));
            let out = p.display().to_string();
            let args = &writers(&out)[i];
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, err) = mma_with_umask(umask, &argv);
            assert_eq!(code, 0, "{err}");
            assert_eq!(mode(&p), want, "{argv:?} under umask {umask}");
        }
        // Replaced: its own mode stays.
        let p = dir.path().join(format!("old-{name}"));
        std::fs::write(&p, "old").expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o604)).expect("chmod");
        let out = p.display().to_string();
        let args = &writers(&out)[i];
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, err) = mma_with_umask("077", &argv);
        assert_eq!(code, 0, "{err}");
        assert_eq!(mode(&p), 0o604, "{argv:?}");
        assert_ne!(std::fs::read(&p).expect("read"), b"old");
    }
}

/// `--threads 1024` on a 16-row product took 1.1 s instead of 0.04 s: a pool of 1024
/// threads for two pieces of work. The drivers' piece of work is eight rows of D, so 16 rows
/// are 2 pieces and get at most 2 threads, 1 row 1 thread, 1000 rows 125; 0 (no --threads)
/// stays 0, rayon's global pool. The result does not depend on the count: D of the
/// instruction's product and of the library GEMM are the same with 1 and 1024 threads.
#[test]
fn gemm_threads_never_outnumber_the_pieces_of_work() {
    use mma_cli::gemm_threads;
    assert_eq!(gemm_threads(1024, 16), 2);
    assert_eq!(gemm_threads(1024, 17), 3);
    assert_eq!(gemm_threads(1024, 1), 1);
    assert_eq!(gemm_threads(1024, 0), 1);
    assert_eq!(gemm_threads(1024, 1000), 125);
    assert_eq!(gemm_threads(4, 1000), 4);
    assert_eq!(gemm_threads(0, 16), 0);
    let dir = tempfile::tempdir().expect("tempdir");
    let (a8, b8) = fp8_operands(dir.path());
    let a = save(dir.path(), "a16.npy", &FP16, 16, 16, 0x3c00);
    let b = save(dir.path(), "b16.npy", &FP16, 16, 16, 0x3c00);
    for threads in ["1", "1024"] {
        let d = dir.path().join(format!("d{threads}.npy"));
        let d = d.display().to_string();
        let (code, _, err) = mma(&[
            "gemm",
            "--arch",
            "H100",
            "--instr",
            "m64n8k16.f32.f16.f16",
            "--a",
            &a,
            "--b",
            &b,
            "--threads",
            threads,
            "-o",
            &d,
        ]);
        assert_eq!(code, 0, "{err}");
        let got = npy::read(Path::new(&d), "-o", &FP32, npy::Input::Values).expect("D");
        assert_eq!(got.words, vec![0x4180_0000; 256], "16 products of 1·1");
        let args = library_call("RTX 4060", &a8, &b8, &["--threads", threads, "-o", &d]);
        let (code, _, err) = mma(&args);
        assert_eq!(code, 0, "{err}");
        let got = npy::read(Path::new(&d), "-o", &FP32, npy::Input::Values).expect("D");
        assert_eq!(got.words, vec![0x4280_0000; 256], "64 products of 1·1");
    }
}
