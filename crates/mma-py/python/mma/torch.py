"""PyTorch integration: a model's matrix products as a chosen GPU computes them.

``import mma.torch`` (it needs torch; ``import mma`` does not import it) gives
:func:`scaled_mm` (``torch._scaled_mm`` on a GPU's cuBLASLt), :func:`matmul` and :func:`linear`
(fp16, bf16, tf32/fp32 and FP8 on a GPU's matrix units) and :class:`emulate`, a
``TorchFunctionMode`` that runs a model's matrix products through them.

What is modelled, and what is assumed (read before trusting bits at library level):

- **The instruction.** :data:`GPU_TABLE` names, per GPU and input dtype, the catalog
  instruction a library kernel is taken to issue (``instr=`` overrides it). That choice is an
  assumption unless a library platform (:func:`mma.platform`) records it.
- **The K walk.** Where a library recipe is known (FP8 on ``"RTX 4060"``, verified, and on
  ``"H100 PCIe"``, unverified), the call is :func:`mma.scaled_mm`. Everywhere else each
  output is one chain along K, instruction by instruction from a +0 accumulator
  (:meth:`mma.Unit.matmul`): the instruction chain, **unverified at library level** (a library
  may split K or walk it otherwise). Such calls warn once (:class:`NoRecipeWarning`) and say
  so in the log.
- **Padding.** A K that is not a multiple of the instruction's K is padded with zeros at its
  end, as a library's zero-filled tail tile: the zeros enter the last instruction as the
  hardware would see them. All-zero steps a library may add (whole zero tiles) are not run.
- **The epilogue (assumed, unverified).** D's fp32 words are the result for fp32 outputs; a
  bias (``linear``) or C (``addmm`` with ``beta=1``) is added to them in one binary32
  addition rounded to nearest even; fp16 and bf16 outputs are that fp32 value rounded to
  nearest even (two roundings). Overflow gives Inf; a NaN output is the vendor's canonical NaN
  (NVIDIA ``0x7FFFFFFF``/``0x7FFF``; AMD ``0x7FC00000``/``0x7FC0``/``0x7E00``, unverified).
  The roundings are integer arithmetic, so ``torch.set_flush_denormal`` does not change them.
- **fp32 inputs.** There is no fp32 tensor-core instruction on NVIDIA GPUs: an fp32 product
  runs the tf32 instruction only where TF32 is allowed (``allow_tf32=True``, or
  ``torch.backends.cuda.matmul.allow_tf32`` / ``fp32_precision == "tf32"`` when
  ``allow_tf32=None``) or ``instr=`` names one; otherwise :class:`NotModelledError`. AMD GPUs
  whose row names an fp32 MFMA instruction use it where tf32 is not allowed or absent. The
  library's conversion of fp32 inputs to tf32 is not modelled: values that tf32 does not hold
  exactly raise :class:`NotModelledError` (round them to tf32 first).
- **Not modelled:** float64, integer and complex products, FP8 products with a bias, ``addmm``
  with ``alpha != 1`` or other ``beta``, and autograd: an input that requires grad while grad
  mode is on (run under ``torch.no_grad()``). They raise :class:`NotModelledError` (or run
  natively under ``emulate(fallback="native")``, with one :class:`NativeFallbackWarning` per
  op). Under :class:`emulate`, so does every matrix product it does not emulate (``einsum``,
  ``baddbmm_``, ``nn.LSTM``, ``cdist``, ...: ``mma._torch_guard``), and ``torch.export``.

Tensors on a GPU are copied through the host and the result copied back to their device.
"""

from __future__ import annotations

import functools
import threading
import time
import warnings
from collections import namedtuple
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
from torch.overrides import TorchFunctionMode

from . import _FORMATS, Unit, _mma, find
from ._threads import threads_arg as _threads
from . import _torch_guard as _guard
from ._torch_guard import NOT_EMULATED
from . import platform as _platform
from .library import GpuRejectsError, NotModelledError, SplitUnknownError
from .library import scaled_mm as _lib_scaled_mm

__all__ = ["scaled_mm", "matmul", "linear", "emulate", "gpus", "gpu_info", "GPU_TABLE",
           "NOT_EMULATED", "NoRecipeWarning", "NativeFallbackWarning", "GpuRejectsError",
           "NotModelledError", "SplitUnknownError"]


class NoRecipeWarning(UserWarning):
    """No library recipe is known for this GPU and dtype: the result is the instruction chain
    along K, unverified at library level."""


class NativeFallbackWarning(UserWarning):
    """``emulate(fallback="native")`` ran an op natively because it cannot be emulated."""


_COLS = ("f16", "bf16", "tf32", "f32", "fp8")
#: torch FP8 dtype -> (the vendor's spelling in instruction names, the mma format name).
_FP8 = {
    "nvidia": {torch.float8_e4m3fn: ("e4m3", "e4m3"), torch.float8_e5m2: ("e5m2", "e5m2")},
    "amd": {torch.float8_e4m3fnuz: ("fp8", "e4m3fnuz"),
            torch.float8_e5m2fnuz: ("bf8", "e5m2fnuz")},
}
#: The dtypes of the products modelled without a library recipe (fp16, bf16, fp32), to the
#: engine's format names (the engine's table names the torch dtype of each format).
_FORMAT = {getattr(torch, _FORMATS[n]["torch"]): n for n in ("f16", "bf16", "f32")}


