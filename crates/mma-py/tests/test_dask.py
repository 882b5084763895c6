"""mma.dask: GEMMs and error campaigns on Dask, bit for bit equal to the single-process calls.

The expected values are the single-process engine calls (``mma.scaled_mm``,
``Unit.matmul``); the cluster is a LocalCluster of two worker processes of one thread each,
so that every operand crosses processes through distributed's serialization.
"""

import logging
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("dask.distributed", reason="dask is not installed: mma.dask tests skipped")
ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed: mma.dask tests skipped")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import mma  # noqa: E402
import mma.dask as md  # noqa: E402

E4M3, E5M2, BF16 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.bfloat16
ONE = np.float32(1.0)


def fp8(shape, seed, dtype=E4M3, special=False):
    """Random FP8 codes: finite ones, or every encoding (NaN, Inf) with ``special``. (Rows
    with NaN take the engine's slow path: the 512 x 512 x 1024 product would take seconds.)"""
    words = np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)
    if not special:
        top = 0x7F if dtype == E4M3 else 0x7C
        words[(words & 0x7F) >= top] &= 0x3F
    return words.view(dtype)


def bits(x):
    return x.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])


def same_bits(x, y):
    return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(bits(x), bits(y))


@pytest.fixture(scope="module")
def client():
    # A task whose worker dies is retried elsewhere while it has killed fewer than this many.
    with dask.config.set({"distributed.scheduler.allowed-failures": 3}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=logging.ERROR) as cluster:
            with Client(cluster) as c:
                yield c


def test_import_mma_does_not_import_dask():
    code = "import sys, mma; sys.exit(('mma.dask' in sys.modules) + 2 * ('dask' in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_scaled_mm_fp8_on_two_processes(client):
    """512 x 512 x 1024 e4m3 -> bf16, slow accumulation, A and B chunked oddly (K too)."""
    a, b = fp8((512, 1024), 1), fp8((1024, 512), 2)
    args = (np.float32(0.5), np.float32(2.0))
    expected = mma.scaled_mm(a, b, *args, out_dtype="bfloat16", gpu="RTX 4060")
    A = da.from_array(a, chunks=(100, 130))
    B = da.from_array(b, chunks=(130, 100))
    D = md.scaled_mm(A, B, *args, out_dtype="bfloat16", gpu="RTX 4060", threads=1)
    assert D.dtype == BF16 and D.shape == (512, 512)
    assert same_bits(client.compute(D).result(timeout=120), expected)


@pytest.mark.parametrize("tile", [None, (64, 48), (512, 16)])
def test_scaled_mm_e5m2_out_split_k_any_tile(client, tile):
    """e5m2 x e4m3 -> e5m2 with a result scale and pairwise split-K: the e5m2 arrays (whose
    dtype distributed cannot send as such) in and out of worker processes."""
    a, b = fp8((200, 320), 3, E5M2, special=True), fp8((320, 96), 4, special=True)
    kw = dict(scale_result=np.float32(0.25), out_dtype="float8_e5m2", splitk=(3, "pairwise"))
    expected = mma.scaled_mm(a, b, np.float32(3.0), ONE, **kw)
    A, B = da.from_array(a, chunks=(37, 64)), da.from_array(b, chunks=(100, 40))
    D = md.scaled_mm(A, B, np.float32(3.0), ONE, tile=tile, threads=2, **kw)
    assert same_bits(client.compute(D).result(timeout=120), expected)


def test_any_chunking_threads_scheduler():
    """Random chunkings and tiles on the threaded scheduler: the same bits every time."""
    rng = np.random.default_rng(7)
    a, b = fp8((90, 256), 5), fp8((256, 64), 6)
    expected = mma.scaled_mm(a, b, ONE, ONE, out_dtype="float32", use_fast_accum=True)
    for _ in range(4):
        ca = (int(rng.integers(1, 90)), int(rng.integers(1, 256)))
        cb = (int(rng.integers(1, 256)), int(rng.integers(1, 64)))
        tile = (int(rng.integers(1, 90)), 16 * int(rng.integers(1, 5)))
        D = md.scaled_mm(da.from_array(a, chunks=ca), da.from_array(b, chunks=cb), ONE, ONE,
                         out_dtype="float32", use_fast_accum=True, tile=tile)
        assert same_bits(D.compute(scheduler="threads"), expected), (ca, cb, tile)


