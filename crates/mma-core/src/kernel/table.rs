//! Decode tables: every storage word of a format of at most 16 bits, decoded once by
//! [`Format::decode`] and packed into a `u32`, so that the hot loops decode with one load and
//! never match on [`Value`].
//!
//! Packed layout (an [`Entry`]):
//!
//! | bits  | meaning |
//! | ----- | ------- |
//! | 0-11  | significand with the hidden bit (0 for a zero) |
//! | 12    | Inf or NaN (the fast paths hand such blocks to the plain model) |
//! | 13    | sign (as [`Value::is_neg`]) |
//! | 14-31 | scientific exponent `e = exp + man_bits`, signed (meaningless for zeros) |

use crate::format::{self, Format};
use crate::value::Value;
use std::sync::OnceLock;

/// A packed decoded element; see the module docs.
pub type Entry = u32;

pub const SIG_MASK: u32 = 0xfff;
pub const SPECIAL: u32 = 1 << 12;
pub const NEG_SHIFT: u32 = 13;
pub const E_SHIFT: u32 = 14;

/// Significand of an entry.
#[inline(always)]
pub fn sig(x: Entry) -> u32 {
    x & SIG_MASK
}

/// Scientific exponent of an entry.
#[inline(always)]
pub fn exp(x: Entry) -> i32 {
    (x as i32) >> E_SHIFT
}

/// Sign bit of an entry (0 or 1).
#[inline(always)]
pub fn neg(x: Entry) -> u32 {
    (x >> NEG_SHIFT) & 1
}

/// Whether a format can be tabulated: at most 16 storage bits, no ignored low bits, and a
/// significand that fits the 12-bit field.
pub fn tabulable(fmt: &Format) -> bool {
    fmt.storage_bits <= 16 && fmt.lsb == 0 && fmt.man_bits <= 10
}

/// Packs a decoded value of `fmt`.
pub fn pack(v: Value, fmt: &Format) -> Entry {
    match v {
        Value::Zero { neg } => (neg as u32) << NEG_SHIFT,
        Value::Finite { neg, sig, exp } => {
            debug_assert!(sig <= SIG_MASK as u64);
            (((exp + fmt.man_bits as i32) << E_SHIFT) as u32)
                | (neg as u32) << NEG_SHIFT
                | sig as u32
        }
        Value::Inf { neg } => SPECIAL | (neg as u32) << NEG_SHIFT,
        Value::Nan => SPECIAL,
    }
}

fn build(fmt: &Format) -> Box<[Entry]> {
    (0..1u64 << fmt.storage_bits)
        .map(|bits| pack(fmt.decode(bits), fmt))
        .collect()
}

/// A decode table: `entries[bits]` is the packed decoding of storage word `bits`.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    pub entries: &'static [Entry],
}

/// The table of `fmt`, built on first use and kept for the life of the process; `None` when the
/// format is not a named tabulable format.
pub fn table(fmt: &Format) -> Option<Table> {
    const N: usize = format::ALL.len();
    static TABLES: [OnceLock<Box<[Entry]>>; N] = [const { OnceLock::new() }; N];
    if !tabulable(fmt) {
        return None;
    }
    let i = format::ALL.iter().position(|f| same_encoding(f, fmt))?;
    let entries: &'static [Entry] = TABLES[i].get_or_init(|| build(fmt));
    Some(Table { entries })
}

/// Whether two formats decode every word alike (all fields but the name).
pub(crate) fn same_encoding(x: &Format, y: &Format) -> bool {
    (
        x.exp_bits,
        x.man_bits,
        x.bias,
        x.signed,
        x.specials,
        x.subnormals,
        x.storage_bits,
        x.lsb,
    ) == (
        y.exp_bits,
        y.man_bits,
        y.bias,
        y.signed,
        y.specials,
        y.subnormals,
        y.storage_bits,
        y.lsb,
    )
}

/// A decoder of storage words into [`Entry`]s, monomorphised into the fast loops.
pub trait Dec: Copy {
    fn get(&self, bits: u64) -> Entry;
}

