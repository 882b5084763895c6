"""Emulated GEMMs and error campaigns on Dask (``dask.array``, ``dask.distributed``).

``import mma.dask`` needs ``dask[array]`` (and ``dask[distributed]`` for a cluster); ``import mma``
alone does not import it. Three entry points:

- :func:`scaled_mm`: :func:`mma.scaled_mm` (``torch._scaled_mm`` as a GPU's cuBLASLt computes
  it) on ``dask.array`` inputs, one task per output tile.
- :func:`gemm`: :meth:`mma.Unit.matmul` (``D = A @ B + C``, instruction by instruction along K)
  on ``dask.array`` inputs, one task per output tile.
- :func:`error_campaign`: an instruction's error distribution over random dot products, one
  task per batch of samples, against the engine's exact sum (``mma::codec::exact``).

**Bits.** Every task computes an ``[m_tile, n_tile]`` tile of the output from its whole
``[m_tile, K]`` rows and ``[K, n_tile]`` columns (K is never split across tasks), with the
single-process function: each output element is computed from its whole row and column by
the same recipe, so the result is identical bit for bit to the single-process call whatever
the input chunking, the tile, the number of workers, the engine's threads in a task
(``threads=``) and the order in which tasks run.

**Errors.** Rejected calls raise where the single-process call would (``GpuRejectsError``,
``NotModelledError``, ``TypeError``, ...) when the graph is built, before any task runs.

**Transport.** ml_dtypes arrays (bfloat16, float8, float6, float4) do not all survive
``distributed``'s NumPy serialization (float8_e5m2's dtype travels as ``'<f1'``, which NumPy
cannot read back). Inside the graph every operand travels as unsigned integers of its width
(``uint8``/``uint16``) and tasks view them back; the last layer views the output as its dtype.
Importing this module also makes ``distributed`` pickle ml_dtypes arrays (with out-of-band
buffers) instead, so that those outputs reach the client; workers import this module when
they unpickle its tasks.
"""

from __future__ import annotations

import functools
import sys
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import dask
import dask.array as da
import numpy as np

import mma

from . import _FORMATS, _mma, _np_dtype
from ._threads import threads_arg as _threads
from .library import GpuRejectsError  # noqa: F401  (re-exported for callers' except clauses)

__all__ = ["scaled_mm", "gemm", "error_campaign", "register_serializer", "main"]


def _uint(itemsize: int) -> np.dtype:
    """The unsigned dtype of ``itemsize``-byte words."""
    return np.dtype(f"uint{8 * itemsize}")


# Transport: ml_dtypes arrays as unsigned integers ------------------------------------------
def _is_ml(dt: np.dtype) -> bool:
    return getattr(dt.type, "__module__", "").startswith("ml_dtypes")


def _dtype(name: str) -> np.dtype:
    """A dtype by its NumPy name (``"float32"``, ``"bfloat16"``, ``"float8_e5m2"``)."""
    return _np_dtype(name)


def _to_words(x: np.ndarray) -> np.ndarray:
    return x.view(_uint(x.dtype.itemsize))


def _from_words(x: np.ndarray, name: str) -> np.ndarray:
    return x.view(_dtype(name))


def _words(x: da.Array) -> da.Array:
    """``x`` as unsigned integers of its width (a blockwise view, fused with ``x``'s tasks)."""
    word = _uint(x.dtype.itemsize)
    return x.map_blocks(_to_words, dtype=word, meta=np.empty((0,) * x.ndim, word))


def register_serializer() -> None:
    """Makes this process's ``distributed`` serialize ml_dtypes arrays by pickle (protocol 5,
    buffers out of band) instead of by ``dtype.str``. The receiver needs nothing (the pickle
    header is ``distributed``'s own). Runs on import; idempotent."""
    try:
        from distributed.protocol import pickle as dpickle
        from distributed.protocol.serialize import dask_serialize
    except ImportError:  # dask without distributed: nothing crosses processes
        return
    base = dask_serialize.dispatch(np.ndarray)  # runs distributed's lazy NumPy registration
    if getattr(base, "_mma_ml_dtypes", False):
        return

    def serialize(x: np.ndarray, context: Any = None) -> Tuple[dict, list]:
        if not _is_ml(x.dtype):
            return base(x, context)
        frames: list = [None]
        frames[0] = dpickle.dumps(np.ascontiguousarray(x), protocol=5,
                                  buffer_callback=lambda f: frames.append(memoryview(f)))
        return {"pickle": True}, frames

    serialize._mma_ml_dtypes = True  # type: ignore[attr-defined]
    dask_serialize.register(np.ndarray)(serialize)


