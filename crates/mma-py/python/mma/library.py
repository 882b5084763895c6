"""Library GEMMs: what a GPU's library returns for ``torch._scaled_mm``, bit for bit.

``scaled_mm`` takes the arguments of ``torch._scaled_mm`` (PyTorch 2.7.1) plus ``gpu=`` and
``splitk=``, on NumPy arrays of ml_dtypes' float8 types or on torch tensors, and returns what
that GPU's cuBLASLt returns: PyTorch's argument checks and the library's rejections raise
(:class:`GpuRejectsError`), promotion without ``use_fast_accum``, split-K as the GPU takes it,
and the epilogue. See the package README, "Library GEMMs".
"""

from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import numpy as np

from . import _mma
from ._threads import threads_arg as _threads

__all__ = [
    "scaled_mm",
    "platform",
    "GpuRejectsError",
    "NotModelledError",
    "SplitUnknownError",
]


class GpuRejectsError(ValueError):
    """The GPU (its library, or PyTorch before it) rejects this call: the same call raises
    there. The message names the reason."""


class NotModelledError(NotImplementedError):
    """The call is valid on the GPU but its bits are not modelled (no recordings decide them),
    e.g. a bias epilogue or row-wise scales."""


class SplitUnknownError(ValueError):
    """``splitk="auto"`` cannot tell which split-K the GPU's library would take for this call:
    give ``splitk=(S, "serial"|"pairwise")`` as the GPU took it."""


#: The engine's formats by name (``mma::format``, with the dtype names that hold them).
_FORMATS = {f["name"]: f for f in _mma.format_table()}
#: The dtypes a library GEMM writes (the engine's epilogue: f32, bf16, f16, e4m3, e5m2), by
#: PyTorch's name, to the format's name.
_OUT = {_FORMATS[n]["torch"]: n for n in ("f32", "bf16", "f16", "e4m3", "e5m2")}


def platform(gpu: str = "RTX 4060") -> dict:
    """The platform ``gpu`` names: its GPU, library, callers, whether recordings verify it and
    which, and the instruction its FP8 kernels issue per input pair."""
    if not isinstance(gpu, str):
        raise TypeError(f"gpu: expected a string, got {type(gpu).__name__}")
    return _mma.platform_info(gpu)


def _is_torch(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def _dtype_name(dt: Any, what: str) -> str:
    """A dtype as PyTorch names it (``"float32"``, ``"bfloat16"``, ``"float8_e4m3fn"``), from
    any spelling: a torch dtype, a NumPy or ml_dtypes dtype or scalar type
    (``np.float32``, ``ml_dtypes.bfloat16``), or a name (``"bf16"``, ``"torch.float16"``).
    Something that is no dtype at all is a TypeError naming ``what``; whether the GPU takes
    the dtype is the caller's question."""
    if isinstance(dt, str):
        name = dt.replace("torch.", "")
        fmt = _mma.format_canonical(name)  # the engine's spellings of its formats
        f = _FORMATS[fmt] if fmt is not None else {"numpy": None, "torch": None}
        # A dtype of the format's own values in both libraries; a format that only a
        # container holds (tf32 in float32, fp4 in uint8) keeps the name as given.
        return f["torch"] if f["torch"] is not None and f["torch"] == f["numpy"] else name
    if _is_torch(dt):
        return str(dt).replace("torch.", "")
    try:
        return np.dtype(dt).name
    except TypeError:
        raise TypeError(f"{what}: {dt!r} is not a dtype (give a torch, NumPy or ml_dtypes "
                        "dtype, or a name such as 'float32' or 'bfloat16')") from None


def _fp8_codes(x: Any, what: str) -> Tuple[np.ndarray, str, bool]:
    """(uint8 codes, format, is_torch) of an FP8 NumPy array or torch tensor."""
    if _is_torch(x):
        import torch

        name = _dtype_name(x.dtype, what)
        if name not in ("float8_e4m3fn", "float8_e5m2"):
            raise GpuRejectsError(f"torch._scaled_mm: {what} must be float8_e4m3fn or "
                                  f"float8_e5m2, got {name}")
        codes = x.detach().to("cpu").contiguous().view(torch.uint8).numpy()
        return codes, name, True
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{what}: expected a NumPy array or a torch tensor, got "
                        f"{type(x).__name__}")
    name = _dtype_name(x.dtype, what)
    if name not in ("float8_e4m3fn", "float8_e5m2"):
        raise GpuRejectsError(f"torch._scaled_mm: {what} must be float8_e4m3fn or float8_e5m2 "
                              f"(ml_dtypes), got {x.dtype}")
    return x.view(np.uint8), name, False


