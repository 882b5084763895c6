"""Times mma.scaled_mm and mmaemu.scaled_mm (CPU path) on one thread on the same FP8 call and
checks that they agree bit for bit (see bench_mmaemu.sh)."""

import argparse
import time

import ml_dtypes
import numpy as np
import torch

import mma
import mmaemu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=1)
    o = ap.parse_args()
    torch.set_num_threads(1)
    n = o.size
    rng = np.random.default_rng(36)
    # Finite e4m3 codes (0x7f and 0xff are NaN).
    a8 = rng.integers(0, 0x7F, (n, n), dtype=np.uint8) | (rng.integers(0, 2, (n, n), dtype=np.uint8) << 7)
    w8 = rng.integers(0, 0x7F, (n, n), dtype=np.uint8) | (rng.integers(0, 2, (n, n), dtype=np.uint8) << 7)
    a_np, w_np = a8.view(ml_dtypes.float8_e4m3fn), w8.view(ml_dtypes.float8_e4m3fn)
    a_t = torch.from_numpy(a8).view(torch.float8_e4m3fn)
    w_t = torch.from_numpy(w8).view(torch.float8_e4m3fn)
    one = torch.tensor(1.0)
    print(f"{n}^3 e4m3 x e4m3 -> bf16, RTX 4060, S = 1, one thread, best of {o.repeat}")
    for fast in (True, False):
        best_m = best_e = float("inf")
        for _ in range(o.repeat):
            t = time.perf_counter()
            ours = mma.scaled_mm(a_np, w_np.T, np.float32(1), np.float32(1),
                                 out_dtype="bfloat16", use_fast_accum=fast,
                                 gpu="RTX 4060", threads=1)
            best_m = min(best_m, time.perf_counter() - t)
            t = time.perf_counter()
            ref = mmaemu.scaled_mm(a_t, w_t.t(), one, one, out_dtype=torch.bfloat16,
                                   use_fast_accum=fast, profile="ada", splitk=1)
            best_e = min(best_e, time.perf_counter() - t)
        same = np.array_equal(ours.view(np.uint16), ref.view(torch.int16).numpy().view(np.uint16))
        print(f"  use_fast_accum={fast}: mma {best_m:.3f} s, mmaemu {best_e:.3f} s, "
              f"ratio {best_e / best_m:.1f}x, identical: {same}")


if __name__ == "__main__":
    main()
