//! NumPy `.npy` matrices in and out of a format's storage words, through the `npyz` crate.
//!
//! In: float16, float32 and float64 arrays, whose every value must be exactly representable
//! in the operand's format (converted exactly, see [`mma::codec::operand`]), or with
//! [`Input::Bits`] unsigned-integer arrays of raw encodings (uint8 for 8-bit and narrower
//! formats, one element per byte in its low bits; uint16 for f16/bf16; uint32 for f32/tf32;
//! uint64 for f64). Two-dimensional, C or Fortran order.
//!
//! Out: float16/float32/float64 arrays when the format is f16/f32/f64 (the words are those
//! numbers' encodings), else unsigned-integer arrays of the raw encodings.

use half::f16;
use mma::codec::operand::{encode_word, Number, OperandError};
use mma::format::{FP16, FP32, FP64};
use mma::{Format, Value};
use mma_io::out::{OutError, OutFile};
use npyz::{DType, Order, TypeChar, WriterBuilder};
use num_bigint::BigUint;
use std::io::{BufReader, Read, Seek, SeekFrom};
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
    #[error("{arg}: {msg}")]
    SameAsInput { arg: &'static str, msg: String },
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

/// Where a matrix's elements go in [`Matrix::words`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `words[row * cols + col]`.
    RowMajor,
    /// `words[col * rows + row]`: the columns one after another (B as the drivers take it).
    ColMajor,
}

/// Bytes of a `.npy` header the reader accepts (NumPy writes a few hundred).
const MAX_HEADER: u64 = 1 << 20;

/// Reads a 2-D `.npy` as words of `fmt` (see the module docs), row-major.
pub fn read(
    path: &Path,
    arg: &'static str,
    fmt: &Format,
    input: Input,
) -> Result<Matrix, NpyError> {
    read_as(path, arg, fmt, input, Layout::RowMajor)
}

/// [`read`] into `layout`, converting each element as it is read: the matrix costs its 8-byte
/// words and nothing more (no decoded copy, no transposed copy). The header is checked before
/// anything is allocated: its length against the file, the shape's element count against
/// overflow and against the bytes the file holds.
pub fn read_as(
    path: &Path,
    arg: &'static str,
    fmt: &Format,
    input: Input,
    layout: Layout,
) -> Result<Matrix, NpyError> {
    let read_err = |msg: String| NpyError::Read {
        arg,
        path: path.display().to_string(),
        msg,
    };
    let mut file = std::fs::File::open(path).map_err(|e| read_err(e.to_string()))?;
    let file_len = file.metadata().map_err(|e| read_err(e.to_string()))?.len();
    let (data_at, shape) = check_header(&mut file, file_len).map_err(read_err)?;
    file.seek(SeekFrom::Start(0))
        .map_err(|e| read_err(e.to_string()))?;
    let npy = npyz::NpyFile::new(BufReader::new(file)).map_err(|e| read_err(e.to_string()))?;
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
    // The shape must match the data: element count times element size is what follows the
    // header, no more and no less.
    let n = rows * cols; // checked in check_header
    let want = (n as u64).checked_mul(size as u64);
    if want != Some(file_len - data_at) {
        return Err(read_err(format!(
            "the shape {shape:?} of {size}-byte elements needs {} bytes of data, but the file has {}",
            want.map_or("more than 2^64".to_string(), |w| w.to_string()),
            file_len - data_at
        )));
    }
    let mut words = Vec::new();
    words.try_reserve_exact(n).map_err(|_| {
        read_err(format!(
            "{rows}×{cols} elements (8 bytes each) do not fit in memory"
        ))
    })?;
    words.resize(n, 0u64);
    let want_bits = bits_bytes(fmt);
    // Element `idx` of the file (file order) as (row, col), and its place in `words`.
    let place = |idx: usize| -> (usize, usize, usize) {
        let (row, col) = match order {
            Order::C => (idx / cols.max(1), idx % cols.max(1)),
            Order::Fortran => (idx % rows.max(1), idx / rows.max(1)),
        };
        let at = match layout {
            Layout::RowMajor => row * cols + col,
            Layout::ColMajor => col * rows + row,
        };
        (row, col, at)
    };
    let mut set = |idx: usize, w: Result<u64, String>| -> Result<(), NpyError> {
        let (row, col, at) = place(idx);
        words[at] = w.map_err(|msg| NpyError::Element { arg, row, col, msg })?;
        Ok(())
    };
    let bits = |b: u64| {
        if fmt.is_valid_encoding(b) {
            Ok(b)
        } else {
            Err(format!("{b:#x} is not a valid {} encoding", fmt.name))
        }
    };
    match (input, ts.type_char(), size) {
        (Input::Bits, TypeChar::Uint, w) if w == want_bits => match w {
            1 => fill::<u8>(npy, n, &read_err, |i, x| set(i, bits(u64::from(x))))?,
            2 => fill::<u16>(npy, n, &read_err, |i, x| set(i, bits(u64::from(x))))?,
            4 => fill::<u32>(npy, n, &read_err, |i, x| set(i, bits(u64::from(x))))?,
            _ => fill::<u64>(npy, n, &read_err, |i, x| set(i, bits(x)))?,
        },
        (Input::Bits, _, _) => {
            return Err(bad_dtype(format!(
                "raw {} encodings are read from a uint{} array",
                fmt.name,
                8 * want_bits
            )))
        }
        (Input::Values, TypeChar::Float, 2) => fill::<f16>(npy, n, &read_err, |i, x| {
            set(i, convert(fmt, &FP16, u64::from(x.to_bits())))
        })?,
        (Input::Values, TypeChar::Float, 4) => fill::<f32>(npy, n, &read_err, |i, x| {
            set(i, convert(fmt, &FP32, u64::from(x.to_bits())))
        })?,
        (Input::Values, TypeChar::Float, 8) => fill::<f64>(npy, n, &read_err, |i, x| {
            set(i, convert(fmt, &FP64, x.to_bits()))
        })?,
        (Input::Values, _, _) => {
            return Err(bad_dtype(format!(
                "a float16, float32 or float64 array of values exact in {0}, or raw encodings in a uint{1} array with --{2}-bits",
                fmt.name,
                8 * want_bits,
                arg.trim_start_matches("--").split('-').next().unwrap_or("a")
            )))
        }
    }
    Ok(Matrix { rows, cols, words })
}

