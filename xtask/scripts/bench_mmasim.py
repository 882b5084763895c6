#!/usr/bin/env python3
"""Throughput of `mma` against mmasim 2.1.1, one instruction of every class, one thread.

Not part of CI. `bash xtask/scripts/bench_mmasim.sh [options]` prepares a virtual environment
(mmasim 2.1.1, torch, ninja, and this repository's Python package `mma`), builds the `mma`
command in release mode and runs this script. By hand, with such an environment:

    python xtask/scripts/bench_mmasim.py --mma target/release/mma [--dots 131072]
        [--seconds 2] [--repeat 3] [--markdown] [--only TEXT]

Rows (`ROWS`): one instruction per model and per lane family of the kernels (issue 13's
classes), about 25; the Sliced-FDPA row is not in mmasim and has the `mma` side only.

How each figure is made, and why:

- **mma dot/s** and **native / mma** come from `mma bench --json --dots N` for that
  instruction (it takes the batch size and runs on one thread, so it is the timing): the
  engine (`Kernel::dots`, operands in their storage width) on N distinct dot products, on the
  calling thread only, rated by that thread's CPU time; `native_over_model` is
  the native FMA chain (f32, f64 for the f64 classes) of the same K over the same data decoded,
  in the same process (read in crates/mma-cli/src/bench.rs). `mma bench` draws its data itself
  (it takes no input file), so this script draws mmasim's from the same distributions (every
  finite encoding alike, 8-bit and wider exponents within 2^+-30, C uniform in [-1, 1)), same
  N, same K, not the same bits. Where `mma bench` does not list an instruction, it times the
  first catalog instruction of the same unit and K (`twin`, checked equal here).
- **mmasim dot/s**: its batched `dpa` on N dot products, torch and OpenMP limited to one thread,
  rated by the CPU time of the whole process (any helper thread would count).
- **identical inputs, identical bits**: the very arrays mmasim is timed on also go through
  `mma`'s Python package (`Unit.dots(threads=1)`, the same engine, built from the same tree by
  the wrapper); both outputs are compared word for word and any difference is printed and makes
  the exit status 1. That call is timed too (**mma py dot/s**): the identical-input rate,
  including the package's own conversions (fp4/fp6 and scaled operands are unpacked, tf32
  widened), which `mma bench` does not pay.

Rates are mean dot products per CPU second over calls that fill `--seconds`; with `--repeat R`
each is the median of R such measurements. The geometric mean of mma/mmasim is over rows that
have both.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

# Before torch is imported: mmasim's FMA chains are an OpenMP loop, torch has its own pool.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
# mmasim compiles a C++ extension at import time and looks for `ninja` on PATH: the one
# installed beside this interpreter.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# class, vendor, arch, op, instruction[, twin: the (op, instruction) `mma bench` times instead,
# the same unit and K].
ROWS = [
    ("FMA chain f32", "amd", "CDNA3", "MFMA", "f32_32x32x2_f32"),
    ("FMA chain f64", "nvidia", "Ampere", "MMA", "m8n8k4.f64.f64.f64.f64"),
    ("FMA chain f64", "amd", "CDNA3", "MFMA", "f64_16x16x4_f64"),
    ("E-FDPA f16", "amd", "CDNA1", "MFMA", "f32_32x32x8f16"),
    ("E-FDPA bf16", "amd", "CDNA1", "MFMA", "f32_32x32x4bf16"),
    ("FTZ-MulAdd f16", "amd", "CDNA2", "MFMA", "f32_32x32x8f16"),
    ("FTZ-MulAdd bf16 (P=2)", "amd", "CDNA2", "MFMA", "f32_32x32x4bf16"),
    ("FTZ-MulAdd bf16_1k", "amd", "CDNA2", "MFMA", "f32_32x32x8bf16_1k"),
    ("TR-FDPA xf32", "amd", "CDNA3", "MFMA", "f32_16x16x8_xf32"),
    ("TR-FDPA f16", "amd", "CDNA3", "MFMA", "f32_32x32x8_f16"),
    ("TR-FDPA bf16", "amd", "CDNA3", "MFMA", "f32_32x32x4_2b_bf16"),
    ("GTR-FDPA fp8", "amd", "CDNA3", "MFMA", "f32_16x16x32_fp8_fp8"),
    ("T-FDPA f16, blocks of 4", "nvidia", "Volta", "MMA", "m8n8k4.f32.f16.f16.f32"),
    ("T-FDPA f16", "nvidia", "Turing", "MMA", "m16n8k8.f32.f16.f16.f32"),
    ("T-FDPA bf16", "nvidia", "Ampere", "MMA", "m16n8k16.f32.bf16.bf16.f32"),
    ("T-FDPA fp8, F=13", "nvidia", "Ada Lovelace", "MMA", "m16n8k32.f32.e4m3.e4m3.f32"),
    ("T-FDPA tf32", "nvidia", "Hopper", "WGMMA", "m64n8k8.f32.tf32.tf32"),
    ("T-FDPA f16", "nvidia", "Hopper", "WGMMA", "m64n8k16.f32.f16.f16"),
    ("T-FDPA bf16", "nvidia", "Hopper", "WGMMA", "m64n8k16.f32.bf16.bf16",
     ("MMA", "m16n8k16.f32.bf16.bf16.f32")),
    ("T-FDPA fp8", "nvidia", "Hopper", "WGMMA", "m64n8k32.f32.e4m3.e4m3",
     ("MMA", "m16n8k32.f32.e4m3.e4m3.f32")),
    ("Sliced-FDPA fp8, f16 D", "nvidia", "Hopper", "MMA", "m16n8k32.f16.e4m3.e4m3.f16"),
    ("T-FDPA f8f6f4, f16 D", "nvidia", "Blackwell", "TCGen05MMA",
     "m64n8k32.kind::f8f6f4.f16.e2m1.e4m3"),
    ("ST-FDPA mxf8f6f4", "nvidia", "Blackwell", "TCGen05MMABlockScale",
     "m128n8k32.kind::mxf8f6f4.block32.f32.e5m2.e4m3.ue8m0"),
    ("GST-FDPA mxf4", "nvidia", "Blackwell", "TCGen05MMABlockScale",
     "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0"),
    ("GST-FDPA nvf4", "nvidia", "RTX Blackwell", "MMABlockScale",
     "m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3"),
]

# Format: (bits of the code, exponent bits). Codes sit in the low bits, as mma.decode takes
# them; e2m1 moves to bits 5:2 of its byte where unpacked (mmasim's layout and mma's).
FMT = {"f64": (64, 11), "f32": (32, 8), "tf32": (32, 8), "f16": (16, 5), "bf16": (16, 8),
       "e5m2": (8, 5), "e4m3": (8, 4), "e5m2fnuz": (8, 5), "e4m3fnuz": (8, 4), "e3m2": (6, 3),
       "e2m3": (6, 2), "e2m1": (4, 2), "ue8m0": (8, 8), "ue4m3": (7, 4)}
WIDE = {"f64": (52, 1023), "f32": (23, 127), "tf32": (10, 127)}  # fraction bits, bias
_POOL = {}


def finite_words(mma, fmt, n, rng):
    """n codes of `fmt` drawn as `mma bench` draws them (`finite` in bench.rs): every finite
    encoding (zero included) equally likely; with 8 or more exponent bits, only zero and
    magnitudes 2^-30 <= |v| < 2^31, so that sums stay within f32."""
    bits, exp_bits = FMT[fmt]
    if fmt in WIDE:  # sign, exponent in [-30, 30], any fraction (zero: 2^-32, left out)
        frac, bias = WIDE[fmt]
        word = rng.integers(0, 1 << frac, n, dtype=np.uint64)
        e = rng.integers(bias - 30, bias + 31, n).astype(np.uint64)
        sign = rng.integers(0, 2, n).astype(np.uint64)
        lsb = 13 if fmt == "tf32" else 0  # tf32: an fp32 word with its low 13 bits zero
        word = (sign << np.uint64(bits - 1)) | (e << np.uint64(bits - 1 - exp_bits)) \
            | (word << np.uint64(lsb))
        return word
    if fmt not in _POOL:  # <= 16 bits: the finite codes, listed once
        codes = np.arange(1 << bits, dtype=np.uint64)
        v = mma.decode(fmt, codes)
        keep = np.isfinite(v)
        if exp_bits >= 8:
            e = np.frexp(v)[1] - 1
            keep &= (v == 0) | ((e >= -30) & (e <= 30))
        _POOL[fmt] = codes[keep]
    return rng.choice(_POOL[fmt], n)


def inputs(mma, unit, n, seed):
    """Storage words of A, B ([n, K], or [n, K/2] packed fp4), C ([n]) and the scales
    ([n, K/block] or None), in the dtypes `Unit.dots` takes."""
    rng = np.random.default_rng(seed)
    f, k = unit.formats, unit.k

    def operand(w):
        codes = finite_words(mma, f[w], n * k, rng).reshape(n, k)
        if unit.layout == "packed_fp4":  # two per byte, element 2i in the high nibble
            codes = (codes[:, 0::2] << np.uint64(4)) | codes[:, 1::2]
        elif f[w] == "e2m1":
            codes = codes << np.uint64(2)
        return codes.astype(unit._word_dtype(w))

    a, b = operand("a"), operand("b")
    v = rng.random(n, dtype=np.float32) * 2 - 1  # C as an accumulator: uniform in [-1, 1)
    if f["c"] == "f32":
        c = v.view(np.uint32)
    elif f["c"] == "f16":
        c = v.astype(np.float16).view(np.uint16)
    else:
        c = finite_words(mma, f["c"], n, rng).astype(unit._word_dtype("c"))
    sa = sb = None
    if f["scale"] is not None:
        s = k // f["scale_block"]
        sa = finite_words(mma, f["scale"], n * s, rng).astype(np.uint8).reshape(n, s)
        sb = finite_words(mma, f["scale"], n * s, rng).astype(np.uint8).reshape(n, s)
    return a, b, c, sa, sb


_SIGNED = {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64}
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def to_torch(torch, words, dtype):
    """Words as a tensor of mmasim's dtype, bit for bit (torch has no uint16/32/64 views)."""
    t = torch.from_numpy(np.ascontiguousarray(words).view(_SIGNED[words.dtype.itemsize]))
    return t if dtype == torch.uint8 else t.view(dtype)