def test_gemm_bf16_on_two_processes(client):
    u = mma.find("A100", "m16n8k16.f32.bf16.bf16.f32")
    rng = np.random.default_rng(8)
    A = rng.standard_normal((150, 96)).astype(BF16)
    B = rng.standard_normal((96, 70)).astype(BF16)
    C = rng.standard_normal((150, 70)).astype(np.float32)
    expected = u.matmul(A, B, C)
    D = md.gemm(da.from_array(A, chunks=(31, 40)), da.from_array(B, chunks=(17, 23)), unit=u,
                C=da.from_array(C, chunks=(64, 64)), threads=1)
    assert D.dtype == np.float32
    assert same_bits(client.compute(D).result(timeout=120), expected)
    # gpu= and instr= instead of unit=, no C
    D2 = md.gemm(da.from_array(A, chunks=(50, 96)), B, gpu="A100",
                 instr="m16n8k16.f32.bf16.bf16.f32")
    assert same_bits(client.compute(D2).result(timeout=120), u.matmul(A, B))


def test_gemm_bad_value_named_in_the_whole_matrix():
    u = mma.find("A100", "m16n8k16.f32.bf16.bf16.f32")
    A, B = np.ones((40, 32)), np.ones((32, 24))
    A[33, 20] = 0.1
    with pytest.raises(ValueError) as single:
        u.matmul(A, B)
    D = md.gemm(da.from_array(A, chunks=(16, 32)), B, unit=u)
    with pytest.raises(ValueError) as dist:
        D.compute(scheduler="sync")
    assert str(dist.value) == str(single.value) and "A[33, 20]" in str(single.value)


def test_gemm_rejections_before_tasks():
    u = mma.find("A100", "m16n8k16.f32.bf16.bf16.f32")
    for A, B, C in [(np.ones((4, 24)), np.ones((24, 8)), None),      # K not a multiple of 16
                    (np.ones((4, 32)), np.ones((16, 8)), None),      # K differ
                    (np.ones((4, 32), np.int32), np.ones((32, 8)), None),
                    (np.ones((4, 32)), np.ones((32, 8)), np.ones((4, 9)))]:
        with pytest.raises((TypeError, ValueError)) as single:
            u.matmul(A, B, C)
        with pytest.raises(type(single.value)) as dist:
            md.gemm(da.from_array(A), da.from_array(B), unit=u,
                    C=None if C is None else da.from_array(C))
        assert str(dist.value) == str(single.value)


REJECTED = [  # (a, b, keyword arguments): each raises in mma.scaled_mm
    (fp8((8, 64), 1), fp8((64, 32), 2), dict(out_dtype="float8_e5m2")),
    (fp8((8, 64), 1, E5M2), fp8((64, 32), 2, E5M2), dict()),
    (fp8((8, 60), 1), fp8((60, 32), 2), dict()),
    (fp8((8, 64), 1), fp8((64, 40), 2), dict(out_dtype="bfloat16")),
    (fp8((8, 64), 1), fp8((48, 32), 2), dict()),
    (fp8((8, 64), 1), fp8((64, 32), 2), dict(bias=np.zeros(32, BF16), out_dtype="bfloat16")),
    (fp8((8, 64), 1), fp8((64, 32), 2), dict(bias=np.zeros(31, BF16), out_dtype="bfloat16")),
    (fp8((8, 64), 1), fp8((64, 32), 2), dict(bias=np.zeros(32, np.float32), out_dtype="float32")),
    (fp8((8, 64), 1), fp8((64, 32), 2), dict(splitk="auto")),
    (fp8((8, 64), 1), fp8((64, 32), 2), dict(out_dtype="float64")),
    (fp8((8, 64), 1).view(np.uint8), fp8((64, 32), 2), dict()),
    (fp8((8, 64), 1), fp8((64, 32), 2), dict(splitk=(2, "backwards"))),
]


