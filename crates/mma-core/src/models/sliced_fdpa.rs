//! Sliced FDPA: a block evaluated as several T-FDPA passes over interleaved slices of K, with C
//! added last by a separate rounded addition.
//!
//! 1. Pass `p` takes the products with `(k / group) % passes == p`.
//! 2. The first pass starts from +0; each later pass takes the previous pass's result as its
//!    C. Every pass is a T-FDPA step with the pass's own output rounding (`pass.out`).
//! 3. C enters only at the end: `d = round_last(d_last + c)`, one exact addition rounded by
//!    `last` into the pass's output format (the NaN and zero conventions are the pass's).
//!
//! This is the arithmetic of `mma.sync` e4m3/e5m2 on Hopper (H100, fp16 output) and Blackwell
//! (B200, both outputs), which no published model reproduces. It was established on the
//! hardware records of Khattak and Mikaitis by a closed loop (hypothesis, targeted records,
//! all records): with `group = 2`, `passes = 2` and the f16 HMMA step of the architecture
//! (F = 25; RNE to fp16 with e_zero = -21, or RZ to fp32 with e_zero = -133), and `last` =
//! RNE, it matches 2500/2500 records of each of H100 E4M3, H100 E5M2, B200 E4M3 and B200 E5M2
//! with fp16 output and of B200 E4M3 and E5M2 with fp32 output. The fp32 passes' rounding is
//! fixed by one further record whose second pass is not an fp32 number (mma-nvidia's
//! `tests/b200_fp8_pass_rounding.rs`). The slices are those of the fp8 `m16n8k32` register
//! layout converted to the f16 `m16n8k16` layout (each thread's four consecutive k values
//! split into two pairs), which suggests the instruction is carried out as two f16 MMAs and
//! a separate add of C. Other orders, directions and places for C score 1550-2144 of 2500
//! (mma-nvidia's `docs/fp8-mma-sync.md` lists them).

use crate::format::Format;
use crate::model::{untraced_block, BlockIn, Formats, Output, OutputRounding, MAX_BLOCK};
use crate::models::e_fdpa::exact_sum;
use crate::models::t_fdpa::TFdpa;
use crate::round::Rounding;
use crate::term::Term;
use crate::trace::{NoTrace, Num, Step, Tracer};
use crate::value::Value;

/// Parameters of a sliced unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlicedFdpa {
    /// The fused step each pass runs, and the output conventions of the whole.
    pub pass: TFdpa,
    /// Consecutive elements that stay together in one pass.
    pub group: usize,
    /// Number of passes.
    pub passes: usize,
    /// The rounding of the final addition of C (to the output format of `pass`), which need
    /// not be the passes' own rounding.
    pub last: Rounding,
    /// The precision of that addition where it is not the passes' own (their `rho` format):
    /// an open question's reading (`RNE-FP32` after `RZ-E8M13` passes, an fp32 add of C
    /// after the fp8 passes); `None` in the catalog.
    pub last_format: Option<crate::format::Format>,
}

untraced_block!(SlicedFdpa);

impl SlicedFdpa {
    /// [`BlockModel::block`](crate::model::BlockModel::block), telling `t` each step (each
    /// pass's T-FDPA steps included).
    #[inline]
    pub fn block_traced<T: Tracer>(&self, f: &Formats, x: &BlockIn<'_>, t: &mut T) -> u64 {
        let mut acc = f.d.encode(Value::POS_ZERO, 0);
        let mut ga = [0u64; MAX_BLOCK];
        let mut gb = [0u64; MAX_BLOCK];
        for p in 0..self.passes {
            let n = self.pass_elements(x, p, (&mut ga, &mut gb));
            t.step(|| Step::Subset {
                kind: "pass",
                index: p,
                elements: (0..x.a.len()).filter(|&k| self.pass_of(k) == p).collect(),
            });
            let step = BlockIn {
                a: &ga[..n],
                b: &gb[..n],
                c: acc,
                c_fmt: &f.d,
                scale_a: &[],
                scale_b: &[],
            };
            acc = self.pass.block_traced(f, &step, t);
            t.step(|| Step::BlockResult {
                d: Num::word(acc, &f.d),
            });
        }
        // C enters last, through one correctly rounded addition.
        let d = self.add_c_last_traced(f, acc, x.c, x.c_fmt, t);
        t.step(|| Step::Op {
            what: "C added last: passes + c".into(),
            x: Num::word(acc, &f.d),
            y: Num::word(x.c, x.c_fmt),
            z: None,
            result: Num::word(d, &f.d),
        });
        d
    }

    /// The pass that element `k` of a block belongs to (step 1).
    #[inline(always)]
    pub fn pass_of(&self, k: usize) -> usize {
        (k / self.group) % self.passes
    }

    /// The elements of pass `p` of block `x`, in order, into the front of `ga` and `gb`; how
    /// many there are.
    #[inline(always)]
    pub(crate) fn pass_elements(
        &self,
        x: &BlockIn<'_>,
        p: usize,
        (ga, gb): (&mut [u64; MAX_BLOCK], &mut [u64; MAX_BLOCK]),
    ) -> usize {
        let mut n = 0;
        for k in 0..x.a.len() {
            if self.pass_of(k) == p {
                ga[n] = x.a[k];
                gb[n] = x.b[k];
                n += 1;
            }
        }
        n
    }

    /// Step 3: `round_last(passes + c)` for the passes' result `acc` (a word of D's format) and
    /// C (`c` in `c_fmt`), with IEEE specials; the per-dot kernel calls it too.
    #[inline]
    pub fn add_c_last(&self, f: &Formats, acc: u64, c: u64, c_fmt: &Format) -> u64 {
        self.add_c_last_traced(f, acc, c, c_fmt, &mut NoTrace)
    }

    fn add_c_last_traced<T: Tracer>(
        &self,
        f: &Formats,
        acc: u64,
        c: u64,
        c_fmt: &Format,
        t: &mut T,
    ) -> u64 {
        let out = &self.pass.out;
        match (f.d.decode(acc), c_fmt.decode(c)) {
            (Value::Nan, _) | (_, Value::Nan) => out.encode(&f.d, Value::Nan),
            (Value::Inf { neg: a }, Value::Inf { neg: b }) if a != b => {
                out.encode(&f.d, Value::Nan)
            }
            (Value::Inf { neg }, _) | (_, Value::Inf { neg }) => {
                out.encode(&f.d, Value::Inf { neg })
            }
            (s, c) => {
                let terms = [Term::of_value(s, &f.d, 0), Term::of_value(c, c_fmt, 0)];
                let (sum, signs) = exact_sum(&terms);
                let last = Output {
                    rho: OutputRounding {
                        mode: self.last,
                        fmt: self.last_format.unwrap_or(out.rho.fmt),
                        ..out.rho
                    },
                    ..*out
                };
                let zero_neg = signs.zero_is_neg(self.last);
                last.round_encode_traced(&f.d, sum, zero_neg, t)
            }
        }
    }
}
