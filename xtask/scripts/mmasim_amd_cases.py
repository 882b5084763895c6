#!/usr/bin/env python3
"""Differential corpus for the AMD MFMA models: random, subnormal, special-value, cancellation,
overflow and sign-asymmetry cases for every AMD instruction of mmasim 2.1.1, evaluated by
mmasim and written as JSON Lines (one dot product per line) to <out>/<arch>.jsonl.

Run with the Python of a virtual environment holding mmasim 2.1.1 (not part of CI; e.g. the
one xtask/scripts/bench_mmasim.sh sets up in target/venv-mmasim, activated so that ninja is on PATH):
    target/venv-mmasim/bin/python xtask/scripts/mmasim_amd_cases.py [--per-instr N] [--seed S] [--out DIR]

Line format (hex = raw storage bits, lower case, zero padded: f64 16 digits, f32/xf32 8,
f16/bf16 4, fp8/bf8 2):
    {"vendor":"amd","arch":"CDNA3","op":"MFMA","instr":"f32_32x32x8_f16",
     "a":[hex...],"b":[hex...],"c":hex,"d":hex}
"""
import argparse
import io
import json
import os
import random
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# mmasim builds a C++ helper at import time with ninja, which lives next to the interpreter.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
import mmasim_eval  # noqa: E402  (our copy of the evaluation helper)
from mmasim.amd.isa_mfma import arch_mfma_suffix  # noqa: E402

# exponent bits, mantissa bits, storage bits, special-value style
FMT = {
    "f64": (11, 52, 64, "ieee"),
    "f32": (8, 23, 32, "ieee"),
    "xf32": (8, 23, 32, "ieee"),
    "f16": (5, 10, 16, "ieee"),
    "bf16": (8, 7, 16, "ieee"),
    "fp8": (4, 3, 8, "fnuz"),
    "bf8": (5, 2, 8, "fnuz"),
}
TYPES = ["xf32", "bf16", "f16", "f32", "f64", "fp8", "bf8"]


def bias(f):
    e, _, _, style = FMT[f]
    return (1 << (e - 1)) - (0 if style == "fnuz" else 1)


