//! The command-line tool's library part: `.npy` matrices ([`npy`]) and the helpers the binary
//! and its tests share. The codec it reads and writes values with (operands as people write
//! them, values as text, the exact result and the error in ulps, command-line words) is
//! `mma::codec`. The tool itself is the `mma` binary (`src/main.rs` and a module per
//! subcommand; its documentation is `mma --help` and `docs/cli.md`).
//!
//! ```
//! use mma::codec::words::{seconds, word_list};
//! assert_eq!(seconds("2.5"), Ok(2.5));
//! assert!(seconds("0").is_err()); // a message, never a panic
//! assert_eq!(word_list("3c00, 3c00"), ["3c00", "3c00"]);
//! ```
//!
//! # Features
//!
//! - `oracle`: the `error-report` command (the exact MPFR oracle, GMP/MPFR built from source).
//!   Without it the command is listed and exits 2 saying how to build it.

pub mod npy;

/// The threads a GEMM of `rows` rows of D asks for when the user asks for `requested`
/// (`--threads`): never more than its pieces of work, the drivers' tasks of eight rows (a
/// pool of 1024 threads for two tasks costs a second to start); 0, no `--threads`, stays 0
/// (rayon's global pool).
///
/// ```
/// assert_eq!(mma_cli::gemm_threads(1024, 16), 2);
/// assert_eq!(mma_cli::gemm_threads(0, 16), 0);
/// ```
pub fn gemm_threads(requested: usize, rows: usize) -> usize {
    requested.min(rows.div_ceil(8).max(1))
}

/// `println!` that turns a failed write to standard output (a full disk, a closed file) into
/// an error of the enclosing function (`mma_io::out::OutError`, which the tool reports and
/// exits 1 for) instead of a panic. A reader that went away ends the process quietly through
/// SIGPIPE, as Unix tools do.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*).map_err(mma_io::out::stdout_error)?
    }};
}

/// `print!` with the error handling of [`outln!`].
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout(), $($arg)*).map_err(mma_io::out::stdout_error)?
    }};
}