@pytest.mark.parametrize("a, b, kw", REJECTED)
def test_scaled_mm_rejections_same_error(a, b, kw):
    with pytest.raises(Exception) as single:
        mma.scaled_mm(a, b, ONE, ONE, **kw)
    with pytest.raises(type(single.value)) as dist:
        md.scaled_mm(da.from_array(a, chunks=(3, 7)), da.from_array(b, chunks=(5, 16)), ONE, ONE, **kw)
    assert str(dist.value) == str(single.value)


# Scales float32 cannot hold (by hand: 2^53 + 1 needs 54 significand bits, 2^64 - 1 needs 64,
# 0.1 is no dyadic fraction): refused as mma.scaled_mm refuses them, never rounded.
INEXACT_SCALES = [2**53 + 1, np.uint64(2**64 - 1), 0.1, da.from_array(np.array([0.1]))]


@pytest.mark.parametrize("which", ["scale_a", "scale_result"])
@pytest.mark.parametrize("value", INEXACT_SCALES, ids=repr)
def test_inexact_scales_are_refused_as_in_one_process(which, value):
    a, b = fp8((8, 64), 1), fp8((64, 32), 2)
    args = dict(scale_a=ONE, scale_b=ONE, scale_result=ONE, out_dtype="float8_e4m3fn")
    args[which] = value
    small = dict(args)
    if isinstance(value, da.Array):
        small[which] = value.compute()
    with pytest.raises(ValueError, match=f"{which}: .* is not exactly a float32") as single:
        mma.scaled_mm(a, b, **small)
    with pytest.raises(ValueError) as dist:
        md.scaled_mm(da.from_array(a, chunks=(3, 7)), da.from_array(b, chunks=(5, 16)), **args)
    assert str(dist.value) == str(single.value)


def test_rejected_before_any_task_runs(client):
    """e4m3 x e4m3 -> e5m2 (cuBLASLt's rejection): GpuRejectsError when the graph is built;
    the inputs' tasks, which would raise, never run and the scheduler receives nothing."""
    def poison(x):
        raise RuntimeError("an input task ran")

    meta = np.empty((0, 0), E4M3)
    A = da.from_array(fp8((512, 1024), 1), chunks=(100, 130)).map_blocks(poison, meta=meta)
    B = da.from_array(fp8((1024, 512), 2), chunks=(130, 100)).map_blocks(poison, meta=meta)
    before = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
    with pytest.raises(mma.GpuRejectsError, match="e4m3 x e4m3 -> e5m2"):
        md.scaled_mm(A, B, ONE, ONE, out_dtype="float8_e5m2")
    assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == before


def test_worker_killed_mid_run(client, tmp_path):
    """The first task to run kills its worker process (once, a file marks it): the scheduler
    retries its work on the other worker (or the restarted one), same bits."""
    marker, client_pid = str(tmp_path / "killed"), os.getpid()

    def kill_once(x):
        import os

        if os.getpid() == client_pid:  # never this process
            return x
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return x
        os._exit(1)

    a, b = fp8((256, 512), 11), fp8((512, 256), 12)
    expected = mma.scaled_mm(a, b, ONE, ONE, out_dtype="bfloat16")
    A = da.from_array(a, chunks=(64, 512)).map_blocks(kill_once, meta=np.empty((0, 0), E4M3))
    D = md.scaled_mm(A, da.from_array(b, chunks=(512, 64)), ONE, ONE, out_dtype="bfloat16",
                     threads=1)
    assert same_bits(client.compute(D).result(timeout=120), expected)
    assert os.path.exists(marker)


def exact_ulps(unit, words_a, words_b, word_c, word_d):
    """The error in ulps of D, from the words, with Fractions (the test's own arithmetic)."""
    f = unit.formats
    va, vb = mma.decode(f["a"], np.array(words_a)), mma.decode(f["b"], np.array(words_b))
    exact = sum((Fraction(x) * Fraction(y) for x, y in zip(va, vb)),
                Fraction(float(mma.decode(f["c"], np.array([word_c]))[0])))
    d = Fraction(float(mma.decode(f["d"], np.array([word_d]))[0]))
    e = -126 if exact == 0 else max(int(np.floor(np.log2(abs(float(exact))))), -126)
    return exact, (d - exact) / Fraction(2) ** (e - 23)


