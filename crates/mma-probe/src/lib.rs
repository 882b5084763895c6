//! Infer a matrix unit's arithmetic from its outputs.
//!
//! The papers built every model by hand: probe vectors, a person reading outputs, a model,
//! random testing, revision. This crate automates that loop for units of the model family of
//! `mma-core`:
//!
//! - [`emit`]: probe inputs for given operand formats and K, targeted (rounding ties and
//!   direction, the fraction bits F kept in alignment, block size, e_zero and subnormal C,
//!   C early or late, signed zeros, NaN/Inf) and random from several samplers, as case lines
//!   without `d`.
//! - [`grid`]: every candidate unit of the family for a set of formats and K.
//! - [`infer`](mod@infer): elimination of candidates by records (inputs with the device's `d`): the fits
//!   that explain every record, or the best fits and the records they miss.
//! - [`suggest`]: new inputs on which the remaining fits disagree.
//!
//! It depends on `mma-core` alone; the command-line tool joins it with the catalogs (which
//! architectures compute a fitting unit) and the hardware-record reader.

pub mod emit;
mod emit_int;
pub mod grid;
pub mod infer;
pub mod records;
pub mod report;
pub mod suggest;
pub mod values;

pub use infer::{infer, Fit, Inference};
pub use records::{Record, RecordSet};