def hexw(f, v):
    return format(v, "0%dx" % (FMT[f][2] // 4))


def sign_bit(f):
    return 1 << (FMT[f][2] - 1)


def max_biased(f):
    """Largest biased exponent of a finite number."""
    e, _, _, style = FMT[f]
    return (1 << e) - (1 if style == "fnuz" else 2)


def enc(f, neg, biased, man):
    _, m, _, style = FMT[f]
    bits = (biased << m) | man
    if neg and not (style == "fnuz" and bits == 0):
        bits |= sign_bit(f)
    return bits


def rand_val(rnd, f, lo=None, hi=None):
    """Uniform sign, biased exponent in [lo, hi] (default: every finite binade, 0 being the
    subnormal one) and uniform mantissa bits."""
    _, m, _, _ = FMT[f]
    lo = 0 if lo is None else max(0, lo)
    hi = max_biased(f) if hi is None else min(max_biased(f), hi)
    return enc(f, rnd.random() < 0.5, rnd.randint(lo, hi), rnd.getrandbits(m))


def band(rnd, f, width):
    b = bias(f)
    return rand_val(rnd, f, b - width, b + width)


def decode(f, bits):
    """Exact value as a Fraction, or 'nan' / 'inf' / '-inf'."""
    e, m, _, style = FMT[f]
    if f == "xf32":
        bits &= ~((1 << 13) - 1)
    neg = bool(bits & sign_bit(f))
    biased = (bits >> m) & ((1 << e) - 1)
    man = bits & ((1 << m) - 1)
    if style == "fnuz" and bits == sign_bit(f):
        return "nan"
    if style == "ieee" and biased == (1 << e) - 1:
        return "nan" if man else ("-inf" if neg else "inf")
    if biased == 0:
        v = Fraction(man, 1 << m) * Fraction(2) ** (1 - bias(f))
    else:
        v = Fraction((1 << m) | man, 1 << m) * Fraction(2) ** (biased - bias(f))
    return -v if neg else v


def nearest(f, x):
    """Bits of the value of `f` nearest to the Fraction x (ties to even), for building C."""
    e, m, _, _ = FMT[f]
    neg = x < 0
    x = abs(x)
    if x == 0:
        return enc(f, neg, 0, 0)
    emin = 1 - bias(f)
    exp = max(x.numerator.bit_length() - x.denominator.bit_length(), emin)
    while x >= Fraction(2) ** (exp + 1):
        exp += 1
    while exp > emin and x < Fraction(2) ** exp:
        exp -= 1
    q = Fraction(2) ** (exp - m)
    n, r = divmod(x, q)
    n = int(n)
    if r * 2 > q or (r * 2 == q and n % 2 == 1):
        n += 1
    if n >> (m + 1):
        n >>= 1
        exp += 1
    if exp - emin + 1 > max_biased(f):
        return enc(f, neg, max_biased(f), (1 << m) - 1)
    if n >> m:
        return enc(f, neg, exp + bias(f), n - (1 << m))
    return enc(f, neg, 0, n)


def special_bits(f, kind):
    e, m, _, style = FMT[f]
    top = ((1 << e) - 1) << m
    if kind == "nan":
        return sign_bit(f) if style == "fnuz" else top | (1 << (m - 1))
    if kind == "inf":
        return top if style == "ieee" else None
    if kind == "-inf":
        return top | sign_bit(f) if style == "ieee" else None
    if kind == "zero":
        return 0
    if kind == "-zero":
        return sign_bit(f) if style == "ieee" else 0
    raise ValueError(kind)


def negate(f, bits):
    if FMT[f][3] == "fnuz" and bits & ~sign_bit(f) == 0:
        return bits  # FNUZ has no -0; leave zero and NaN alone
    return bits ^ sign_bit(f)


def products(fa, fb, a, b):
    s = Fraction(0)
    for x, y in zip(a, b):
        x, y = decode(fa, x), decode(fb, y)
        if isinstance(x, str) or isinstance(y, str):
            return None
        s += x * y
    return s


def gen_cases(rnd, fa, fb, fc, k, n):
    """n cases (lists a, b and c word) spread over the categories."""
    out = []
    w = 3 if FMT[fa][0] <= 5 else 6

    def rows(count, gen):
        for _ in range(count):
            out.append(gen())

    # 1. uniform exponents and significands over the whole finite range
    rows(n * 12 // 100, lambda: ([rand_val(rnd, fa) for _ in range(k)],
                                 [rand_val(rnd, fb) for _ in range(k)], rand_val(rnd, fc)))

    # 2. a narrow exponent band so that the products overlap and rounding matters
    def banded():
        a = [band(rnd, fa, w) for _ in range(k)]
        b = [band(rnd, fb, w) for _ in range(k)]
        c = band(rnd, fc, 2 * w) if rnd.random() < 0.8 else special_bits(fc, "zero")
        return a, b, c
    rows(n * 25 // 100, banded)

    # 3. subnormal-heavy: inputs from the subnormal binade and the lowest normal ones
    def subnormal():
        a = [rand_val(rnd, fa, 0, 2) if rnd.random() < 0.6 else band(rnd, fa, w) for _ in range(k)]
        b = [rand_val(rnd, fb, 0, 2) if rnd.random() < 0.3 else band(rnd, fb, w) for _ in range(k)]
        c = rand_val(rnd, fc, 0, 3) if rnd.random() < 0.7 else band(rnd, fc, w)
        return a, b, c
    rows(n * 10 // 100, subnormal)

    # 4. specials: NaN, +-Inf, +-0, Inf-Inf, 0*Inf
    def special():
        a, b, c = banded()
        kinds = ["nan", "inf", "-inf", "zero", "-zero"]
        for _ in range(rnd.randint(1, 3)):
            i = rnd.randrange(k)
            which = rnd.choice(["a", "b", "c", "pair"])
            kind = rnd.choice(kinds)
            if which == "a" and special_bits(fa, kind) is not None:
                a[i] = special_bits(fa, kind)
            elif which == "b" and special_bits(fb, kind) is not None:
                b[i] = special_bits(fb, kind)
            elif which == "c":
                c = special_bits(fc, kind)
            elif special_bits(fa, "inf") is not None:
                # Inf against 0 or against -Inf
                a[i] = special_bits(fa, rnd.choice(["inf", "-inf"]))
                j = rnd.randrange(k)
                if rnd.random() < 0.5:
                    b[i] = special_bits(fb, "zero")
                else:
                    a[j] = negate(fa, a[i])
        return a, b, c
    rows(n * 12 // 100, special)

    # 5. cancellation: pairs of opposite products and a C that nearly cancels the rest
    def cancel():
        a, b, c = banded()
        for i in range(0, k - 1, 2):
            if rnd.random() < 0.7:
                a[i + 1] = negate(fa, a[i])
                b[i + 1] = b[i] if fa == fb or rnd.random() < 0.5 else b[i + 1]
        s = products(fa, fb, a, b)
        if s is not None:
            c = negate(fc, nearest(fc, s)) if rnd.random() < 0.8 else nearest(fc, -s)
        return a, b, c
    rows(n * 15 // 100, cancel)

    # 6. overflow: huge operands and C near the largest finite value
    def overflow():
        a = [rand_val(rnd, fa, max_biased(fa) - 2, max_biased(fa)) for _ in range(k)]
        b = [rand_val(rnd, fb, max_biased(fb) - 2, max_biased(fb)) for _ in range(k)]
        if rnd.random() < 0.5:
            sign = rnd.random() < 0.5
            a = [x | sign_bit(fa) if sign else x & ~sign_bit(fa) for x in a]
            b = [x & ~sign_bit(fb) for x in b]
        c = rand_val(rnd, fc, max_biased(fc) - 1, max_biased(fc))
        return a, b, c
    rows(n * 6 // 100, overflow)

    # 7. large products with a small, non-finite or subnormal C (alignment, C dropping)
    def large_products():
        hi = max_biased(fa)
        a = [rand_val(rnd, fa, hi - 4, hi) for _ in range(k)]
        b = [rand_val(rnd, fb, max_biased(fb) - 4, max_biased(fb)) for _ in range(k)]
        c = rnd.choice([band(rnd, fc, 8), special_bits(fc, "nan"), special_bits(fc, "inf"),
                        special_bits(fc, "-inf"), rand_val(rnd, fc, 0, 0)])
        return a, b, c
    rows(n * 4 // 100, large_products)

    # 8. signed zeros: products that are zeros of either sign, C = +-0
    def zeros():
        a, b, _ = banded()
        for i in range(k):
            r = rnd.random()
            if r < 0.45:
                a[i] = special_bits(fa, rnd.choice(["zero", "-zero"]))
            elif r < 0.9:
                b[i] = special_bits(fb, rnd.choice(["zero", "-zero"]))
        if rnd.random() < 0.5:
            # every product a negative zero
            for i in range(k):
                a[i] = special_bits(fa, "-zero")
                b[i] = b[i] & ~sign_bit(fb) if decode(fb, b[i]) not in ("nan",) else 0
        return a, b, special_bits(fc, rnd.choice(["zero", "-zero"]))
    rows(n * 5 // 100, zeros)

    # 9. rounding probes: C = +-2^s·(1.x) and small products near the tie bit 2^(s-24) down to
    #    2^(s-34), so that the bits the intermediate roundings keep (24, 31, 32) decide the result
    s_exp = 14 if FMT[fa][0] == 4 or FMT[fb][0] == 4 else 0

    def probe():
        a, b = [special_bits(fa, "zero")] * k, [special_bits(fb, "zero")] * k
        c_val = Fraction(rnd.getrandbits(23) | (1 << 23), 1 << 23) * Fraction(2) ** s_exp
        c = nearest(fc, -c_val if rnd.random() < 0.5 else c_val)
        for i in rnd.sample(range(k), min(k, rnd.randint(1, 3))):
            t = Fraction(2) ** (s_exp - 24 - rnd.randint(0, 10))
            t = -t if rnd.random() < 0.4 else t
            half = Fraction(2) ** ((s_exp - 24 - 5) // 2)
            a[i] = nearest(fa, half)
            av = decode(fa, a[i])
            if isinstance(av, Fraction) and av != 0:
                b[i] = nearest(fb, t / av)
        return a, b, c
    rows(n * 10 // 100, probe)

    # 10. C alignment probes: C exponent 22..28 below the largest product label (the GTR-FDPA
    #     drop threshold is 25), either sign
    def c_align():
        a, b, _ = banded()
        labels = []
        for x, y in zip(a, b):
            vx, vy = decode(fa, x), decode(fb, y)
            if isinstance(vx, Fraction) and isinstance(vy, Fraction) and vx and vy:
                lx = max(abs(vx).numerator.bit_length() - abs(vx).denominator.bit_length(), -200)
                labels.append(lx)  # approximate label of a (enough for spreading C around)
        e_dot = max(labels) if labels else 0
        # the product label is about e_a + e_b; banded values sit near 2^0, so e_dot ~ 2·label
        e = 2 * e_dot - rnd.randint(22, 28)
        m = Fraction(rnd.getrandbits(23) | (1 << 23), 1 << 23)
        c = nearest(fc, m * Fraction(2) ** e * (-1 if rnd.random() < 0.5 else 1))
        return a, b, c
    rows(n * 8 // 100, c_align)

    # 11. sign asymmetry: (a, b, c) next to (-a, b, -c)
    while len(out) + 2 <= n:
        a, b, c = banded()
        out.append((a, b, c))
        out.append(([negate(fa, x) for x in a], b, negate(fc, c)))
    while len(out) < n:
        out.append(banded())
    return out


def instr_types(arch, suffix):
    sim = mmasim_eval.get_sim("amd", arch, "MFMA", suffix)
    import torch
    name = {torch.float64: "f64", torch.float32: "f32", torch.float16: "f16",
            torch.bfloat16: "bf16", torch.float8_e4m3fnuz: "fp8", torch.float8_e5m2fnuz: "bf8"}
    fa, fb, fc = name[sim.a_type], name[sim.b_type], name[sim.c_type]
    if suffix.endswith("xf32"):
        fa = fb = "xf32"
    return fa, fb, fc, sim.k


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-instr", type=int, default=100)
    ap.add_argument("--seed", type=int, default=20260914)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "vectors",
                                                  "mmasim", "amd"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for arch, suffixes in arch_mfma_suffix.items():
        lines = []
        for suffix in suffixes:
            rnd = random.Random(f"{args.seed}/{arch}/{suffix}")
            fa, fb, fc, k = instr_types(arch, suffix)
            for a, b, c in gen_cases(rnd, fa, fb, fc, k, args.per_instr):
                rec = {"vendor": "amd", "arch": arch, "op": "MFMA", "instr": suffix,
                       "a": [hexw(fa, x) for x in a], "b": [hexw(fb, x) for x in b],
                       "c": hexw(fc, c), "d": None}
                lines.append(json.dumps(rec, separators=(",", ":")))
        buf = io.StringIO()
        mmasim_eval.run(lines, buf)
        n_err = 0
        path = os.path.join(args.out, f"{arch}.jsonl")
        with open(path, "w") as f:
            for ln in buf.getvalue().splitlines():
                rec = json.loads(ln)
                if rec.get("d") is None:
                    n_err += 1
                    print("mmasim could not evaluate:", ln, file=sys.stderr)
                    continue
                f.write(ln + "\n")
        print(f"{path}: {len(lines) - n_err} lines ({n_err} errors)")


if __name__ == "__main__":
    main()
