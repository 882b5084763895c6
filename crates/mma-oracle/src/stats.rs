//! Statistics of error samples: summary figures and histograms.
//!
//! Percentiles interpolate linearly between the closest ranks (NumPy's default, "type 7"): for a
//! sorted list `x_0 <= ... <= x_{n-1}` the `p`-th percentile is `x_i + f·(x_{i+1} − x_i)` with
//! `i + f = p/100 · (n − 1)`. Infinite errors (special-value mismatches, overflow) are counted
//! apart and left out of the figures, which describe the finite errors.

/// The `p`-th percentile (`0 <= p <= 100`) of an ascending list; NaN for an empty one.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = (p / 100.0).clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let i = pos.floor() as usize;
    let frac = pos - i as f64;
    match sorted.get(i + 1) {
        Some(next) if frac > 0.0 => sorted[i] + frac * (next - sorted[i]),
        _ => sorted[i],
    }
}

/// Summary of a list of (absolute) errors.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Samples, finite or not.
    pub n: usize,
    /// Samples whose error is infinite (left out of the figures below).
    pub infinite: usize,
    pub mean: f64,
    pub median: f64,
    pub p99: f64,
    pub max: f64,
}

impl Summary {
    /// Summarises `errors` (absolute values; NaN entries count as infinite).
    pub fn of(errors: &[f64]) -> Summary {
        let mut v: Vec<f64> = errors.iter().copied().filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        let mean = if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        };
        Summary {
            n: errors.len(),
            infinite: errors.len() - v.len(),
            mean,
            median: percentile(&v, 50.0),
            p99: percentile(&v, 99.0),
            max: v.last().copied().unwrap_or(f64::NAN),
        }
    }
}

/// Equal-width bins over `[lo, hi]`; values outside are counted in `under`/`over`, NaN ignored.
/// A value on an inner edge goes to the bin above it; `hi` itself to the last bin.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    pub lo: f64,
    pub hi: f64,
    pub counts: Vec<usize>,
    pub under: usize,
    pub over: usize,
}

impl Histogram {
    pub fn new(lo: f64, hi: f64, bins: usize) -> Histogram {
        assert!(bins > 0 && hi > lo, "a histogram needs bins and lo < hi");
        Histogram {
            lo,
            hi,
            counts: vec![0; bins],
            under: 0,
            over: 0,
        }
    }

    pub fn width(&self) -> f64 {
        (self.hi - self.lo) / self.counts.len() as f64
    }

    pub fn add(&mut self, x: f64) {
        if x.is_nan() {
            return;
        }
        if x < self.lo {
            self.under += 1;
        } else if x > self.hi {
            self.over += 1;
        } else {
            let i = ((x - self.lo) / self.width()) as usize;
            let last = self.counts.len() - 1;
            self.counts[i.min(last)] += 1;
        }
    }

    /// A histogram of `xs` over `[lo, hi]`.
    pub fn of(xs: &[f64], lo: f64, hi: f64, bins: usize) -> Histogram {
        let mut h = Histogram::new(lo, hi, bins);
        for &x in xs {
            h.add(x);
        }
        h
    }

    pub fn total(&self) -> usize {
        self.counts.iter().sum::<usize>() + self.under + self.over
    }
}

/// Bin edges for signed errors in ulps: symmetric about 0, wide enough for the `q`-th
/// percentile of the finite |values| of every series (heavy tails beyond it are counted in
/// `under`/`over` rather than squeezing the bulk into one bin), at least ±1 ulp, with an odd
/// number of bins so that 0 sits in the middle of one.
pub fn symmetric_range(series: &[&[f64]], bins: usize, q: f64) -> (f64, f64, usize) {
    let m = series
        .iter()
        .map(|s| {
            let mut v: Vec<f64> = s
                .iter()
                .filter(|x| x.is_finite())
                .map(|x| x.abs())
                .collect();
            v.sort_by(f64::total_cmp);
            percentile(&v, q)
        })
        .filter(|x| !x.is_nan())
        .fold(1.0f64, f64::max);
    let bins = if bins.is_multiple_of(2) {
        bins + 1
    } else {
        bins
    };
    // Widen by half a bin so that ±m fall inside rather than on the edges.
    let half = m * bins as f64 / (bins - 1).max(1) as f64;
    (-half, half, bins)
}