def _key(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


_Gpu = namedtuple("_Gpu", "name vendor arch instr platform")


def _engine_gpus() -> Dict[str, _Gpu]:
    """The engine's GPU tables (the vendor crates' data, ``mma::catalog::gpus``), one entry
    per name."""
    out: Dict[str, _Gpu] = {}
    for row in _mma.gpu_table():
        for n in row["names"]:
            out[_key(n)] = _Gpu(n, row["vendor"], row["arch"], dict(row["instr"]),
                                row["platform"])
    return out


def _render(rows: List[Dict[str, Any]]) -> str:
    """The engine's GPU tables as text, one GPU per line (what :data:`GPU_TABLE` shows)."""
    lines = ["# names | vendor | arch | " + " | ".join(_COLS) + " | platform | evidence"]
    for r in rows:
        cells = [", ".join(r["names"]), r["vendor"], r["arch"]]
        cells += [r["instr"][c] or "-" for c in _COLS] + [r["platform"] or "-", r["evidence"]]
        lines.append(" | ".join(cells))
    return "\n".join(lines) + "\n"


_GPUS = _engine_gpus()

#: The engine's GPU tables as text, one GPU per line: names, vendor, catalog architecture,
#: the catalog instruction a library kernel is taken to issue per input dtype ("-": none),
#: the library platform of its FP8 recipe ("-": none) and the row's evidence. ``{a}``/``{b}``:
#: the FP8 formats of A and B as the vendor spells them; ``OP:`` before a name picks the
#: NVIDIA operation. The data live in the vendor crates (``library/gpus.txt``); this text is
#: made from them, for reading.
GPU_TABLE = _render(_mma.gpu_table())


def gpus() -> List[Dict[str, Any]]:
    """Every row of :data:`GPU_TABLE`, one dict per GPU name: ``name``, ``vendor``, ``arch``,
    ``instr`` (dtype column -> instruction name or None) and ``platform`` (or None)."""
    return [gpu_info(g.name) for g in _GPUS.values()]


def gpu_info(gpu: str) -> Dict[str, Any]:
    """The row of ``gpu`` (any case; spaces, dashes and underscores ignored) as a dict.

    Raises:
        TypeError: ``gpu`` is not a string.
        KeyError: an unknown GPU (the message lists the known names).
    """
    g = _gpu(gpu)
    return {"name": g.name, "vendor": g.vendor, "arch": g.arch, "instr": dict(g.instr),
            "platform": g.platform}


def _gpu(gpu: Any) -> _Gpu:
    if not isinstance(gpu, str):
        raise TypeError(f"gpu: expected a string, got {type(gpu).__name__}")
    g = _GPUS.get(_key(gpu))
    if g is None:
        known = ", ".join(repr(x.name) for x in _GPUS.values())
        raise KeyError(f"gpu: unknown GPU {gpu!r}; known: {known}")
    return g


@functools.lru_cache(maxsize=None)
def _unit(arch: str, vendor: str, spec: str) -> Unit:
    """The unit of a table cell or ``instr=``: ``"OP:name"`` picks the NVIDIA operation."""
    op, sep, name = spec.partition(":")
    if not sep or "." in op or name.startswith(":"):
        op, name = "", spec
    return find(arch, name, vendor, op=op or None)


def _tf32_allowed() -> bool:
    m = torch.backends.cuda.matmul
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prec = getattr(m, "fp32_precision", None)
        if prec in ("tf32", "ieee"):
            return prec == "tf32"
        return bool(m.allow_tf32)


def _warn_once(registry: set, key: Tuple, message: str, category: type, depth: int) -> None:
    if key not in registry:
        registry.add(key)
        warnings.warn(message, category, stacklevel=depth)


_WARNED: set = set()


# Words and roundings ------------------------------------------------------------------------------
def _words(t: torch.Tensor) -> np.ndarray:
    """The storage words of a CPU copy of ``t`` (uint8/16/32)."""
    size = t.element_size()
    view = torch.uint8 if size == 1 else getattr(torch, f"int{8 * size}")
    raw = t.detach().to("cpu").contiguous().view(view).numpy()
    return raw.view(np.dtype(f"uint{8 * size}"))


def _word(fmt: str) -> np.dtype:
    """The unsigned dtype of ``fmt``'s storage words (the engine's table)."""
    return np.dtype(f"uint{_FORMATS[fmt]['storage_bits']}")


def _epilogue(vendor: str, d_fmt: str, d: np.ndarray, fmt: str,
              add: Optional[np.ndarray]) -> np.ndarray:
    """The engine's epilogue (``_mma.epilogue``): D's words (of ``d_fmt``) plus the words of
    ``add`` (of ``fmt``, D's shape) when given, in one binary32 addition rounded to nearest
    even, then rounded to nearest even into ``fmt``; overflow to Inf, gradual underflow, NaN
    the vendor's canonical NaN. Returns the words of ``fmt``, D's shape."""
    flat = np.ascontiguousarray(d.reshape(-1), dtype=np.uint64)
    extra = None if add is None else np.ascontiguousarray(add.reshape(-1), dtype=np.uint64)
    words = _mma.epilogue(vendor, d_fmt, flat, fmt, extra)
    return words.astype(_word(fmt)).reshape(d.shape)


def _tensor(words: np.ndarray, dtype: torch.dtype, shape: Tuple[int, ...], device: Any) -> Any:
    signed = np.dtype(f"int{8 * words.dtype.itemsize}")
    t = torch.from_numpy(np.ascontiguousarray(words).view(signed).copy()).view(dtype)
    return t.reshape(shape).to(device)


# Choosing the unit ------------------------------------------------------------------------------
def _is_fp8(dt: torch.dtype) -> bool:
    return dt in (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz,
                  torch.float8_e5m2fnuz)


def _in_format(dt: torch.dtype, vendor: str, what: str) -> str:
    """The mma format of an input dtype (FP8 by the vendor's types)."""
    if dt in _FORMAT:
        return _FORMAT[dt]
    if _is_fp8(dt):
        fp8 = _FP8[vendor]
        if dt not in fp8:
            kinds = ", ".join(str(k) for k in fp8)
            raise GpuRejectsError(f"{what}: {dt} is not an FP8 type of {vendor} GPUs ({kinds})")
        return fp8[dt][1]
    raise NotModelledError(f"{what}: {dt} products are not modelled (fp16, bf16, fp32 "
                           "and FP8 only)")


def _choose(g: _Gpu, da: torch.dtype, db: torch.dtype, instr: Optional[str],
            allow_tf32: Optional[bool], op: str) -> Tuple[Unit, str]:
    """(unit, column of the table) for inputs of dtypes ``da``, ``db`` on ``g``."""
    fa, fb = _in_format(da, g.vendor, f"{op}: A"), _in_format(db, g.vendor, f"{op}: B")
    if da != db and not (_is_fp8(da) and _is_fp8(db)):
        raise GpuRejectsError(f"{op}: expected both operands of the same dtype, got {da} "
                              f"and {db}")
    if instr is not None:
        if not isinstance(instr, str):
            raise TypeError(f"instr: expected None or a string, got {type(instr).__name__}")
        try:
            unit = _unit(g.arch, g.vendor, instr)
        except KeyError as e:
            raise KeyError(f"instr: {instr!r} is not a {g.arch} instruction: {e}") from None
        f = unit.formats
        takes = {"f32": ("tf32", "f32")}
        if (f["a"] not in takes.get(fa, (fa,)) or f["b"] not in takes.get(fb, (fb,))
                or f["d"] not in ("f32", "f16")):
            raise ValueError(f"instr: {unit.instr} takes {f['a']} x {f['b']} -> {f['d']}, "
                             f"not {da} x {db} (with an f32 or f16 D)")
        return unit, "fp8" if _is_fp8(da) else f["a"]
    if _is_fp8(da):
        col = "fp8"
    elif fa == "f32":
        tf32 = _tf32_allowed() if allow_tf32 is None else bool(allow_tf32)
        col = "tf32" if tf32 and g.instr["tf32"] is not None else "f32"
        if g.instr[col] is None:
            why = ("TF32 is not allowed (allow_tf32, torch.backends.cuda.matmul.allow_tf32) "
                   "and " if not tf32 else f"{g.arch} has no tf32 instruction and ")
            raise NotModelledError(f"{op} on {g.name}: fp32 products: {why}there is no fp32 "
                                   "matrix instruction (the library runs fp32 GEMMs on the "
                                   "vector units, not modelled); pass allow_tf32=True or "
                                   "instr= to run a tf32 instruction")
    else:
        col = fa
    name = g.instr[col]
    if name is None:
        raise NotModelledError(f"{op} on {g.name}: {g.arch} has no {col} matrix instruction "
                               "(the library computes it without the matrix units, not "
                               "modelled); pass instr= to choose one")
    if col == "fp8":
        name = name.format(a=_FP8[g.vendor][da][0], b=_FP8[g.vendor][db][0])
    return _unit(g.arch, g.vendor, name), col


def _unit_name(u: Unit) -> str:
    return f"{u.vendor} {u.arch} {u.op} {u.instr}"


# The products -------------------------------------------------------------------------------------
def _chain(unit: Unit, A: torch.Tensor, B: torch.Tensor,
           threads: Optional[int]) -> Tuple[np.ndarray, str]:
    """(D's words, D's format) for A [n, M, K] @ B [n, K, N]: one chain along K per output
    from +0, the instruction's K at a time (as Unit.matmul), K padded with zeros at its end.
    The tensors' storage words go to the engine as they are (``Unit._matmul_words``): no
    conversion to values, and no copy of a contiguous A or of a B whose columns are contiguous
    (a linear layer's weight)."""
    n, m, k = A.shape
    nn, fd = B.shape[2], unit.formats["d"]
    out = np.zeros((n, m, nn), dtype=_word(fd))  # +0 where K = 0
    if k == 0 or m == 0 or nn == 0:
        return out, fd
    t = _threads(threads)
    pad = -k % unit.k
    for i in range(n):
        a, b_cols = _words(A[i]), _words(B[i].transpose(0, 1))
        if pad:  # +0 is the all-zero word of every format here
            a = np.pad(a, ((0, 0), (0, pad)))
            b_cols = np.pad(b_cols, ((0, 0), (0, pad)))
        d = unit._u._matmul_words(a.reshape(-1), b_cols.reshape(-1), None, m, nn, k + pad, t)
        out[i] = d.reshape(m, nn).view(out.dtype)
    return out, fd


def _recipe(g: _Gpu, A: torch.Tensor, B: torch.Tensor, splitk: Any,
            threads: Optional[int]) -> Tuple[np.ndarray, str]:
    """The f32 words of ``torch._scaled_mm(A[i], B[i], 1, 1, out_dtype=torch.float32)`` on
    ``g``'s library platform, batch by batch."""
    one = torch.ones((), dtype=torch.float32)
    out = np.zeros((A.shape[0], A.shape[1], B.shape[2]), dtype=np.uint32)
    for i in range(A.shape[0]):  # an unverified platform warns (mma.scaled_mm)
        d = _lib_scaled_mm(A[i], B[i], one, one, out_dtype=torch.float32, gpu=g.platform,
                           splitk=splitk, threads=threads)
        out[i] = _words(d)
    return out, "f32"


def _product(g: _Gpu, a: Any, b: Any, add: Any, *, instr: Optional[str],
             allow_tf32: Optional[bool], splitk: Any, threads: Optional[int], op: str,
             registry: set, depth: int = 4) -> Tuple[Any, Dict[str, Any]]:
    """torch.matmul's shapes, then the unit's chain (or the recipe), then the epilogue with
    ``add`` (broadcast to the output) added in fp32."""
    _threads(threads)
    for x, name in ((a, "A"), (b, "B"), (add, "bias/C")):
        if not isinstance(x, torch.Tensor) and (x is not None or name != "bias/C"):
            raise TypeError(f"{op}: {name}: expected a torch tensor, got {type(x).__name__}")
    if torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in (a, b, add)):
        raise NotModelledError(f"{op}: autograd is not modelled (the output would carry no "
                               "gradient): run under torch.no_grad() or torch.inference_mode()")
    if a.ndim == 0 or b.ndim == 0:
        raise GpuRejectsError(f"{op}: both arguments need at least one dimension, got shapes "
                              f"{tuple(a.shape)} and {tuple(b.shape)}")
    unit, col = _choose(g, a.dtype, b.dtype, instr, allow_tf32, op)
    for t, name in ((a, "A"), (b, "B")):
        if unit.formats["a"] != "tf32":
            break
        low = (1 << _FORMATS["tf32"]["lsb"]) - 1  # the f32 bits below tf32's (the engine's)
        bad = torch.isfinite(t) & (t.detach().view(torch.int32).bitwise_and(low) != 0)
        if bad.any():
            i = [int(j) for j in bad.nonzero()[0]]
            raise NotModelledError(
                f"{op}: {name}{i} = {t[tuple(i)].item()!r} is not a tf32 value; the library's "
                "conversion of fp32 inputs to tf32 is not modelled: round the inputs to tf32 "
                "first (e.g. clear or round the low 13 bits of their words)")
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    (m, k), (k2, n) = a2.shape[-2:], b2.shape[-2:]
    if k != k2:
        raise GpuRejectsError(f"{op}: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be "
                              f"multiplied ({k} != {k2})")
    try:
        batch = tuple(torch.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]))
    except RuntimeError:
        raise GpuRejectsError(f"{op}: batch dimensions of {tuple(a.shape)} and "
                              f"{tuple(b.shape)} do not broadcast") from None
    out_shape = batch + ((m,) if a.ndim > 1 else ()) + ((n,) if b.ndim > 1 else ())
    out_dtype = torch.float32 if col == "fp8" else a.dtype
    fmt = _FORMAT[out_dtype]
    if add is not None:
        if col == "fp8":
            raise NotModelledError(f"{op}: a bias/C on FP8 inputs is not modelled (no "
                                   "recordings decide the bias epilogue's bits)")
        if add.dtype != out_dtype:
            raise GpuRejectsError(f"{op}: bias/C of {add.dtype} with a {out_dtype} output; "
                                  "expected the same dtype")
        try:
            addw = np.broadcast_to(_words(add), out_shape)
        except ValueError:
            raise GpuRejectsError(f"{op}: bias/C of shape {tuple(add.shape)} does not "
                                  f"broadcast to the output {out_shape}") from None
    if b2.ndim == 2:  # fold A's batch into M: each output is its own chain
        A, B = a2.reshape(1, int(np.prod(a2.shape[:-1])), k), b2.reshape(1, k, n)
    else:
        A = a2.expand(*batch, m, k).reshape(-1, m, k)
        B = b2.expand(*batch, k, n).reshape(-1, k, n)
    info: Dict[str, Any] = {"unit": _unit_name(unit)}
    if col == "fp8" and instr is None and g.platform is not None:
        info["recipe"] = (_platform_text(g.platform, splitk)
                          + ": torch._scaled_mm with unit scales, use_fast_accum=False")
        acc, fd = _recipe(g, A, B, splitk, threads)
    else:
        if splitk not in (1, None):
            raise NotModelledError(f"{op}: splitk={splitk!r} is modelled only by a library "
                                   "recipe (FP8 on a platform); this call walks K in one chain")
        why = "instr= given" if instr is not None else "no library recipe is known"
        info["recipe"] = (f"instruction chain along K ({why}): unverified at library level; "
                          "K padded with zeros to the instruction's K")
        _warn_once(registry, (g.name, op, str(a.dtype), instr),
                   f"mma.torch {op} on {g.name} ({a.dtype}): {why}, so the result is the "
                   f"instruction chain of {unit.instr}, unverified at library level",
                   NoRecipeWarning, depth)
        acc, fd = _chain(unit, A, B, threads)
    acc = acc.reshape(out_shape)
    # The epilogue: D (+ bias/C in one binary32 addition), then the output's rounding.
    if add is not None or fd != fmt:  # f16 D -> f32 is exact
        acc = _epilogue(g.vendor, fd, acc, fmt, addw if add is not None else None)
    if fmt != "f32" or add is not None:
        info["recipe"] += ("; epilogue (assumed, unverified): "
                           + ("D + bias/C in fp32, " if add is not None else "")
                           + ("fp32" if fmt == "f32" else f"rounded to {fmt} (RNE)"))
    info["out_dtype"] = str(out_dtype)
    return _tensor(acc, out_dtype, out_shape, a.device), info


