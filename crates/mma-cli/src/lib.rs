//! The command-line tool's library part: value parsers shared by the binary and the fuzz
//! targets of `cargo xtask fuzz` ([`values`]), operands as people write them converted exactly
//! ([`operand`]), values as text ([`decimal`]), the exact dot-product result and the error in
//! ulps ([`exact`]) and `.npy` matrices ([`npy`]). The tool itself is the `mma` binary
//! (`src/main.rs`; its documentation is `mma --help` and the README).
//!
//! ```
//! use mma_cli::values::{seconds, word_list};
//! assert_eq!(seconds("2.5"), Ok(2.5));
//! assert!(seconds("0").is_err()); // a message, never a panic
//! assert_eq!(word_list("3c00, 3c00"), ["3c00", "3c00"]);
//! ```
//!
//! # Features
//!
//! - `oracle`: the `error-report` command (the exact MPFR oracle, GMP/MPFR built from source).
//!   Without it the command is listed and exits 2 saying how to build it.

pub mod decimal;
pub mod exact;
pub mod npy;
pub mod operand;
pub mod values;
