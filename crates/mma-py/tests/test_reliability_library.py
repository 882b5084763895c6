"""Regression tests of the library path (``mma.scaled_mm``, and through it ``mma.torch`` and
``mma.dask``) for the third reliability probe (issue 56): scales float32 cannot hold are
refused, never rounded; a call too large for memory is a MemoryError; split-K's memory does
not grow with S; Ctrl-C stops a long call; every dtype spelling is understood; loose
arguments are refused naming the argument; a call never starts more threads than it has
work for. Each expected value is derived by hand next to its case; memory and thread counts
are measured, never timed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import mma

ml_dtypes = pytest.importorskip("ml_dtypes")
E4 = ml_dtypes.float8_e4m3fn


def _operands(m=32, k=32, n=32):
    """Small FP8 operands (codes 0..6 of e4m3: 0 and subnormals/normals near 2^-9): exact
    sums, so that any two correct scalings give the bits the scale says."""
    a = (np.arange(m * k) % 7).astype(np.uint8).view(E4).reshape(m, k)
    b = (np.arange(k * n) % 5).astype(np.uint8).view(E4).reshape(k, n)
    return a, b


def _f32_words(x) -> np.ndarray:
    return np.asarray(x).view(np.uint32)


# 1. Scales ---------------------------------------------------------------------------------
# Values float32 cannot hold, whatever type carries them. By hand: 1 + 2^-60 needs 61
# significand bits (float32 has 24), 2^53 + 1 needs 54, 2^64 - 1 needs 64, 2^128 is beyond
# float32's range (its largest finite value is (2 - 2^-23)·2^127), 0.1 is not a dyadic fraction
# and 1 + 2^-30 needs 31 bits.
INEXACT = [
    2**53 + 1,
    np.int64(2**53 + 1),
    np.uint64(2**64 - 1),
    2**128,
    0.1,
    np.float64(1 + 2**-30),
    np.array(2**53 + 1, np.int64),
    np.array([0.1]),
]
if np.finfo(np.longdouble).nmant > 52:
    INEXACT += [np.longdouble(1) + np.longdouble(2) ** -60,
                np.array(np.longdouble(1) + np.longdouble(2) ** -60)]


@pytest.mark.parametrize("which", ["scale_a", "scale_b", "scale_result"])
@pytest.mark.parametrize("value", INEXACT, ids=repr)
def test_scales_float32_cannot_hold_are_refused_naming_the_argument(which, value):
    a, b = _operands()
    one = np.float32(1)
    args = {"scale_a": one, "scale_b": one, "scale_result": one}
    args[which] = value
    with pytest.raises(ValueError, match=f"{which}: .* is not exactly a float32 value"):
        mma.scaled_mm(a, b, args["scale_a"], args["scale_b"], None, args["scale_result"],
                      out_dtype="float8_e4m3fn")


# Values float32 holds exactly, in every integer and floating type (and 0-d arrays of them):
# each gives the bits of the same value as a float32 scale.
EXACT = [(3, 3.0), (np.uint8(4), 4.0), (np.int16(-2), -2.0), (np.uint64(2**40), 2.0**40),
         (np.float16(0.5), 0.5), (np.float64(0.25), 0.25), (np.longdouble(0.125), 0.125),
         (2**-149, 2.0**-149), (np.array(6, np.int32), 6.0), (np.array(0.75), 0.75),
         (np.array([1.5], np.float16), 1.5)]


@pytest.mark.parametrize("value, as_float", EXACT, ids=lambda x: repr(x))
def test_exact_scales_of_every_type_give_the_float32_scales_bits(value, as_float):
    a, b = _operands()
    want = mma.scaled_mm(a, b, np.float32(as_float), np.float32(1), out_dtype="float32")
    got = mma.scaled_mm(a, b, value, np.float32(1), out_dtype="float32")
    assert np.array_equal(_f32_words(got), _f32_words(want))


def test_bool_and_non_numbers_are_not_scales():
    a, b = _operands()
    for bad in (True, np.bool_(True), "1", None, np.array(["1"])):
        with pytest.raises(TypeError, match="scale_a"):
            mma.scaled_mm(a, b, bad, np.float32(1), out_dtype="float32")


# 9. dtype spellings ------------------------------------------------------------------------
def test_every_numpy_and_ml_dtypes_spelling_of_out_dtype_is_understood():
    a, b = _operands()
    one = np.float32(1)
    spellings = {
        "float32": [np.float32, np.dtype(np.float32), "f32", "torch.float32"],
        "float16": [np.float16, np.dtype("float16"), "half"],
        "bfloat16": [ml_dtypes.bfloat16, np.dtype(ml_dtypes.bfloat16), "bf16"],
        "float8_e4m3fn": [ml_dtypes.float8_e4m3fn, np.dtype(ml_dtypes.float8_e4m3fn), "e4m3"],
    }
    for name, forms in spellings.items():
        want = mma.scaled_mm(a, b, one, one, out_dtype=name)
        for form in forms:
            got = mma.scaled_mm(a, b, one, one, out_dtype=form)
            assert got.dtype == want.dtype, (name, form)
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (name, form)
    # A dtype the library does not take is the GPU's rejection (PyTorch's message); something
    # that is no dtype at all is a TypeError naming the argument.
    with pytest.raises(mma.GpuRejectsError, match="out_dtype float64 is not supported"):
        mma.scaled_mm(a, b, one, one, out_dtype=np.float64)
    with pytest.raises(TypeError, match="out_dtype: .* is not a dtype"):
        mma.scaled_mm(a, b, one, one, out_dtype=object())


# 10. Loose arguments -----------------------------------------------------------------------
def test_loose_arguments_are_refused_naming_the_argument():
    a, b = _operands()
    one = np.float32(1)
    call = lambda **kw: mma.scaled_mm(a, b, one, one, out_dtype="float32", **kw)  # noqa: E731
    for bad in ((2.7, "serial"), ("3", "serial"), (True, "serial"), (np.float64(2), "serial")):
        with pytest.raises(TypeError, match="splitk: S must be an int"):
            call(splitk=bad)
    for bad in ((-1, "serial"), (0, "serial"), (2**70, "serial")):
        with pytest.raises(ValueError, match="splitk: S must be between 1 and"):
            call(splitk=bad)
    with pytest.raises(TypeError, match="splitk: the order"):
        call(splitk=(2, 1))
    for bad in ("no", 1, None):
        with pytest.raises(TypeError, match="use_fast_accum: expected a bool"):
            mma.scaled_mm(a, b, one, one, None, None, "float32", bad)
    with pytest.raises(TypeError, match="bias: expected None, a NumPy array or a torch tensor"):
        mma.scaled_mm(a, b, one, one, [1.0] * 32, None, "bfloat16")
    # The accepted forms still work: numpy ints and bools.
    call(splitk=(np.int64(2), "serial"), use_fast_accum=np.bool_(True))


# 4, 5. Memory ------------------------------------------------------------------------------
def _run_limited(tmp_path, body: str, headroom: int) -> str:
    """Runs ``body`` in a fresh interpreter whose address space is capped at what it has
    mapped after importing NumPy, ml_dtypes and mma, plus ``headroom`` bytes; returns its
    output (the interpreter must not abort)."""
    script = tmp_path / "limited.py"
    script.write_text(
        "import resource, numpy as np, ml_dtypes, mma\n"
        "E4 = ml_dtypes.float8_e4m3fn\n"
        # Start the engine's threads before measuring, so that their stacks are counted.
        "mma.scaled_mm(np.zeros((16, 16), E4), np.zeros((16, 16), E4), np.float32(1),\n"
        "              np.float32(1), out_dtype='float32')\n"
        "size = next(int(l.split()[1]) * 1024 for l in open('/proc/self/status')\n"
        "            if l.startswith('VmSize:'))\n"
        f"limit = size + {headroom}\n"
        "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
        + body
    )
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])
    return r.stdout


def test_a_call_too_large_for_memory_is_a_memory_error(tmp_path):
    """D of 40,000 × 40,000 outputs needs 12.8 GB as the engine's words: beyond a 1 GB
    headroom, the call raises MemoryError (before: Rust's allocation failure aborted the
    interpreter, exit 134)."""
    out = _run_limited(tmp_path, (
        "a = np.zeros((40000, 16), E4); b = np.zeros((16, 40000), E4)\n"
        "try:\n"
        "    mma.scaled_mm(a, b, np.float32(1), np.float32(1), out_dtype='float32', threads=1)\n"
        "    print('computed')\n"
        "except MemoryError as e:\n"
        "    print('MemoryError', e)\n"), headroom=1 << 30)
    assert out.startswith("MemoryError"), out


def test_split_k_memory_does_not_grow_with_the_number_of_parts(tmp_path):
    """S = 4,096 parts of a 256 × 16 · 16 × 256 product: holding every part's 256 × 256
    binary32 results took 4,096 · 65,536 · 4 B = 1.07 GB; the walk holds a fixed number of
    such buffers, well within 256 MB of headroom. The bits, by hand: K = 16 is one k-tile, so
    part 0 holds every product and the other 4,095 are +0; adding +0 to P_0 (serially, or
    pairwise as P_4095 + (P_0 + P_2048) + P_1 + ...) gives P_0 + 0 each time, which is what
    S = 2 gives (P_0 + P_1 with P_1 = +0)."""
    out = _run_limited(tmp_path, (
        "rng = np.random.default_rng(1)\n"
        "a = rng.integers(0, 0x7f, (256, 16)).astype(np.uint8).view(E4)\n"
        "b = rng.integers(0, 0x7f, (16, 256)).astype(np.uint8).view(E4)\n"
        "one = np.float32(1)\n"
        "for order in ('serial', 'pairwise'):\n"
        "    big = mma.scaled_mm(a, b, one, one, out_dtype='float32', splitk=(4096, order))\n"
        "    two = mma.scaled_mm(a, b, one, one, out_dtype='float32', splitk=(2, order))\n"
        "    assert np.array_equal(big.view(np.uint32), two.view(np.uint32)), order\n"
        "print('ok')\n"), headroom=256 << 20)
    assert out.strip() == "ok", out


# 8. Ctrl-C ---------------------------------------------------------------------------------
def test_ctrl_c_stops_a_long_scaled_mm():
    """A SIGINT 0.3 s into a ``scaled_mm`` sized (from a timed sample) to take several
    seconds raises KeyboardInterrupt soon after, not when the call ends (before: the signal
    waited for the whole call)."""
    rng = np.random.default_rng(2)
    k, n = 4096, 256
    b = rng.integers(0, 0x7f, (k, n)).astype(np.uint8).view(E4)
    sample = rng.integers(0, 0x7f, (64, k)).astype(np.uint8).view(E4)
    one = np.float32(1)
    t0 = time.monotonic()
    mma.scaled_mm(sample, b, one, one, out_dtype="float32", threads=1)
    per_row = (time.monotonic() - t0) / 64
    rows = int(min(6.0 / max(per_row, 1e-9), 1 << 16)) // 16 * 16
    a = np.resize(sample, (rows, k))
    expected = rows * per_row
    assert expected > 2.0, f"the call takes only {expected:.2f} s: the test cannot tell"
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            mma.scaled_mm(a, b, one, one, out_dtype="float32", threads=1)
            pytest.fail(f"no KeyboardInterrupt after {time.monotonic() - t0:.2f} s")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, before)
    elapsed = time.monotonic() - t0
    assert elapsed < 0.3 + expected / 2, f"stopped after {elapsed:.1f} of {expected:.1f} s"


# 11. Threads -------------------------------------------------------------------------------
def _threads_now() -> int:
    return len(os.listdir("/proc/self/task"))


def test_a_call_starts_no_more_threads_than_it_has_work_for():
    """``threads=1024`` on M = 16 rows (two tasks of eight rows) started 1,027 OS threads;
    the pool is now at most as large as the tasks. Measured: the most threads the process
    has while the call runs (sampled from /proc by a Python thread, the GIL being released
    during the call), against the count before it."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 0x7f, (16, 4096)).astype(np.uint8).view(E4)
    b = rng.integers(0, 0x7f, (4096, 2048)).astype(np.uint8).view(E4)
    one = np.float32(1)
    base = _threads_now()
    peak = [base]
    done = threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], _threads_now())
            time.sleep(0.001)

    w = threading.Thread(target=watch)
    w.start()
    try:
        d = mma.scaled_mm(a, b, one, one, out_dtype="float32", threads=1024)
    finally:
        done.set()
        w.join()
    # The watcher itself (1), the call's waiting thread (1), a pool of at most 2 (M = 16 is
    # two tasks) and rayon's global pool, if it was not started before (at most the cores).
    assert peak[0] - base <= 4 + os.cpu_count(), (base, peak[0])
    ref = mma.scaled_mm(a, b, one, one, out_dtype="float32", threads=1)
    assert np.array_equal(d.view(np.uint32), ref.view(np.uint32))
