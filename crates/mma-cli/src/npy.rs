//! NumPy `.npy` matrices in and out of a format's storage words, through the `npyz` crate.
//!
//! In: float16, float32 and float64 arrays, whose every value must be exactly representable
//! in the operand's format (converted exactly, see [`crate::operand`]), or with
//! [`Input::Bits`] unsigned-integer arrays of raw encodings (uint8 for 8-bit and narrower
//! formats, one element per byte in its low bits; uint16 for f16/bf16; uint32 for f32/tf32;
//! uint64 for f64). Two-dimensional, C or Fortran order.
//!
//! Out: float16/float32/float64 arrays when the format is f16/f32/f64 (the words are those
//! numbers' encodings), else unsigned-integer arrays of the raw encodings.

use crate::operand::{encode_word, Number, OperandError};
use half::f16;
use mma::core::format::{FP16, FP32, FP64};
use mma::core::{Format, Value};
use npyz::{DType, Order, TypeChar, WriterBuilder};
use num_bigint::BigUint;
use std::io::{BufReader, BufWriter};
use std::path::Path;

/// How an input array holds its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Numbers (float arrays), converted exactly.
    Values,
    /// Raw encodings (unsigned-integer arrays), checked.
    Bits,
}

/// A matrix of storage words, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matrix {
    pub rows: usize,
    pub cols: usize,
    pub words: Vec<u64>,
}

/// Why a matrix cannot be read or written; `arg` names the command-line argument.
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    #[error("{arg}: cannot read {path}: {msg}")]
    Read {
        arg: &'static str,
        path: String,
        msg: String,
    },
    #[error("{arg}: cannot write {path}: {msg}")]
    Write {
        arg: &'static str,
        path: String,
        msg: String,
    },
    #[error("{arg}: expected a 2-D array, got shape {shape:?}")]
    Shape { arg: &'static str, shape: Vec<u64> },
    #[error("{arg}: dtype {dtype} is not taken for {format} ({expected})")]
    DType {
        arg: &'static str,
        dtype: String,
        format: &'static str,
        expected: String,
    },
    #[error("{arg}: element [{row}, {col}]: {msg}")]
    Element {
        arg: &'static str,
        row: usize,
        col: usize,
        msg: String,
    },
}

/// The unsigned dtype width (bytes) that holds raw encodings of `fmt`.
fn bits_bytes(fmt: &Format) -> usize {
    (fmt.storage_bits as usize).div_ceil(8).next_power_of_two()
}

/// NumPy's name of a dtype (`uint8`, `float32`), or its descriptor for other kinds.
fn dtype_name(d: &DType) -> String {
    let DType::Plain(ts) = d else {
        return d.descr();
    };
    let bits = 8 * ts.size_field();
    match ts.type_char() {
        TypeChar::Uint => format!("uint{bits}"),
        TypeChar::Int => format!("int{bits}"),
        TypeChar::Float => format!("float{bits}"),
        TypeChar::Complex => format!("complex{bits}"),
        TypeChar::Bool => "bool".into(),
        _ => d.descr(),
    }
}

