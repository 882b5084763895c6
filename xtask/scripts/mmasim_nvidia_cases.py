#!/usr/bin/env python3
"""Write mmasim-evaluated case files for every NVIDIA instruction mmasim 2.1.1 supports.

Not run in CI. The committed output lives in vectors/mmasim/nvidia/ and is checked by
`crates/mma/tests/mmasim_nvidia.rs`. To regenerate it:

    python3 -m venv /tmp/venv-mmasim
    /tmp/venv-mmasim/bin/pip install mmasim==2.1.1      # pulls torch (CPU is enough), ninja
    source /tmp/venv-mmasim/bin/activate                # puts ninja on PATH: mmasim compiles
                                                        # a C++ FMA kernel at import time
    python xtask/scripts/mmasim_nvidia_cases.py               # writes vectors/mmasim/nvidia/

Options: --out DIR, --seed N, --per-sampler-mma N (cases per sampler for each `mma.sync`
instruction), --per-sampler N (for the N = 8 representative of each WGMMA/TCGen05 family),
--per-sampler-other N (for the other N values).

What it writes:
- `instructions.txt`: every NVIDIA (arch, op, instruction) that mmasim accepts, tab separated.
- `<arch>.jsonl`: case lines (docs/cli.md, "Case files"), one per dot product, each with a
  `"sampler"` field naming how its inputs were drawn, and `"d"` = mmasim's result.

Instructions covered: every `MMA` and `MMABlockScale` instruction; for `WGMMA`,
`TCGen05MMA` and `TCGen05MMABlockScale`, whose N only sets the matrix width and not the
arithmetic, every (M, kind, types) combination at N = 8 (the representative, with
--per-sampler cases per sampler) and at N = 64 and N = 256 (--per-sampler-other). Only the
instructions of the catalog that mmasim also lists are covered: the project's additions
(Hopper/Blackwell fp8 `mma.sync`) have no mmasim result.

Samplers (see `SAMPLERS`): random (uniform sign, exponent field and significand over the
whole finite range of each format, subnormals included; scales uniform), narrow (values
near 1: rounding and carries), subnormal (subnormal-heavy), special (NaN, +-Inf, Inf-Inf,
0*Inf, NaN scales, tf32 NaNs whose payload lies in the dropped bits), cancellation
(products that cancel pairwise, C that cancels the sum, tiny leftovers), overflow (sums
beyond the output range, near-overflow that cancels back), zero (+-0 inputs, exact zero
sums, -0 C), scale (block-scaled only: scales over the whole ue8m0/ue4m3 range).
The result is deterministic for a given --seed.
"""
import argparse
import json
import math
import os
import random
import struct
import sys
import zlib
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from mmasim.nv_ptx import isa_mma, isa_wgmma, isa_tcgen05mma  # noqa: E402
import mmasim_eval  # noqa: E402  (our evaluator: batches lines through mmasim's dpa)

ARCH_FILE = {
    "Volta": "volta", "Turing": "turing", "Ampere": "ampere", "Ada Lovelace": "ada-lovelace",
    "Hopper": "hopper", "Blackwell": "blackwell", "RTX Blackwell": "rtx-blackwell",
}