/// The `n` elements of `npy`, in file order, each handed to `put` with its index as it is
/// read (no array of them is kept).
fn fill<T: npyz::Deserialize>(
    npy: npyz::NpyFile<BufReader<std::fs::File>>,
    n: usize,
    read_err: &dyn Fn(String) -> NpyError,
    mut put: impl FnMut(usize, T) -> Result<(), NpyError>,
) -> Result<(), NpyError> {
    let data = npy.data::<T>().map_err(|e| read_err(e.to_string()))?;
    let mut count = 0;
    for (idx, x) in data.enumerate().take(n) {
        put(idx, x.map_err(|e| read_err(e.to_string()))?)?;
        count += 1;
    }
    if count != n {
        return Err(read_err(format!(
            "the file ends after {count} of its {n} elements"
        )));
    }
    Ok(())
}

/// The header's length and shape, read and checked before `npyz` sees the file (whose shape
/// product would overflow, and whose header read allocates what the length field says):
/// returns where the data starts and the shape. The element count must fit in `usize`.
fn check_header(file: &mut std::fs::File, file_len: u64) -> Result<(u64, Vec<u64>), String> {
    let mut pre = [0u8; 12];
    let got = file.read(&mut pre).map_err(|e| e.to_string())?;
    if got < 10 || &pre[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let (len, at) = match pre[6] {
        1 => (u64::from(u16::from_le_bytes([pre[8], pre[9]])), 10u64),
        2 | 3 if got >= 12 => (
            u64::from(u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]])),
            12,
        ),
        v => {
            return Err(format!(
                ".npy format version {v} is not supported (1, 2 or 3)"
            ))
        }
    };
    if len > MAX_HEADER || at + len > file_len {
        return Err(format!(
            "the header claims {len} bytes but the file has {} after the preamble",
            file_len.saturating_sub(at)
        ));
    }
    let mut text = vec![0u8; len as usize];
    file.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
    file.read_exact(&mut text).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&text);
    let shape = shape_of(&text).ok_or("the header has no readable 'shape' tuple")?;
    let mut n: usize = 1;
    for &d in &shape {
        n = usize::try_from(d)
            .ok()
            .and_then(|d| n.checked_mul(d))
            .ok_or_else(|| format!("the shape {shape:?} has more elements than fit in memory"))?;
    }
    Ok((at + len, shape))
}

/// The integers of the header's `'shape': (..)` tuple.
fn shape_of(header: &str) -> Option<Vec<u64>> {
    let key = header
        .find("'shape'")
        .or_else(|| header.find("\"shape\""))?;
    let rest = &header[key + 7..];
    let open = rest.find('(')?;
    let close = rest[open..].find(')')? + open;
    rest[open + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.trim_end_matches('L').parse::<u64>().ok())
        .collect()
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
    let text = mma::codec::decimal::shortest(from, bits);
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

/// Writes `m` (words of `fmt`) as a 2-D `.npy` (see the module docs), atomically.
pub fn write(path: &Path, arg: &'static str, fmt: &Format, m: &Matrix) -> Result<(), NpyError> {
    write_checked(path, arg, fmt, m, &[])
}

/// [`write()`], refusing a `path` that is one of `inputs` (by device and inode). The old file is
/// replaced only once the new one is complete (`mma_io::out::OutFile`): a failed write leaves
/// it as it was.
pub fn write_checked(
    path: &Path,
    arg: &'static str,
    fmt: &Format,
    m: &Matrix,
    inputs: &[&Path],
) -> Result<(), NpyError> {
    let err = |msg: String| NpyError::Write {
        arg,
        path: path.display().to_string(),
        msg,
    };
    let mut file = OutFile::create(path, inputs).map_err(|e| match e {
        OutError::SameAsInput { .. } => NpyError::SameAsInput {
            arg,
            msg: e.to_string(),
        },
        OutError::Io { source, .. } => err(source.to_string()),
    })?;
    let shape = [m.rows as u64, m.cols as u64];
    let ws = m.words.iter().copied();
    let w = &mut file;
    match (fmt.name, bits_bytes(fmt)) {
        ("f16", _) => put(w, &shape, ws.map(|b| f16::from_bits(b as u16))),
        ("f32", _) => put(w, &shape, ws.map(|b| f32::from_bits(b as u32))),
        ("f64", _) => put(w, &shape, ws.map(f64::from_bits)),
        (_, 1) => put(w, &shape, ws.map(|b| b as u8)),
        (_, 2) => put(w, &shape, ws.map(|b| b as u16)),
        (_, 4) => put(w, &shape, ws.map(|b| b as u32)),
        _ => put(w, &shape, ws),
    }
    .map_err(|e| err(e.to_string()))?;
    file.commit().map_err(|e| err(e.to_string()))
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
    use mma::format::{BF16, E4M3};

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
