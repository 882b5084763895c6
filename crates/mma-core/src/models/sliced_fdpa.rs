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

use crate::model::{BlockIn, BlockModel, Formats, Output, OutputRounding, MAX_BLOCK};
use crate::models::e_fdpa::exact_sum;
use crate::models::t_fdpa::TFdpa;
use crate::round::Rounding;
use crate::term::Term;
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
}

impl BlockModel for SlicedFdpa {
    fn block(&self, f: &Formats, x: &BlockIn<'_>) -> u64 {
        let mut acc = f.d.encode(Value::POS_ZERO, 0);
        let mut ga = [0u64; MAX_BLOCK];
        let mut gb = [0u64; MAX_BLOCK];
        for p in 0..self.passes {
            let mut n = 0;
            for k in 0..x.a.len() {
                if (k / self.group) % self.passes == p {
                    ga[n] = x.a[k];
                    gb[n] = x.b[k];
                    n += 1;
                }
            }
            let step = BlockIn {
                a: &ga[..n],
                b: &gb[..n],
                c: acc,
                c_fmt: &f.d,
                scale_a: &[],
                scale_b: &[],
            };
            acc = self.pass.block(f, &step);
        }
        // C enters last, through one correctly rounded addition.
        let out = &self.pass.out;
        let s = f.d.decode(acc);
        let c = x.c_fmt.decode(x.c);
        match (s, c) {
            (Value::Nan, _) | (_, Value::Nan) => out.encode(&f.d, Value::Nan),
            (Value::Inf { neg: a }, Value::Inf { neg: b }) if a != b => {
                out.encode(&f.d, Value::Nan)
            }
            (Value::Inf { neg }, _) | (_, Value::Inf { neg }) => {
                out.encode(&f.d, Value::Inf { neg })
            }
            _ => {
                let terms = [Term::of_value(s, &f.d, 0), Term::of_value(c, x.c_fmt, 0)];
                let (sum, signs) = exact_sum(&terms);
                let last = Output {
                    rho: OutputRounding {
                        mode: self.last,
                        ..out.rho
                    },
                    ..*out
                };
                last.round_encode(&f.d, sum.to_exact(), signs.zero_is_neg(self.last))
            }
        }
    }
}
