//! The statistics on hand-made data, the sampler's respect of formats and distributions, and
//! `evaluate` catching a model that is less accurate than its bound.

use mma_core::format::{self, Format, BF16, E2M1, E2M3, E4M3, FP16, FP32, TF32, UE4M3, UE8M0};
use mma_core::models::t_fdpa::TFdpa;
use mma_core::{
    DotUnit, Formats, Model, NanStyle, Output, OutputRounding, RoundOpts, Rounding, Value,
};
use mma_oracle::stats::symmetric_range;
use mma_oracle::{
    evaluate, exact_dot, exact_dot_scaled, max_finite, percentile, Dist, ExactResult, Histogram,
    Sampler, Summary,
};
use rug::Rational;

#[test]
fn percentiles_of_known_lists() {
    let v = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(percentile(&v, 50.0), 2.5);
    assert_eq!(percentile(&v, 0.0), 1.0);
    assert_eq!(percentile(&v, 100.0), 4.0);
    assert_eq!(percentile(&v, 25.0), 1.75);
    let w: Vec<f64> = (0..=100).map(f64::from).collect();
    assert_eq!(percentile(&w, 99.0), 99.0);
    assert_eq!(percentile(&w, 50.0), 50.0);
    assert_eq!(percentile(&[7.0], 99.0), 7.0);
    assert!(percentile(&[], 50.0).is_nan());
}

#[test]
fn summary_of_known_list() {
    // Unsorted, with an infinite and a NaN entry that are counted apart.
    let s = Summary::of(&[3.0, 0.0, f64::INFINITY, 1.0, 0.5, f64::NAN, 2.0]);
    assert_eq!(s.n, 7);
    assert_eq!(s.infinite, 2);
    assert_eq!(s.mean, 6.5 / 5.0);
    assert_eq!(s.median, 1.0);
    assert_eq!(s.max, 3.0);
    assert!((s.p99 - (2.0 + 0.96 * 1.0)).abs() < 1e-12);
    let e = Summary::of(&[]);
    assert_eq!((e.n, e.infinite), (0, 0));
    assert!(e.max.is_nan() && e.median.is_nan());
}

#[test]
fn histogram_bins() {
    let h = Histogram::of(
        &[-1.0, -0.5, 0.0, 0.49, 0.5, 1.0, 2.0, f64::NAN],
        -1.0,
        1.0,
        4,
    );
    // Bins [-1,-0.5) [-0.5,0) [0,0.5) [0.5,1]; 2.0 is over, NaN ignored.
    assert_eq!(h.counts, vec![1, 1, 2, 2]);
    assert_eq!((h.under, h.over, h.total()), (0, 1, 7));
    let (lo, hi, bins) = symmetric_range(&[&[0.25, -3.0], &[2.0, f64::INFINITY]], 40, 100.0);
    assert_eq!(bins, 41);
    assert_eq!(lo, -hi);
    assert!(hi > 3.0 && hi < 3.1);
    // The bin holding 0 is centred on it.
    let h = Histogram::of(&[0.0], lo, hi, bins);
    assert_eq!(h.counts[20], 1);
    assert!((lo + 20.5 * h.width()).abs() < 1e-12);
    // A heavy tail is cut at the percentile: 0..=99 and one 1e9 (101 values), p99 = 99, widened
    // by half a bin of 41.
    let mut tail: Vec<f64> = (0..100).map(f64::from).collect();
    tail.push(1e9);
    let (_, hi, _) = symmetric_range(&[&tail], 41, 99.0);
    assert_eq!(hi, 99.0 * 41.0 / 40.0);
    assert_eq!(symmetric_range(&[&[0.1]], 3, 99.0), (-1.5, 1.5, 3));
}

fn formats(a: Format, d: Format, scale: Option<(Format, usize)>) -> Formats {
    Formats {
        a,
        b: a,
        c: d,
        d,
        scale,
    }
}

fn finite(fmt: &Format, x: u64) -> bool {
    fmt.is_valid_encoding(x) && !matches!(fmt.decode(x), Value::Nan | Value::Inf { .. })
}

