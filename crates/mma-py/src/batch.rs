//! `Unit.dots`: batches of dot products on raw storage words, in chunks of rows spread over
//! threads, evaluated with `Kernel::dots`: straight from the caller's words where they need no
//! check or unpacking (`Job::direct`), otherwise unpacked into bytes (the 8-bit and narrower
//! formats, `Job::load_bytes`) or widened to the engine's `u64` words (`Job::load`), checking
//! every encoding on the way.

use crate::run;
use mma::{Format, Kernel};
use numpy::{PyArrayDescrMethods, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// How A and B elements sit in their words: the catalog's own layout.
pub use mma::catalog::Layout;

/// A NumPy array of unsigned words, borrowed read-only.
pub enum Held<'py> {
    U8(PyReadonlyArrayDyn<'py, u8>),
    U16(PyReadonlyArrayDyn<'py, u16>),
    U32(PyReadonlyArrayDyn<'py, u32>),
    U64(PyReadonlyArrayDyn<'py, u64>),
}

/// The words of a [`Held`] array.
#[derive(Clone, Copy)]
pub enum Src<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
}

impl<'py> Held<'py> {
    pub fn new(x: &Bound<'py, PyAny>) -> PyResult<Held<'py>> {
        // The dtype first, then the one extraction that fits it: trying uint8, uint16, ... in
        // turn built an exception for each miss, a few microseconds of a small call.
        let size = x
            .cast::<PyUntypedArray>()
            .ok()
            .map(|a| a.dtype())
            .filter(|d| d.kind() == b'u')
            .map(|d| d.itemsize());
        let held = match size {
            Some(1) => x.extract().ok().map(Held::U8),
            Some(2) => x.extract().ok().map(Held::U16),
            Some(4) => x.extract().ok().map(Held::U32),
            Some(8) => x.extract().ok().map(Held::U64),
            _ => None,
        };
        held.ok_or_else(|| {
            PyTypeError::new_err("expected a NumPy array of uint8, uint16, uint32 or uint64")
        })
    }

    pub fn src(&self) -> PyResult<Src<'_>> {
        let err = |e: numpy::AsSliceError| PyValueError::new_err(format!("array: {e}"));
        Ok(match self {
            Held::U8(x) => Src::U8(x.as_slice().map_err(err)?),
            Held::U16(x) => Src::U16(x.as_slice().map_err(err)?),
            Held::U32(x) => Src::U32(x.as_slice().map_err(err)?),
            Held::U64(x) => Src::U64(x.as_slice().map_err(err)?),
        })
    }
}

impl Src<'_> {
    pub fn len(&self) -> usize {
        match self {
            Src::U8(x) => x.len(),
            Src::U16(x) => x.len(),
            Src::U32(x) => x.len(),
            Src::U64(x) => x.len(),
        }
    }

    pub fn bits(&self) -> u32 {
        match self {
            Src::U8(_) => 8,
            Src::U16(_) => 16,
            Src::U32(_) => 32,
            Src::U64(_) => 64,
        }
    }

    /// Appends words `range` to `out`, widened.
    #[inline]
    pub fn extend(&self, from: usize, to: usize, out: &mut Vec<u64>) {
        match self {
            Src::U8(x) => widen8(&x[from..to], out),
            Src::U16(x) => widen16(&x[from..to], out),
            Src::U32(x) => widen32(&x[from..to], out),
            Src::U64(x) => out.extend_from_slice(&x[from..to]),
        }
    }
}

// Widening to the engine's u64 words costs about as much as the dot products themselves
// (bench/bench.py): compiled once more for AVX2 (chosen at run time, like the kernels), it
// takes one `vpmovzx` per four words.
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn widen8(x: &[u8], out: &mut Vec<u64>) {
    out.extend(x.iter().map(|&w| u64::from(w)));
}

#[multiversion::multiversion(targets("x86_64+avx2"))]
fn widen16(x: &[u16], out: &mut Vec<u64>) {
    out.extend(x.iter().map(|&w| u64::from(w)));
}

#[multiversion::multiversion(targets("x86_64+avx2"))]
fn widen32(x: &[u32], out: &mut Vec<u64>) {
    out.extend(x.iter().map(|&w| u64::from(w)));
}

/// The first bad word met: operand, flat index into its array, the word, and why.
#[derive(Debug)]
pub struct Bad {
    pub field: &'static str,
    pub index: usize,
    pub word: u64,
    pub msg: String,
}

impl Bad {
    /// `ValueError(message, field, index, word)`: the Python half turns the flat index into the
    /// caller's multi-index.
    pub fn into_py_err(self) -> PyErr {
        let msg = format!(
            "{}: word {:#x} at flat index {}: {}",
            self.field, self.word, self.index, self.msg
        );
        PyValueError::new_err((msg, self.field, self.index, self.word))
    }
}

/// A word of D's storage width.
pub trait Word: Copy + Default + Send + Sync {
    /// The low bits of an engine word (D's words fit their storage width).
    fn narrow(w: u64) -> Self;
}

impl Word for u16 {
    fn narrow(w: u64) -> u16 {
        w as u16
    }
}

impl Word for u32 {
    fn narrow(w: u64) -> u32 {
        w as u32
    }
}

impl Word for u64 {
    fn narrow(w: u64) -> u64 {
        w
    }
}

/// What each byte of an operand held in bytes, or of a scale factor, means: whether it is a
/// valid element in the layout, and which code it holds.
enum ByteMap {
    /// Valid where `w & zero == 0`; the code is `w >> shift` (the layout's own
    /// [`Layout::byte_mask`]). Every layout of the catalogs takes this form: fp4 in bits 5:2
    /// of a byte (`kind::f8f6f4`), fp6 in bits 5:0, and an 8-bit format all of whose 256
    /// encodings are valid (`zero == 0`, the byte its own code).
    Mask { zero: u8, shift: u32 },
    /// Any other format: each byte's code, `None` where the byte is no valid element.
    Table(Box<[Option<u8>; 256]>),
}

impl ByteMap {
    fn new(fmt: &Format, layout: Layout) -> ByteMap {
        match layout.byte_mask(fmt) {
            Some(m) => ByteMap::Mask {
                zero: m.zero,
                shift: m.shift,
            },
            None => {
                let mut code = Box::new([None; 256]);
                for (w, c) in code.iter_mut().enumerate() {
                    *c = fmt.is_valid_encoding(w as u64).then_some(w as u8);
                }
                ByteMap::Table(code)
            }
        }
    }

    /// The index of the first byte of `x` that is no valid element.
    fn first_bad(&self, x: &[u8]) -> Option<usize> {
        match self {
            ByteMap::Mask { zero, .. } => {
                // One pass that vectorizes; the position only where there is a bad byte.
                if or_masked(x, *zero) == 0 {
                    return None;
                }
                x.iter().position(|&w| w & zero != 0)
            }
            ByteMap::Table(code) => x.iter().position(|&w| code[w as usize].is_none()),
        }
    }

    /// Appends the codes of `x`, every byte of which is valid ([`ByteMap::first_bad`]).
    fn extend_codes(&self, x: &[u8], out: &mut Vec<u8>) {
        match self {
            ByteMap::Mask { shift: 0, .. } => out.extend_from_slice(x),
            ByteMap::Mask { shift, .. } => shift_right(x, *shift, out),
            ByteMap::Table(code) => out.extend(x.iter().map(|&w| code[w as usize].unwrap_or(0))),
        }
    }
}

// These loops run over every operand byte of a call, so they are written to vectorize and
// compiled once more for AVX2 (chosen at run time, like the widening above): 32 bytes per
// instruction. A table lookup per byte, as before, cost about as much as the kernel's
// dot products of 8-bit and narrower formats.
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn or_masked(x: &[u8], mask: u8) -> u8 {
    x.iter().fold(0, |m, &w| m | (w & mask))
}

#[multiversion::multiversion(targets("x86_64+avx2"))]
fn shift_right(x: &[u8], shift: u32, out: &mut Vec<u8>) {
    out.extend(x.iter().map(|&w| w >> shift));
}

/// Two fp4 codes per byte, element `2i` in the high nibble ([`Layout::fp4_pair`], inlined):
/// every byte is valid.
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn unpack_fp4(x: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + 2 * x.len(), 0);
    for (pair, &w) in out[start..].chunks_exact_mut(2).zip(x) {
        let [hi, lo] = Layout::fp4_pair(w);
        pair[0] = hi;
        pair[1] = lo;
    }
}

/// One call of `Unit.dots`, its arrays flattened: `n = c.len()` rows.
pub struct Job<'a> {
    pub kernel: &'a Kernel,
    pub layout: Layout,
    pub a: Src<'a>,
    pub b: Src<'a>,
    pub c: Src<'a>,
    pub scale_a: &'a [u8],
    pub scale_b: &'a [u8],
    /// Elements per dot product.
    pub k: usize,
    /// Elements per instruction (the K loop's step).
    pub k_step: usize,
}

