//! The codec: the one place where text, exact values and storage words turn into each other.
//!
//! - [`operand`]: operands as people write them (decimals, C99 hex-floats, `bits:`, case-file
//!   words) converted *exactly* to a format's storage word (hand-derived tests in
//!   `operand_tests.rs`);
//! - [`decimal`]: the way back, values as text: the shortest decimal that reads back to a word,
//!   exact decimals and hex-floats of exact dyadic values;
//! - [`exact`]: the core's exact dot product ([`mma_core::ExactDot`]) as one big integer for
//!   its digits, and the error of a result in ulps without the oracle ([`exact::ulp_error`]);
//! - [`words`]: the parsers of command-line words clap does not check by itself (seconds,
//!   sizes, comma-separated word lists).
//!
//! Everything here is exact (`num-bigint`, never `f64` on the way), and a value is rounded only
//! through the core's single rounding routine ([`mma_core::round::round`]). How elements sit in
//! a layout's storage bytes is the core's [`mma_core::catalog::Layout`] (`pack`, `unpack`),
//! and case-file words are read strictly by [`crate::cases`]. The facade re-exports this module
//! as `mma::codec`; the `mma` tool and the fuzz targets use it from there.
//!
//! ```
//! use mma_core::format::FP16;
//! use mma_io::codec::{decimal, operand, words};
//! let x = operand::parse_number("0x1.8p-3").unwrap().unwrap(); // 0.1875
//! let w = operand::encode(&FP16, &x, None).unwrap();
//! assert_eq!(w, 0x3200);
//! assert_eq!(decimal::shortest(&FP16, w), "0.1875");
//! assert_eq!(words::word_list("3200, 3c00"), ["3200", "3c00"]);
//! ```

pub mod decimal;
pub mod exact;
pub mod operand;
pub mod words;
