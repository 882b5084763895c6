//! `mma bench`: dot products per second of the models against a native FMA chain (fp64 for the
//! fp64 instructions, fp32 otherwise; for the integer instructions an i8 × i8 → i32 chain with
//! wrapping adds, i16 where an operand is u8) on the same random inputs, and the threaded matrix
//! driver.

use anyhow::{bail, Result};
use mma::codec::words;
use mma::GemmIn;
use mma::{format, DotUnit, Format, Value};
use mma::{Kernel, Word};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::json;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

mod native_int;
use native_int::NativeInt;

/// One instruction to measure: vendor, architecture, operation, name.
const LIST: &[(&str, &str, &str, &str)] = &[
    ("nvidia", "Hopper", "WGMMA", "m64n8k16.f32.f16.f16"),
    ("nvidia", "Ampere", "MMA", "m16n8k16.f32.bf16.bf16.f32"),
    (
        "nvidia",
        "Ada Lovelace",
        "MMA",
        "m16n8k32.f32.e4m3.e4m3.f32",
    ),
    (
        "nvidia",
        "RTX Blackwell",
        "MMABlockScale",
        "m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3",
    ),
    ("amd", "CDNA3", "MFMA", "f32_32x32x8_f16"),
    ("amd", "CDNA2", "MFMA", "f32_32x32x8bf16_1k"),
    ("amd", "CDNA3", "MFMA", "f32_16x16x32_fp8_fp8"),
    // More lane families: tf32's own stage, ST-FDPA, an fp4 x fp8 pair with fp16 D, CDNA2
    // fp16 FTZ-MulAdd, the FMA chains in lanes.
    ("nvidia", "Hopper", "WGMMA", "m64n8k8.f32.tf32.tf32"),
    (
        "nvidia",
        "Blackwell",
        "TCGen05MMABlockScale",
        "m128n8k32.kind::mxf8f6f4.block32.f32.e5m2.e4m3.ue8m0",
    ),
    (
        "nvidia",
        "Blackwell",
        "TCGen05MMA",
        "m64n8k32.kind::f8f6f4.f16.e2m1.e4m3",
    ),
    ("amd", "CDNA2", "MFMA", "f32_32x32x8f16"),
    ("nvidia", "Ampere", "MMA", "m8n8k4.f64.f64.f64.f64"),
    ("amd", "CDNA3", "MFMA", "f32_32x32x2_f32"),
    ("amd", "CDNA3", "MFMA", "f64_16x16x4_f64"),
    // The classes without lanes: per-dot kernels or the plain model.
    ("nvidia", "Volta", "MMA", "m8n8k4.f32.f16.f16.f32"),
    ("nvidia", "Hopper", "MMA", "m16n8k32.f16.e4m3.e4m3.f16"),
    ("amd", "CDNA1", "MFMA", "f32_32x32x4bf16"),
    ("amd", "CDNA1", "MFMA", "f32_32x32x8f16"),
    ("amd", "CDNA3", "MFMA", "f32_16x16x8_xf32"),
    // I-DPA, the integer dot products (`kernel/scalar/int_dpa.rs`), against the native
    // integer chain: s8, and b1 with XOR.
    ("nvidia", "Ampere", "MMA", "m16n8k32.s32.s8.s8.s32"),
    ("amd", "CDNA3", "MFMA", "i32_16x16x32_i8"),
    (
        "nvidia",
        "Ampere",
        "MMA",
        "m16n8k256.s32.b1.b1.s32.xor.popc",
    ),
];