def _record(log: Optional[list], op: str, gpu: str, tensors: Sequence[Any], info: Dict[str, Any],
            t0: float) -> None:
    if log is not None:
        ts = [t for t in tensors if isinstance(t, torch.Tensor)]
        log.append({"op": op, "gpu": gpu, "shapes": [tuple(t.shape) for t in ts],
                    "dtypes": [str(t.dtype) for t in ts], "unit": None, **info,
                    "time_s": time.perf_counter() - t0})


def _platform_text(name: str, splitk: Any) -> str:
    p = _platform(name)
    return (f"library recipe of the {p['name']} platform ({p['library']}; "
            f"{'verified' if p['verified'] else 'UNVERIFIED'}), splitk={splitk!r}")


# Public functions ------------------------------------------------------------------------------
def matmul(a: Any, b: Any, *, gpu: str, instr: Optional[str] = None,
           allow_tf32: Optional[bool] = None, splitk: Any = 1, threads: Optional[int] = None,
           log: Optional[list] = None) -> Any:
    """``torch.matmul(a, b)`` as ``gpu``'s library computes it on its matrix units.

    Shapes as ``torch.matmul``: 1-D operands get a dimension prepended (A) or appended (B)
    that the result drops; batch dimensions broadcast. Every output is computed on its own,
    so the result does not depend on how batches are folded.

    Args:
        a, b: torch tensors of one dtype: float16 and bfloat16 (output of that dtype), float32
            (output float32; see ``allow_tf32``), or FP8 (``float8_e4m3fn``/``float8_e5m2`` on
            NVIDIA, the ``fnuz`` types on AMD, any pair; output **float32**: the accumulation
            of ``torch._scaled_mm(a, b, 1, 1, out_dtype=torch.float32)``).
        gpu: a name of :data:`GPU_TABLE` (``"A100"``, ``"H100"``, ``"RTX 4060"``, ``"MI300X"``).
        instr: a catalog instruction of the GPU's architecture (``mma.find(arch, instr)``
            names; ``"WGMMA:..."`` picks the operation) to run instead of the table's.
        allow_tf32: whether fp32 inputs may run the tf32 instruction; None reads
            ``torch.backends.cuda.matmul`` (``fp32_precision``, else ``allow_tf32``).
        splitk: FP8 with a library recipe only: as :func:`mma.scaled_mm` takes it.
        threads: None for all cores, 1 for the calling thread, t for t threads.
        log: a list to append this call's log entry to (op, shapes, dtypes, unit, recipe,
            time).

    The K walk, padding of K to the instruction's K, the epilogue and what is unverified are
    those of the module docstring. Without a library recipe a :class:`NoRecipeWarning` is
    given once per GPU, op and dtype.

    Raises:
        GpuRejectsError: shapes that do not multiply or broadcast, mixed dtypes, an FP8 type
            the vendor's GPUs do not have.
        NotModelledError: a product the models do not cover (module docstring).
        KeyError: an unknown GPU or instruction. TypeError, ValueError: bad arguments.
    """
    t0 = time.perf_counter()
    g = _gpu(gpu)
    out, info = _product(g, a, b, None, instr=instr, allow_tf32=allow_tf32, splitk=splitk,
                         threads=threads, op="matmul", registry=_WARNED)
    _record(log, "matmul", g.name, (a, b), info, t0)
    return out


