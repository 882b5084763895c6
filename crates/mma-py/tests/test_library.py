"""``mma.scaled_mm`` against the RTX 4060 cuBLASLt recordings beside the repository
(``../shared/hw-lib/rtx4060-cublaslt``; the Rust test ``hw_lib_records`` runs all of them,
this one every ``torch._scaled_mm`` call of them through the Python path), and its argument
handling. Without the recordings the recording test fails unless MMA_ALLOW_MISSING_HW=1 says
to skip knowingly (never under CI=true)."""

from __future__ import annotations

import json
import os
import pathlib
import warnings

import numpy as np
import pytest

import mma

ml_dtypes = pytest.importorskip("ml_dtypes")

ROOT = pathlib.Path(__file__).resolve().parents[3]
SET = pathlib.Path(os.environ.get("MMA_HW_LIB_DIR", ROOT.parent / "shared" / "hw-lib")) \
    / "rtx4060-cublaslt"

F8 = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
OUT = {"float32": np.uint32, "bfloat16": np.uint16, "float16": np.uint16,
       "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}


def _f32(bits):
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


def _recordings():
    if not SET.is_dir():
        ci = os.environ.get("CI") == "true"
        if os.environ.get("MMA_ALLOW_MISSING_HW") == "1" and not ci:
            pytest.skip("no library recordings and MMA_ALLOW_MISSING_HW=1: nothing checked")
        raise AssertionError(f"no library recordings at {SET}: nothing can be checked "
                             "(outside CI, MMA_ALLOW_MISSING_HW=1 skips knowingly)")
    tests = json.loads((SET / "tests.json").read_text())["tests"]
    return tests, np.load(SET / "arrays.npz")


# The calls in three parts (every third call from the part's index), one test each, so that
# two emulated Pythons can share them (.ci/wheel-under-qemu); together they are every call.
PARTS = 3


def test_the_recordings_hold_every_kind_of_call():
    tests, _ = _recordings()
    calls = [t for t in tests if t["api"] == "scaled_mm"]
    rejected = sum("expect_error" in t for t in calls)
    assert len(calls) - rejected >= 1400 and rejected >= 80, (len(calls), rejected)


@pytest.mark.parametrize("part", range(PARTS), ids=[f"part{i}" for i in range(PARTS)])
def test_every_recorded_scaled_mm_call(part):
    tests, arrays = _recordings()
    calls = [t for t in tests if t["api"] == "scaled_mm"][part::PARTS]
    checked = rejected = 0
    for t in calls:
        fa, fb = F8[t["fmt_a"]], F8[t["fmt_b"]]
        splitk = 1 if t["splitk_S"] == 1 else (t["splitk_S"], t["splitk_scheme"])
        sr = None if t["scale_result_bits"] is None else _f32(t["scale_result_bits"])
        args = dict(scale_result=sr, out_dtype=t["out_dtype"],
                    use_fast_accum=t["use_fast_accum"], gpu="RTX 4060", splitk=splitk)
        if "expect_error" in t:
            m, n, k = t["call_shape"]
            a = np.zeros((m, k), np.uint8).view(fa)
            b = np.zeros((n, k), np.uint8).view(fb).T
            # A bias call's id ends .../bias_<out>_<bias>_<value>; the one the recording
            # package does not model (reason "bias") had a bias of the output's type.
            kinds = {"bfloat16": ml_dtypes.bfloat16, "float16": np.float16,
                     "float32": np.float32}
            bias = None
            last = t["id"].rsplit("/", 1)[1]
            if last.startswith("bias_"):
                out_name = next(d for d in kinds if last[5:].startswith(d))
                rest = last[5 + len(out_name) + 1:]
                bias = np.zeros(n, kinds[next(d for d in kinds if rest.startswith(d))])
            elif t["reason"] == "bias":
                bias = np.zeros(n, kinds[t["out_dtype"]])
            want = (mma.NotModelledError if t["expect_error"] == "UnsupportedFeatureError"
                    else mma.GpuRejectsError)
            with pytest.raises(want):
                mma.scaled_mm(a, b, _f32(t["scale_a_bits"]), _f32(t["scale_b_bits"]),
                              bias=bias, **args)
            rejected += 1
            continue
        a = arrays[t["a"]].view(fa)
        b = arrays[t["b"]].view(fb).T  # mat2 = B.t(), B being [N, K]
        d = mma.scaled_mm(a, b, _f32(t["scale_a_bits"]), _f32(t["scale_b_bits"]), **args)
        bits = d.view(OUT[t["out_dtype"]])
        y = arrays[t["y"]]
        if t["out_select"] == "diagonal":
            bits = np.diagonal(bits)
        bad = np.nonzero(bits.reshape(-1) != y.reshape(-1))[0]
        assert bad.size == 0, f"{t['id']}: {bad.size} values differ, first at {bad[0]}"
        checked += 1
    assert checked + rejected == len(calls) > 0, (checked, rejected, len(calls))


def test_arguments_and_errors():
    e4 = ml_dtypes.float8_e4m3fn
    a = (np.arange(32 * 32) % 7).astype(np.uint8).view(e4).reshape(32, 32)
    b = a.T
    one = np.float32(1)
    # The default out_dtype is mat1's (float8_e4m3fn), as in PyTorch.
    assert mma.scaled_mm(a, b, one, one).dtype == e4
    with pytest.raises(mma.GpuRejectsError, match="e4m3 x e4m3 -> e5m2"):
        mma.scaled_mm(a, b, one, one, out_dtype="float8_e5m2")
    with pytest.raises(mma.GpuRejectsError, match="divisible by 16"):
        mma.scaled_mm(a[:, :24], b[:24], one, one, out_dtype="float32")
    with pytest.raises(mma.GpuRejectsError, match="Float8_e5m2"):
        e5 = a.view(np.uint8).view(ml_dtypes.float8_e5m2)
        mma.scaled_mm(e5, e5.T, one, one, out_dtype="float32")
    with pytest.raises(mma.NotModelledError, match="row-wise"):
        mma.scaled_mm(a, b, np.ones((32, 1), np.float32), one, out_dtype="bfloat16")
    with pytest.raises(mma.SplitUnknownError):
        mma.scaled_mm(a, b, one, one, out_dtype="float32", splitk="auto")
    with pytest.raises(ValueError, match="order"):
        mma.scaled_mm(a, b, one, one, out_dtype="float32", splitk=3)
    with pytest.raises(ValueError, match="not exactly a float32"):
        mma.scaled_mm(a, b, 0.1, one, out_dtype="float32")
    # The H100 PCIe platform is unverified, and says so; it adds parts serially only.
    with pytest.warns(UserWarning, match="unverified"):
        mma.scaled_mm(a, b, one, one, out_dtype="float32", gpu="H100 PCIe")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="serial"):
            mma.scaled_mm(a, b, one, one, out_dtype="float32", gpu="H100 PCIe",
                          splitk=(2, "pairwise"))
    info = mma.platform("rtx 4060")
    assert info["verified"] and info["name"] == "RTX 4060"
    with pytest.raises(KeyError, match="gpu"):
        mma.platform("RTX 9999")
