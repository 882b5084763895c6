//! The command-line tool's library part: value parsers shared by the binary and the fuzz
//! targets of `cargo xtask fuzz`. The tool itself is the `mma` binary (`src/main.rs`).

pub mod values;