def linear(x: Any, w: Any, bias: Any = None, *, gpu: str, instr: Optional[str] = None,
           allow_tf32: Optional[bool] = None, splitk: Any = 1, threads: Optional[int] = None,
           log: Optional[list] = None) -> Any:
    """``F.linear(x, w, bias)`` = ``x @ w.T + bias`` as ``gpu`` computes it: :func:`matmul`
    of ``x`` (``[..., in]``) and ``w.T`` (``w``: ``[out, in]``), then ``bias`` (``[out]``, of
    the output's dtype) added to the fp32 result in one binary32 addition before the output's
    rounding (the assumed library epilogue, unverified). FP8 with a bias: NotModelledError.
    Arguments and errors as :func:`matmul`."""
    t0 = time.perf_counter()
    g = _gpu(gpu)
    if not isinstance(w, torch.Tensor) or w.ndim != 2:
        raise ValueError(f"linear: w: expected a [out, in] matrix, got "
                         f"{tuple(w.shape) if isinstance(w, torch.Tensor) else type(w).__name__}")
    out, info = _product(g, x, w.t(), bias, instr=instr, allow_tf32=allow_tf32, splitk=splitk,
                         threads=threads, op="linear", registry=_WARNED)
    _record(log, "linear", g.name, (x, w, bias), info, t0)
    return out


