#!/usr/bin/env python3
"""Throughput of mmasim 2.1.1 against `mma bench`, single thread, side by side.

Not part of CI. `bash xtask/scripts/bench_mmasim.sh [options]` installs mmasim 2.1.1 in a
private virtual environment and runs this script there. To run it by hand it needs mmasim
2.1.1 (and torch) in a virtual environment; activate it first so that mmasim's JIT build finds
`ninja`:

    source /path/to/venv/bin/activate
    python xtask/scripts/bench_mmasim.py [--seconds 2] [--mma target/release/mma] [--markdown]

mmasim is timed through its own batched `dpa` (the fastest way to evaluate many independent
dot products), with torch limited to one thread and CPU time measured (`time.process_time`).
`mma bench --json` is run on the same instructions; its dot/s are CPU-time rates too.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

LIST = [
    ("nvidia", "Hopper", "WGMMA", "m64n8k16.f32.f16.f16"),
    ("nvidia", "Ampere", "MMA", "m16n8k16.f32.bf16.bf16.f32"),
    ("nvidia", "Ada Lovelace", "MMA", "m16n8k32.f32.e4m3.e4m3.f32"),
    ("nvidia", "RTX Blackwell", "MMABlockScale",
     "m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3"),
    ("amd", "CDNA3", "MFMA", "f32_32x32x8_f16"),
    ("amd", "CDNA2", "MFMA", "f32_32x32x8bf16_1k"),
    ("amd", "CDNA3", "MFMA", "f32_16x16x32_fp8_fp8"),
]


def make_sim(vendor, arch, op, name):
    import mmasim.nv_ptx as nv
    import mmasim.amd as amd
    if vendor == "amd":
        return amd.MFMA(arch, name)
    return getattr(nv, op)(arch, name)


def inputs(torch, sim, batch):
    """Random inputs for `batch` independent dot products of K = sim.k."""
    k = sim.k
    g = torch.Generator().manual_seed(1)
    c = torch.rand(batch, generator=g) * 2 - 1
    c = c.to(sim.c_type)
    if getattr(sim, "packing", 1) == 2:  # packed fp4, two per byte
        a = torch.randint(0, 256, (batch, k // 2), dtype=torch.uint8, generator=g)
        b = torch.randint(0, 256, (batch, k // 2), dtype=torch.uint8, generator=g)
    else:
        a = torch.randn(batch, k, generator=g).to(sim.a_type)
        b = torch.randn(batch, k, generator=g).to(sim.b_type)
    extra = ()
    if getattr(sim, "block_size", None):
        nb = k // sim.block_size
        s = (torch.rand(batch, nb, generator=g) * 3 + 0.5).to(sim.s_type)
        extra = (s, s.clone())
    return (a, b, c) + extra


def time_mmasim(torch, sim, seconds, batch=16384):
    args = inputs(torch, sim, batch)
    sim.dpa(*args)  # warm-up
    n = 0
    t0 = time.process_time()
    while n == 0 or time.process_time() - t0 < seconds:
        sim.dpa(*args)
        n += 1
    return n * batch / (time.process_time() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--mma", default=None, help="path of the mma binary (default: cargo run --release)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    o = ap.parse_args()

    import torch
    torch.set_num_threads(1)
    mmasim = {}
    for vendor, arch, op, name in LIST:
        sim = make_sim(vendor, arch, op, name)
        mmasim[name] = time_mmasim(torch, sim, o.seconds)
        print(f"mmasim {arch} {name}: {mmasim[name]:.3e} dot/s", file=sys.stderr)

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cmd = ([o.mma] if o.mma else ["cargo", "run", "-q", "--release", "--bin", "mma", "--"])
    cmd += ["bench", "--json", "--seconds", str(o.seconds)]
    ours = json.loads(subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True).stdout)

    rows, speedups = [], []
    for d in ours["dots"]:
        name = d["instr"]
        if not d.get("available"):
            rows.append((d["arch"], name, None, mmasim.get(name), None, None, None))
            continue
        up = d["dot_per_s"] / mmasim[name]
        speedups.append(up)
        rows.append((d["arch"], name, d["k"], mmasim[name], d["dot_per_s"], up,
                     d["native_over_model"]))
    geo = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else float("nan")

    if o.markdown:
        print("| arch | instruction | K | mmasim dot/s | mma dot/s | mma / mmasim | native / mma |")
        print("| --- | --- | --: | --: | --: | --: | --: |")
        for arch, name, k, ms, ds, up, nat in rows:
            if ds is None:
                print(f"| {arch} | `{name}` | | {ms:.3g} | not available | | |")
            else:
                print(f"| {arch} | `{name}` | {k} | {ms:.3g} | {ds:.3g} | {up:.1f}x | {nat:.1f}x |")
        print(f"| | geometric mean | | | | {geo:.1f}x | |")
    else:
        print(f"{'arch':<14} {'instruction':<60} {'mmasim':>10} {'mma':>10} {'mma/mmasim':>10} {'native/mma':>10}")
        for arch, name, k, ms, ds, up, nat in rows:
            if ds is None:
                print(f"{arch:<14} {name:<60} {ms:>10.3g} {'n/a':>10}")
            else:
                print(f"{arch:<14} {name:<60} {ms:>10.3g} {ds:>10.3g} {up:>9.1f}x {nat:>9.1f}x")
        print(f"geometric mean of mma/mmasim: {geo:.1f}x")


if __name__ == "__main__":
    main()
