//! The parsers of command-line words that clap does not check by itself: seconds, sizes,
//! sample counts and comma-separated word lists. They return a message, never panic, on any
//! input (`cargo xtask fuzz` feeds them arbitrary strings).
//!
//! ```
//! use mma_io::codec::words::{seconds, word_list};
//! assert_eq!(seconds("2.5"), Ok(2.5));
//! assert!(seconds("0").is_err()); // a message, never a panic
//! assert_eq!(word_list("3c00, 3c00"), ["3c00", "3c00"]);
//! ```

/// A measuring time in seconds: a finite number in (0, 3600].
pub fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 3600.0 => Ok(x),
        Ok(_) => Err(format!("{s} is not a number of seconds in (0, 3600]")),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

/// A GEMM size: a positive multiple of 16 (the instruction's K), at most 16384 (three
/// matrices of 2 GiB each).
pub fn gemm_size(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 && n % 16 == 0 && n <= 16384 => Ok(n),
        Ok(n) => Err(format!(
            "the size must be a positive multiple of 16, at most 16384 (got {n})"
        )),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

/// The batch of `mma bench`: a positive multiple of 8, at most 2^22 dot products.
pub fn bench_dots(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 && n % 8 == 0 && n <= 1 << 22 => Ok(n),
        Ok(n) => Err(format!(
            "the batch must be a positive multiple of 8, at most 4194304 (got {n})"
        )),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

/// A number of samples: a positive integer (a report over no samples checks nothing).
pub fn samples(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("at least one sample is needed".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

/// The words of a comma-separated list (`--a 3c00,3c00`), white space around each trimmed.
pub fn word_list(s: &str) -> Vec<String> {
    s.split(',').map(|w| w.trim().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_in_and_out_of_range() {
        assert_eq!(seconds("0.5"), Ok(0.5));
        for bad in ["nan", "inf", "-1", "0", "3601", "", "1e999"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(gemm_size("1024"), Ok(1024));
        for bad in ["0", "24", "16400", "-16", "x", "99999999999999999999999"] {
            assert!(gemm_size(bad).is_err(), "{bad}");
        }
        assert_eq!(word_list("3c00, 3c00 ,0"), ["3c00", "3c00", "0"]);
        assert_eq!(samples("5"), Ok(5));
        assert!(samples("0").is_err() && samples("-1").is_err() && samples("x").is_err());
    }
}