def scaled_mm(a: Any, b: Any, scale_a: Any, scale_b: Any, bias: Any = None,
              scale_result: Any = None, out_dtype: Any = None, use_fast_accum: bool = False, *,
              gpu: str = "RTX 4060", splitk: Any = 1, threads: Optional[int] = None) -> Any:
    """``torch._scaled_mm`` (same arguments) as ``gpu``'s cuBLASLt computes it, on torch
    tensors (on a GPU: copied through the host; the result goes back to ``a``'s device).

    ``gpu`` is a library platform (``"RTX 4060"``, verified on recordings; ``"H100 PCIe"``,
    unverified) or a :data:`GPU_TABLE` row naming one: the call is :func:`mma.scaled_mm`
    (its checks, rejections, split-K and epilogue; see its docstring). A GPU without FP8
    units (V100, T4, A100, MI100, MI250X) raises :class:`GpuRejectsError` as PyTorch does there;
    one with FP8 units but no library recipe (H100 SXM, B200, MI300X, ...) raises
    :class:`NotModelledError`: the bits are not guessed.
    """
    name = gpu
    try:
        _platform(gpu)
    except (KeyError, TypeError):
        g = _gpu(gpu)
        if g.platform is None:
            if g.instr["fp8"] is None:
                raise GpuRejectsError(f"torch._scaled_mm: {g.name} ({g.arch}) has no FP8 "
                                      "matrix units; PyTorch rejects the call there") from None
            raise NotModelledError(f"torch._scaled_mm on {g.name}: no library recipe is known "
                                   "(platforms: 'RTX 4060' verified, 'H100 PCIe' "
                                   "unverified)") from None
        name = g.platform
    return _lib_scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype,
                          use_fast_accum, gpu=name, splitk=splitk, threads=threads)


