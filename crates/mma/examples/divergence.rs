//! Why two GPUs disagree: one f16 dot product, evaluated bit for bit on the f16 → f32
//! instruction of every NVIDIA architecture and every AMD CDNA generation, beside the exact
//! value. The input is the first paper's Table IV example (Xie et al., arXiv 2511.10909):
//! C = -2^23 and products 2^23, -1/2, -1/4, -1/8, so the exact result is -0.875. Each unit
//! aligns, truncates, flushes or rounds the small products differently.
//!
//! Run with `cargo run --example divergence -p mma --features oracle` (the exact value comes
//! from the oracle, an opt-in feature).

use mma::oracle::{correctly_rounded, exact_dot};
use mma::{DotUnit, Rounding};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A row and B column as f16 bits, C as f32 bits; instructions with a longer K get zeros.
    let a = [0x6c00u64, 0xb800, 0xb400, 0xb000];
    let b = [0x6800u64, 0x3c00, 0x3c00, 0x3c00];
    let c = 0xcb00_0000u64;

    let nv = |arch: mma::nvidia::Arch| {
        let name = match arch {
            mma::nvidia::Arch::Volta => "m8n8k4.f32.f16.f16.f32",
            mma::nvidia::Arch::Turing => "m16n8k8.f32.f16.f16.f32",
            _ => "m16n8k16.f32.f16.f16.f32",
        };
        mma::catalog::find(None, arch.name(), None, name).map(|i| (i.name.to_string(), i.k, i.unit))
    };
    let mut rows: Vec<(String, String, usize, &DotUnit)> = Vec::new();
    for arch in mma::nvidia::Arch::ALL {
        let (name, k, unit) = nv(arch)?;
        rows.push((arch.name().to_string(), name, k, unit));
    }
    for (arch, name) in [
        ("CDNA1", "f32_32x32x8f16"),
        ("CDNA2", "f32_32x32x8f16"),
        ("CDNA3", "f32_32x32x8_f16"),
    ] {
        let ins = mma::catalog::find(None, arch, None, name)?;
        rows.push((arch.to_string(), ins.name.to_string(), ins.k, ins.unit));
    }

    let f16 = rows[0].3.formats.a;
    let f32 = rows[0].3.formats.d;
    let show = |words: &[u64]| {
        let v: Vec<String> = words
            .iter()
            .map(|&w| format!("{w:04x} = {}", f16.decode(w).to_f64()))
            .collect();
        v.join(", ")
    };
    println!("A = [{}] (f16), then zeros", show(&a));
    println!("B = [{}] (f16), then zeros", show(&b));
    println!("C = {c:08x} = {} (f32)", f32.decode(c).to_f64());
    let exact = exact_dot(&rows[0].3.formats, &a, &b, c);
    let rne = correctly_rounded(&exact, &f32, Rounding::NearestEven);
    let exact = match &exact {
        mma::oracle::ExactResult::Finite { value, .. } => format!("{value} = {}", value.to_f64()),
        other => format!("{other:?}"),
    };
    println!(
        "exact A·B + C = {exact} (correctly rounded to f32: {rne:08x} = {})\n",
        f32.decode(rne).to_f64()
    );

    for (arch, name, k, unit) in rows {
        let (mut a, mut b) = (a.to_vec(), b.to_vec());
        a.resize(k, 0);
        b.resize(k, 0);
        unit.check(&a, &b, c)?;
        let d = unit.dot(&a, &b, c);
        println!(
            "{arch:14} {name:26} d = {d:08x} = {:<7} ({})",
            format!("{:+}", unit.formats.d.decode(d).to_f64()),
            unit.describe()
        );
    }
    Ok(())
}