# ---------------------------------------------------------------------------------------
# Formats: (storage bits, exponent bits, mantissa bits, specials, signed, lsb)
# specials: "ieee" (Inf + NaN), "fn" (e4m3: only S.1111.111 is NaN), "none", "e8m0", "ue4m3"
class Fmt:
    def __init__(self, name, store, e, m, specials, signed=True, lsb=0):
        self.name, self.store, self.e, self.m = name, store, e, m
        self.specials, self.signed, self.lsb = specials, signed, lsb
        self.bias = (1 << (e - 1)) - 1
        self.width = (1 if signed else 0) + e + m

    @property
    def emax_field(self):
        """Largest exponent field of a finite value."""
        top = (1 << self.e) - 1
        return top - 1 if self.specials == "ieee" else top

    def man_max(self, field):
        mm = (1 << self.m) - 1
        if field == (1 << self.e) - 1 and self.specials in ("fn", "ue4m3"):
            return mm - 1
        return mm

    def code(self, neg, field, man):
        c = (field << self.m) | man
        if neg and self.signed:
            c |= 1 << (self.e + self.m)
        return c << self.lsb

    def has_inf(self):
        return self.specials == "ieee"

    def has_nan(self):
        return self.specials != "none"

    def inf(self, neg):
        return self.code(neg, (1 << self.e) - 1, 0)

    def nan(self, rng, neg=None):
        neg = rng.random() < 0.5 if neg is None else neg
        if self.specials == "ieee":
            if self.lsb and rng.random() < 0.5:
                # tf32: payload only in the dropped low bits (reads as Inf after truncation)
                return self.code(neg, (1 << self.e) - 1, 0) | rng.randrange(1, 1 << self.lsb)
            man = rng.choice([1 << (self.m - 1), rng.randrange(1, 1 << self.m)])
            return self.code(neg, (1 << self.e) - 1, man)
        if self.specials in ("fn", "ue4m3"):
            return self.code(neg, (1 << self.e) - 1, (1 << self.m) - 1)
        if self.specials == "e8m0":
            return 0xFF
        raise ValueError(self.name + " has no NaN")

    def value(self, c):
        """Exact value of code c (Fraction), or 'nan' / 'inf' / '-inf'."""
        c >>= self.lsb
        neg = self.signed and (c >> (self.e + self.m)) & 1
        field = (c >> self.m) & ((1 << self.e) - 1)
        man = c & ((1 << self.m) - 1)
        top = (1 << self.e) - 1
        if self.specials == "ieee" and field == top:
            return "nan" if man else ("-inf" if neg else "inf")
        if self.specials in ("fn", "ue4m3") and field == top and man == (1 << self.m) - 1:
            return "nan"
        if self.specials == "e8m0":
            return "nan" if c == 0xFF else Fraction(2) ** (c - 127)
        if field == 0:
            v = Fraction(man, 1 << self.m) * Fraction(2) ** (1 - self.bias)
        else:
            v = Fraction((1 << self.m) | man, 1 << self.m) * Fraction(2) ** (field - self.bias)
        return -v if neg else v


FMTS = {f.name: f for f in [
    Fmt("f64", 64, 11, 52, "ieee"), Fmt("f32", 32, 8, 23, "ieee"),
    Fmt("tf32", 32, 8, 10, "ieee", lsb=13), Fmt("f16", 16, 5, 10, "ieee"),
    Fmt("bf16", 16, 8, 7, "ieee"), Fmt("e5m2", 8, 5, 2, "ieee"), Fmt("e4m3", 8, 4, 3, "fn"),
    Fmt("e3m2", 8, 3, 2, "none"), Fmt("e2m3", 8, 2, 3, "none"), Fmt("e2m1", 8, 2, 1, "none"),
    Fmt("ue8m0", 8, 8, 0, "e8m0", signed=False), Fmt("ue4m3", 8, 4, 3, "ue4m3", signed=False),
]}

TORCH_NAME = {
    torch.float64: "f64", torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.float8_e4m3fn: "e4m3", torch.float8_e5m2: "e5m2", torch.float8_e8m0fnu: "ue8m0",
}


class Spec:
    """What the samplers need to know about one instruction."""

    def __init__(self, arch, op, instr, sim):
        self.arch, self.op, self.instr, self.sim = arch, op, instr, sim
        self.k = sim.k
        self.a = FMTS[sim.a_type_ptx]
        self.b = FMTS[sim.b_type_ptx]
        self.c = FMTS[TORCH_NAME[sim.c_type]]
        self.d = FMTS[TORCH_NAME[sim.d_type]]
        s = getattr(sim, "s_type", None)
        if s is None:
            self.s, self.block = None, None
        else:
            self.s = FMTS["ue8m0" if s == torch.float8_e8m0fnu else "ue4m3"]
            self.block = sim.block_size
        self.packed = getattr(sim, "packing", 1) == 2
        self.byte = "f8f6f4" in instr  # kind::f8f6f4 / kind::mxf8f6f4: one element per byte

    @property
    def nblk(self):
        return self.k // self.block if self.block else 0


