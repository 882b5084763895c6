"""Speed of the Python package (not run in CI; numbers in crates/mma-py/README.md).

1. Single-thread ``Unit.dots`` on 10^6 Hopper ``m64n8k16.f32.f16.f16`` dot products against the
   rate ``mma bench`` reports for the same instruction (``--mma PATH`` names the tool, built
   with ``cargo build --release -p mma-cli``). The issue asks for at least 80 %.
2. With ``--mmasim``: for every instruction ``mma bench`` lists, dot products per second of
   ``Unit.dots`` and of mmasim 2.1.1's ``dpa`` (torch on the CPU), both on one thread, and
   their ratio. Needs torch and mmasim installed.

    python crates/mma-py/bench/bench.py --mma target/release/mma [--mmasim]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time

import numpy as np

import mma


def finite_words(fmt: str, shape, rng, layout: str = "plain") -> np.ndarray:
    """Random finite (or zero) words of ``fmt``, as ``mma bench`` draws them: every finite
    encoding, and for 8-bit-exponent formats magnitudes within 2^±30."""
    info = {"f16": (16, 5, 10), "bf16": (16, 8, 7), "f32": (32, 8, 23), "tf32": (32, 8, 10),
            "f64": (64, 11, 52), "e4m3": (8, 4, 3), "e5m2": (8, 5, 2), "e4m3fnuz": (8, 4, 3),
            "e5m2fnuz": (8, 5, 2), "e2m1": (8, 2, 1), "e3m2": (8, 3, 2), "e2m3": (8, 2, 3)}
    bits, e, m = info[fmt]
    n = int(np.prod(shape))
    out = np.empty(0, dtype=np.float64)
    while out.size < n:
        if fmt in ("f32", "tf32", "bf16", "f64"):
            # Sign, an exponent within 2^±30, any mantissa.
            bias = (1 << (e - 1)) - 1
            ex = rng.integers(bias - 30, bias + 30, n)
            man = rng.integers(0, 1 << min(m, 52), n, dtype=np.uint64)
            val = (1 + man / float(1 << m)) * np.exp2(ex - bias) * rng.choice([-1, 1], n)
        else:
            val = mma.decode(fmt, rng.integers(0, 1 << (1 + e + m), n, dtype=np.uint64))
        out = np.concatenate([out, val[np.isfinite(val)]])
    words = mma.encode(fmt, out[:n])
    if layout == "byte" and fmt == "e2m1":
        words = words << 2
    if layout == "packed_fp4":
        words = (words[0::2] << 4) | words[1::2]
        shape = shape[:-1] + (shape[-1] // 2,)
        words = np.concatenate([words, words])[: int(np.prod(shape))]
    dt = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return words.astype(dt).reshape(shape)


def inputs(unit: mma.Unit, n: int, seed: int):
    rng = np.random.default_rng(seed)
    f = unit.formats
    a = finite_words(f["a"], (n, unit.k), rng, unit.layout)
    b = finite_words(f["b"], (n, unit.k), rng, unit.layout)
    cv = rng.uniform(-1, 1, n)
    cv = mma.decode(f["c"], mma.encode(f["c"], cv.astype(np.float16)
                                       if f["c"] == "f16" else cv.astype(np.float32)))
    c = mma.encode(f["c"], cv).astype(unit._word_dtype("c"))
    sa = sb = None
    if f["scale"] is not None:
        s = unit._u.scales_for(unit.k)
        one = mma.encode(f["scale"], [1.0, 2.0, 0.5])
        sa = rng.choice(one, (n, s)).astype(np.uint8)
        sb = rng.choice(one, (n, s)).astype(np.uint8)
    return a, b, c, sa, sb


def rate(fn, dots: int, seconds: float = 2.0) -> float:
    """Dot products per CPU second of the calling thread (best pass)."""
    best = float("inf")
    end = time.monotonic() + seconds
    while True:
        t0 = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t0)
        if time.monotonic() > end:
            return dots / best


def tool_rates(path: str) -> dict:
    out = subprocess.run([path, "bench", "--json", "--seconds", "2"], check=True,
                         capture_output=True, text=True).stdout
    doc = json.loads(out)
    return {(r["vendor"], r["arch"], r["op"], r["instr"]): r for r in doc["dots"]
            if r.get("available")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mma", help="the mma tool (cargo build --release -p mma-cli)")
    ap.add_argument("--mmasim", action="store_true", help="also compare with mmasim 2.1.1")
    ap.add_argument("--dots", type=int, default=1_000_000)
    o = ap.parse_args()

    u = mma.find("Hopper", "m64n8k16.f32.f16.f16", op="WGMMA")
    a, b, c, _, _ = inputs(u, o.dots, 1)
    py = rate(lambda: u.dots(a, b, c, threads=1), o.dots)
    print(f"Unit.dots, 1 thread, {o.dots} x Hopper m64n8k16.f32.f16.f16 ({u.isa}, lanes "
          f"{u.is_batched}): {py:.3e} dot/s")
    tools = tool_rates(o.mma) if o.mma else {}
    key = ("nvidia", "Hopper", "WGMMA", "m64n8k16.f32.f16.f16")
    if key in tools:
        t = tools[key]["dot_per_s"]
        print(f"mma bench, same instruction: {t:.3e} dot/s; Python / tool = {py / t:.1%}")

    if not o.mmasim:
        return
    import torch
    import mma.compat as compat

    torch.set_num_threads(1)
    import mmasim
    import mmasim.amd  # noqa: F401  (mmasim does not import its submodules)
    import mmasim.nv_ptx  # noqa: F401

    print(f"\n{'instruction':<70} {'mma dot/s':>11} {'mmasim dot/s':>13} {'ratio':>8}")
    for (vendor, arch, op, instr) in tools or [key]:
        unit = mma.find(arch, instr, vendor, op=op)
        n_mma, n_ref = 200_000, 4096
        a, b, c, sa, sb = inputs(unit, n_mma, 2)
        ours = rate(lambda: unit.dots(a, b, c, sa, sb, threads=1), n_mma, 1.0)
        try:
            ref_cls = getattr(mmasim.nv_ptx, op) if vendor == "nvidia" else mmasim.amd.MFMA
            ref_cls(arch, instr)
        except AssertionError:
            print(f"{arch + ' ' + instr:<70} {ours:>11.3e} {'not in mmasim':>13}")
            continue
        if vendor == "nvidia":
            ref = getattr(mmasim.nv_ptx, op)(arch, instr)
            mine = getattr(compat.nv_ptx, op)(arch, instr)
        else:
            ref = mmasim.amd.MFMA(arch, instr)
            mine = compat.amd.MFMA(arch, instr)
        args = [_t(x[:n_ref], dt) for x, dt in ((a, mine.a_type), (b, mine.b_type),
                                                 (c, mine.c_type))]
        if sa is not None:
            args += [_t(sa[:n_ref], mine.s_type), _t(sb[:n_ref], mine.s_type)]
        theirs = rate(lambda: ref.dpa(*args), n_ref, 2.0)
        print(f"{arch + ' ' + instr:<70} {ours:>11.3e} {theirs:>13.3e} {ours / theirs:>7.0f}x")


def _t(words: np.ndarray, dtype):
    import torch

    signed = {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64}[words.dtype.itemsize]
    t = torch.from_numpy(np.ascontiguousarray(words).view(signed))
    return t if dtype == torch.uint8 else t.view(dtype)


if __name__ == "__main__":
    main()
