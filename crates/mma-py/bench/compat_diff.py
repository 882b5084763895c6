"""Differential check of ``mma.compat`` against mmasim 2.1.1 (not run in CI; the result is in
crates/mma-py/README.md): the same calls, ``dpa`` and ``__call__``, with the same torch tensors,
through both packages, comparing the bits of every result.

The instructions: for every architecture and operation mmasim has, one instruction of each
combination of formats (the narrowest N). Inputs: normal random values rounded to the input
formats, and raw random words (Inf, NaN, subnormals included). A difference is counted as
documented, not as a failure, only where the Rust corpus tests allow it: a NaN where mmasim
gives a NaN with other bits (AMD, and the fp64 FMA path, whose NaN bits come from the host CPU),
and AMD lines of a ``mma::amd::known_difference`` class.

    python crates/mma-py/bench/compat_diff.py [--rows 64]
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np
import torch

import mma
import mma.compat as ours
import mmasim as ref
import mmasim.amd  # noqa: F401  (mmasim does not import its submodules)
import mmasim.nv_ptx  # noqa: F401
from mma import _mma

SIGNED = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def bits(t: torch.Tensor) -> np.ndarray:
    return t.contiguous().view(SIGNED[t.element_size()]).numpy().astype(np.int64)


def operand(dtype, fmt: str, layout: str, shape, g: torch.Generator, raw: bool):
    if dtype == torch.uint8:  # fp6 / fp4 codes in bytes, or packed fp4
        x = torch.randint(0, 256, shape, generator=g, dtype=torch.int32).to(torch.uint8)
        if layout == "packed_fp4":
            return x
        return x & 0x3F if fmt in ("e3m2", "e2m3") else (x & 0x3C)
    if raw:
        size = torch.empty(0, dtype=dtype).element_size()
        hi = 1 << min(8 * size - 1, 62)
        w = torch.randint(-hi, hi, shape, generator=g, dtype=torch.int64).to(SIGNED[size])
        return w.view(dtype)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * 4).to(dtype)


def scales(dtype, shape, g):
    e = torch.randint(-3, 4, shape, generator=g).to(torch.float32)
    return torch.exp2(e).to(dtype)


def instructions():
    seen = set()
    for row in mma.catalog():
        if row["note"] is not None:
            continue  # not an mmasim instruction
        instr = row["instr"]
        types = instr.split(".", 1)[1] if row["vendor"] == "nvidia" else instr.split("_", 1)[-1]
        key = (row["arch"], row["op"], types)
        if key not in seen:
            seen.add(key)
            yield row["vendor"], row["arch"], row["op"], instr


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=64)
    o = ap.parse_args()
    torch.set_num_threads(2)
    tally = Counter()
    failures = []
    for n_instr, (vendor, arch, op, instr) in enumerate(instructions()):
        if vendor == "nvidia":
            a_op, b_op = getattr(ref.nv_ptx, op)(arch, instr), getattr(ours.nv_ptx, op)(arch, instr)
        else:
            a_op, b_op = ref.amd.MFMA(arch, instr), ours.amd.MFMA(arch, instr)
        unit = b_op._unit
        f, layout = unit.formats, unit.layout
        g = torch.Generator().manual_seed(n_instr)
        per = 2 if layout == "packed_fp4" else 1
        for raw in (False, True):
            shape = (o.rows, unit.k // per)
            a = operand(b_op.a_type, f["a"], layout, shape, g, raw)
            b = operand(b_op.b_type, f["b"], layout, shape, g, raw)
            c = operand(b_op.c_type, f["c"], "plain", (o.rows,), g, raw)
            extra = []
            if f["scale"] is not None:
                s = (o.rows, unit.k // f["scale_block"])
                extra = [scales(b_op.s_type, s, g), scales(b_op.s_type, s, g)]
            want = bits(a_op.dpa(a, b, c, *extra))
            got = bits(b_op.dpa(a, b, c, *extra))
            # __call__ on a small matrix product built from the same rows.
            m, n = 4, 3
            A, B, C = a[:m], b[:n].T, c[: m * n].reshape(m, n)
            ex2 = [extra[0][:m], extra[1][:n].T] if extra else []
            want = np.concatenate([want, bits(a_op(A, B, C, *ex2)).reshape(-1)])
            got = np.concatenate([got, bits(b_op(A, B, C, *ex2)).reshape(-1)])
            dnan = np.isnan(mma.decode(f["d"], want.astype(np.uint64) & _mask(f["d"])))
            gnan = np.isnan(mma.decode(f["d"], got.astype(np.uint64) & _mask(f["d"])))
            for i in range(len(want)):
                if want[i] == got[i]:
                    tally["same bits"] += 1
                elif dnan[i] and gnan[i] and (vendor == "amd" or unit.model == "FMA"):
                    tally["NaN both (documented: NaN bits)"] += 1
                elif vendor == "amd" and i < o.rows and _amd_known(arch, instr, a[i], b[i], c[i]):
                    tally["AMD documented difference"] += 1
                else:
                    tally["DIFFERENT"] += 1
                    failures.append(f"{arch} {op} {instr} raw={raw} #{i}: mmasim {want[i]:#x}"
                                    f", mma {got[i]:#x}")
        tally["instructions"] += 0
    print(f"{n_instr + 1} instructions, {o.rows} dpa rows + 12 __call__ elements each, x2 inputs")
    for k, v in sorted(tally.items()):
        if v:
            print(f"  {k}: {v}")
    for line in failures[:20]:
        print("  ", line)
    print("RESULT:", "all calls agree" if not failures else f"{len(failures)} differences")


def _mask(fmt: str) -> np.uint64:
    return np.uint64((1 << {"f16": 16, "f32": 32, "f64": 64}[fmt]) - 1) if fmt != "f64" else \
        np.uint64(0xFFFFFFFFFFFFFFFF)


def _amd_known(arch, instr, a, b, c) -> bool:
    w = lambda t: [int(x) & ((1 << (8 * t.element_size())) - 1) for x in bits(t.reshape(-1))]
    return _mma.amd_known_difference(arch, instr, w(a), w(b), w(c)[0]) is not None


if __name__ == "__main__":
    main()
