"""Emulated ``F.linear`` against native CPU ``torch.matmul`` (issue 37's speed figure).

    python bench/bench_torch_linear.py [--n 4096] [--gpu A100] [--threads 1 2] [--reps 1]

``x`` [n, n] and ``w`` [n, n] bf16 (seeded normal values): ``mma.torch.linear(x, w, gpu=...)``
on 1 and on all engine threads (the GIL released inside the engine), native
``torch.nn.functional.linear`` on the same bf16 tensors and ``torch.matmul`` in fp32 on the same
values, each on ``torch.get_num_threads()`` threads. Wall seconds, the best of ``reps`` runs.
"""

import argparse
import os
import time

import torch
import torch.nn.functional as F

import mma.torch as mt


def best(fn, reps):
    out, times = None, []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--gpu", default="A100")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, os.cpu_count()])
    ap.add_argument("--reps", type=int, default=1)
    x_ = ap.parse_args()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(x_.n, x_.n, generator=g).to(torch.bfloat16)
    w = torch.randn(x_.n, x_.n, generator=g).to(torch.bfloat16)
    rows = []
    for t in x_.threads:
        log = []
        s, _ = best(lambda: mt.linear(x, w, gpu=x_.gpu, threads=t, log=log), x_.reps)
        rows.append((f"mma.torch.linear, {x_.gpu} ({log[-1]['unit']}), {t} engine thread(s)", s))
    nt = torch.get_num_threads()
    s, _ = best(lambda: F.linear(x, w), x_.reps)
    rows.append((f"native F.linear bf16 (CPU, {nt} threads)", s))
    xf, wf = x.float(), w.float()
    s, _ = best(lambda: torch.matmul(xf, wf.t()), x_.reps)
    rows.append((f"native torch.matmul fp32 (CPU, {nt} threads)", s))
    print(f"[{x_.n}, {x_.n}] x [{x_.n}, {x_.n}] bf16; seconds, best of {x_.reps}")
    print("| run | seconds |")
    print("| --- | --: |")
    for name, s in rows:
        print(f"| {name} | {s:.3f} |")


if __name__ == "__main__":
    main()
