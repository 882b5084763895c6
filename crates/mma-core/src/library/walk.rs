//! The K walk of a library GEMM: k-tiles dealt to split-K parts, each part's tensor-core
//! chains (restarted at every promotion), their binary32 sums, and the parts combined in the
//! recipe's order. Every chain is an ordinary K-chained product of the unit from a +0 C
//! ([`DotUnit::gemm`], with its vector lanes and threads): the walk only chooses which
//! elements of K each chain takes and adds binary32 results.

use super::fp32::Fp32;
use super::recipe::{Assign, GemmRecipe, Order, RecipeError, Split};
use crate::drive::GemmIn;
use crate::format::FP32;
use crate::kernel::host_binary32_is_ieee;
use crate::unit::{check_lengths, DotUnit, ShapeError};
use std::sync::atomic::{AtomicBool, Ordering};

/// Multiply-adds of one round of a chain's product, after which the walk looks at its stop
/// flag ([`DotUnit::library_accumulate_until`]): a fraction of a second.
const ROUND_WORK: usize = 1 << 26;

/// One call of a library GEMM: `m×n` outputs over `k`, A row-major (`m×k`), B given column
/// by column (`n×k`: PyTorch's `mat2.t()`, or the `[N, K]` weight of a linear layer), words
/// of the unit's A and B formats.
#[derive(Clone, Copy, Debug)]
pub struct LibraryGemm<'a> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: &'a [u64],
    pub b_cols: &'a [u64],
    /// `use_fast_accum`: one chain per part instead of chains restarted at every promotion.
    pub fast_accum: bool,
    pub split: Split,
}

/// Why a library GEMM cannot run on a unit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WalkError {
    #[error(transparent)]
    Shape(#[from] ShapeError),
    #[error(transparent)]
    Recipe(#[from] RecipeError),
    #[error("the unit's C and D must both be binary32 (they are {c} and {d}): a library GEMM adds its chains' results in binary32")]
    NotFp32 { c: &'static str, d: &'static str },
    #[error("the unit's block scaling is not part of a library GEMM recipe")]
    Scaled,
    #[error("stopped before the end (interrupted)")]
    Stopped,
    #[error("{what}: {count} elements of {size} bytes do not fit in memory")]
    Memory {
        what: &'static str,
        count: usize,
        size: usize,
    },
}

/// A zeroed vector of `n` elements, or [`WalkError::Memory`] naming `what`: every buffer whose
/// size comes from the call is reserved this way, so that a call too large for the machine is
/// an error, never an abort of the process.
fn zeroed<T: Clone + Default>(n: usize, what: &'static str) -> Result<Vec<T>, WalkError> {
    crate::drive::try_zeroed(n).ok_or(WalkError::Memory {
        what,
        count: n,
        size: std::mem::size_of::<T>(),
    })
}

/// Where the elements of one chain come from: ranges of K in chain order.
type Segments = Vec<(usize, usize)>;

/// The chains of every part, in order: for part `p`, `chains[p]` lists each chain's segments
/// (an empty list: a chain over padding only, whose result is +0).
fn plan_chains(recipe: &GemmRecipe, k: usize, split: Split, fast: bool) -> Vec<Vec<Segments>> {
    let tile = recipe.split_k.tile;
    let tiles = k.div_ceil(tile);
    let s = split.parts;
    let own: Vec<Vec<usize>> = match recipe.split_k.assign {
        Assign::Interleaved => (0..s).map(|p| (p..tiles).step_by(s).collect()).collect(),
        Assign::Contiguous => {
            let q = tiles.div_ceil(s).max(1);
            (0..s)
                .map(|p| (p * q..((p + 1) * q).min(tiles)).collect())
                .collect()
        }
    };
    let promote = if fast { None } else { recipe.promote_every };
    own.iter()
        .map(|tiles_of_part| {
            // The part's own K, padded: its j-th tile sits at j·tile. Windows past the part's
            // last element hold padding only: their chains give +0, and adding +0 to the
            // promoted sum, which starts at +0 and so is never -0, changes nothing. So the
            // walk ends there, and its work is bounded by K, not by the tile.
            let padded = match tiles_of_part.last() {
                Some(&t) => (tiles_of_part.len() - 1) * tile + (((t + 1) * tile).min(k) - t * tile),
                None => 0,
            };
            let window = promote.unwrap_or(padded.max(1));
            let mut chains = Vec::new();
            let mut lo = 0;
            while lo < padded {
                let hi = lo + window;
                let mut segs: Segments = Vec::new();
                for (j, &t) in tiles_of_part.iter().enumerate() {
                    let (start, end) = (t * tile, ((t + 1) * tile).min(k));
                    let pp = j * tile;
                    let from = start + lo.saturating_sub(pp);
                    let to = end.min(start + hi.saturating_sub(pp));
                    if from < to {
                        match segs.last_mut() {
                            Some(last) if last.1 == from => last.1 = to,
                            _ => segs.push((from, to)),
                        }
                    }
                }
                chains.push(segs);
                lo = hi;
            }
            if chains.is_empty() {
                chains.push(Vec::new());
            }
            chains
        })
        .collect()
}

/// What computing one part needs: the call, and the two `m×n` buffers every chain reuses.
struct Walker<'a> {
    unit: &'a DotUnit,
    k_step: usize,
    x: &'a LibraryGemm<'a>,
    promoted: bool,
    native: bool,
    fp: &'a Fp32,
    words: Vec<u64>,
    zeros: Vec<u64>,
    threads: usize,
    stop: &'a AtomicBool,
}