#[test]
fn samples_respect_formats() {
    let cases = [
        formats(TF32, FP32, None),
        formats(FP16, FP16, None),
        formats(BF16, FP32, None),
        formats(E4M3, FP16, None),
        formats(format::E4M3_FNUZ, FP32, None),
        formats(E2M3, FP32, Some((UE8M0, 32))),
        formats(E2M1, FP32, Some((UE4M3, 16))),
        formats(format::FP64, format::FP64, None),
    ];
    for f in cases {
        for dist in Dist::ALL {
            let k = 64;
            let s1: Vec<_> = Sampler::new(f, k, dist, 7).take(200).collect();
            let s2: Vec<_> = Sampler::new(f, k, dist, 7).take(200).collect();
            assert_eq!(s1, s2, "{dist} is not deterministic for a seed");
            let s3: Vec<_> = Sampler::new(f, k, dist, 8).take(200).collect();
            assert_ne!(s1, s3, "{dist} ignores the seed");
            for x in &s1 {
                assert_eq!((x.a.len(), x.b.len()), (k, k));
                let ns = f.scale.map_or(0, |(_, per)| k / per);
                assert_eq!((x.scale_a.len(), x.scale_b.len()), (ns, ns));
                let all = x.a.iter().map(|&w| (&f.a, w));
                let all = all.chain(x.b.iter().map(|&w| (&f.b, w)));
                let all = all.chain([(&f.c, x.c)]);
                for (fmt, w) in all {
                    assert!(finite(fmt, w), "{dist}: {w:#x} is no finite {}", fmt.name);
                    if fmt.name == "tf32" {
                        assert_eq!(w & 0x1fff, 0, "tf32 low bits set");
                    }
                    if fmt.storage_bits == 8 {
                        assert!(w >> fmt.width() == 0, "{} code {w:#x}", fmt.name);
                    }
                }
                if let Some((sf, _)) = f.scale {
                    for &w in x.scale_a.iter().chain(&x.scale_b) {
                        assert!(finite(&sf, w), "{dist}: scale {w:#x}");
                    }
                }
                if dist == Dist::LogU || dist == Dist::Narrow {
                    // The exact result is finite and within the output's range.
                    let e = exact_dot_scaled(&f, &x.a, &x.b, x.c, &x.scale_a, &x.scale_b);
                    let v = e.value().expect("finite").clone().abs();
                    assert!(v <= max_finite(&f.d), "{dist}: {} overflows", f.d.name);
                }
                if dist == Dist::Narrow {
                    for &w in &x.a {
                        let v = f.a.decode(w).to_f64().abs();
                        assert!((1.0..4.0).contains(&v), "narrow gave {v}");
                    }
                }
            }
        }
    }
}

fn abs_sum(f: &Formats, x: &mma_oracle::Inputs) -> Rational {
    let mut s = Rational::new();
    for k in 0..x.a.len() {
        let t = exact_dot_scaled(f, &x.a[k..=k], &x.b[k..=k], 0, &x.scale_a, &x.scale_b);
        s += t.value().expect("finite").clone().abs();
    }
    s
}

#[test]
fn cancel_gives_results_tiny_relative_to_terms() {
    let f = formats(FP16, FP32, None);
    let mut tiny = 0;
    let n = 300;
    for x in Sampler::new(f, 16, Dist::Cancel, 3).take(n) {
        let e = exact_dot(&f, &x.a, &x.b, 0);
        let v = e.value().expect("finite").clone().abs();
        if v * 256u32 < abs_sum(&f, &x) {
            tiny += 1;
        }
    }
    assert!(tiny * 10 > n * 9, "only {tiny} of {n} cancel");
}

#[test]
fn bits_reaches_zeros_subnormals_and_large_values() {
    let f = formats(E4M3, FP32, None);
    let (mut zero, mut sub, mut big) = (0, 0, 0);
    for x in Sampler::new(f, 32, Dist::Bits, 1).take(100) {
        for &w in &x.a {
            match E4M3.decode(w) {
                Value::Zero { .. } => zero += 1,
                Value::Finite { sig, .. } if sig < 8 => sub += 1,
                v if v.to_f64().abs() >= 256.0 => big += 1,
                _ => {}
            }
        }
    }
    assert!(zero > 0 && sub > 0 && big > 0, "{zero} {sub} {big}");
}

fn nv_t_fdpa(f: u32) -> DotUnit {
    DotUnit {
        formats: formats(FP16, FP32, None),
        block: 8,
        model: Model::TFdpa(TFdpa {
            f,
            e_zero: -133,
            out: Output {
                rho: OutputRounding {
                    fmt: FP32,
                    mode: Rounding::TowardZero,
                    opts: RoundOpts::INF_ON_OVERFLOW,
                },
                nan: NanStyle::AllOnes,
                neg_zero_to_pos: true,
            },
        }),
    }
}

#[test]
fn evaluate_checks_every_block() {
    // K = 32 in blocks of 8: four chained blocks, all within the bound.
    let good = nv_t_fdpa(24);
    let mut bound_seen = false;
    for x in Sampler::new(good.formats, 32, Dist::LogU, 5).take(300) {
        let e = evaluate(&good, &x);
        assert!(e.within, "{x:?}");
        bound_seen |= e.bound_ulps.is_some_and(|b| b > 0.5);
    }
    assert!(bound_seen);
    // A unit with fewer fraction bits than the bound is computed for must be caught: run the
    // F = 8 model but check it as F = 24 by comparing its output with the F = 24 bound.
    let bad = nv_t_fdpa(8);
    let mut caught = 0;
    for x in Sampler::new(good.formats, 32, Dist::Narrow, 5).take(300) {
        let model = bad.dot(&x.a, &x.b, x.c);
        let e = evaluate(&good, &x);
        let exact = e.exact.value().expect("finite").clone();
        let err = Rational::from(
            ExactResult::from_bits(&FP32, model)
                .value()
                .expect("finite")
                - &exact,
        )
        .abs();
        if err > *e.bound.as_ref().expect("finite bound") {
            caught += 1;
        }
    }
    assert!(caught > 30, "only {caught} of 300 caught");
}