register_serializer()


# Arguments ----------------------------------------------------------------------------------
def _as_dask(x: Any, name: str) -> da.Array:
    if isinstance(x, da.Array):
        arr = x
    elif isinstance(x, np.ndarray):
        arr = da.from_array(x, chunks=x.shape or (), asarray=False)
    else:
        raise TypeError(f"{name}: expected a dask array or a NumPy array, got {type(x).__name__}")
    if any(np.isnan(s) for s in arr.shape):
        raise ValueError(f"{name}: shape {arr.shape} has unknown sizes; call "
                         f"{name}.compute_chunk_sizes() first")
    return arr


def _small(x: Any, name: str) -> Any:
    """A scale or bias that is a dask array, as NumPy (a value for one element; a zero array
    of its shape and dtype otherwise: only its shape and dtype can matter, as a larger scale
    is not modelled)."""
    if isinstance(x, da.Array):
        if x.size == 1:
            return x.compute(scheduler="sync")
        return np.zeros(x.shape, x.dtype)
    return x


def _tile(tile: Any) -> Tuple[Optional[int], Optional[int]]:
    if tile is None:
        return None, None
    if not (isinstance(tile, (tuple, list)) and len(tile) == 2):
        raise TypeError(f"tile: expected None or (M_tile, N_tile), got {tile!r}")
    for t in tile:
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, np.integer))
                              or t < 1):
            raise ValueError(f"tile: expected positive ints (or None to keep the input's "
                             f"chunks), got {tile!r}")
    return tile[0], tile[1]


def _offsets(chunks: Tuple[int, ...]) -> da.Array:
    """The first row (column) of each tile, one per block, for messages naming elements."""
    starts = np.cumsum((0,) + tuple(chunks[:-1]), dtype=np.int64)
    return da.from_array(starts, chunks=1)


# Library GEMMs ----------------------------------------------------------------------------
def _probe_dims(n: int) -> int:
    """A small size with the same remainder mod 16 and zero-ness as ``n``."""
    return 0 if n == 0 else 16 + n % 16


def _check_scaled_mm(a: da.Array, b: da.Array, scale_a, scale_b, bias, scale_result,
                     out_dtype, use_fast_accum, gpu, splitk) -> np.dtype:
    """Raises what ``mma.scaled_mm`` raises on the full call, or returns the output dtype.

    The checks depend on the dtypes, the scales, the bias (its dtype, and whether it has N
    elements), ``splitk``, ``gpu``, K and N modulo 16, and whether M, N or K is 0 (PyTorch
    returns zeros before the library's own rejections). A call of ``M' = min(M, 1)`` rows
    with ``K' = 16 + K % 16`` and ``N' = 16 + N % 16`` (0 for 0) keeps all of these; the
    messages that quote K and N are given the real ones back. Shapes that are not matrices
    of a common K are checked on zero-stride views of the real shapes: the library raises
    for them before it reads any element."""
    za = np.broadcast_to(np.zeros((), a.dtype), a.shape)
    zb = np.broadcast_to(np.zeros((), b.dtype), b.shape)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        mma.scaled_mm(za, zb, scale_a, scale_b, bias, scale_result, out_dtype,
                      use_fast_accum, gpu=gpu, splitk=splitk)
        raise AssertionError("mma.scaled_mm accepted shapes it should reject")  # pragma: no cover
    (m, k), n = a.shape, b.shape[1]
    mp, kp, np_ = min(m, 1), _probe_dims(k), _probe_dims(n)
    bias_p, length = None, None
    if bias is not None:
        length = int(np.prod(bias.shape))
        bias_p = np.zeros(np_ if length == n else (np_ + 1 if length else 0), bias.dtype)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warned below, from the caller's line
            out = mma.scaled_mm(np.zeros((mp, kp), a.dtype), np.zeros((kp, np_), b.dtype),
                                scale_a, scale_b, bias_p, scale_result, out_dtype,
                                use_fast_accum, gpu=gpu, splitk=splitk)
    except Exception as e:
        msg = str(e)
        msg = msg.replace(f"mat2 is {kp}×{np_}:", f"mat2 is {k}×{n}:")
        if bias_p is not None:
            msg = msg.replace(f"bias has {bias_p.size} elements, expected {np_} (N)",
                              f"bias has {length} elements, expected {n} (N)")
        if msg == str(e):
            raise
        raise type(e)(msg) from None
    info = mma.platform(gpu)
    if not info["verified"]:
        warnings.warn(f"mma.scaled_mm: the {info['name']} platform is unverified: "
                      f"{info['evidence']}", stacklevel=3)
    return out.dtype