# The mode --------------------------------------------------------------------------------------
def _extra(op: str, kwargs: Dict[str, Any]) -> None:
    for k, v in kwargs.items():
        if v is not None:
            raise NotModelledError(f"{op}: the argument {k}= is not emulated")


def _h_scaled_mm(ctx: "emulate", self: Any, mat2: Any, scale_a: Any, scale_b: Any,
                 bias: Any = None, scale_result: Any = None, out_dtype: Any = None,
                 use_fast_accum: bool = False, **kw: Any) -> Tuple[Any, Dict[str, Any]]:
    _extra("torch._scaled_mm", kw)
    out = scaled_mm(self, mat2, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum,
                    gpu=ctx.gpu, splitk=ctx.splitk, threads=ctx.threads)
    g = _GPUS.get(_key(ctx.gpu))
    name = g.platform if g is not None and g.platform else ctx.gpu
    pair = tuple(_FP8["nvidia"][t.dtype][1] for t in (self, mat2))
    unit = next(i for a, b, i in _platform(name)["units"] if (a, b) == pair)
    return out, {"unit": unit, "recipe": _platform_text(name, ctx.splitk),
                 "out_dtype": str(out.dtype)}


def _fp8_check(op: str, *ts: Any) -> None:
    if any(isinstance(t, torch.Tensor) and _is_fp8(t.dtype) for t in ts):
        raise NotModelledError(f"{op} on float8 tensors is not emulated (FP8 GEMMs go through "
                               "torch._scaled_mm; mma.torch.matmul computes one directly)")


def _h_matmul(ctx: "emulate", input: Any, other: Any, **kw: Any) -> Tuple[Any, Dict[str, Any]]:
    _extra("matmul", kw)
    _fp8_check("matmul", input, other)
    return ctx._product(input, other, None, "matmul")


def _h_mm(ctx: "emulate", input: Any, mat2: Any, *, _nd: int = 2,
          **kw: Any) -> Tuple[Any, Dict[str, Any]]:
    op = "mm" if _nd == 2 else "bmm"
    _extra(op, kw)
    _fp8_check(op, input, mat2)
    if input.ndim != _nd or mat2.ndim != _nd or input.shape[:-2] != mat2.shape[:-2]:
        raise GpuRejectsError(f"{op}: expected two {_nd}-D tensors (of one batch), got shapes "
                              f"{tuple(input.shape)} and {tuple(mat2.shape)}")
    return ctx._product(input, mat2, None, op)


def _h_addmm(ctx: "emulate", input: Any, mat1: Any, mat2: Any, *, beta: Any = 1,
             alpha: Any = 1, **kw: Any) -> Tuple[Any, Dict[str, Any]]:
    _extra("addmm", kw)
    _fp8_check("addmm", mat1, mat2)
    if mat1.ndim != 2 or mat2.ndim != 2:
        raise GpuRejectsError(f"addmm: expected two matrices, got shapes {tuple(mat1.shape)} "
                              f"and {tuple(mat2.shape)}")
    if alpha != 1 or beta not in (0, 1):
        raise NotModelledError(f"addmm: alpha={alpha}, beta={beta} is not modelled")
    return ctx._product(mat1, mat2, input if beta == 1 else None, "addmm")


def _h_linear(ctx: "emulate", input: Any, weight: Any, bias: Any = None,
              **kw: Any) -> Tuple[Any, Dict[str, Any]]:
    _extra("linear", kw)
    _fp8_check("linear", input, weight)
    if weight.ndim != 2:
        raise NotModelledError(f"linear: a weight of shape {tuple(weight.shape)} is not "
                               "modelled ([out, in] only)")
    return ctx._product(input, weight.t(), bias, "linear")


def _h_rmatmul(ctx: "emulate", self: Any, other: Any, **kw: Any) -> Tuple[Any, Dict[str, Any]]:
    return _h_matmul(ctx, other, self, **kw)


#: A function the mode emulates: its op (among ``ops``), handler, and form: "" (returns the
#: result), "out" (takes ``out=``) or "inplace" (writes its first argument, ``addmm_``).
_Entry = namedtuple("_Entry", "op handler form")


