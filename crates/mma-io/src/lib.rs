//! What the `mma` models read and write as files and as text: case files, hardware records and
//! error-report jobs, over a line reader in which a bad line costs only itself, and the codec
//! between text, exact values and storage words.
//!
//! - [`Lines`] (`lines.rs`): any line ending, bounded lines, per-line UTF-8 errors; every text
//!   input of the project goes through it.
//! - [`cases`]: case files (JSON Lines, one dot product per line): parsing, resolving names in
//!   the vendor catalogs (features `nvidia`, `amd`), strict words, evaluation.
//! - [`hw`] (feature `nvidia`): hardware-record folders laid out like `shared/hw`, read and
//!   checked against the NVIDIA catalog.
//! - [`error_report`] (feature `oracle`): error reports of catalog instructions against the exact
//!   oracle.
//! - `hw_lib` (feature `recordings`, which the tests turn on): library-level recordings laid
//!   out like `shared/hw-lib` (whole `torch._scaled_mm` calls), read and checked against a GPU
//!   library platform.
//! - [`out`]: files the tools write, never one of their inputs and never half written.
//! - [`codec`]: text ↔ exact value ↔ storage word (operands as people write them, values as
//!   text, the exact dot product and the error in ulps, command-line words).
//!
//! The facade `mma` re-exports these modules as `mma::cases`, `mma::hw`, `mma::error_report`
//! and `mma::codec`; the arithmetic crates (`mma-core`, the catalogs) read no files.
//!
//! ```
//! use mma_io::{Line, Lines};
//! let text = "\u{feff}first\r\nsecond\rthird\n";
//! let lines: Vec<_> = Lines::new(text.as_bytes()).map(|r| r.unwrap()).collect();
//! assert_eq!(lines[0], (1, Line::Text("first".into())));
//! assert_eq!(lines[1], (2, Line::Text("second".into())));
//! assert_eq!(lines[2], (3, Line::Text("third".into())));
//! assert_eq!(lines.len(), 3);
//! ```

mod lines;

pub use lines::{Line, Lines, MAX_LINE};

pub mod cases;
pub mod codec;
pub mod out;

#[cfg(feature = "nvidia")]
pub mod hw;

#[cfg(feature = "recordings")]
pub mod hw_lib;

#[cfg(feature = "oracle")]
pub mod error_report;