def _exact_float64(v: Any, what: str, shown: Any) -> float:
    """``v`` (a Python int or float, or a NumPy scalar of any integer or floating type) as the
    float64 that equals it exactly, or a ValueError naming ``what`` and ``shown``. Python
    compares ints, floats and NumPy's longdouble with floats exactly, so nothing is rounded on
    the way: the int ``2**53 + 1`` and the longdouble ``1 + 2**-60`` are refused, not read as
    ``2**53`` and 1."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{what}: expected a float32 scale, got the bool {shown!r}")
    if isinstance(v, (int, np.integer)):
        i = int(v)
        try:
            f = float(i)
        except OverflowError:
            f = None
        if f is None or f != i:
            raise ValueError(f"{what}: {shown!r} is not exactly a float32 value")
        return f
    if isinstance(v, np.floating) and np.dtype(type(v)).itemsize > 8:
        f = float(np.float64(v))
        if not (np.longdouble(f) == v or (f != f and v != v)):
            raise ValueError(f"{what}: {shown!r} is not exactly a float32 value")
        return f
    if isinstance(v, (float, np.floating)):
        return float(v)
    raise TypeError(f"{what}: expected a float32 scale (a number, or a one-element array or "
                    f"tensor), got {type(v).__name__}")


def _fp32_bits(x: Any, what: str) -> int:
    """The binary32 bits of a tensor-wise scale: a float32 scalar, 0-d or one-element array or
    tensor as it is (NaN payloads kept), or any other integer or floating scalar, array or
    tensor whose value float32 holds exactly (else a ValueError naming ``what`` and the
    value; the engine decides exactness, :func:`mma.encode`). Row-wise scales are not
    modelled."""
    if _is_torch(x):
        import torch

        if x.dtype != torch.float32:
            raise GpuRejectsError(f"torch._scaled_mm: {what} must be float32, got {x.dtype}")
        if x.numel() != 1:
            raise NotModelledError(f"{what}: row-wise scales (shape {tuple(x.shape)}) are "
                                   "not modelled: no recordings decide their bits")
        return int(x.detach().to("cpu").reshape(1).view(torch.int32).item()) & 0xFFFFFFFF
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{what}: expected a float32 scale, got the bool {x!r}")
    if isinstance(x, (int, float, np.integer, np.floating)):
        arr = None
        value = _exact_float64(x, what, x)
    else:
        if not isinstance(x, np.ndarray):
            raise TypeError(f"{what}: expected a float32 scalar, array or tensor, got "
                            f"{type(x).__name__}")
        arr = x
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"{what}: expected a float32 scale, got an array of {arr.dtype}")
        if arr.size != 1:
            raise NotModelledError(f"{what}: row-wise scales (shape {arr.shape}) are not "
                                   "modelled: no recordings decide their bits")
        if arr.dtype == np.float32:
            return int(arr.reshape(1).view(np.uint32)[0])
        item = arr.reshape(1)[0]
        value = _exact_float64(item, what, item)
    try:
        return int(_mma.encode("f32", np.array([value], np.float64))[0])
    except ValueError:
        shown = x if arr is None else arr.reshape(1)[0]
        raise ValueError(f"{what}: {shown!r} is not exactly a float32 value") from None


def _out_array(words: np.ndarray, name: str, shape, as_torch: bool, device: Any) -> Any:
    import ml_dtypes

    f = _FORMATS[_OUT[name]]
    np_dtype = getattr(ml_dtypes, f["numpy"], None) or np.dtype(f["numpy"])
    bits = f["storage_bits"]
    raw = words.astype(np.dtype(f"uint{bits}")).reshape(shape)
    out = raw.view(np_dtype)
    if not as_torch:
        return out
    import torch

    t = torch.from_numpy(raw.view(np.dtype(f"int{bits}")).copy()).view(getattr(torch, f["torch"]))
    return t.to(device) if device is not None else t


def _splitk(splitk: Any) -> Tuple[int, str]:
    """``splitk`` as (S, order): ``1``, or ``(S, "serial"|"pairwise")`` with S a positive int
    (not a bool, a float or a string: nothing is rounded or parsed on the way)."""
    def is_int(x: Any) -> bool:
        return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))

    if isinstance(splitk, str) and splitk == "auto":
        raise SplitUnknownError(
            "splitk='auto': no split-K table ships for this platform yet; give "
            "splitk=(S, 'serial'|'pairwise') as the GPU took it (cuBLASLt's heuristic)")
    if is_int(splitk):
        if int(splitk) != 1:
            raise ValueError(f"splitk={int(splitk)}: give (S, 'serial') or (S, 'pairwise'): "
                             "the order of the parts' sum decides the bits")
        return 1, "serial"
    if isinstance(splitk, tuple) and len(splitk) == 2:
        parts, order = splitk
        if not is_int(parts):
            raise TypeError(f"splitk: S must be an int, got {parts!r} in {splitk!r}")
        if parts < 1 or parts > 2**32:
            raise ValueError(f"splitk: S must be between 1 and 2**32, got {int(parts)}")
        if not isinstance(order, str):
            raise TypeError(f"splitk: the order must be 'serial' or 'pairwise', got {order!r}")
        return int(parts), order
    raise TypeError(f"splitk: expected 1, (S, 'serial'|'pairwise') or 'auto', got {splitk!r}")


def scaled_mm(
    a: Any,
    b: Any,
    scale_a: Any,
    scale_b: Any,
    bias: Any = None,
    scale_result: Any = None,
    out_dtype: Any = None,
    use_fast_accum: bool = False,
    *,
    gpu: str = "RTX 4060",
    splitk: Union[int, Tuple[int, str], str] = 1,
    threads: Optional[int] = None,
) -> Any:
    """``torch._scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype,
    use_fast_accum)`` as ``gpu``'s cuBLASLt computes it.

    Args:
        a: mat1, ``[M, K]``, float8_e4m3fn or float8_e5m2 (ml_dtypes NumPy array or torch
            tensor).
        b: mat2, ``[K, N]`` (PyTorch passes ``w.t()`` of a ``[N, K]`` weight).
        scale_a, scale_b: tensor-wise float32 scales (a scalar, a 0-d or one-element array or
            tensor).
        bias: a bf16/f16 vector of N: checked as PyTorch checks it, then
            :class:`NotModelledError` (no recordings decide the bias epilogue's bits).
        scale_result: a float32 scale multiplying FP8 outputs (ignored for others, as the
            library ignores it).
        out_dtype: float32, bfloat16, float16, float8_e4m3fn or float8_e5m2 (NumPy, ml_dtypes
            or torch dtypes, or their names); default: ``a``'s dtype, as PyTorch.
        use_fast_accum: PyTorch's flag: one tensor-core chain over K instead of a chain
            restarted (promoted) every 128 elements.
        gpu: the platform (``"RTX 4060"``, verified on recordings; ``"H100 PCIe"``,
            unverified, said with a warning).
        splitk: ``1`` (no split), ``(S, "serial")`` or ``(S, "pairwise")`` as the GPU took it,
            or ``"auto"`` (raises :class:`SplitUnknownError`: no split-K table ships yet).
        threads: None for all cores, 1 for the calling thread, t for t threads.

    Returns:
        ``[M, N]`` of ``out_dtype``: a NumPy array (ml_dtypes for bf16 and FP8) or, for torch
        inputs, a tensor on ``a``'s device.

    Raises:
        GpuRejectsError: a call the GPU rejects (the message names the reason).
        NotModelledError: bias, row-wise scales.
        SplitUnknownError: ``splitk="auto"``.
        TypeError, ValueError: arguments that are not tensors or arrays of these kinds.
    """
    t = _threads(threads)
    codes_a, fa, torch_a = _fp8_codes(a, "mat1")
    codes_b, fb, _ = _fp8_codes(b, "mat2")
    if codes_a.ndim != 2 or codes_b.ndim != 2:
        raise GpuRejectsError(f"torch._scaled_mm: mat1 and mat2 must be matrices, got shapes "
                              f"{codes_a.shape} and {codes_b.shape}")
    (m, k), (k2, n) = codes_a.shape, codes_b.shape
    if k != k2:
        raise GpuRejectsError(f"torch._scaled_mm: mat1 is {m}x{k} but mat2 is {k2}x{n}: "
                              "they cannot be multiplied")
    sa, sb = _fp32_bits(scale_a, "scale_a"), _fp32_bits(scale_b, "scale_b")
    sr = None if scale_result is None else _fp32_bits(scale_result, "scale_result")
    out_name = _dtype_name(out_dtype, "out_dtype") if out_dtype is not None else fa
    if out_name not in _OUT:
        raise GpuRejectsError(f"torch._scaled_mm: out_dtype {out_name} is not supported")
    bias_arg = None
    if bias is not None:
        if not (_is_torch(bias) or isinstance(bias, np.ndarray)):
            raise TypeError(f"bias: expected None, a NumPy array or a torch tensor, got "
                            f"{type(bias).__name__}")
        bias_name = _dtype_name(bias.dtype, "bias")
        bias_arg = (_OUT.get(bias_name, bias_name), int(np.prod(bias.shape)))
    if not isinstance(use_fast_accum, (bool, np.bool_)):
        raise TypeError(f"use_fast_accum: expected a bool, got {use_fast_accum!r}")
    parts, order = _splitk(splitk)
    info = platform(gpu)
    if not info["verified"]:
        import warnings

        warnings.warn(f"mma.scaled_mm: the {info['name']} platform is unverified: "
                      f"{info['evidence']}", stacklevel=2)
    a_flat = np.ascontiguousarray(codes_a).reshape(-1)
    b_flat = np.ascontiguousarray(codes_b.T).reshape(-1)
    try:
        words = _mma.scaled_mm(gpu, a_flat, b_flat, m, n, k, fa, fb, sa, sb, sr, bias_arg,
                               _OUT[out_name], bool(use_fast_accum), parts, order,
                               "scaled_mm", t)
    except ValueError as e:
        if len(e.args) == 2 and e.args[0] in ("rejected", "unsupported", "split", "invalid"):
            kind, msg = e.args
            raise {"rejected": GpuRejectsError, "unsupported": NotModelledError,
                   "split": SplitUnknownError}.get(kind, ValueError)(msg) from None
        raise
    device = a.device if torch_a else None
    return _out_array(words, out_name, (m, n), torch_a, device)