def test_error_campaign_same_report(client):
    """2 x 10^4 samples of an f32-output unit: the two-worker report equals the
    single-process one (scheduler="sync") for the same seed and batch."""
    u = mma.find("A100", "m16n8k16.f32.bf16.bf16.f32")
    kw = dict(samples=20_000, seed=5, batch=2_500)
    single = md.error_campaign(u, scheduler="sync", **kw)
    dist = md.error_campaign("A100", "m16n8k16.f32.bf16.bf16.f32", scheduler=client, **kw)
    assert dist == single
    assert single["tasks"] == 8 and single["finite"] + single["nonfinite"] == 20_000
    assert sum(single["histogram"].values()) == single["finite"]
    w = single["worst"]
    d = u.dots(np.array(w["a"], np.uint16), np.array(w["b"], np.uint16), np.uint32(w["c"]))
    assert int(d) == w["d"]
    exact, ulps = exact_ulps(u, w["a"], w["b"], w["c"], w["d"])
    assert exact == w["exact"] and float(ulps) == w["ulps"] and abs(w["ulps"]) == single["max_ulps"]


@pytest.mark.parametrize("arch, instr", [
    ("B200", "m64n8k32.kind::f8f6f4.f16.e2m1.e4m3"),                        # fp4 in bits 5:2
    ("B200", "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0"),            # packed, scaled
    ("H100", "m64n8k8.f32.tf32.tf32"),
])
def test_error_campaign_layouts(arch, instr):
    u = mma.find(arch, instr)
    r1 = md.error_campaign(u, samples=300, seed=1, batch=100, scheduler="sync")
    r2 = md.error_campaign(u, samples=300, seed=1, batch=100, scheduler="threads")
    assert r1 == r2 and r1["finite"] + r1["nonfinite"] == 300


def test_arguments_named():
    a, b = da.from_array(fp8((8, 64), 1)), da.from_array(fp8((64, 32), 2))
    with pytest.raises(ValueError, match="tile: N_tile = 24"):
        md.scaled_mm(a, b, ONE, ONE, tile=(8, 24))
    with pytest.raises(TypeError, match="tile"):
        md.scaled_mm(a, b, ONE, ONE, tile=8)
    with pytest.raises(ValueError, match="threads"):
        md.scaled_mm(a, b, ONE, ONE, threads=0)
    with pytest.raises(TypeError, match="a: expected a dask array"):
        md.scaled_mm([[1]], b, ONE, ONE)
    with pytest.raises(TypeError, match="gpu, instr"):
        md.gemm(a, b)
    with pytest.raises(ValueError, match="k: expected a positive multiple"):
        md.error_campaign("A100", "m16n8k16.f32.bf16.bf16.f32", samples=10, k=24)
    with pytest.raises(ValueError, match="samples"):
        md.error_campaign("A100", "m16n8k16.f32.bf16.bf16.f32", samples=0)