def _handlers() -> Dict[Any, _Entry]:
    F = torch.nn.functional
    T = torch.Tensor
    bmm = functools.partial(_h_mm, _nd=3)
    return {torch._scaled_mm: _Entry("scaled_mm", _h_scaled_mm, ""),
            F.linear: _Entry("linear", _h_linear, ""),
            torch.matmul: _Entry("matmul", _h_matmul, "out"),
            torch.linalg.matmul: _Entry("matmul", _h_matmul, "out"),
            T.matmul: _Entry("matmul", _h_matmul, ""),
            T.__matmul__: _Entry("matmul", _h_matmul, ""),
            T.__rmatmul__: _Entry("matmul", _h_rmatmul, ""),
            torch.mm: _Entry("mm", _h_mm, "out"), T.mm: _Entry("mm", _h_mm, ""),
            torch.bmm: _Entry("bmm", bmm, "out"), T.bmm: _Entry("bmm", bmm, ""),
            torch.addmm: _Entry("addmm", _h_addmm, "out"), T.addmm: _Entry("addmm", _h_addmm, ""),
            T.addmm_: _Entry("addmm", _h_addmm, "inplace")}


_OPS = ("scaled_mm", "linear", "matmul", "mm", "bmm", "addmm")


class emulate(TorchFunctionMode):
    """``with mma.torch.emulate(gpu="RTX 4060") as em:`` runs a model's matrix products as
    ``gpu`` computes them; every other matrix product raises (or, with ``fallback="native"``,
    runs natively with a warning and a log entry): none runs natively unnoticed.

    Under the mode, ``torch._scaled_mm`` is :func:`scaled_mm` (with ``splitk``), ``F.linear``
    and ``nn.Linear`` are :func:`linear`, ``torch.matmul``, ``@``, ``Tensor.matmul`` and
    ``torch.linalg.matmul`` are :func:`matmul`, and ``torch.mm``, ``torch.bmm`` and
    ``torch.addmm`` (``beta`` 0 or 1, ``alpha`` 1) are :func:`matmul` with their own shape
    rules (FP8 operands of these raise: FP8 GEMMs go through ``torch._scaled_mm``). Their
    ``out=`` forms and ``Tensor.addmm_`` compute the plain op and copy it into ``out``/``self``
    under torch's rules (dtype and shape checks, resizing of ``out``). Every other function
    runs natively, but a matrix product never does: the functions of :data:`NOT_EMULATED`
    (einsum, baddbmm, scaled_dot_product_attention, convolutions, ...) are refused as calls,
    and any other product (``Tensor.baddbmm_``, ``addmv_``, ``cdist``, ``cov``,
    ``linalg.matrix_power``, ``nn.LSTM``/``nn.GRU``, ``torch.ops.aten.*``, ...) where it
    reaches torch's dispatcher, by a ``TorchDispatchMode`` entered with this one
    (``mma._torch_guard``: which aten ops count as matrix products, and why).

    **Threads.** Torch's modes hold for the thread that enters them: a product computed on
    another thread inside the ``with`` block (a thread pool, a data loader's thread) is NOT
    seen, neither emulated nor refused. Enter the mode in the worker too:
    ``with em.in_thread():`` inside it, or submit ``em.wrap(fn)`` instead of ``fn``; both
    share ``em``'s settings, log and warnings.

    **torch.compile** runs eagerly under the mode: torch's Dynamo compiles no frame while a
    ``TorchDispatchMode`` is active, so a compiled function or module (any backend; compiled
    before or inside the ``with`` block) runs its Python eagerly and its products are
    emulated or refused as above (``fullgraph=True`` raises torch's error: no frame
    compiled). Tracing that reaches the mode itself (``torch.export``) raises
    :class:`NotModelledError`: a traced graph would hold the emulation's NumPy steps.

    Args:
        gpu: a :data:`GPU_TABLE` name or a library platform name.
        ops: which to emulate: ``"scaled_mm"``, ``"linear"``, ``"matmul"`` (which includes
            ``"mm"``, ``"bmm"``, ``"addmm"``; these can also be named alone). The functions of
            those left out run natively, as asked (logged with ``unit`` None); every other
            matrix product is still refused.
        splitk: for ``torch._scaled_mm``, as :func:`mma.scaled_mm` takes it.
        log: keep a log entry per emulated call in ``em.log`` (a list of dicts: ``op``,
            ``gpu``, ``shapes``, ``dtypes``, ``unit``, ``recipe``, ``out_dtype``,
            ``time_s``; a product refused at the dispatcher adds ``via``, the public
            function it came from, where known).
        fallback: ``"raise"``: a call that cannot be emulated raises
            :class:`NotModelledError`; ``"native"``: it runs natively, with one
            :class:`NativeFallbackWarning` per op (logged with ``unit`` None). A call the GPU
            rejects (:class:`GpuRejectsError`) always raises.
        allow_tf32: as :func:`matmul` (None: read torch's flags at each call).
        threads: None for all cores, 1 for the calling thread, t for t threads.

    A one-time :class:`NoRecipeWarning` per op and dtype says where a result is the
    instruction chain without a library recipe. Inputs that require grad raise (autograd is
    not modelled): run the model under ``torch.no_grad()``.
    """

    def __init__(self, gpu: str = "RTX 4060",
                 ops: Sequence[str] = ("scaled_mm", "linear", "matmul"), splitk: Any = 1,
                 log: bool = False, fallback: str = "raise", *,
                 allow_tf32: Optional[bool] = None, threads: Optional[int] = None) -> None:
        super().__init__()
        if not isinstance(gpu, str):
            raise TypeError(f"gpu: expected a string, got {type(gpu).__name__}")
        try:
            _platform(gpu)
        except KeyError:
            _gpu(gpu)
        if isinstance(ops, str) or not all(o in _OPS for o in ops):
            raise ValueError(f"ops: expected a sequence of {', '.join(map(repr, _OPS))}, "
                             f"got {ops!r}")
        if fallback not in ("raise", "native"):
            raise ValueError(f"fallback: expected 'raise' or 'native', got {fallback!r}")
        self.gpu, self.splitk, self.fallback = gpu, splitk, fallback
        self.ops = frozenset(ops) | (frozenset(("mm", "bmm", "addmm")) if "matmul" in ops
                                     else frozenset())
        self.allow_tf32, self.threads, self.keep_log = allow_tf32, threads, bool(log)
        self.log: List[Dict[str, Any]] = []
        self._warned: set = set()
        self._handlers = _handlers()
        self._blocked = _guard.not_emulated()
        self._local = threading.local()  # this thread's guards (one per entry)

    def __enter__(self) -> "emulate":
        super().__enter__()
        try:
            guard = _guard.Guard(self._refused)
            guard.__enter__()
        except BaseException:
            super().__exit__(None, None, None)
            raise
        self._local.__dict__.setdefault("guards", []).append(guard)
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            self._local.guards.pop().__exit__(exc_type, exc, tb)
        finally:
            super().__exit__(exc_type, exc, tb)

    def in_thread(self) -> "emulate":
        """``with em.in_thread():`` inside a worker thread runs its products under ``em``
        (torch's modes hold for the thread that enters them): the same settings, log and
        warnings. It is ``em`` itself: ``with em:`` there is the same."""
        return self

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` run under ``em`` on whichever thread calls it (for ``pool.submit``,
        ``threading.Thread(target=...)``)."""
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return run

    def _product(self, a: Any, b: Any, add: Any, op: str) -> Tuple[Any, Dict[str, Any]]:
        g = _GPUS.get(_key(self.gpu))
        if g is None:
            raise NotModelledError(f"{op}: {self.gpu!r} is a library platform without a "
                                   f"GPU_TABLE row; use a GPU name for {op}")
        return _product(g, a, b, add, instr=None, allow_tf32=self.allow_tf32, splitk=1,
                        threads=self.threads, op=op, registry=self._warned, depth=6)

    def _native(self, op: str, why: Exception, func: Any, args: Any, kwargs: Dict[str, Any],
                t0: float, **extra: Any) -> Any:
        """``fallback="native"``: one warning per op, the native call, its log entry."""
        _warn_once(self._warned, ("native", op), f"mma.torch.emulate: {op} ran natively "
                   f"(fallback='native'): {why}", NativeFallbackWarning, 4)
        with _guard.allowed():
            out = func(*args, **kwargs)
        if self.keep_log:
            first = next(iter(_guard._tensors((out,), {})), None)
            info = {"recipe": f"native (fallback): {why}", **extra,
                    "out_dtype": None if first is None else str(first.dtype)}
            _record(self.log, op, self.gpu, _guard._tensors(args, kwargs), info, t0)
        return out

    def _refused(self, op: str, via: Optional[str], func: Any, args: Any,
                 kwargs: Dict[str, Any]) -> Any:
        """A matrix product reached the dispatcher outside the emulation (the guard)."""
        t0 = time.perf_counter()
        e = NotModelledError(f"{op}{f' (called by {via})' if via else ''}: a matrix product "
                             "mma.torch.emulate does not emulate reached torch's dispatcher; "
                             "refused rather than computed natively")
        if self.fallback == "raise":
            raise e
        return self._native(op, e, func, args, kwargs, t0, via=via)

    def __torch_function__(self, func: Any, types: Any, args: Any = (),
                           kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if torch.compiler.is_compiling():
            raise NotModelledError(f"{_guard.public_name(func)}: tracing (torch.export, "
                                   "torch.compile) is not supported under mma.torch.emulate; "
                                   "run the model eagerly under the mode")
        hit = self._handlers.get(func)
        if hit is not None and hit.op not in self.ops:  # left out of ops: native, as asked
            t0 = time.perf_counter()
            with _guard.allowed():
                out = func(*args, **kwargs)
            if self.keep_log:
                info = {"recipe": f"native ({hit.op} is not among ops)",
                        "out_dtype": str(out.dtype)}
                _record(self.log, hit.op, self.gpu, _guard._tensors(args, kwargs), info, t0)
            return out
        op = hit.op if hit is not None else self._blocked.get(func)
        if op is None:
            with _guard.via(func):
                return func(*args, **kwargs)
        t0 = time.perf_counter()
        try:
            if hit is None:
                raise NotModelledError(f"{op}: a matrix product mma.torch does not emulate")
            kw = dict(kwargs)
            target = kw.pop("out", None) if hit.form == "out" else \
                (args[0] if hit.form == "inplace" else None)
            if target is None:
                out, info = hit.handler(self, *args, **kw)
            else:
                out, info = _guard.into(op, func, args, kwargs, target,
                                        lambda: hit.handler(self, *args, **kw))
        except (NotModelledError, SplitUnknownError) as e:
            if self.fallback == "raise":
                raise
            return self._native(op, e, func, args, kwargs, t0)
        if self.keep_log:
            _record(self.log, op, self.gpu, list(args) + list(kwargs.values()), info, t0)
        return out


