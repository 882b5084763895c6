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
            // The part's own K, padded: its j-th tile sits at j·tile.
            let padded = tiles_of_part.len() * tile;
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
            return Ok(vec![0; mn]);
        }
        // One pool for every chain of the call.
        crate::drive::with_pool(threads, |threads| self.walk(k_step, recipe, x, mn, threads))
    }

    /// [`DotUnit::library_accumulate`] after its checks, for `mn > 0` outputs and `k > 0`.
    fn walk(
        &self,
        k_step: usize,
        recipe: &GemmRecipe,
        x: &LibraryGemm<'_>,
        mn: usize,
        threads: usize,
    ) -> Result<Vec<u32>, WalkError> {
        let (m, n, k) = (x.m, x.n, x.k);
        let fp = Fp32::new();
        // The host adds the promoted sums where its binary32 arithmetic is IEEE on this thread.
        let native = host_binary32_is_ieee();
        let chains = plan_chains(recipe, k, x.split, x.fast_accum);
        let promoted = !x.fast_accum && recipe.promote_every.is_some();
        let mut parts: Vec<Vec<u32>> = Vec::with_capacity(chains.len());
        let mut words = vec![0u64; mn];
        let zeros = vec![0u64; mn];
        for part in &chains {
            // Fast: the part's one chain is its result. Promoted: the chains' results added
            // into a binary32 sum from +0, in K order.
            let mut acc = vec![0u32; mn];
            for segs in part {
                self.chain_gemm((m, n, k), k_step, segs, x, &zeros, &mut words, threads)?;
                if promoted {
                    fp.add_all(&mut acc, &words, native);
                } else {
                    for (a, &w) in acc.iter_mut().zip(&words) {
                        *a = w as u32;
                    }
                }
            }
            parts.push(acc);
        }
        Ok(combine(&fp, parts, x.split.order))
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
        threads: usize,
    ) -> Result<(), WalkError> {
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
            return Ok(self.gemm((m, n, k), k_step, &g, out, threads)?);
        }
        let gather = |src: &[u64], rows: usize| -> Vec<u64> {
            let mut v = vec![0u64; rows * padded];
            for r in 0..rows {
                let row = &src[r * k..(r + 1) * k];
                let dst = &mut v[r * padded..(r + 1) * padded];
                let mut at = 0;
                for &(a, b) in segs {
                    dst[at..at + (b - a)].copy_from_slice(&row[a..b]);
                    at += b - a;
                }
            }
            v
        };
        let (a, b) = (gather(x.a, m), gather(x.b_cols, n));
        let g = GemmIn {
            a: &a,
            b_cols: &b,
            c: zeros,
            scale_a: &[],
            scale_b: &[],
        };
        Ok(self.gemm((m, n, padded), k_step, &g, out, threads)?)
    }
}

/// The parts' results added in `order` (binary32, RNE), element by element.
fn combine(fp: &Fp32, mut parts: Vec<Vec<u32>>, order: Order) -> Vec<u32> {
    let s = parts.len();
    if s == 1 {
        return parts.pop().unwrap_or_default();
    }
    let mn = parts[0].len();
    let mut out = vec![0u32; mn];
    let mut p = vec![0u32; s];
    for (i, o) in out.iter_mut().enumerate() {
        for (j, part) in parts.iter().enumerate() {
            p[j] = part[i];
        }
        *o = combine_one(fp, &p, order);
    }
    out
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