/// Dot products per second of the models against a native FMA chain (single thread),
/// and optionally a threaded GEMM.
///
/// Example: mma bench --filter bf16 --seconds 0.5
#[derive(clap::Args)]
pub struct BenchCmd {
    /// Print one JSON document instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Threads for the GEMM (default: all available; at most 1024).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Seconds spent measuring each instruction and each baseline (0 < S <= 3600).
    #[arg(long, default_value_t = 1.0, value_parser = words::seconds)]
    pub seconds: f64,
    /// Also time SIZE×SIZE×SIZE matrix products (Hopper bf16 and e4m3, CDNA3 fp16), 1
    /// thread vs --threads, against a native single-thread f32 GEMM (matrixmultiply).
    #[arg(long, value_name = "SIZE", value_parser = words::gemm_size)]
    pub gemm: Option<usize>,
    /// Only instructions whose name contains this text.
    #[arg(long)]
    pub filter: Option<String>,
    /// Every distinct unit of both catalogs (the first instruction of each, with the
    /// number of instructions sharing it) instead of one instruction per class.
    #[arg(long)]
    pub all: bool,
    /// Dot products per pass, with A and B in their storage width (u8/u16/u32/u64 words,
    /// as a NumPy caller passes them); the default cycles 4096 in cache. Large batches
    /// (2^20) measure the streaming rate.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = words::bench_dots)]
    pub dots: usize,
}

impl BenchCmd {
    pub fn run(self) -> Result<bool> {
        run(&self)
    }
}

/// Operand words in their storage width, as a NumPy caller passes them to `Kernel::dots`.
enum Stored {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Stored {
    /// `words` (each within `fmt`'s storage bits) in the narrowest unsigned word that holds
    /// them.
    fn of(fmt: &Format, words: &[u64]) -> Stored {
        fn cut<W: TryFrom<u64>>(w: &[u64]) -> Vec<W> {
            w.iter()
                .map(|&x| W::try_from(x).ok().expect("a word within its storage bits"))
                .collect()
        }
        match fmt.storage_bits {
            0..=8 => Stored::U8(cut(words)),
            9..=16 => Stored::U16(cut(words)),
            17..=32 => Stored::U32(cut(words)),
            _ => Stored::U64(words.to_vec()),
        }
    }
}

/// One instruction to measure: where it is, its unit and K (or why it is not available), and,
/// with `--all`, how many catalog instructions compute the same unit.
struct Target {
    vendor: &'static str,
    arch: String,
    op: String,
    name: String,
    found: Result<(DotUnit, usize), String>,
    shared: Option<usize>,
}

/// The instructions to measure: [`LIST`], or (`all`) the first instruction of each distinct
/// unit of the NVIDIA and AMD catalogs, in catalog order.
fn targets(all: bool) -> Vec<Target> {
    if !all {
        return LIST
            .iter()
            .map(|&(vendor, arch, op, name)| Target {
                vendor,
                arch: arch.into(),
                op: op.into(),
                name: name.into(),
                found: lookup(vendor, arch, op, name).map_err(|e| e.to_string()),
                shared: None,
            })
            .collect();
    }
    let mut out: Vec<Target> = Vec::new();
    let mut first: HashMap<DotUnit, usize> = HashMap::new();
    for r in mma::catalog::instructions() {
        let (vendor, arch, op, name, unit, k) = (
            r.vendor.name(),
            r.arch,
            r.op,
            r.name.to_string(),
            *r.unit,
            r.k,
        );
        if let Some(&t) = first.get(&unit) {
            out[t].shared = out[t].shared.map(|n| n + 1);
            continue;
        }
        first.insert(unit, out.len());
        out.push(Target {
            vendor,
            arch: arch.into(),
            op: op.into(),
            name,
            found: Ok((unit, k)),
            shared: Some(1),
        });
    }
    out
}

/// The unit and K of an instruction, or why it is not available.
fn lookup(vendor: &str, arch: &str, op: &str, name: &str) -> Result<(DotUnit, usize)> {
    let vendor = mma::catalog::Vendor::parse(vendor)?;
    let r = mma::catalog::find(Some(vendor), arch, Some(op), name)?;
    Ok((*r.unit, r.k))
}

/// A random finite (or zero) encoding of `fmt`; for the wide-exponent formats (bf16) only
/// magnitudes within 2^±30, so that sums of products stay within f32 as in real workloads.
fn finite(fmt: &Format, rng: &mut impl Rng) -> u64 {
    let mask = if fmt.storage_bits == 8 && fmt.width() < 8 {
        (1u64 << fmt.width()) - 1
    } else {
        fmt.storage_mask()
    };
    loop {
        let bits = (rng.random::<u64>() & mask) >> fmt.lsb << fmt.lsb;
        match fmt.decode(bits) {
            Value::Zero { .. } => return bits,
            Value::Finite { exp, .. }
                if fmt.exp_bits < 8 || (exp + fmt.man_bits as i32).abs() <= 30 =>
            {
                return bits
            }
            _ => {}
        }
    }
}

/// An accumulator-like C: uniform in [-1, 1) in C's format.
fn c_word(fmt: &Format, rng: &mut impl Rng) -> u64 {
    let v = rng.random::<f32>() * 2.0 - 1.0;
    match fmt.storage_bits {
        32 => v.to_bits() as u64,
        16 if *fmt == format::FP16 => half::f16::from_f32(v).to_bits() as u64,
        _ => finite(fmt, rng),
    }
}

struct Data {
    k: usize,
    n: usize,
    a: Stored,
    b: Stored,
    c: Vec<u64>,
    sa: Vec<u64>,
    sb: Vec<u64>,
    native: Native,
}

/// The operands decoded for the native baseline: fp64 for the fp64 instructions, i8 (i16 where
/// an operand is u8) with i32 C for the integer ones, fp32 for the rest.
enum Native {
    F32(Vec<f32>, Vec<f32>, Vec<f32>),
    F64(Vec<f64>, Vec<f64>, Vec<f64>),
    Int(NativeInt),
}

impl Native {
    fn name(&self) -> &'static str {
        match self {
            Native::F32(..) => "f32",
            Native::F64(..) => "f64",
            Native::Int(x) => x.name(),
        }
    }
}

