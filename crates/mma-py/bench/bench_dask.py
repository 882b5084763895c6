"""mma.dask against the single-process calls: 1 worker vs 2 workers on this machine.

    python bench/bench_dask.py [--size 1024] [--tile 256] [--reps 5] [--workers 1 2]

For an ``N x N x N`` e4m3 -> bf16 ``scaled_mm`` (RTX 4060, slow accumulation) and a bf16
``gemm`` (A100 ``m16n8k16.f32.bf16.bf16.f32``): the single-process call on 1 and 2 engine
threads, then a LocalCluster of W worker processes x 1 thread (tasks on 1 engine thread), the
inputs persisted on the cluster first, tiles of ``tile x tile`` (and, for the tasks' own
cost, the same tiles called one by one in one process). Medians of ``reps`` runs
after one warm-up; every result is checked bit for bit against the single-process one.
"""

import argparse
import logging
import statistics
import time

import dask.array as da
import ml_dtypes
import numpy as np
from distributed import Client, LocalCluster

import mma
import mma.dask as md


def median_time(fn, reps):
    out, times = None, []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--tile", type=int, default=256)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    x = ap.parse_args()
    n, t = x.size, x.tile
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 0x7F, (2, n, n), dtype=np.uint8)  # finite e4m3, both signs below
    codes[:, ::2] |= 0x80
    a, b = codes[0].view(ml_dtypes.float8_e4m3fn), codes[1].view(ml_dtypes.float8_e4m3fn)
    unit = mma.find("A100", "m16n8k16.f32.bf16.bf16.f32")
    fa = rng.standard_normal((n, n)).astype(ml_dtypes.bfloat16)
    fb = rng.standard_normal((n, n)).astype(ml_dtypes.bfloat16)
    sc = (np.float32(0.5), np.float32(2.0))
    rows = []
    for threads in (1, 2):
        s, ref_s = median_time(lambda: mma.scaled_mm(a, b, *sc, out_dtype="bfloat16",
                                                     threads=threads), x.reps)
        g, ref_g = median_time(lambda: unit.matmul(fa, fb, threads=threads), x.reps)
        rows.append((f"single process, {threads} engine thread(s)", s, g))
    tasks = (-(-n // t)) ** 2
    cuts = [(slice(i, i + t), slice(j, j + t)) for i in range(0, n, t) for j in range(0, n, t)]
    s, _ = median_time(lambda: [mma.scaled_mm(a[r], b[:, c], *sc, out_dtype="bfloat16",
                                              threads=1) for r, c in cuts], x.reps)
    g, _ = median_time(lambda: [unit.matmul(fa[r], fb[:, c], threads=1) for r, c in cuts],
                       x.reps)
    rows.append((f"single process, the {tasks} tiles one by one, 1 engine thread", s, g))
    for w in x.workers:
        with LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            A, B, FA, FB = client.persist([da.from_array(m, chunks=t) for m in (a, b, fa, fb)])
            D = md.scaled_mm(A, B, *sc, out_dtype="bfloat16", threads=1, tile=(t, t))
            G = md.gemm(FA, FB, unit=unit, threads=1, tile=(t, t))
            client.compute([D, G], sync=True)  # warm-up: imports on the workers
            s, got_s = median_time(lambda: client.compute(D, sync=True), x.reps)
            g, got_g = median_time(lambda: client.compute(G, sync=True), x.reps)
            assert np.array_equal(got_s.view(np.uint16), ref_s.view(np.uint16))
            assert np.array_equal(got_g.view(np.uint32), ref_g.view(np.uint32))
            rows.append((f"Dask, {w} worker(s) x 1 thread, {tasks} tasks", s, g))
    print(f"{n} x {n} x {n}, tiles {t} x {t}; seconds, median of {x.reps}")
    print("| run | scaled_mm e4m3 -> bf16 | gemm bf16 (A100) |")
    print("| --- | --: | --: |")
    for name, s, g in rows:
        print(f"| {name} | {s:.3f} | {g:.3f} |")


if __name__ == "__main__":
    main()