def test_command_line_gemm(tmp_path):
    """``python -m mma.dask gemm`` (local threads, no scheduler): the library GEMM of code
    files and an instruction-level GEMM of float files, equal to the single-process calls."""
    a, b = fp8((48, 64), 21), fp8((64, 32), 22)
    np.save(tmp_path / "a.npy", bits(a))
    np.save(tmp_path / "b.npy", bits(b))
    run = lambda *args: subprocess.run([sys.executable, "-m", "mma.dask", "gemm", *args],  # noqa: E731
                                       capture_output=True, text=True, timeout=300)
    r = run("--gpu", "RTX 4060", "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"),
            "--scale-a", "0.5", "--scale-b", "2", "--out-dtype", "bf16", "--tile", "16", "16",
            "-o", str(tmp_path / "d.npy"))
    assert r.returncode == 0, r.stderr
    want = mma.scaled_mm(a, b, np.float32(0.5), np.float32(2.0), out_dtype="bfloat16")
    assert np.array_equal(np.load(tmp_path / "d.npy"), bits(want))
    # Values that tf32 holds exactly (the low 13 fraction bits of fp32 clear).
    tf32 = lambda x: (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)  # noqa: E731
    fa = tf32(np.random.default_rng(23).standard_normal((32, 48)))
    fb = tf32(np.random.default_rng(24).standard_normal((48, 16)))
    np.save(tmp_path / "fa.npy", fa)
    np.save(tmp_path / "fb.npy", fb)
    r = run("--arch", "A100", "--instr", "m16n8k8.f32.tf32.tf32.f32", "--a",
            str(tmp_path / "fa.npy"), "--b", str(tmp_path / "fb.npy"), "-o", str(tmp_path / "g.npy"))
    assert r.returncode == 0, r.stderr
    want = mma.find("A100", "m16n8k8.f32.tf32.tf32.f32").matmul(fa, fb)
    assert np.array_equal(np.load(tmp_path / "g.npy").view(np.uint32), want.view(np.uint32))
    r = run("--gpu", "RTX 4060", "--arch", "A100", "--a", "x", "--b", "y", "-o", "z")
    assert r.returncode == 2 and "give --gpu, or --arch and --instr, not both" in r.stderr
    r = run("--gpu", "RTX 4060", "--a", str(tmp_path / "nothing.npy"), "--b", "y", "-o", "z")
    assert r.returncode == 2 and "--a: " in r.stderr and "nothing.npy" in r.stderr, r.stderr
    r = run("--gpu", "RTX 4060", "--a", str(tmp_path / "fa.npy"), "--b", "y", "-o", "z")
    assert r.returncode == 2 and "expected uint8 e4m3 codes, got float32" in r.stderr, r.stderr


def test_command_line_gemm_mirrors_mma_gemm(tmp_path):
    """``python -m mma.dask gemm`` reads and writes as ``mma gemm`` does (docs/dask.md): D is
    float32 by default (not the inputs' e4m3 codes); ``-o X`` writes X itself (not X.npy),
    never over an input, and a failed write is an error; ``--c`` with ``--gpu`` and library
    flags without it are refused; scales are read exactly, hex-floats included, and one
    float32 cannot hold is refused as typed."""
    a, b = fp8((16, 32), 31), fp8((32, 16), 32)
    pa, pb = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(pa, bits(a))
    np.save(pb, bits(b))
    run = lambda *args: subprocess.run([sys.executable, "-m", "mma.dask", "gemm", *args],  # noqa: E731
                                       capture_output=True, text=True, timeout=300)
    gpu = ("--gpu", "RTX 4060", "--a", str(pa), "--b", str(pb))
    out = tmp_path / "d.out"
    r = run(*gpu, "--scale-a", "0x1p-1", "--scale-b", "bits:40000000", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "d.out.npy").exists()
    d = np.load(out)
    # By hand: 0x1p-1 is 0.5 and bits:40000000 is 2.0, the scales of the single-process call.
    want = mma.scaled_mm(a, b, np.float32(0.5), np.float32(2.0), out_dtype="float32")
    assert d.dtype == np.float32 and np.array_equal(d.view(np.uint32), want.view(np.uint32))
    before = pa.read_bytes()
    r = run(*gpu, "-o", str(pa))
    assert r.returncode == 2 and "is the input" in r.stderr, r.stderr
    assert pa.read_bytes() == before
    r = run(*gpu, "-o", "/dev/full")
    assert r.returncode == 1 and "-o /dev/full" in r.stderr, r.stderr
    assert not os.path.exists("/dev/full.npy")
    r = run(*gpu, "--c", str(pa), "-o", str(out))
    assert r.returncode == 2 and "--c: a library GEMM" in r.stderr, r.stderr
    for scale in ("0.1", "1.00000000000000000001", "0x1.000001p0"):
        r = run(*gpu, "--scale-a", scale, "-o", str(out))
        assert r.returncode == 2 and f"--scale-a '{scale}' is not exactly a float32" in r.stderr, \
            r.stderr
    r = run("--arch", "A100", "--instr", "m16n8k8.f32.tf32.tf32.f32", "--a", str(pa), "--b",
            str(pb), "--out-dtype", "bf16", "-o", str(out))
    assert r.returncode == 2 and "--out-dtype: library GEMM flags; they need --gpu" in r.stderr