fn data(unit: &DotUnit, k: usize, n: usize, seed: u64) -> Data {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let f = &unit.formats;
    let s = unit.scales_for(k);
    let a: Vec<u64> = (0..n * k).map(|_| finite(&f.a, &mut rng)).collect();
    let b: Vec<u64> = (0..n * k).map(|_| finite(&f.b, &mut rng)).collect();
    let c: Vec<u64> = (0..n).map(|_| c_word(&f.c, &mut rng)).collect();
    let scale = f.scale.map_or(format::UE8M0, |(sf, _)| sf);
    let sa: Vec<u64> = (0..n * s).map(|_| finite(&scale, &mut rng)).collect();
    let sb: Vec<u64> = (0..n * s).map(|_| finite(&scale, &mut rng)).collect();
    let to_f64 = |fmt: &Format, w: &[u64]| -> Vec<f64> {
        w.iter().map(|&x| fmt.decode(x).to_f64()).collect()
    };
    let to_f32 = |fmt: &Format, w: &[u64]| -> Vec<f32> {
        w.iter().map(|&x| fmt.decode(x).to_f64() as f32).collect()
    };
    let native = if f.a.integer && f.b.integer && f.c.integer {
        Native::Int(NativeInt::of(f, &a, &b, &c))
    } else if f.a == format::FP64 {
        Native::F64(to_f64(&f.a, &a), to_f64(&f.b, &b), to_f64(&f.c, &c))
    } else {
        Native::F32(to_f32(&f.a, &a), to_f32(&f.b, &b), to_f32(&f.c, &c))
    };
    Data {
        native,
        k,
        n,
        a: Stored::of(&f.a, &a),
        b: Stored::of(&f.b, &b),
        c,
        sa,
        sb,
    }
}

/// CPU time of the calling thread (the machine may be shared: wall time would count the time
/// other processes run). Falls back to wall time where the clock is not available.
fn thread_time() -> Duration {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid timespec to write to.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
        }
    }
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

/// Calls `pass` (one pass over the data set, `dots` dot products) until `seconds` of this
/// thread's CPU time have passed; returns dot products per CPU second.
fn rate(seconds: f64, dots: usize, mut pass: impl FnMut()) -> f64 {
    pass(); // warm-up: tables, caches
    let limit = Duration::from_secs_f64(seconds);
    let t0 = thread_time();
    let mut n = 0usize;
    while n == 0 || thread_time() - t0 < limit {
        pass();
        n += 1;
    }
    (n * dots) as f64 / (thread_time() - t0).as_secs_f64()
}