/// Table decoding of an 8-bit (or narrower) format: one load, no bounds check.
#[derive(Clone, Copy, Debug)]
pub struct Table8(pub &'static [Entry; 256]);

impl Dec for Table8 {
    #[inline(always)]
    fn get(&self, bits: u64) -> Entry {
        self.0[(bits & 0xff) as usize]
    }
}

impl Table8 {
    /// The table of an 8-bit (or narrower) tabulable format.
    pub fn of(fmt: &Format) -> Option<Table8> {
        if fmt.storage_bits > 8 {
            return None;
        }
        let t = table(fmt)?;
        Some(Table8(t.entries.try_into().ok()?))
    }
}

/// Arithmetic decoding of a 16-bit IEEE format (`EXP` exponent and `MAN` mantissa bits): a few
/// shifts and masks, cheaper than a 256 KiB table that does not stay in the L1/L2 caches.
/// Gives the table's entry for every finite word; for zeros only the sign and the zero
/// significand agree (their exponent field is never read), for Inf/NaN only the flag.
#[derive(Clone, Copy, Debug)]
pub struct Ieee16<const EXP: u32, const MAN: u32>;

/// fp16 and bf16.
pub type F16Dec = Ieee16<5, 10>;
pub type Bf16Dec = Ieee16<8, 7>;

/// tf32 (NVIDIA tf32, AMD xf32) decoded from the fp32 word that holds it: the low 13 bits are
/// not part of the format (`Format::lsb`), so the word is shifted right by 13 and the remaining
/// 19 bits decoded as a 1-8-10 IEEE format. A NaN whose payload lies only in the dropped bits
/// reads as Inf, as [`Format::decode`] reads it; both are special to the fast paths.
#[derive(Clone, Copy, Debug)]
pub struct Tf32Dec;

impl Dec for Tf32Dec {
    #[inline(always)]
    fn get(&self, bits: u64) -> Entry {
        Ieee16::<8, 10> {}.get(bits >> 13)
    }
}

impl<const EXP: u32, const MAN: u32> Dec for Ieee16<EXP, MAN> {
    #[inline(always)]
    fn get(&self, bits: u64) -> Entry {
        let x = bits as u32;
        let top = (1u32 << EXP) - 1;
        let ef = (x >> MAN) & top;
        let m = x & ((1u32 << MAN) - 1);
        let special = ((ef == top) as u32) << 12;
        let sig = m | ((ef != 0) as u32) << MAN;
        let bias = (1i32 << (EXP - 1)) - 1;
        let e = ef.max(1) as i32 - bias;
        let neg = (x >> (EXP + MAN)) & 1;
        ((e << E_SHIFT) as u32) | neg << NEG_SHIFT | special | sig
    }
}

/// For two formats of at most 4 bits without Inf/NaN codes: the exact product of every pair of
/// codes `(x << 4) | y`, as a signed multiple of the smallest product quantum
/// `2^(min_lsb_exp(a) + min_lsb_exp(b))`. Built once per pair of named formats.
pub fn products4(fa: &Format, fb: &Format) -> Option<&'static [i32; 256]> {
    const N: usize = format::ALL.len();
    static PRODS: [OnceLock<[i32; 256]>; N * N] = [const { OnceLock::new() }; N * N];
    let ok = |f: &Format| f.width() <= 4 && f.specials == format::Specials::None && tabulable(f);
    if !ok(fa) || !ok(fb) {
        return None;
    }
    let ia = format::ALL.iter().position(|f| same_encoding(f, fa))?;
    let ib = format::ALL.iter().position(|f| same_encoding(f, fb))?;
    Some(PRODS[ia * N + ib].get_or_init(|| {
        let lsb0 = fa.min_lsb_exp() + fb.min_lsb_exp();
        core::array::from_fn(|i| {
            let (x, y) = ((i >> 4) as u64, (i & 15) as u64);
            match (fa.decode(x), fb.decode(y)) {
                (
                    Value::Finite {
                        neg: na,
                        sig: sa,
                        exp: xa,
                    },
                    Value::Finite {
                        neg: nb,
                        sig: sb,
                        exp: xb,
                    },
                ) => {
                    let v = ((sa * sb) << (xa + xb - lsb0)) as i32;
                    if na != nb {
                        -v
                    } else {
                        v
                    }
                }
                _ => 0,
            }
        })
    }))
}

/// For a format of at most 4 bits without Inf/NaN codes: the signed value of each code in
/// units of its smallest quantum `2^min_lsb_exp`, where every value fits an `i8` (the vector
/// GST-FDPA block looks them up 16 at a time). The caller checks the products against
/// [`products4`].
pub fn values4(f: &Format) -> Option<[i8; 16]> {
    if f.width() > 4 || f.specials != format::Specials::None || !tabulable(f) {
        return None;
    }
    let mut t = [0i8; 16];
    for (c, v) in t.iter_mut().enumerate() {
        *v = match f.decode(c as u64) {
            Value::Finite { neg, sig, exp } => {
                let sh = u32::try_from(exp - f.min_lsb_exp())
                    .ok()
                    .filter(|&s| s < 8)?;
                let m = i8::try_from(sig.checked_shl(sh)?).ok()?;
                if neg {
                    -m
                } else {
                    m
                }
            }
            Value::Zero { .. } => 0,
            _ => return None,
        };
    }
    Some(t)
}