impl Walker<'_> {
    /// One part's binary32 result into `out` (`m×n`). Fast: the part's one chain is its
    /// result. Promoted: the chains' results added into a binary32 sum from +0, in K order.
    fn part(&mut self, chains: &[Segments], out: &mut [u32]) -> Result<(), WalkError> {
        let (m, n, k) = (self.x.m, self.x.n, self.x.k);
        out.fill(0);
        for segs in chains {
            if self.stop.load(Ordering::Relaxed) {
                return Err(WalkError::Stopped);
            }
            self.unit.chain_gemm(
                (m, n, k),
                self.k_step,
                segs,
                self.x,
                &self.zeros,
                &mut self.words,
                (self.threads, self.stop),
            )?;
            if self.promoted {
                self.fp.add_all(out, &self.words, self.native);
            } else {
                for (a, &w) in out.iter_mut().zip(&self.words) {
                    *a = w as u32;
                }
            }
        }
        Ok(())
    }
}

/// `acc[i] += p[i]` in binary32 (RNE), element by element.
fn add_into(fp: &Fp32, acc: &mut [u32], p: &[u32]) {
    for (a, &b) in acc.iter_mut().zip(p) {
        *a = fp.add(*a, b);
    }
}

impl DotUnit {
    /// The binary32 accumulators (`m×n`, row-major, as bits) of a library GEMM before its
    /// epilogue: the unit's chains walked as `recipe` says for this call, with the unit's
    /// instruction K `k_step` (a chain's last instruction padded with zero elements, as a
    /// kernel's last k-tile is). `threads` as [`DotUnit::gemm`]; the result does not depend
    /// on it. `k = 0` gives +0 everywhere.
    pub fn library_accumulate(
        &self,
        k_step: usize,
        recipe: &GemmRecipe,
        x: &LibraryGemm<'_>,
        threads: usize,
    ) -> Result<Vec<u32>, WalkError> {
        self.library_accumulate_until(k_step, recipe, x, threads, &AtomicBool::new(false))
    }

    /// [`DotUnit::library_accumulate`], stopping with [`WalkError::Stopped`] soon after
    /// `stop` is set (another thread sets it: a Ctrl-C seen by the caller's caller). The walk
    /// looks at it between chains and between rounds of a fraction of a second within one.
    pub fn library_accumulate_until(
        &self,
        k_step: usize,
        recipe: &GemmRecipe,
        x: &LibraryGemm<'_>,
        threads: usize,
        stop: &AtomicBool,
    ) -> Result<Vec<u32>, WalkError> {
        let f = &self.formats;
        if f.c != FP32 || f.d != FP32 {
            return Err(WalkError::NotFp32 {
                c: f.c.name,
                d: f.d.name,
            });
        }
        if f.scale.is_some() {
            return Err(WalkError::Scaled);
        }
        recipe.check_split(x.split)?;
        let (m, n, k) = (x.m, x.n, x.k);
        check_lengths(&[("A", x.a.len(), m, k), ("B", x.b_cols.len(), n, k)])?;
        if k_step == 0 {
            return Err(ShapeError::Ragged { k, block: 0 }.into());
        }
        let mn = m.checked_mul(n).ok_or(ShapeError::TooLarge {
            which: "D",
            rows: m,
            cols: n,
        })?;
        if mn == 0 || k == 0 {
            return zeroed(mn, "D");
        }
        // One pool for every chain of the call, no larger than its rows need.
        crate::drive::with_pool(threads, m, |threads| {
            self.walk(k_step, recipe, x, mn, (threads, stop))
        })
    }