def from_torch(torch, t):
    size = t.element_size()
    sint = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    return t.contiguous().view(sint).numpy().view(_UNSIGNED[size])


def cpu_rate(fn, dots, seconds):
    """Dot products per CPU second of this process (every thread) over calls of `fn` that
    fill `seconds` (at least one call)."""
    n, t0 = 0, time.process_time()
    while True:
        fn()
        n += 1
        dt = time.process_time() - t0
        if dt >= seconds:
            return n * dots / dt


def compare(mma, d_fmt, ours, ref):
    """'' when equal word for word, else what differs (printed loudly by the caller)."""
    if ours.shape != ref.shape or ours.dtype.itemsize != ref.dtype.itemsize:
        return (f"shapes/dtypes differ: mma {ours.shape} {ours.dtype}, "
                f"mmasim {ref.shape} {ref.dtype}")
    bad = np.flatnonzero(ours != ref)
    if bad.size == 0:
        return ""
    both_nan = np.isnan(mma.decode(d_fmt, ours[bad].astype(np.uint64))) & \
        np.isnan(mma.decode(d_fmt, ref[bad].astype(np.uint64)))
    first = ", ".join(f"[{i}] mma {int(ours[i]):#x} mmasim {int(ref[i]):#x}" for i in bad[:4])
    return (f"{bad.size} of {ours.size} words differ ({int(both_nan.sum())} of them NaN in "
            f"both, other payload); first: {first}")