/// One pass of the model over the data set through [`mma::Kernel::dots`], the
/// library's way to evaluate many dot products (eight at a time across vector lanes where the
/// model allows).
#[inline(never)]
fn model_pass(kern: &Kernel, d: &Data, out: &mut [u64]) {
    fn with_b<A: Word>(kern: &Kernel, d: &Data, a: &[A], out: &mut [u64]) {
        let (k, c, sa, sb) = (d.k, &d.c, &d.sa, &d.sb);
        match &d.b {
            Stored::U8(b) => kern.dots_scaled(k, a, b, c, sa, sb, out),
            Stored::U16(b) => kern.dots_scaled(k, a, b, c, sa, sb, out),
            Stored::U32(b) => kern.dots_scaled(k, a, b, c, sa, sb, out),
            Stored::U64(b) => kern.dots_scaled(k, a, b, c, sa, sb, out),
        }
        .expect("the bench data have the instruction's shape");
    }
    match &d.a {
        Stored::U8(a) => with_b(kern, d, a, out),
        Stored::U16(a) => with_b(kern, d, a, out),
        Stored::U32(a) => with_b(kern, d, a, out),
        Stored::U64(a) => with_b(kern, d, a, out),
    }
}

/// A native floating-point type of the baseline.
trait Fp: Copy {
    fn fused(self, b: Self, c: Self) -> Self;
}