def _scaled_mm_tile(a, b, bias, *, fa, fb, bias_dt, out, args, kwargs):
    a, b = _from_words(a, fa), _from_words(b, fb)
    if bias is not None:
        bias = _from_words(bias, bias_dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the platform's warning was given once, at the call
        d = mma.scaled_mm(a, b, args[0], args[1], bias, args[2], out, args[3], **kwargs)
    return _to_words(d)


def scaled_mm(a: Any, b: Any, scale_a: Any, scale_b: Any, bias: Any = None,
              scale_result: Any = None, out_dtype: Any = None, use_fast_accum: bool = False,
              *, gpu: str = "RTX 4060", splitk: Union[int, Tuple[int, str], str] = 1,
              threads: Optional[int] = None, tile: Optional[Sequence[Optional[int]]] = None
              ) -> da.Array:
    """:func:`mma.scaled_mm` (``torch._scaled_mm`` as ``gpu``'s cuBLASLt computes it) on dask
    arrays: a lazy ``[M, N]`` dask array of ``out_dtype``, identical bit for bit to
    ``mma.scaled_mm`` on the computed inputs, for any chunking, tile, worker count or order.

    Args:
        a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum, gpu, splitk:
            as :func:`mma.scaled_mm`; ``a`` (``[M, K]``) and ``b`` (``[K, N]``) are dask (or
            NumPy) arrays of ml_dtypes float8, any chunking, K chunked too. Scales are
            scalars (a one-element dask array is computed now).
        threads: the engine's threads inside each task (None: all cores; 1 suits a cluster
            whose workers already have a thread per core).
        tile: ``(M_tile, N_tile)`` of the output's tasks, ``N_tile`` a multiple of 16 (each
            task is a ``torch._scaled_mm`` call, whose N must be); None (or a None entry)
            keeps ``a``'s row chunks, and takes ``b``'s widest column chunk rounded up to a
            multiple of 16. Each task reads ``M_tile x K`` and ``K x N_tile`` codes: ``a``
            and ``b`` are rechunked to the full K.

    Raises:
        What ``mma.scaled_mm`` raises for the same call (``GpuRejectsError``,
        ``NotModelledError``, ``SplitUnknownError``, ``TypeError``, ``ValueError``), now,
        before any task runs; ``TypeError``/``ValueError`` naming ``tile`` or an input that
        is not an array of known shape.
    """
    t = _threads(threads)
    mt, nt = _tile(tile)
    a, b = _as_dask(a, "a"), _as_dask(b, "b")
    scale_a, scale_b = _small(scale_a, "scale_a"), _small(scale_b, "scale_b")
    scale_result = _small(scale_result, "scale_result")
    bias_small = _small(bias, "bias")
    out = _check_scaled_mm(a, b, scale_a, scale_b, bias_small, scale_result, out_dtype,
                           use_fast_accum, gpu, splitk)
    if nt is None:  # B's widest column chunk, up to a multiple of 16
        nt = max(16, -(-max(b.chunks[1] + (1,)) // 16) * 16)
    elif nt % 16:
        raise ValueError(f"tile: N_tile = {nt} is not a multiple of 16: every task is a "
                         "torch._scaled_mm call, whose N must be")
    a_w = _words(a).rechunk({0: mt or a.chunks[0], 1: -1}, method="tasks")
    b_w = _words(b).rechunk({0: -1, 1: nt}, method="tasks")
    kw = dict(fa=a.dtype.name, fb=b.dtype.name, out=out.name, bias_dt=None,
              args=(scale_a, scale_b, scale_result, bool(use_fast_accum)),
              kwargs=dict(gpu=gpu, splitk=splitk, threads=t or None))
    if bias is None:
        bias_arg: tuple = (None, None)
    else:  # zero-size outputs only: any other call with a bias raised above
        bias_d = _as_dask(np.asarray(bias) if not isinstance(bias, da.Array) else bias, "bias")
        kw["bias_dt"] = bias_d.dtype.name
        bias_arg = (_words(bias_d).rechunk({0: b_w.chunks[1]}, method="tasks"), "j")
    words = da.blockwise(_scaled_mm_tile, "ij", a_w, "ik", b_w, "kj", *bias_arg,
                         dtype=_uint(out.itemsize), meta=np.empty((0, 0), _uint(out.itemsize)),
                         concatenate=True, **kw)
    return words.map_blocks(_from_words, out.name, dtype=out, meta=np.empty((0, 0), out))


# Instruction-level GEMMs -------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _unit(key: Tuple[str, str, str, str]) -> mma.Unit:
    vendor, arch, op, instr = key
    return mma.find(arch, instr, vendor, op=op)


def _key(u: mma.Unit) -> Tuple[str, str, str, str]:
    return (u.vendor, u.arch, u.op, u.instr)


def _resolve(unit: Any, gpu: Optional[str], instr: Optional[str]) -> mma.Unit:
    if unit is not None:
        if gpu is not None or instr is not None:
            raise TypeError("unit: give either unit= or gpu= and instr=, not both")
        if not isinstance(unit, mma.Unit):
            raise TypeError(f"unit: expected an mma.Unit, got {type(unit).__name__}")
        return unit
    if gpu is None or instr is None:
        raise TypeError("gpu, instr: give unit=mma.find(...) or both gpu= (an architecture "
                        "or product, as mma.find takes) and instr=")
    return mma.find(gpu, instr)


def _gemm_tile(a, b, c, r0, c0, *, key, da_, db_, dc_, threads):
    unit = _unit(key)
    args = [_from_words(a, da_), _from_words(b, db_)]
    cc = None if c is None else _from_words(c, dc_)
    try:
        d = unit.matmul(*args, cc, threads=threads)
    except ValueError as e:  # name the element in the whole matrix, not in the tile
        import re

        def shift(m: "re.Match") -> str:
            i, j = int(m.group(2)), int(m.group(3))
            di = int(r0[0]) if m.group(1) in "AC" else 0
            dj = int(c0[0]) if m.group(1) in "BC" else 0
            return f"{m.group(1)}[{i + di}, {j + dj}]"

        raise ValueError(re.sub(r"\b([ABC])\[(\d+), (\d+)\]", shift, str(e), count=1)) from None
    return _to_words(d)


def gemm(A: Any, B: Any, *, unit: Optional[mma.Unit] = None, gpu: Optional[str] = None,
         instr: Optional[str] = None, C: Any = None, threads: Optional[int] = None,
         tile: Optional[Sequence[Optional[int]]] = None) -> da.Array:
    """:meth:`mma.Unit.matmul` on dask arrays: ``D = A @ B + C`` as the unit computes it,
    instruction by instruction along the whole K (each task has the full K), a lazy
    ``[M, N]`` dask array in D's format (float16/float32/float64), identical bit for bit to
    ``unit.matmul`` on the computed inputs for any chunking, tile, worker count or order.

    Args:
        A: ``[M, K]``, B: ``[K, N]``, C: ``[M, N]`` (zeros when None): dask or NumPy arrays of
            float16/32/64 or ml_dtypes floating types, any chunking; values exact in the
            unit's formats. K must be a positive multiple of the instruction's K.
        unit: an :class:`mma.Unit`; or ``gpu`` (an architecture or product, as
            :func:`mma.find` takes it) and ``instr``.
        threads: the engine's threads inside each task (None: all cores).
        tile: ``(M_tile, N_tile)`` of the output's tasks; None keeps ``A``'s row chunks and
            ``B``'s column chunks.

    Raises:
        What ``unit.matmul`` raises for dtypes, shapes and K, now, before any task runs. A
        value that its format cannot hold is found by the task that reads it: computing
        the result raises ``ValueError`` naming the element in the whole matrix.
    """
    u = _resolve(unit, gpu, instr)
    t = _threads(threads)
    mt, nt = _tile(tile)
    A, B = _as_dask(A, "A"), _as_dask(B, "B")
    C = None if C is None else _as_dask(C, "C")
    kk = u.k
    u.matmul(np.zeros((1, kk), A.dtype), np.zeros((kk, 1), B.dtype))  # dtypes: TypeError
    for x, name in ((A, "A"), (B, "B")):
        if x.ndim != 2:
            raise ValueError(f"{name}: expected a matrix (2 dimensions), got shape {x.shape}")
    (m, k), (k2, n) = A.shape, B.shape
    if k != k2:
        raise ValueError(f"A is {m}x{k} but B is {k2}x{n}: their K differ")
    if C is not None:
        u.matmul(np.zeros((1, kk), A.dtype), np.zeros((kk, 1), B.dtype), np.zeros((1, 1), C.dtype))
        if C.shape != (m, n):
            raise ValueError(f"C: expected shape ({m}, {n}), got {C.shape}")
    d = u.matmul(np.zeros((min(m, 1), k), A.dtype), np.zeros((k, min(n, 1)), B.dtype))  # K
    a_w = _words(A).rechunk({0: mt or A.chunks[0], 1: -1}, method="tasks")
    b_w = _words(B).rechunk({0: -1, 1: nt or B.chunks[1]}, method="tasks")
    c_arg: tuple = (None, None)
    if C is not None:
        c_arg = (_words(C).rechunk((a_w.chunks[0], b_w.chunks[1]), method="tasks"), "ij")
    words = da.blockwise(
        _gemm_tile, "ij", a_w, "ik", b_w, "kj", *c_arg,
        _offsets(a_w.chunks[0]), "i", _offsets(b_w.chunks[1]), "j",
        dtype=_uint(d.dtype.itemsize), meta=np.empty((0, 0), _uint(d.dtype.itemsize)),
        concatenate=True, align_arrays=False,
        key=_key(u), da_=A.dtype.name, db_=B.dtype.name,
        dc_=None if C is None else C.dtype.name, threads=t or None)
    return words.map_blocks(_from_words, d.dtype.name, dtype=d.dtype,
                            meta=np.empty((0, 0), d.dtype))


# Error campaigns ------------------------------------------------------------------------------
#: Format name -> the NumPy or ml_dtypes dtype of its values (the engine's table; the formats
#: a campaign can sample, with tf32).
_ML = {n: f["numpy"] for n, f in _FORMATS.items() if f["numpy"] is not None}


def _normal(rng: np.random.Generator, fmt: str, shape: Tuple[int, ...]) -> np.ndarray:
    """Standard normal values rounded to nearest even in ``fmt`` by the engine
    (``_mma.round_values``), clipped to its largest finite value (tf32: rounded to float32
    first, then to tf32), as ``fmt``'s words (uint64)."""
    x = np.ascontiguousarray(rng.standard_normal(shape).reshape(-1))
    if fmt == "tf32":
        return _mma.round_values("tf32", x, via="f32").reshape(shape)
    if fmt not in _ML:
        raise NotImplementedError(f"error_campaign: no sampler for the format {fmt}")
    return _mma.round_values(fmt, x, saturate=True).reshape(shape)


def _operand(unit: mma.Unit, which: str, codes: np.ndarray) -> np.ndarray:
    """Format codes (uint64) as the words ``Unit.dots`` takes for operand ``which`` (the
    engine's packing, :meth:`mma.Unit.pack`)."""
    return unit.pack(which, codes)


def _campaign_task(key, k: int, seed: int, index: int, start: int, count: int,
                   threads: Optional[int]) -> Dict[str, Any]:
    """One batch: ``count`` samples from ``default_rng([seed, index])``, evaluated and
    compared with their exact value by the engine (``_mma.campaign_batch``). Returns a partial
    report (exact values as the engine's ``(mantissa, exponent)`` pairs)."""
    unit = _unit(key)
    f = unit.formats
    rng = np.random.default_rng([seed, index])
    codes = {"a": _normal(rng, f["a"], (count, k)), "b": _normal(rng, f["b"], (count, k)),
             "c": _normal(rng, f["c"], (count,))}
    args = [_operand(unit, w, codes[w]) for w in "abc"]
    scales: List[np.ndarray] = []
    if f["scale"] is not None:  # block-scaled: every scale factor 1
        one = int(mma.encode(f["scale"], 1.0))
        scales = [np.full((count, k // f["scale_block"]), one, np.uint8)] * 2
    d = unit.dots(*args, *scales, threads=threads)
    out = _mma.campaign_batch(unit._u, codes["a"], codes["b"], codes["c"],
                              np.ascontiguousarray(d, dtype=np.uint64),
                              *[s.astype(np.uint64) for s in scales])
    w = out["worst"]
    if w is not None:
        i = w["row"]
        out["worst"] = {"err": w["err"], "ulps": w["ulps"], "index": start + i,
                        "a": codes["a"][i], "b": codes["b"][i], "c": int(codes["c"][i]),
                        "d": int(d[i]), "exact": w["exact"],
                        "result": float(mma.decode(f["d"], d[i:i + 1])[0])}
    return out


def _default_client(scheduler: Any) -> Any:
    try:
        from distributed import Client, default_client
    except ImportError:
        return None
    if isinstance(scheduler, Client):
        return scheduler
    if scheduler is not None:
        return None
    try:
        return default_client()
    except ValueError:
        return None


def error_campaign(unit: Any, instr: Optional[str] = None, *, samples: int, seed: int = 0,
                   batch: int = 4096, k: Optional[int] = None, threads: Optional[int] = 1,
                   progress: bool = False, scheduler: Any = None) -> Dict[str, Any]:
    """The error distribution of an instruction over ``samples`` random dot products, one
    Dask task per ``batch`` samples.

    **The reference is the engine's exact sum** (``mma::codec::exact``: ``sum(a_i * b_i) + c``
    of the operands' words with no rounding, every bit), **not the MPFR oracle** of the CLI's
    ``mma error-report``, which this package does not contain. The error of a result ``d``
    is ``(d - exact) / ulp(exact)``: units in the last place of D's format at the exact
    value's binade, the subnormal quantum as the floor (as ``mma error-report``), computed
    exactly by the engine, as are the histogram, the sums and the maxima.

    Samples: A, B and C are standard normal values rounded to nearest even in their formats
    (clipped to the largest finite value); block-scaled units use scale factors of 1. Task
    ``i`` draws samples ``i * batch`` to ``(i + 1) * batch - 1`` from
    ``numpy.random.default_rng([seed, i])`` and evaluates them with :meth:`mma.Unit.dots`;
    the partial reports are merged in task order with exact sums, so the report depends on
    ``(unit, k, samples, seed, batch)`` only: the same on one process or on a cluster.

    Args:
        unit: an :class:`mma.Unit`, or an architecture with ``instr`` (as :func:`mma.find`).
        samples, seed, batch: positive ``samples`` and ``batch``, ``seed >= 0``.
        k: elements per dot product, a multiple of the instruction's K (default: its K).
        threads: the engine's threads in each task (the exact sums are the slow part).
        progress: a progress bar (``distributed.progress`` with a client, else
            ``dask.diagnostics.ProgressBar``).
        scheduler: as ``dask.compute``'s (``"sync"`` for one process, a ``Client``); None:
            the default client if there is one, else Dask's default.

    Returns:
        A dict: ``unit``, ``oracle``, ``distribution``, ``k``, ``samples``, ``seed``,
        ``batch``, ``tasks``, ``finite`` (results compared), ``nonfinite`` (Inf/NaN results,
        not compared), ``correctly_rounded``, ``max_ulps``, ``mean_ulps``, ``histogram`` (bin
        label to count) and ``worst`` (the first sample of the largest error: ``index``,
        ``ulps`` signed, words ``a``, ``b`` (lists), ``c``, ``d``, ``exact`` (a Fraction) and
        ``result`` (D's value)).
    """
    u = _resolve(None, unit, instr) if isinstance(unit, str) else _resolve(unit, None, None)
    for val, name, low in ((samples, "samples", 1), (batch, "batch", 1), (seed, "seed", 0)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or val < low:
            raise ValueError(f"{name}: expected an int >= {low}, got {val!r}")
    k = u.k if k is None else k
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1 or k % u.k:
        raise ValueError(f"k: expected a positive multiple of the instruction's K = {u.k}, "
                         f"got {k!r}")
    t = _threads(threads)
    for w in "abc":
        if u.formats[w] not in _ML and u.formats[w] != "tf32":
            raise NotImplementedError(f"error_campaign: no sampler for {w}'s format "
                                      f"{u.formats[w]}")
    n_tasks = -(-int(samples) // int(batch))
    token = dask.base.tokenize(_key(u), k, samples, seed, batch)
    tasks = [dask.delayed(_campaign_task, pure=True)(
        _key(u), int(k), int(seed), i, i * batch, min(batch, samples - i * batch), t or None,
        dask_key_name=f"mma-campaign-{token}-{i}") for i in range(n_tasks)]
    client = _default_client(scheduler)
    if client is not None:
        futures = client.compute(tasks)
        if progress:
            from distributed import progress as show

            show(futures)
        parts = client.gather(futures)
    elif progress:
        from dask.diagnostics import ProgressBar

        with ProgressBar():
            parts = dask.compute(*tasks, scheduler=scheduler)
    else:
        parts = dask.compute(*tasks, scheduler=scheduler)
    tot = _mma.campaign_merge(list(parts))  # exact sums and maxima, in task order
    worst = tot["worst"]
    if worst is not None:
        worst = dict(worst, a=[int(x) for x in worst["a"]], b=[int(x) for x in worst["b"]])
    return {
        "unit": f"{u.vendor} {u.arch} {u.op} {u.instr} ({u.description})",
        "oracle": "exact sum of the engine (mma::codec::exact); not the MPFR oracle of "
                  "`mma error-report`",
        "distribution": "normal, rounded to nearest even in each operand's format",
        "k": int(k), "samples": int(samples), "seed": int(seed), "batch": int(batch),
        "tasks": n_tasks, "finite": tot["finite"], "nonfinite": tot["nonfinite"],
        "correctly_rounded": tot["correctly_rounded"],
        "max_ulps": tot["max_ulps"],
        "mean_ulps": tot["mean_ulps"],
        "histogram": tot["histogram"], "worst": worst,
    }


# python -m mma.dask gemm ... ----------------------------------------------------------------
def _scale_arg(text: Optional[str], flag: str, ap: Any) -> Any:
    """A ``--scale-*`` flag as the float32 scale it names exactly, read by the engine's parser
    as ``mma gemm`` reads a value (``_mma.parse_f32_exact``: a decimal such as ``0.5`` or
    ``1e-3``, a C99 hex-float such as ``0x1.8p-3``, never rounded on the way, or ``bits:HEX``),
    or the parser's error naming the flag and the text as typed."""
    if text is None:
        return None
    try:
        bits = _mma.parse_f32_exact(text)
    except ValueError as e:
        ap.error(f"{flag} {text!r}: not a number (a decimal, a hex-float such as 0x1.8p-3, or "
                 f"bits:HEX): {e}")
    if bits is None:
        ap.error(f"{flag} {text!r} is not exactly a float32 value: give one that is (the "
                 "nearest float32 values are what the GPU's library would be given)")
    return np.array([bits], np.uint32).view(np.float32)[0]


def _refuse_input_as_output(path: str, inputs: Sequence[Optional[str]], ap: Any) -> None:
    import os

    for i in inputs:
        if i is not None and os.path.exists(path) and os.path.exists(i) \
                and os.path.samefile(path, i):
            ap.error(f"-o {path}: is the input {i}; write the output elsewhere")


def _write_npy(path: str, array: np.ndarray, inputs: Sequence[str], ap: Any) -> None:
    """``array`` written to ``path`` itself (no ``.npy`` appended), as ``mma gemm`` writes: a
    regular file through a temporary file renamed over it (never half written), a device such
    as ``/dev/stdout`` directly; never over one of the inputs; a failed write is an error."""
    import os
    import tempfile

    _refuse_input_as_output(path, inputs, ap)
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            with open(path, "wb") as f:
                np.save(f, array)
            return
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                                   dir=d)
        try:
            with os.fdopen(fd, "wb") as f:
                np.save(f, array)
            umask = os.umask(0)
            os.umask(umask)
            mode = os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o666 & ~umask
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as e:
        print(f"python -m mma.dask: error: -o {path}: {e}", file=sys.stderr)
        raise SystemExit(1) from None


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m mma.dask gemm --scheduler tcp://host:8786 ...``: ``mma gemm`` on a cluster.
    With ``--gpu``: a library GEMM of FP8 codes (``uint8`` .npy files of ``--a-format`` and
    ``--b-format``), D written as float16/float32 or, for bf16 and FP8, raw words. With
    ``--arch`` and ``--instr``: ``Unit.matmul`` of float .npy files. The client reads the
    files and sends them to the cluster; without ``--scheduler`` it runs on local threads."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m mma.dask")
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gemm", help="a GEMM on a Dask cluster")
    g.add_argument("--scheduler", help="tcp://host:8786 (default: local threads)")
    g.add_argument("--gpu", help="library platform (torch._scaled_mm), e.g. 'RTX 4060'")
    g.add_argument("--arch", help="with --instr: an instruction-level GEMM (Unit.matmul)")
    g.add_argument("--instr")
    for x in ("a", "b"):
        g.add_argument(f"--{x}", required=True, help=f"{x.upper()}.npy")
        g.add_argument(f"--{x}-bits", action="store_true", help="codes (implied with --gpu)")
        g.add_argument(f"--{x}-format", default="e4m3", choices=["e4m3", "e5m2"])
    g.add_argument("--c", help="C.npy (with --arch)")
    g.add_argument("--scale-a", default="1", help="a float32 value (decimal, hex-float, bits:HEX)")
    g.add_argument("--scale-b", default="1")
    g.add_argument("--scale-result")
    g.add_argument("--out-dtype", default="f32",
                   help="f32 (the default, as mma gemm), bf16, f16, e4m3, e5m2")
    g.add_argument("--fast-accum", action="store_true")
    g.add_argument("--split-k", type=int, default=1)
    g.add_argument("--split-order", default="serial", choices=["serial", "pairwise"])
    g.add_argument("--tile", type=int, nargs=2, metavar=("M_TILE", "N_TILE"))
    g.add_argument("--threads", type=int, help="engine threads per task")
    g.add_argument("-o", "--output", required=True, help="D.npy")
    x = ap.parse_args(argv)
    if x.gpu is not None and (x.arch is not None or x.instr is not None):
        ap.error("give --gpu, or --arch and --instr, not both")
    if x.gpu is None and (x.arch is None or x.instr is None):
        ap.error("give --gpu, or --arch and --instr")
    if x.arch is not None and (x.a_bits or x.b_bits):
        ap.error("--a-bits, --b-bits: with --arch, A and B are float .npy files")
    if x.gpu is not None and x.c is not None:
        ap.error("--c: a library GEMM (--gpu) has no C; give --arch and --instr for D = A·B + C")
    if x.gpu is None:
        given = [f for f, v in (("--scale-a", x.scale_a != "1"), ("--scale-b", x.scale_b != "1"),
                                ("--scale-result", x.scale_result is not None),
                                ("--out-dtype", x.out_dtype != "f32"),
                                ("--fast-accum", x.fast_accum), ("--split-k", x.split_k != 1),
                                ("--split-order", x.split_order != "serial")) if v]
        if given:
            ap.error(f"{', '.join(given)}: library GEMM flags; they need --gpu")
    _refuse_input_as_output(x.output, (x.a, x.b, x.c), ap)
    scales = [_scale_arg(v, f, ap) for v, f in ((x.scale_a, "--scale-a"),
                                                 (x.scale_b, "--scale-b"),
                                                 (x.scale_result, "--scale-result"))]
    client = None
    if x.scheduler:
        from distributed import Client

        client = Client(x.scheduler)
    def load(path: str, fmt: Optional[str], arg: str) -> np.ndarray:
        try:
            m = np.load(path)
        except (OSError, ValueError) as e:
            ap.error(f"{arg}: {path}: {e}")
        if fmt is None:
            return m
        if m.dtype != np.uint8:
            ap.error(f"{arg}: {path}: expected uint8 {fmt} codes, got {m.dtype}")
        return m.view(_dtype(_ML[fmt]))

    tile = tuple(x.tile) if x.tile else None
    if x.gpu is not None:
        split = 1 if x.split_k == 1 else (x.split_k, x.split_order)
        s = scales
        d = scaled_mm(load(x.a, x.a_format, "--a"), load(x.b, x.b_format, "--b"), s[0], s[1],
                      None, s[2], x.out_dtype, x.fast_accum, gpu=x.gpu, splitk=split, threads=x.threads,
                      tile=tile)
    else:
        c = None if x.c is None else load(x.c, None, "--c")
        d = gemm(load(x.a, None, "--a"), load(x.b, None, "--b"), gpu=x.arch, instr=x.instr, C=c,
                 threads=x.threads,
                 tile=tile)
    out = d.compute()
    _write_npy(x.output, _to_words(out) if _is_ml(out.dtype) else out, (x.a, x.b, x.c), ap)
    if client is not None:
        client.close()
    return 0


if __name__ == "__main__":  # the module's own functions, not __main__'s copies, go to workers
    from mma.dask import main as _main

    raise SystemExit(_main())