/// Reads a 2-D `.npy` as words of `fmt` (see the module docs).
pub fn read(
    path: &Path,
    arg: &'static str,
    fmt: &Format,
    input: Input,
) -> Result<Matrix, NpyError> {
    let read_err = |msg: String| NpyError::Read {
        arg,
        path: path.display().to_string(),
        msg,
    };
    let file = std::fs::File::open(path).map_err(|e| read_err(e.to_string()))?;
    let npy = npyz::NpyFile::new(BufReader::new(file)).map_err(|e| read_err(e.to_string()))?;
    let shape = npy.shape().to_vec();
    if shape.len() != 2 {
        return Err(NpyError::Shape { arg, shape });
    }
    let (rows, cols) = (shape[0] as usize, shape[1] as usize);
    let order = npy.order();
    let dtype = npy.dtype();
    let ts = match &dtype {
        DType::Plain(ts) => ts.clone(),
        other => {
            return Err(NpyError::DType {
                arg,
                dtype: dtype_name(other),
                format: fmt.name,
                expected: "a plain numeric array".into(),
            })
        }
    };
    let bad_dtype = |expected: String| NpyError::DType {
        arg,
        dtype: dtype_name(&dtype),
        format: fmt.name,
        expected,
    };
    let size = ts.size_field() as usize;
    let want_bits = bits_bytes(fmt);
    let flat: Vec<Result<u64, String>> = match (input, ts.type_char(), size) {
        (Input::Bits, TypeChar::Uint, n) if n == want_bits => {
            let raw: Vec<u64> = match n {
                1 => into::<u8>(npy).map(|v| v.into_iter().map(u64::from).collect()),
                2 => into::<u16>(npy).map(|v| v.into_iter().map(u64::from).collect()),
                4 => into::<u32>(npy).map(|v| v.into_iter().map(u64::from).collect()),
                _ => into::<u64>(npy),
            }
            .map_err(read_err)?;
            raw.into_iter()
                .map(|b| {
                    if fmt.is_valid_encoding(b) {
                        Ok(b)
                    } else {
                        Err(format!("{b:#x} is not a valid {} encoding", fmt.name))
                    }
                })
                .collect()
        }
        (Input::Bits, _, _) => {
            return Err(bad_dtype(format!(
                "raw {} encodings are read from a uint{} array",
                fmt.name,
                8 * want_bits
            )))
        }
        (Input::Values, TypeChar::Float, 2) => {
            let v = into::<f16>(npy).map_err(read_err)?;
            v.into_iter()
                .map(|x| convert(fmt, &FP16, x.to_bits() as u64))
                .collect()
        }
        (Input::Values, TypeChar::Float, 4) => {
            let v = into::<f32>(npy).map_err(read_err)?;
            v.into_iter()
                .map(|x| convert(fmt, &FP32, x.to_bits() as u64))
                .collect()
        }
        (Input::Values, TypeChar::Float, 8) => {
            let v = into::<f64>(npy).map_err(read_err)?;
            v.into_iter()
                .map(|x| convert(fmt, &FP64, x.to_bits()))
                .collect()
        }
        (Input::Values, _, _) => {
            return Err(bad_dtype(format!(
                "a float16, float32 or float64 array of values exact in {0}, or raw encodings in a uint{1} array with --{2}-bits",
                fmt.name,
                8 * want_bits,
                arg.trim_start_matches("--").split('-').next().unwrap_or("a")
            )))
        }
    };
    // Row-major order of (row, col) whatever the file's order.
    let mut words = vec![0u64; rows * cols];
    for (idx, r) in flat.into_iter().enumerate() {
        let (row, col) = match order {
            Order::C => (idx / cols.max(1), idx % cols.max(1)),
            Order::Fortran => (idx % rows.max(1), idx / rows.max(1)),
        };
        words[row * cols + col] = r.map_err(|msg| NpyError::Element { arg, row, col, msg })?;
    }
    Ok(Matrix { rows, cols, words })
}

fn into<T: npyz::Deserialize>(
    npy: npyz::NpyFile<BufReader<std::fs::File>>,
) -> Result<Vec<T>, String> {
    npy.into_vec::<T>().map_err(|e| e.to_string())
}

/// A value of `from` (its storage word) as a word of `to`, exactly.
fn convert(to: &Format, from: &Format, bits: u64) -> Result<u64, String> {
    if to == from {
        return Ok(bits);
    }
    let n = match from.decode(bits) {
        Value::Nan => Number::Nan,
        Value::Inf { neg } => Number::Inf { neg },
        Value::Zero { neg } => Number::Finite {
            neg,
            mag: BigUint::default(),
            exp2: 0,
            exp10: 0,
        },
        Value::Finite { neg, sig, exp } => Number::Finite {
            neg,
            mag: BigUint::from(sig),
            exp2: exp as i64,
            exp10: 0,
        },
    };
    let text = crate::decimal::shortest(from, bits);
    encode_word(to, &n, None, &text).map_err(|e| match e {
        // Arrays are not rounded: say so instead of pointing at `mma dot`'s --round.
        OperandError::Inexact {
            word,
            format,
            below,
            above,
        } => format!(
            "{word} ({} {bits:#x}) is not exactly representable in {format}: it lies between {below} and {above}",
            from.name
        ),
        other => other.to_string(),
    })
}