# ---------------------------------------------------------------------------------------
# element draws

def rand_elem(f, rng, lo=None, hi=None, neg=None):
    """A finite value with exponent field uniform in [lo, hi] (clamped), random significand."""
    lo = 0 if lo is None else max(0, lo)
    hi = f.emax_field if hi is None else min(f.emax_field, hi)
    lo = min(lo, hi)
    field = rng.randint(lo, hi)
    man = rng.randint(0, f.man_max(field))
    neg = rng.random() < 0.5 if neg is None else neg
    return f.code(neg, field, man)


def near_one(f, rng, spread=3, neg=None):
    return rand_elem(f, rng, f.bias - spread, f.bias + spread, neg)


def subnormal(f, rng, neg=None):
    neg = rng.random() < 0.5 if neg is None else neg
    return f.code(neg, 0, rng.randint(1, (1 << f.m) - 1)) if f.m else f.code(neg, 0, 0)


def zero(f, neg=False):
    return f.code(neg, 0, 0)


def big(f, rng, neg=None):
    return rand_elem(f, rng, f.emax_field - 1, f.emax_field, neg)


def neg_of(f, c):
    return c ^ ((1 << (f.e + f.m)) << f.lsb) if f.signed else c


def rand_scale(s, rng, mode):
    if s.name == "ue8m0":
        if mode == "full":
            return rng.randint(0, 254)
        if mode == "high":
            return rng.randint(240, 254)
        if mode == "low":
            return rng.randint(0, 20)
        return rng.randint(124, 130)
    # ue4m3, sign bit clear (mmasim ignores it; our case files require it clear)
    if mode == "full":
        return rng.randint(0, 0x7E)
    if mode == "high":
        return rng.randint(0x70, 0x7E)
    if mode == "low":
        return rng.randint(0, 0x10)
    return rng.randint(0x30, 0x40)