    /// [`DotUnit::library_accumulate`] after its checks, for `mn > 0` outputs and `k > 0`.
    /// The parts are computed one at a time and added as soon as the order allows, so that
    /// the call holds a fixed number of `m×n` buffers whatever S is: the serial order one
    /// running sum, the pairwise order the running sum and one slot (`P_i + P_{i+h}`).
    fn walk(
        &self,
        k_step: usize,
        recipe: &GemmRecipe,
        x: &LibraryGemm<'_>,
        mn: usize,
        (threads, stop): (usize, &AtomicBool),
    ) -> Result<Vec<u32>, WalkError> {
        let fp = Fp32::new();
        let chains = plan_chains(recipe, x.k, x.split, x.fast_accum);
        let mut w = Walker {
            unit: self,
            k_step,
            x,
            promoted: !x.fast_accum && recipe.promote_every.is_some(),
            // The host adds the promoted sums where its binary32 arithmetic is IEEE on this
            // thread.
            native: host_binary32_is_ieee(),
            fp: &fp,
            words: zeroed(mn, "a chain's outputs")?,
            zeros: zeroed(mn, "C (+0)")?,
            threads,
            stop,
        };
        let s = chains.len();
        let mut acc = zeroed::<u32>(mn, "the split-K sum")?;
        if s == 1 || x.split.order == Order::Serial {
            w.part(&chains[0], &mut acc)?;
            let mut p = zeroed::<u32>(if s > 1 { mn } else { 0 }, "a split-K part")?;
            for part in &chains[1..] {
                w.part(part, &mut p)?;
                add_into(&fp, &mut acc, &p);
            }
            return Ok(acc);
        }
        // Pairwise (`combine_one`): P_{S-1}, then slot_i = P_i (+ P_{i+h} where i + h < S - 1)
        // for i < h = ceil(S/2), each added in turn.
        let h = s.div_ceil(2);
        let mut slot = zeroed::<u32>(mn, "a split-K slot")?;
        let mut p = zeroed::<u32>(mn, "a split-K part")?;
        w.part(&chains[s - 1], &mut acc)?;
        for i in 0..h {
            w.part(&chains[i], &mut slot)?;
            if i + h < s - 1 {
                w.part(&chains[i + h], &mut p)?;
                add_into(&fp, &mut slot, &p);
            }
            add_into(&fp, &mut acc, &slot);
        }
        Ok(acc)
    }

    /// One chain over the elements `segs` of K for every output, from a +0 C, into `out`
    /// (+0 for a chain over padding only).
    #[allow(clippy::too_many_arguments)]
    fn chain_gemm(
        &self,
        (m, n, k): (usize, usize, usize),
        k_step: usize,
        segs: &Segments,
        x: &LibraryGemm<'_>,
        zeros: &[u64],
        out: &mut [u64],
        (threads, stop): (usize, &AtomicBool),
    ) -> Result<(), WalkError> {
        // In rounds of about ROUND_WORK multiply-adds, looking at `stop` after each.
        let run = |(m, n, k): (usize, usize, usize), g: &GemmIn<'_>, out: &mut [u64]| {
            let rows = ROUND_WORK / n.saturating_mul(k).max(1);
            let between = |_| {
                if stop.load(Ordering::Relaxed) {
                    Err(WalkError::Stopped)
                } else {
                    Ok(())
                }
            };
            self.gemm_in_rounds((m, n, k), k_step, g, out, threads, rows, between)?
        };
        let len: usize = segs.iter().map(|(a, b)| b - a).sum();
        if len == 0 {
            out.fill(0);
            return Ok(());
        }
        let padded = len.div_ceil(k_step) * k_step;
        if segs.as_slice() == [(0, k)] && padded == k {
            // The whole of K in order: the operands as they are.
            let g = GemmIn {
                a: x.a,
                b_cols: x.b_cols,
                c: zeros,
                scale_a: &[],
                scale_b: &[],
            };
            return run((m, n, k), &g, out);
        }
        let gather = |src: &[u64], rows: usize, what| -> Result<Vec<u64>, WalkError> {
            let mut v = zeroed(rows.saturating_mul(padded), what)?;
            for r in 0..rows {
                let row = &src[r * k..(r + 1) * k];
                let dst = &mut v[r * padded..(r + 1) * padded];
                let mut at = 0;
                for &(a, b) in segs {
                    dst[at..at + (b - a)].copy_from_slice(&row[a..b]);
                    at += b - a;
                }
            }
            Ok(v)
        };
        let (a, b) = (
            gather(x.a, m, "A's elements of a chain")?,
            gather(x.b_cols, n, "B's elements of a chain")?,
        );
        let g = GemmIn {
            a: &a,
            b_cols: &b,
            c: zeros,
            scale_a: &[],
            scale_b: &[],
        };
        run((m, n, padded), &g, out)
    }
}

/// `P_0 … P_{S-1}` added in `order` (see [`Order`]).
pub fn combine_one(fp: &Fp32, p: &[u32], order: Order) -> u32 {
    let s = p.len();
    match (s, order) {
        (0, _) => 0,
        (1, _) => p[0],
        (_, Order::Serial) => p[1..].iter().fold(p[0], |acc, &x| fp.add(acc, x)),
        (_, Order::Pairwise) => {
            let h = s.div_ceil(2);
            (0..h).fold(p[s - 1], |acc, i| {
                let slot = if i + h < s - 1 {
                    fp.add(p[i], p[i + h])
                } else {
                    p[i]
                };
                fp.add(acc, slot)
            })
        }
    }
}