/// Elements of A per task (B has as many): about 1 MiB of widened words each. Measured on
/// Hopper f16 (bench/bench.py): smaller chunks call the kernel more often for little gain in
/// cache, larger ones leave the caches.
const CHUNK_ELEMENTS: usize = 1 << 17;

impl Job<'_> {
    fn row_words(&self) -> usize {
        self.layout.words_for(self.k)
    }

    /// Lengths, dtypes and K against the unit; a `ValueError`/`TypeError` naming the argument.
    pub fn check(&self) -> PyResult<()> {
        let unit = &self.kernel.unit;
        let f = &unit.formats;
        let n = self.c.len();
        let (k, step) = (self.k, self.k_step);
        if step == 0 || k == 0 || k % step != 0 {
            return Err(PyValueError::new_err(format!(
                "K = {k} is not a positive multiple of the instruction's K = {step}"
            )));
        }
        let per = self.layout.per_word();
        if self.layout.packed() && step % per != 0 {
            return Err(PyValueError::new_err(format!(
                "{} needs K a multiple of {per}",
                self.layout.name()
            )));
        }
        if k > step && f.c != f.d {
            return Err(PyValueError::new_err(format!(
                "K = {k} needs {} instructions chained with D fed back as C, but C is {} and D is {}",
                k / step,
                f.c.name,
                f.d.name
            )));
        }
        for (name, src, fmt) in [("a", &self.a, &f.a), ("b", &self.b, &f.b)] {
            let want = self.layout.word_bits(fmt);
            if src.bits() != want {
                return Err(PyTypeError::new_err(format!(
                    "{name}: expected uint{want} words ({}), got uint{}",
                    fmt.name,
                    src.bits()
                )));
            }
            let want_len = n.checked_mul(self.row_words());
            if want_len != Some(src.len()) {
                return Err(PyValueError::new_err(format!(
                    "{name}: {} words, expected {n} rows of {}",
                    src.len(),
                    self.row_words()
                )));
            }
        }
        if self.c.bits() != f.c.storage_bits {
            return Err(PyTypeError::new_err(format!(
                "c: expected uint{} words ({}), got uint{}",
                f.c.storage_bits,
                f.c.name,
                self.c.bits()
            )));
        }
        let s = unit.scales_for(step) * (k / step);
        for (name, x) in [("scale_a", self.scale_a), ("scale_b", self.scale_b)] {
            if x.len() != n * s {
                return Err(PyValueError::new_err(format!(
                    "{name}: {} bytes, expected {n} rows of {s}",
                    x.len()
                )));
            }
        }
        Ok(())
    }

    /// Operand `which` ("a" or "b"): its words and its format.
    fn operand(&self, which: &str) -> (&Src<'_>, &Format) {
        let f = &self.kernel.unit.formats;
        if which == "a" {
            (&self.a, &f.a)
        } else {
            (&self.b, &f.b)
        }
    }

    /// Widens rows `r0..r1`, elements `e0..e1` of each, of operand `which` into `out`,
    /// checking every encoding: one element per word (the other layouts are held in bytes and
    /// go through [`Job::load_bytes`]).
    fn load(
        &self,
        which: &'static str,
        (r0, r1): (usize, usize),
        (e0, e1): (usize, usize),
        out: &mut Vec<u64>,
    ) -> Result<(), Bad> {
        let (src, fmt) = self.operand(which);
        debug_assert_eq!(
            self.layout,
            Layout::Plain,
            "other layouts are held in bytes"
        );
        let rw = self.row_words();
        let start = out.len();
        if (e0, e1) == (0, rw) {
            // Whole rows: one contiguous run of words, widened in one pass.
            src.extend(r0 * rw, r1 * rw, out);
        } else {
            for r in r0..r1 {
                src.extend(r * rw + e0, r * rw + e1, out);
            }
        }
        // Every word of the source width is a valid encoding of most formats (f16 in uint16,
        // f32 in uint32, ...): then there is nothing to check.
        let all_valid = fmt.is_valid_encoding(u64::MAX >> (64 - src.bits()));
        if !all_valid {
            let per_row = e1 - e0;
            for (j, &w) in out[start..].iter().enumerate() {
                if !fmt.is_valid_encoding(w) {
                    let (r, e) = (r0 + j / per_row, e0 + j % per_row);
                    return Err(Bad {
                        field: which,
                        index: r * rw + e,
                        word: w,
                        msg: format!("not a valid {} encoding", fmt.name),
                    });
                }
            }
        }
        Ok(())
    }

    /// As [`Job::load`] for operands held in bytes (the 8-bit and narrower formats, every
    /// layout), into one byte per element: the engine reads bytes directly, and `map` (the
    /// operand's, made once per chunk) says for each byte whether it is valid and which code
    /// it holds. Whole rows are one run of bytes, checked and converted in one pass.
    fn load_bytes(
        &self,
        which: &'static str,
        map: &ByteMap,
        (r0, r1): (usize, usize),
        (e0, e1): (usize, usize),
        out: &mut Vec<u8>,
    ) -> Result<(), Bad> {
        let (src, _) = self.operand(which);
        let Src::U8(x) = *src else {
            unreachable!("load_bytes on {} words (checked: Job::bytes)", src.bits())
        };
        let rw = self.row_words();
        // Two fp4 per byte in the packed layout: element `e` is in byte `e / 2` of its row.
        let per_byte = self.layout.per_word();
        if (e0, e1) == (0, self.k) {
            return self.load_run(which, map, x, (r0 * rw, r1 * rw), out);
        }
        for r in r0..r1 {
            let run = (r * rw + e0 / per_byte, r * rw + e1 / per_byte);
            self.load_run(which, map, x, run, out)?;
        }
        Ok(())
    }

    /// Bytes `from..to` of operand `which` (`x`) for [`Job::load_bytes`].
    fn load_run(
        &self,
        which: &'static str,
        map: &ByteMap,
        x: &[u8],
        (from, to): (usize, usize),
        out: &mut Vec<u8>,
    ) -> Result<(), Bad> {
        let run = &x[from..to];
        match self.layout {
            Layout::PackedFp4 => {
                unpack_fp4(run, out);
                return Ok(());
            }
            // Every nibble and every bit is a valid s4/u4/b1 element.
            Layout::PackedInt4 => {
                out.extend(run.iter().flat_map(|&w| [w & 0xF, w >> 4]));
                return Ok(());
            }
            Layout::Bits => {
                out.extend(run.iter().flat_map(|&w| (0..8).map(move |i| (w >> i) & 1)));
                return Ok(());
            }
            _ => {}
        }
        if let Some(j) = map.first_bad(run) {
            return Err(self.bad_byte(which, from + j, run[j]));
        }
        map.extend_codes(run, out);
        Ok(())
    }

    /// The error for byte `index` of operand `which`, `word`, which is no valid element.
    fn bad_byte(&self, which: &'static str, index: usize, word: u8) -> Bad {
        let (_, fmt) = self.operand(which);
        Bad {
            field: which,
            index,
            word: u64::from(word),
            msg: self.layout.misfit(fmt).to_string(),
        }
    }

    /// Whether A and B are both held in bytes (see [`Job::load_bytes`]).
    fn bytes(&self) -> bool {
        matches!((self.a, self.b), (Src::U8(_), Src::U8(_)))
    }

    /// Scale bytes of rows `r0..r1`, scales `s0..s1` of each (of `s` per row), checked by
    /// `map` (the scale format's, made once per chunk) and widened; whole rows are one run of
    /// bytes. Nothing without block scaling.
    fn load_scales(
        &self,
        which: &'static str,
        map: Option<&ByteMap>,
        (r0, r1): (usize, usize),
        (s0, s1, s): (usize, usize, usize),
        out: &mut Vec<u64>,
    ) -> Result<(), Bad> {
        let (Some((fmt, _)), Some(map)) = (self.kernel.unit.formats.scale, map) else {
            return Ok(());
        };
        let x = if which == "scale_a" {
            self.scale_a
        } else {
            self.scale_b
        };
        let mut run = |from: usize, to: usize| -> Result<(), Bad> {
            let bytes = &x[from..to];
            if let Some(j) = map.first_bad(bytes) {
                return Err(Bad {
                    field: which,
                    index: from + j,
                    word: u64::from(bytes[j]),
                    msg: format!("not a valid {} encoding", fmt.name),
                });
            }
            widen8(bytes, out);
            Ok(())
        };
        if (s0, s1) == (0, s) {
            return run(r0 * s, r1 * s);
        }
        for r in r0..r1 {
            run(r * s + s0, r * s + s1)?;
        }
        Ok(())
    }

    /// Rows `r0..r1` straight from the caller's words, without widening or copying: where A
    /// and B hold one element per word, every word of their width is a valid encoding (nothing
    /// to check), they have the same width, there are no scale factors, and the unit's own
    /// K-chaining over the whole row (blocks of `L_max`, each result fed on as C) is the
    /// instruction chain: one instruction, or instructions whose K is a whole number of
    /// blocks. An instruction whose K is shorter than its block (Hopper `m16n8k8` f16, K 8 and
    /// `L_max` 16) ends a block early at every instruction boundary, which the whole-row
    /// chaining would not. `false` (nothing written) otherwise.
    fn direct(&self, (r0, r1): (usize, usize), c: &[u64], d: &mut [u64]) -> bool {
        let unit = &self.kernel.unit;
        let f = &unit.formats;
        let valid =
            |src: &Src<'_>, fmt: &Format| fmt.is_valid_encoding(u64::MAX >> (64 - src.bits()));
        let chains_alike = self.k == self.k_step || self.k_step.is_multiple_of(unit.block);
        if !chains_alike
            || self.layout != Layout::Plain
            || f.scale.is_some()
            || !valid(&self.a, &f.a)
            || !valid(&self.b, &f.b)
        {
            return false;
        }
        let (k, e0, e1) = (self.k, r0 * self.k, r1 * self.k);
        let kern = self.kernel;
        let done = match (self.a, self.b) {
            (Src::U8(a), Src::U8(b)) => kern.dots(k, &a[e0..e1], &b[e0..e1], c, d),
            (Src::U16(a), Src::U16(b)) => kern.dots(k, &a[e0..e1], &b[e0..e1], c, d),
            (Src::U32(a), Src::U32(b)) => kern.dots(k, &a[e0..e1], &b[e0..e1], c, d),
            (Src::U64(a), Src::U64(b)) => kern.dots(k, &a[e0..e1], &b[e0..e1], c, d),
            _ => return false,
        };
        done.is_ok()
    }

    /// Rows `r0..r0 + out.len()` into `out`, D's words narrowed to its storage width.
    fn chunk<T: Word>(&self, r0: usize, out: &mut [T]) -> Result<(), Bad> {
        let unit = &self.kernel.unit;
        let mut d = vec![0u64; out.len()];
        let d = &mut d[..];
        let r1 = r0 + d.len();
        let rows = (r0, r1);
        let steps = self.k / self.k_step;
        let s_step = unit.scales_for(self.k_step);
        let s_row = s_step * steps;
        let c_fmt = &unit.formats.c;
        let mut acc = Vec::with_capacity(d.len());
        self.c.extend(r0, r1, &mut acc);
        let c_all_valid = c_fmt.is_valid_encoding(u64::MAX >> (64 - self.c.bits()));
        for (r, &w) in (r0..r1).zip(&acc) {
            if c_all_valid {
                break;
            }
            if !c_fmt.is_valid_encoding(w) {
                return Err(Bad {
                    field: "c",
                    index: r,
                    word: w,
                    msg: format!("not a valid {} encoding", c_fmt.name),
                });
            }
        }
        let n = d.len();
        if self.direct(rows, &acc, d) {
            for (o, &w) in out.iter_mut().zip(d.iter()) {
                *o = T::narrow(w);
            }
            return Ok(());
        }
        // One instruction step at a time (its K elements of every row, its scale factors), D
        // fed back as C; operands held in bytes stay bytes, others are widened.
        let cap = n * self.k_step;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (mut a8, mut b8) = (Vec::new(), Vec::new());
        let (mut sa, mut sb) = (Vec::new(), Vec::new());
        let f = &self.kernel.unit.formats;
        let scale_map = f.scale.map(|(fmt, _)| ByteMap::new(&fmt, Layout::Plain));
        let maps = self.bytes().then(|| {
            (
                ByteMap::new(&f.a, self.layout),
                ByteMap::new(&f.b, self.layout),
            )
        });
        for t in 0..steps {
            let el = (t * self.k_step, (t + 1) * self.k_step);
            let sc = (t * s_step, (t + 1) * s_step, s_row);
            sa.clear();
            sb.clear();
            self.load_scales("scale_a", scale_map.as_ref(), rows, sc, &mut sa)?;
            self.load_scales("scale_b", scale_map.as_ref(), rows, sc, &mut sb)?;
            let done = if let Some((ma, mb)) = &maps {
                for v in [&mut a8, &mut b8] {
                    v.clear();
                    v.reserve(cap);
                }
                self.load_bytes("a", ma, rows, el, &mut a8)?;
                self.load_bytes("b", mb, rows, el, &mut b8)?;
                self.kernel
                    .dots_scaled(self.k_step, &a8, &b8, &acc, &sa, &sb, d)
            } else {
                for v in [&mut a, &mut b] {
                    v.clear();
                    v.reserve(cap);
                }
                self.load("a", rows, el, &mut a)?;
                self.load("b", rows, el, &mut b)?;
                self.kernel
                    .dots_scaled(self.k_step, &a, &b, &acc, &sa, &sb, d)
            };
            done.map_err(|e| Bad {
                field: "a",
                index: r0,
                word: 0,
                msg: e.to_string(),
            })?;
            acc.copy_from_slice(d);
        }
        for (o, &w) in out.iter_mut().zip(d.iter()) {
            *o = T::narrow(w);
        }
        Ok(())
    }

    /// Every row, in chunks over threads (`run::chunked`: Ctrl-C stops it between rounds);
    /// the first bad word (in row-chunk order, so the same for any thread count) is the error.
    /// Call it with the GIL released.
    pub fn run<T: Word>(&self, threads: usize) -> PyResult<Vec<T>> {
        let n = self.c.len();
        let chunk = (CHUNK_ELEMENTS / self.k_step.max(1)).max(64) / 8 * 8;
        let mut d = run::zeroed::<T>(n, "d")?;
        run::chunked(&mut d, chunk, threads, |r0, out| self.chunk(r0, out)).map_err(
            |e| match e {
                run::Stop::Failed(bad) => bad.into_py_err(),
                run::Stop::Python(e) => e,
            },
        )?;
        Ok(d)
    }
}