def products_sum(sp, a, b, sa, sb):
    """Exact sum of the scaled products (Fraction) or None when a special is involved."""
    tot = Fraction(0)
    for i in range(sp.k):
        x, y = sp.a.value(a[i]), sp.b.value(b[i])
        if isinstance(x, str) or isinstance(y, str):
            return None
        p = x * y
        if sp.s:
            u, v = sp.s.value(sa[i // sp.block]), sp.s.value(sb[i // sp.block])
            if isinstance(u, str) or isinstance(v, str):
                return None
            p *= u * v
        tot += p
    return tot


def to_fmt(f, v):
    """Nearest C-format code of Fraction v (via double), or None if out of range."""
    try:
        x = float(v)
    except OverflowError:
        return None
    try:
        if f.name == "f64":
            return struct.unpack("<Q", struct.pack("<d", x))[0]
        if f.name == "f32":
            return struct.unpack("<I", struct.pack("<f", x))[0]
        if f.name == "f16":
            return struct.unpack("<H", struct.pack("<e", x))[0]
    except (OverflowError, struct.error):
        return None
    raise ValueError(f.name)


# ---------------------------------------------------------------------------------------
# samplers: each returns (a, b, c, scale_a, scale_b) as lists of codes (one per element)

def scales(sp, rng, mode):
    if not sp.s:
        return [], []
    return ([rand_scale(sp.s, rng, mode) for _ in range(sp.nblk)],
            [rand_scale(sp.s, rng, mode) for _ in range(sp.nblk)])


def s_random(sp, rng):
    a = [rand_elem(sp.a, rng) for _ in range(sp.k)]
    b = [rand_elem(sp.b, rng) for _ in range(sp.k)]
    if sp.a.lsb:  # tf32: the dropped bits hold garbage, as an fp32 register would
        a = [x | rng.randrange(1 << sp.a.lsb) for x in a]
        b = [x | rng.randrange(1 << sp.b.lsb) for x in b]
    c = rand_elem(sp.c, rng)
    sa, sb = scales(sp, rng, rng.choice(["full", "near"]))
    return a, b, c, sa, sb


def s_narrow(sp, rng):
    a = [near_one(sp.a, rng) for _ in range(sp.k)]
    b = [near_one(sp.b, rng) for _ in range(sp.k)]
    c = near_one(sp.c, rng, 5) if rng.random() < 0.8 else zero(sp.c)
    sa, sb = scales(sp, rng, "near")
    return a, b, c, sa, sb


def s_subnormal(sp, rng):
    def el(f):
        r = rng.random()
        if r < 0.6:
            return subnormal(f, rng)
        if r < 0.85:
            return rand_elem(f, rng, 1, 2)
        return rand_elem(f, rng, 0, f.bias)
    a = [el(sp.a) for _ in range(sp.k)]
    b = [el(sp.b) for _ in range(sp.k)]
    r = rng.random()
    c = subnormal(sp.c, rng) if r < 0.5 else (rand_elem(sp.c, rng, 1, 3) if r < 0.7 else zero(sp.c))
    sa, sb = scales(sp, rng, rng.choice(["low", "near"]))
    return a, b, c, sa, sb


def s_special(sp, rng):
    a, b, c, sa, sb = s_narrow(sp, rng)
    k = sp.k
    kinds = ["c_nan", "c_inf"]
    if sp.a.has_nan():
        kinds += ["a_nan"]
    if sp.b.has_nan():
        kinds += ["b_nan"]
    if sp.a.has_inf():
        kinds += ["a_inf", "inf_times_zero", "inf_minus_inf", "inf_vs_c"]
    if sp.b.has_inf():
        kinds += ["b_inf"]
    if sp.s:
        kinds += ["scale_nan", "scale_nan_zero_elems"]
        if sp.s.name == "ue4m3":
            kinds += ["scale_zero"]
    for kind in rng.sample(kinds, rng.randint(1, min(2, len(kinds)))):
        i, j = rng.sample(range(k), 2)
        if kind == "c_nan":
            c = sp.c.nan(rng)
        elif kind == "c_inf":
            c = sp.c.inf(rng.random() < 0.5)
        elif kind == "a_nan":
            a[i] = sp.a.nan(rng)
        elif kind == "b_nan":
            b[i] = sp.b.nan(rng)
        elif kind == "a_inf":
            a[i] = sp.a.inf(rng.random() < 0.5)
        elif kind == "b_inf":
            b[i] = sp.b.inf(rng.random() < 0.5)
        elif kind == "inf_times_zero":
            a[i] = sp.a.inf(rng.random() < 0.5)
            b[i] = zero(sp.b, rng.random() < 0.5)
        elif kind == "inf_minus_inf":
            a[i] = sp.a.inf(False)
            a[j] = sp.a.inf(True)
            b[i] = near_one(sp.b, rng, neg=False)
            b[j] = near_one(sp.b, rng, neg=False)
        elif kind == "inf_vs_c":
            a[i] = sp.a.inf(False)
            b[i] = near_one(sp.b, rng, neg=False)
            c = sp.c.inf(True)
        elif kind == "scale_nan":
            (sa if rng.random() < 0.5 else sb)[rng.randrange(sp.nblk)] = sp.s.nan(rng)
        elif kind == "scale_nan_zero_elems":
            a = [zero(sp.a) for _ in range(k)]
            (sa if rng.random() < 0.5 else sb)[rng.randrange(sp.nblk)] = sp.s.nan(rng)
        elif kind == "scale_zero":
            (sa if rng.random() < 0.5 else sb)[rng.randrange(sp.nblk)] = 0
    return a, b, c, sa, sb


def s_cancellation(sp, rng):
    k = sp.k
    a = [near_one(sp.a, rng, 2) for _ in range(k)]
    b = [near_one(sp.b, rng, 2) for _ in range(k)]
    # pairwise exact cancellation of most products
    npairs = rng.randint(k // 4, k // 2)
    for p in range(npairs):
        i, j = 2 * p, 2 * p + 1
        a[j] = neg_of(sp.a, a[i])
        b[j] = b[i]
    # perturb one element by one unit in the last place, leaving a tiny difference
    if rng.random() < 0.7 and sp.a.m:
        i = rng.randrange(2 * npairs)
        fld = (a[i] >> (sp.a.m + sp.a.lsb)) & ((1 << sp.a.e) - 1)
        man = (a[i] >> sp.a.lsb) & ((1 << sp.a.m) - 1)
        if 0 < man < sp.a.man_max(fld):
            a[i] += (1 if rng.random() < 0.5 else -1) << sp.a.lsb
    # a few tiny products in the rest
    for i in range(2 * npairs, k):
        if rng.random() < 0.5:
            a[i] = rand_elem(sp.a, rng, 0, 2)
        elif rng.random() < 0.5:
            a[i] = zero(sp.a, rng.random() < 0.5)
    sa, sb = scales(sp, rng, "near")
    r = rng.random()
    tot = products_sum(sp, a, b, sa, sb)
    if r < 0.5 and tot:
        # C cancels the products' sum to within C's rounding: the leftover is tiny
        cc = to_fmt(sp.c, -tot)
        c = cc if cc is not None else zero(sp.c)
        if c & ~(1 << (sp.c.store - 1)) and rng.random() < 0.5:
            c += rng.choice([-1, 1])  # one unit in the last place off: a tiny leftover
    elif r < 0.75:
        c = rand_elem(sp.c, rng, 0, 3)
    else:
        c = zero(sp.c, rng.random() < 0.5)
    return a, b, c, sa, sb


def s_overflow(sp, rng):
    k = sp.k
    neg = rng.random() < 0.5
    a = [big(sp.a, rng, neg) for _ in range(k)]
    b = [big(sp.b, rng, False) for _ in range(k)]
    for i in range(k):
        if rng.random() < 0.3:
            a[i] = rand_elem(sp.a, rng)
    cneg = neg if rng.random() < 0.7 else not neg  # sometimes C pulls the sum back
    if rng.random() < 0.7:
        c = big(sp.c, rng, cneg)
    else:
        c = near_one(sp.c, rng, neg=cneg)
    if sp.d.name == "f16" and sp.c.name == "f16" and rng.random() < 0.3:
        c = sp.c.code(cneg, sp.c.emax_field, rng.randint(0x3f0, 0x3ff))
    sa, sb = scales(sp, rng, "high" if rng.random() < 0.7 else "near")
    return a, b, c, sa, sb


def s_zero(sp, rng):
    k = sp.k
    mode = rng.choice(["all_zero", "some_zero", "exact_cancel"])
    a = [zero(sp.a, rng.random() < 0.5) for _ in range(k)]
    b = [zero(sp.b, rng.random() < 0.5) for _ in range(k)]
    if mode == "some_zero":
        for i in range(k):
            if rng.random() < 0.3:
                a[i] = near_one(sp.a, rng)
    elif mode == "exact_cancel":
        for p in range(rng.randint(1, k // 2)):
            a[2 * p] = near_one(sp.a, rng)
            a[2 * p + 1] = neg_of(sp.a, a[2 * p])
            b[2 * p] = b[2 * p + 1] = near_one(sp.b, rng)
    sa, sb = scales(sp, rng, "near")
    c = zero(sp.c, rng.random() < 0.5)
    if mode == "some_zero":
        if rng.random() < 0.5:
            tot = products_sum(sp, a, b, sa, sb)
            cc = to_fmt(sp.c, -tot) if tot is not None else None
            if cc is not None:
                c = cc
    return a, b, c, sa, sb


def s_scale(sp, rng):
    a = [near_one(sp.a, rng) for _ in range(sp.k)]
    b = [near_one(sp.b, rng) for _ in range(sp.k)]
    c = near_one(sp.c, rng, 5) if rng.random() < 0.7 else zero(sp.c)
    sa, sb = scales(sp, rng, "full")
    return a, b, c, sa, sb


SAMPLERS = {
    "random": s_random, "narrow": s_narrow, "subnormal": s_subnormal, "special": s_special,
    "cancellation": s_cancellation, "overflow": s_overflow, "zero": s_zero, "scale": s_scale,
}


# ---------------------------------------------------------------------------------------

def hexw(code, f):
    return format(code, "0%dx" % ((f.store + 3) // 4))


def elem_words(sp, f, codes):
    if sp.packed:
        return ["%02x" % ((codes[2 * i] << 4) | codes[2 * i + 1]) for i in range(len(codes) // 2)]
    if sp.byte and f.width == 4:
        return ["%02x" % (x << 2) for x in codes]
    return [hexw(x, f) for x in codes]


def all_instructions():
    out = []
    for arch, lst in isa_mma.mma_shape_and_type.items():
        out += [(arch, "MMA", s) for s in lst]
    for arch, lst in isa_mma.mma_block_scale_shape_and_type.items():
        out += [(arch, "MMABlockScale", s) for s in lst]
    for arch, lst in isa_wgmma.wgmma_shape_and_type.items():
        out += [(arch, "WGMMA", s) for s in lst]
    for arch, lst in isa_tcgen05mma.tcgen05mma_shape_and_type.items():
        out += [(arch, "TCGen05MMA", s) for s in lst]
    for arch, lst in isa_tcgen05mma.tcgen05mma_block_scale_shape_and_type.items():
        out += [(arch, "TCGen05MMABlockScale", s) for s in lst]
    return out


def n_of(instr):
    shape = instr.split(".")[0]
    return int(shape[shape.index("n") + 1:shape.index("k")])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--out", default=os.path.join(root, "vectors", "mmasim", "nvidia"))
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--per-sampler-mma", type=int, default=5)
    ap.add_argument("--per-sampler", type=int, default=3)
    ap.add_argument("--per-sampler-other", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    instrs = all_instructions()
    with open(os.path.join(args.out, "instructions.txt"), "w") as f:
        f.write("# Every NVIDIA instruction mmasim 2.1.1 accepts: arch<TAB>op<TAB>instr.\n")
        f.write("# Generated by xtask/scripts/mmasim_nvidia_cases.py.\n")
        for arch, op, s in instrs:
            f.write(f"{arch}\t{op}\t{s}\n")

    by_arch = {}
    total = 0
    for arch, op, instr in instrs:
        if op in ("MMA", "MMABlockScale"):
            n_cases = args.per_sampler_mma
        else:
            n = n_of(instr)
            if n == 8:
                n_cases = args.per_sampler
            elif n in (64, 256):
                n_cases = args.per_sampler_other
            else:
                continue
        if n_cases == 0:
            continue
        sim = mmasim_eval.get_sim("nvidia", arch, op, instr)
        sp = Spec(arch, op, instr, sim)
        rng = random.Random(zlib.crc32(f"{args.seed}|{arch}|{op}|{instr}".encode()))
        recs = []
        for name, fn in SAMPLERS.items():
            if name == "scale" and not sp.s:
                continue
            for _ in range(n_cases):
                a, b, c, sa, sb = fn(sp, rng)
                r = {"vendor": "nvidia", "arch": arch, "op": op, "instr": instr,
                     "sampler": name, "a": elem_words(sp, sp.a, a),
                     "b": elem_words(sp, sp.b, b), "c": hexw(c, sp.c)}
                if sp.s:
                    r["scale_a"] = [hexw(x, sp.s) for x in sa]
                    r["scale_b"] = [hexw(x, sp.s) for x in sb]
                recs.append(r)
        ds = mmasim_eval.eval_group(sim, recs)
        for r, d in zip(recs, ds):
            r["d"] = d
        by_arch.setdefault(arch, []).extend(recs)
        total += len(recs)

    for arch, recs in by_arch.items():
        path = os.path.join(args.out, ARCH_FILE[arch] + ".jsonl")
        with open(path, "w") as f:
            f.write("# mmasim 2.1.1 results; generated by xtask/scripts/mmasim_nvidia_cases.py "
                    f"--seed {args.seed}; do not edit by hand.\n")
            for r in recs:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        print(f"{path}: {len(recs)} cases", file=sys.stderr)
    print(f"{len(instrs)} instructions listed, {total} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