class Bench:
    """`mma bench --json` runs, one per filter and mode (list, then --all), cached."""

    def __init__(self, o):
        self.o, self.runs = o, {}

    def run(self, all_units, filt):
        key = (all_units, filt)
        if key not in self.runs:
            cmd = [self.o.mma, "bench", "--json", "--seconds", str(self.o.seconds),
                   "--dots", str(self.o.dots), "--filter", filt] + (["--all"] if all_units else [])
            docs = []
            for _ in range(self.o.repeat):
                p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
                # Without --all, `mma bench` times one instruction per class and exits 2 when
                # none of those matches the filter (the caller then asks --all): no rows, not
                # a failure. Any other failure stops the run with mma's own message.
                if p.returncode == 2 and "no benchmarked instruction contains" in p.stderr:
                    break
                if p.returncode != 0:
                    raise SystemExit(f"{' '.join(cmd)} failed (exit {p.returncode}): "
                                     f"{p.stderr.strip()}")
                docs.append(json.loads(p.stdout))
            if not docs:
                self.runs[key] = {}
                return self.runs[key]
            rows = {}
            for d in docs[0]["dots"]:
                if not d.get("available"):
                    continue
                same = [r for doc in docs for r in doc["dots"]
                        if (r["arch"], r["instr"]) == (d["arch"], d["instr"])]
                rows[(d["arch"], d["instr"])] = dict(
                    d, dot_per_s=statistics.median(r["dot_per_s"] for r in same),
                    native_over_model=statistics.median(r["native_over_model"] for r in same))
            self.runs[key] = rows
        return self.runs[key]

    def row(self, arch, instr):
        """The row of (arch, instr): from the list of one instruction per class, else from
        the first instruction of each distinct unit; None where bench times neither."""
        for all_units in (False, True):
            r = self.run(all_units, instr).get((arch, instr))
            if r is not None:
                return r
        return None