/// Writes `m` (words of `fmt`) as a 2-D `.npy` (see the module docs).
pub fn write(path: &Path, arg: &'static str, fmt: &Format, m: &Matrix) -> Result<(), NpyError> {
    let err = |e: std::io::Error| NpyError::Write {
        arg,
        path: path.display().to_string(),
        msg: e.to_string(),
    };
    let file = std::fs::File::create(path).map_err(err)?;
    let shape = [m.rows as u64, m.cols as u64];
    let w = BufWriter::new(file);
    let ws = m.words.iter().copied();
    match (fmt.name, bits_bytes(fmt)) {
        ("f16", _) => put(w, &shape, ws.map(|b| f16::from_bits(b as u16))),
        ("f32", _) => put(w, &shape, ws.map(|b| f32::from_bits(b as u32))),
        ("f64", _) => put(w, &shape, ws.map(f64::from_bits)),
        (_, 1) => put(w, &shape, ws.map(|b| b as u8)),
        (_, 2) => put(w, &shape, ws.map(|b| b as u16)),
        (_, 4) => put(w, &shape, ws.map(|b| b as u32)),
        _ => put(w, &shape, ws),
    }
    .map_err(err)
}

fn put<T: npyz::AutoSerialize, W: std::io::Write>(
    w: W,
    shape: &[u64],
    xs: impl Iterator<Item = T>,
) -> std::io::Result<()> {
    let mut out = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(w)
        .begin_nd()?;
    out.extend(xs)?;
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mma::core::format::{BF16, E4M3};

    #[test]
    fn round_trips_and_checks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("m.npy");
        // f32 [[1, -0.75], [0x1.8p-3, 448]] written as float32, read back as e4m3 values:
        // 1 = 0 0111 000 = 0x38; -0.75 = 1 0110 100 = 0xb4; 0.1875 = 0 0100 100 = 0x24;
        // 448 = 0 1111 110 = 0x7e.
        let m = Matrix {
            rows: 2,
            cols: 2,
            words: vec![0x3f80_0000, 0xbf40_0000, 0x3e40_0000, 0x43e0_0000],
        };
        write(&p, "-o", &FP32, &m).expect("write");
        assert_eq!(read(&p, "--a", &FP32, Input::Values).expect("read"), m);
        let e = read(&p, "--a", &E4M3, Input::Values).expect("e4m3");
        assert_eq!(e.words, [0x38, 0xb4, 0x24, 0x7e]);
        // 448 is not a bf16-exact problem, but 1 + 2^-8 (0x3f808000) is not bf16: named.
        let m2 = Matrix {
            rows: 1,
            cols: 2,
            words: vec![0x3f80_0000, 0x3f80_8000],
        };
        write(&p, "-o", &FP32, &m2).expect("write");
        let err = read(&p, "--b", &BF16, Input::Values)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("--b: element [0, 1]: "), "{err}");
        // Raw bits need the matching unsigned width.
        let bits = Matrix {
            rows: 1,
            cols: 2,
            words: vec![0x3f80, 0xbf80],
        };
        write(&p, "-o", &BF16, &bits).expect("write");
        assert_eq!(read(&p, "--a", &BF16, Input::Bits).expect("bits"), bits);
        assert!(read(&p, "--a", &E4M3, Input::Bits).is_err()); // uint16 for an 8-bit format
        assert!(read(&p, "--a", &BF16, Input::Values).is_err()); // uint16 without --a-bits
    }
}