impl Fp for f32 {
    #[inline(always)]
    fn fused(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
}

impl Fp for f64 {
    #[inline(always)]
    fn fused(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
}

/// The native baseline: `acc = c; acc = fma(a_i, b_i, acc)` over K, on decoded data.
#[inline(always)]
fn native_body<T: Fp>(a: &[T], b: &[T], c: &[T], k: usize, out: &mut [T]) {
    for ((ra, rb), (&c0, o)) in a
        .chunks_exact(k)
        .zip(b.chunks_exact(k))
        .zip(c.iter().zip(out.iter_mut()))
    {
        let mut acc = c0;
        for (&x, &y) in ra.iter().zip(rb) {
            acc = x.fused(y, acc);
        }
        *o = acc;
    }
}

/// # Safety
/// The CPU must have FMA (the caller checks `is_x86_feature_detected!("fma")`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
#[inline(never)]
unsafe fn native_fma<T: Fp>(a: &[T], b: &[T], c: &[T], k: usize, out: &mut [T]) {
    native_body(a, b, c, k, out)
}

/// Runs the native baseline with the hardware FMA instruction whatever the build's target
/// features (without it, `mul_add` is a library call).
fn native<T: Fp>(a: &[T], b: &[T], c: &[T], k: usize, out: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports FMA, checked just above.
        unsafe { native_fma(a, b, c, k, out) };
        return;
    }
    native_body(a, b, c, k, out)
}

/// Dot products per CPU second of the native baseline over `d`.
fn native_rate(d: &Data, seconds: f64) -> f64 {
    match &d.native {
        Native::F32(a, b, c) => {
            let mut out = vec![0f32; d.n];
            rate(seconds, d.n, || {
                native(a, b, c, d.k, &mut out);
                black_box(&out);
            })
        }
        Native::F64(a, b, c) => {
            let mut out = vec![0f64; d.n];
            rate(seconds, d.n, || {
                native(a, b, c, d.k, &mut out);
                black_box(&out);
            })
        }
        Native::Int(x) => {
            let mut out = vec![0i32; d.n];
            rate(seconds, d.n, || {
                x.run(d.k, &mut out);
                black_box(&out);
            })
        }
    }
}

fn run(o: &BenchCmd) -> Result<bool> {
    let threads = o.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let chosen = targets(o.all);
    if let (Some(f), None) = (o.filter.as_deref(), o.gemm) {
        // As `mma list --filter`: a filter that selects nothing is an error, not an empty run
        // (with --gemm it leaves the GEMMs alone, which is a run).
        if !chosen.iter().any(|t| t.name.contains(f)) {
            anyhow::bail!(
                "--filter: no benchmarked instruction contains {:?} (`mma list --filter` shows names)",
                mma::catalog::clip(f)
            );
        }
    }
    let mut rows = Vec::new();
    if !o.json {
        mma_cli::outln!(
            "{:<14} {:<62} {:>4} {:>13} {:>13} {:>7}",
            "arch",
            "instruction",
            "K",
            "dot/s",
            "native dot/s",
            "native/model"
        );
    }
    for (i, t) in chosen.into_iter().enumerate() {
        let (vendor, arch, op, name) = (t.vendor, &t.arch, &t.op, &t.name);
        if o.filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let (unit, k) = match t.found {
            Ok(x) => x,
            Err(e) => {
                if !o.json {
                    mma_cli::outln!("{arch:<14} {name:<62} not available: {e}");
                }
                rows.push(
                    json!({"vendor": vendor, "arch": arch, "op": op, "instr": name,
                                 "available": false}),
                );
                continue;
            }
        };
        let d = data(&unit, k, o.dots, i as u64 + 1);
        let mut out = vec![0u64; d.n];
        let kern = unit.kernel();
        let model = rate(o.seconds, d.n, || {
            model_pass(&kern, &d, &mut out);
            black_box(&out);
        });
        let nat = native_rate(&d, o.seconds);
        let native_fmt = d.native.name();
        let ratio = nat / model;
        if !o.json {
            mma_cli::outln!(
                "{arch:<14} {name:<62} {k:>4} {model:>13.3e} {nat:>13.3e} {ratio:>7.2}{} ({})",
                match (kern.is_batched_for(k), kern.is_fast()) {
                    (true, _) => "  lanes",
                    (false, true) => "  per dot",
                    (false, false) => "  plain",
                },
                kern.isa().name()
            );
        }
        rows.push(
            json!({"vendor": vendor, "arch": arch, "op": op, "instr": name, "k": k,
                         "available": true, "fast": kern.is_fast(), "lanes": kern.is_batched_for(k),
                         "isa": kern.isa().name(),
                         "dot_per_s": model, "native_dot_per_s": nat, "native_over_model": ratio,
                         "native_format": native_fmt}),
        );
        if let (Some(n), Some(serde_json::Value::Object(row))) = (t.shared, rows.last_mut()) {
            row.insert("instructions".into(), json!(n));
        }
    }
    let mut ok = true;
    let gemm = match o.gemm {
        Some(size) => {
            let gs = gemms(size, threads)?;
            for g in &gs {
                if g["run"] == json!(true) {
                    ok &= g["identical"].as_bool() == Some(true);
                }
                if o.json {
                    continue;
                }
                let what = format!(
                    "GEMM {size}³ {} {}",
                    g["arch"].as_str().unwrap_or(""),
                    g["instr"].as_str().unwrap_or("")
                );
                if g["run"] != json!(true) {
                    mma_cli::outln!("{what}: not run: {}", g["why"].as_str().unwrap_or(""));
                    continue;
                }
                let sec = |key: &str| g[key].as_f64().unwrap_or(0.0);
                mma_cli::outln!(
                    "{what}: 1 thread {:.3} s, {} threads {:.3} s (speed-up {:.2}), native \
                     sgemm 1 thread {:.3} s (model/native {:.1}), identical: {}",
                    sec("seconds_1"),
                    g["threads"],
                    sec("seconds_n"),
                    sec("speedup"),
                    sec("native_sgemm_seconds_1"),
                    sec("model_over_native"),
                    g["identical"]
                );
            }
            let lib = library_gemm(size)?;
            if !o.json && lib["run"] != json!(true) {
                mma_cli::outln!(
                    "library GEMM {size}³ RTX 4060: not run: {}",
                    lib["why"].as_str().unwrap_or("")
                );
            } else if !o.json {
                let sec = |key: &str| lib[key].as_f64().unwrap_or(0.0);
                mma_cli::outln!(
                    "library GEMM {size}³ RTX 4060 e4m3 -> bf16, 1 thread: DotUnit::gemm {:.3} s; \
                     scaled_mm fast {:.3} s ({:.2}x), slow {:.3} s ({:.2}x), slow split 3 pairwise {:.3} s ({:.2}x)",
                    sec("dotunit_gemm_seconds"),
                    sec("fast_seconds"),
                    sec("fast_over_gemm"),
                    sec("slow_seconds"),
                    sec("slow_over_gemm"),
                    sec("split3_seconds"),
                    sec("split3_over_gemm"),
                );
            }
            json!({"instructions": serde_json::Value::Array(gs), "library": lib})
        }
        None => serde_json::Value::Null,
    };
    if o.json {
        let doc = json!({"threads": threads, "seconds": o.seconds, "batch": o.dots,
                         "dots": rows, "gemm": gemm});
        mma_cli::outln!("{}", serde_json::to_string_pretty(&doc)?);
    }
    Ok(ok)
}

/// A `size³` library GEMM (`torch._scaled_mm` on the RTX 4060: e4m3 × e4m3 → bf16, scales 1)
/// on one thread, fast, slow (promotion every 128) and slow with a 3-way pairwise split,
/// against `DotUnit::gemm` of the same instruction over the same operands (the ratio the
/// library path adds to the instruction chain).
fn library_gemm(size: usize) -> Result<serde_json::Value> {
    use mma::library::{Order, Scales, Split};
    use mma::nvidia::library::{platform, ScaledMm};
    let p = platform("RTX 4060")?;
    let ins = p
        .instruction(&format::E4M3, &format::E4M3)
        .ok_or_else(|| anyhow::anyhow!("the RTX 4060 platform has no e4m3 kernel"))?;
    if !size.is_multiple_of(ins.k) {
        return Ok(json!({"gpu": "RTX 4060", "run": false,
                         "why": format!("{size} is not a multiple of K = {}", ins.k)}));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4060);
    let a: Vec<u64> = (0..size * size)
        .map(|_| finite(&format::E4M3, &mut rng))
        .collect();
    let b: Vec<u64> = (0..size * size)
        .map(|_| finite(&format::E4M3, &mut rng))
        .collect();
    let zeros = vec![0u64; size * size];
    let mut d = vec![0u64; size * size];
    let x = GemmIn {
        a: &a,
        b_cols: &b,
        c: &zeros,
        scale_a: &[],
        scale_b: &[],
    };
    let t = Instant::now();
    ins.unit.gemm((size, size, size), ins.k, &x, &mut d, 1)?;
    let base = t.elapsed().as_secs_f64();
    let time = |fast: bool, split: Split| -> Result<f64> {
        let call = ScaledMm {
            m: size,
            n: size,
            k: size,
            a: &a,
            b_cols: &b,
            fmt_a: format::E4M3,
            fmt_b: format::E4M3,
            scales: Scales::ONE,
            bias: None,
            out: format::BF16,
            fast_accum: fast,
            split,
        };
        let t = Instant::now();
        black_box(p.scaled_mm(&call, 1).map_err(|e| anyhow::anyhow!("{e}"))?);
        Ok(t.elapsed().as_secs_f64())
    };
    let fast = time(true, Split::NONE)?;
    let slow = time(false, Split::NONE)?;
    let split3 = time(
        false,
        Split {
            parts: 3,
            order: Order::Pairwise,
        },
    )?;
    Ok(
        json!({"gpu": "RTX 4060", "run": true, "m": size, "n": size, "k": size, "threads": 1,
              "dotunit_gemm_seconds": base, "fast_seconds": fast, "slow_seconds": slow,
              "split3_seconds": split3, "fast_over_gemm": fast / base,
              "slow_over_gemm": slow / base, "split3_over_gemm": split3 / base}),
    )
}

/// The matrix products `--gemm` times: vendor, architecture, operation, instruction.
const GEMMS: &[(&str, &str, &str, &str)] = &[
    ("nvidia", "Hopper", "WGMMA", "m64n8k16.f32.bf16.bf16"),
    ("nvidia", "Hopper", "WGMMA", "m64n8k32.f32.e4m3.e4m3"),
    ("amd", "CDNA3", "MFMA", "f32_32x32x8_f16"),
];

/// Times a `size³` matrix product of each of [`GEMMS`] through the matrix driver with 1 and
/// `threads` threads (checking that both give the same D), and a native single-precision
/// GEMM (`matrixmultiply::sgemm`, one thread) on the same values decoded to f32.
fn gemms(size: usize, threads: usize) -> Result<Vec<serde_json::Value>> {
    if size == 0 || !size.is_multiple_of(16) || size > 16384 {
        bail!("--gemm: the size must be a positive multiple of 16, at most 16384 (got {size})");
    }
    let mut out = Vec::new();
    for (i, &(vendor, arch, op, name)) in GEMMS.iter().enumerate() {
        let (unit, k) = lookup(vendor, arch, op, name)?;
        if !size.is_multiple_of(k) {
            out.push(
                json!({"vendor": vendor, "arch": arch, "op": op, "instr": name,
                            "run": false, "why": format!("{size} is not a multiple of K = {k}")}),
            );
            continue;
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1024 + i as u64);
        let f = &unit.formats;
        let normal = |fmt: &Format, rng: &mut Xoshiro256PlusPlus| {
            if *fmt == format::BF16 {
                bf16_normal(rng)
            } else {
                finite(fmt, rng)
            }
        };
        let a: Vec<u64> = (0..size * size).map(|_| normal(&f.a, &mut rng)).collect();
        let b: Vec<u64> = (0..size * size).map(|_| normal(&f.b, &mut rng)).collect();
        let c: Vec<u64> = (0..size * size).map(|_| c_word(&f.c, &mut rng)).collect();
        let x = GemmIn {
            a: &a,
            b_cols: &b,
            c: &c,
            scale_a: &[],
            scale_b: &[],
        };
        let shape = (size, size, size);
        let mut d1 = vec![0u64; size * size];
        let t = Instant::now();
        unit.gemm(shape, k, &x, &mut d1, 1)?;
        let s1 = t.elapsed().as_secs_f64();
        let mut dn = vec![0u64; size * size];
        let t = Instant::now();
        unit.gemm(shape, k, &x, &mut dn, threads)?;
        let sn = t.elapsed().as_secs_f64();
        let native = sgemm_seconds(size, (&f.a, &a), (&f.b, &b), (&f.c, &c));
        out.push(
            json!({"vendor": vendor, "arch": arch, "op": op, "instr": name, "run": true,
                        "m": size, "n": size, "k": size, "threads": threads,
                        "seconds_1": s1, "seconds_n": sn, "speedup": s1 / sn,
                        "identical": d1 == dn, "native_sgemm_seconds_1": native,
                        "model_over_native": s1 / native}),
        );
    }
    Ok(out)
}

/// Seconds of one single-threaded f32 GEMM `D = A·B + C` (`size³`, A row-major, B given by
/// columns as the matrix driver takes it) on the operands' values.
fn sgemm_seconds(
    size: usize,
    (fa, a): (&Format, &[u64]),
    (fb, b): (&Format, &[u64]),
    (fc, c): (&Format, &[u64]),
) -> f64 {
    let f32s = |fmt: &Format, w: &[u64]| -> Vec<f32> {
        w.iter().map(|&x| fmt.decode(x).to_f64() as f32).collect()
    };
    let (a, b) = (f32s(fa, a), f32s(fb, b));
    let mut d = f32s(fc, c);
    let n = size as isize;
    let t = Instant::now();
    // SAFETY: `a`, `b` and `d` hold `size²` f32 each; the strides (A rows of `size`, B columns
    // of `size`, D rows of `size`) keep every index `i·rs + j·cs` with `i, j < size` below
    // `size²`, and `d` is borrowed mutably, alone.
    unsafe {
        matrixmultiply::sgemm(
            size,
            size,
            size,
            1.0,
            a.as_ptr(),
            n,
            1,
            b.as_ptr(),
            1,
            n,
            1.0,
            d.as_mut_ptr(),
            n,
            1,
        );
    }
    let s = t.elapsed().as_secs_f64();
    black_box(&d);
    s
}

/// A bf16 with a roughly unit-normal magnitude (products stay finite, sums meaningful).
fn bf16_normal(rng: &mut impl Rng) -> u64 {
    let u: f32 = rng.random::<f32>() * 2.0 - 1.0;
    let v: f32 = rng.random::<f32>() * 2.0 - 1.0;
    (half::bf16::from_f32(u + v).to_bits()) as u64
}

#[cfg(test)]
mod tests {
    /// Every instruction of the list is in its vendor's catalog (a misspelt row would only
    /// print "not available").
    #[test]
    fn every_listed_instruction_exists() {
        for &(vendor, arch, op, name) in super::LIST {
            if let Err(e) = super::lookup(vendor, arch, op, name) {
                panic!("{vendor} {arch} {op} {name}: {e}");
            }
        }
    }
}