def stale(path):
    """Whether `path` is older than the newest Rust source under crates/ (a warning only)."""
    newest = 0.0
    for top, dirs, files in os.walk(os.path.join(ROOT, "crates")):
        dirs[:] = [d for d in dirs if d != "target"]
        newest = max([newest] + [os.path.getmtime(os.path.join(top, f))
                                 for f in files if f.endswith(".rs")])
    return os.path.getmtime(path) < newest


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mma", default=os.path.join(ROOT, "target", "release", "mma"),
                    help="the mma command (cargo build --release -p mma-cli)")
    ap.add_argument("--dots", type=int, default=131072,
                    help="distinct dot products per call, both tools (a multiple of 8)")
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per rate")
    ap.add_argument("--repeat", type=int, default=1, help="median of this many measurements")
    ap.add_argument("--only", help="only rows whose class, arch or instruction has this text")
    ap.add_argument("--markdown", action="store_true", help="print the Markdown table of docs/performance.md")
    o = ap.parse_args()
    if o.dots <= 0 or o.dots % 8:
        ap.error("--dots must be a positive multiple of 8 (mma bench's rule)")

    import torch
    import mma
    import mmasim.amd
    import mmasim.nv_ptx
    torch.set_num_threads(1)
    so = mma._mma.__file__ if hasattr(mma, "_mma") else mma.__file__
    for what, path in (("mma command", o.mma), ("mma Python package", so)):
        if stale(path):
            print(f"WARNING: the {what} ({path}) is older than the sources under crates/: "
                  "rebuild it (bench_mmasim.sh does) or its figures and bits are not "
                  "today's", file=sys.stderr)
    bench = Bench(o)
    rows, failures = [], []
    for seed, (cls, vendor, arch, op, instr, *twin) in enumerate(ROWS, 1):
        if o.only and o.only not in f"{cls} {arch} {instr}":
            continue
        nv_op = op if vendor == "nvidia" else None
        unit = mma.find(arch, instr, vendor, op=nv_op)
        b_op, b_instr = twin[0] if twin else (op, instr)
        if twin:  # the twin must be the same unit and K, or its rate says nothing here
            u2 = mma.find(arch, b_instr, vendor, op=b_op)
            if (u2.description, u2.formats, u2.k) != (unit.description, unit.formats, unit.k):
                sys.exit(f"error: {arch} {b_instr} is not the same unit as {instr}")
        r = bench.row(arch, b_instr)
        if r is None:
            failures.append(f"{arch} {instr}: mma bench does not time it (nor {b_instr})")
            print(f"ERROR: {failures[-1]}", file=sys.stderr)
            continue
        row = dict(cls=cls, arch=arch, instr=instr, k=unit.k, mma=r["dot_per_s"],
                   native=r["native_over_model"],
                   path="lanes" if r["lanes"] else "per dot" if r["fast"] else "plain",
                   sim=None, py=None, same="not in mmasim")
        a, b, c, sa, sb = inputs(mma, unit, o.dots, seed)
        try:
            sim = mmasim.amd.MFMA(arch, instr) if vendor == "amd" else \
                getattr(mmasim.nv_ptx, op)(arch, instr)
        except AssertionError:  # mmasim's answer for an instruction it does not have
            sim = None
        ours = unit.dots(a, b, c, sa, sb, threads=1)  # also the warm-up of the timing below
        row["py"] = statistics.median(
            cpu_rate(lambda: unit.dots(a, b, c, sa, sb, threads=1), o.dots, o.seconds)
            for _ in range(o.repeat))
        if sim is not None:
            args = [to_torch(torch, a, sim.a_type), to_torch(torch, b, sim.b_type),
                    to_torch(torch, c, sim.c_type)]
            if sa is not None:
                args += [to_torch(torch, sa, sim.s_type), to_torch(torch, sb, sim.s_type)]
            ref = from_torch(torch, sim.dpa(*args))  # the warm-up, and the bits to compare
            diff = compare(mma, unit.formats["d"], ours, ref)
            row["same"] = "yes" if not diff else "NO"
            if diff:
                failures.append(f"{arch} {instr}: {diff}")
                print(f"MISMATCH {failures[-1]}", file=sys.stderr)
            row["sim"] = statistics.median(cpu_rate(lambda: sim.dpa(*args), o.dots, o.seconds)
                                           for _ in range(o.repeat))
        rows.append(row)
        sim_txt = f"{row['sim']:.3g}" if row["sim"] else "-"
        print(f"{arch} {instr}: mma {row['mma']:.3g}, mmasim {sim_txt}, mma py "
              f"{row['py']:.3g} dot/s, bits identical: {row['same']}", file=sys.stderr)

    if not rows:
        print("no row measured", file=sys.stderr)
        return 1

    def gmean(xs):
        return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")

    both = [r for r in rows if r["sim"]]
    geo = gmean([r["mma"] / r["sim"] for r in both])
    geo_py = gmean([r["py"] / r["sim"] for r in both])
    head = ["class", "instruction", "K", "path", "mma dot/s", "mmasim dot/s", "mma / mmasim",
            "native / mma", "mma py dot/s", "identical"]
    cells = []
    for r in rows:
        up = f"{r['mma'] / r['sim']:.1f}x" if r["sim"] else "-"
        name = f"{r['arch']} `{r['instr']}`" if o.markdown else f"{r['arch']} {r['instr']}"
        cells.append([r["cls"], name, str(r["k"]), r["path"], f"{r['mma']:.3g}",
                      f"{r['sim']:.3g}" if r["sim"] else "not in mmasim", up,
                      f"{r['native']:.1f}x", f"{r['py']:.3g}", r["same"]])
    print(f"{o.dots} dot products per call, one thread, {o.seconds} CPU s per rate, median of "
          f"{o.repeat}; torch {torch.__version__}")
    if o.markdown:
        print("| " + " | ".join(head) + " |")
        print("| --- | --- | --: | --- | --: | --: | --: | --: | --: | --- |")
        for row in cells:
            print("| " + " | ".join(row) + " |")
        print(f"| geometric mean ({len(both)} rows) | | | | | | {geo:.1f}x | | | |")
    else:
        width = [max(len(h), *(len(row[i]) for row in cells)) for i, h in enumerate(head)]
        for row in [head] + cells:
            print("  ".join(x.ljust(w) if i < 2 or i == 3 else x.rjust(w)
                            for i, (x, w) in enumerate(zip(row, width))))
    print(f"geometric mean of mma/mmasim over {len(both)} rows: {geo:.1f}x "
          f"(mma py on the identical inputs: {geo_py:.1f}x)")
    for f in failures:
        print(f"FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
