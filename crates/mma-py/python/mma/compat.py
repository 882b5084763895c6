"""The public API of mmasim 2.1.1, on this package's engine: ``import mma.compat as mmasim``.

The same class names, constructor arguments, methods and tensor conventions:
``mmasim.nv_ptx.MMA``, ``MMABlockScale``, ``WGMMA``, ``TCGen05MMA``, ``TCGen05MMABlockScale``
and ``mmasim.amd.MFMA``, each built from ``(arch, shape_and_type)`` (``(arch, suffix)`` for
MFMA), with

- ``dpa(a, b, c)`` (``dpa(a, b, c, alpha, beta)`` for block scaling): ``a``, ``b`` of shape
  ``[..., K]``, ``c`` of shape ``[...]``, chained over K in blocks of the unit's ``L_max`` as
  mmasim does;
- ``__call__(A, B, C)`` (``(A, B, C, alpha, beta)``): ``A`` is ``[m, K]``, ``B`` ``[K, n]``,
  ``C`` ``[m, n]``, ``alpha`` ``[m, K/block]`` and ``beta`` ``[K/block, n]``.

Tensors are torch tensors of mmasim's dtypes: float64, float32 (f32, tf32, xf32), float16,
bfloat16, float8_e4m3fn (e4m3, and ue4m3 scales), float8_e5m2, float8_e8m0fnu (ue8m0),
float8_e4m3fnuz (AMD fp8), float8_e5m2fnuz (AMD bf8), and uint8 for fp6/fp4 (one per byte, fp6
in bits 5:0 and fp4 in bits 5:2; two fp4 per byte for ``kind::mxf4``/``kind::mxf4nvf4``).
Results are tensors of D's dtype on the inputs' device. An unknown architecture or
instruction raises ``KeyError`` (mmasim raises ``AssertionError``). Requires PyTorch.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Optional

import numpy as np

from . import _FORMATS, Unit, _dots, find

try:
    import torch
except ImportError as e:  # pragma: no cover - exercised only without torch
    raise ImportError("mma.compat mimics mmasim, a PyTorch API: it needs torch installed") from e

__all__ = ["nv_ptx", "amd", "MMAOperation", "MMABlockScaleOperation"]


def _torch_dtype(name: str) -> Any:
    """A torch dtype by name; ``float8_e8m0fnu`` (ue8m0 scales) is uint8 codes in a torch
    without it, as mmasim's tensors of it are there."""
    return getattr(torch, name, torch.uint8)


#: Format name -> the torch dtype of mmasim's tensors of it (the engine's table: tf32 in
#: float32 tensors, ue4m3 in float8_e4m3fn ones, fp6 and fp4 as uint8 codes).
_TORCH = {n: _torch_dtype(f["torch"]) for n, f in _FORMATS.items() if f["torch"] is not None}


def _int_view(size: int) -> Any:
    """The torch integer dtype that views ``size``-byte elements (uint8 for bytes: FP8 tensors
    view as uint8)."""
    return torch.uint8 if size == 1 else getattr(torch, f"int{8 * size}")


def _words(t: Any, name: str, want: Any) -> np.ndarray:
    """A tensor's raw storage words as a NumPy array of unsigned integers."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.dtype != want:
        raise TypeError(f"{name}: expected dtype {want}, got {t.dtype}")
    size = t.element_size()
    raw = t.detach().to("cpu").contiguous().view(_int_view(size))
    return raw.numpy().view(np.dtype(f"uint{8 * size}"))


class _Base:
    _op = ""

    def __init__(self, arch: str, shape_and_type: str) -> None:
        self.arch = arch
        self.shape_and_type = shape_and_type
        self._unit: Unit = find(arch, shape_and_type, "nvidia", op=self._op)
        f = self._unit.formats
        self.m, self.n, self.k = self._unit.m, self._unit.n, self._unit.k
        self.a_type = _TORCH[f["a"]]
        self.b_type = _TORCH[f["b"]]
        self.c_type = _TORCH[f["c"]]
        self.d_type = _TORCH[f["d"]]
        self.a_type_ptx = f["a"]
        self.b_type_ptx = f["b"]
        parts = shape_and_type.split(".")
        kinds = [p for p in parts if p.startswith("kind::")]
        self.kind: Optional[str] = kinds[0][len("kind::") :] if kinds else None
        if f["scale"] is not None:
            self.block_size = f["scale_block"]
            self.s_type = _TORCH[f["scale"]]
            self.packing = 2 if self._unit.layout == "packed_fp4" else 1

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.arch!r}, {self.shape_and_type!r})"

    def _eval(self, a: Any, b: Any, c: Any, alpha: Any = None, beta: Any = None) -> Any:
        u = self._unit
        f = u.formats
        aw = _words(a, "a", self.a_type)
        bw = _words(b, "b", self.b_type)
        cw = _words(c, "c", self.c_type)
        sa = sb = None
        if alpha is not None or beta is not None:
            sa = _words(alpha, "alpha", self.s_type)
            sb = _words(beta, "beta", self.s_type)
        # tf32 reads fp32 words and ignores their low 13 bits, as mmasim truncates them.
        d = _dots(u, aw, bw, cw, sa, sb, None, by_instruction=False)
        size = np.dtype(d.dtype).itemsize
        out = torch.from_numpy(d.view(np.dtype("uint8" if size == 1 else f"int{8 * size}"))
                               .copy()).view(self.d_type)
        return out.to(c.device)


def _vectors(A: Any, B: Any, C: Any) -> Any:
    m, n = C.shape
    return A[:, None, :].expand(-1, n, -1), B.T[None, :, :].expand(m, -1, -1)


class MMAOperation(_Base):
    """An operation without block scaling: ``dpa(a, b, c)`` and ``op(A, B, C)``."""

    def dpa(self, a: Any, b: Any, c: Any) -> Any:
        """``d[...] = a[..., :] · b[..., :] + c[...]``, chained over K in blocks of L_max."""
        return self._eval(a, b, c)

    def __call__(self, A: Any, B: Any, C: Any) -> Any:
        """``D = A @ B + C`` for ``A`` ``[m, K]``, ``B`` ``[K, n]``, ``C`` ``[m, n]``."""
        a, b = _vectors(A, B, C)
        return self._eval(a, b, C)


class MMABlockScaleOperation(_Base):
    """A block-scaled operation: ``dpa(a, b, c, alpha, beta)`` and ``op(A, B, C, alpha,
    beta)``."""

    def dpa(self, a: Any, b: Any, c: Any, alpha: Any, beta: Any) -> Any:
        """As ``MMAOperation.dpa`` with scale factors ``alpha``, ``beta`` ``[..., K/block]``."""
        return self._eval(a, b, c, alpha, beta)

    def __call__(self, A: Any, B: Any, C: Any, alpha: Any, beta: Any) -> Any:
        """``D = (alpha·A) @ (beta·B) + C``; ``alpha`` ``[m, K/block]``, ``beta``
        ``[K/block, n]``."""
        a, b = _vectors(A, B, C)
        m, n = C.shape
        sa = alpha[:, None, :].expand(-1, n, -1)
        sb = beta.T[None, :, :].expand(m, -1, -1)
        return self._eval(a, b, C, sa, sb)


class MMA(MMAOperation):
    """``mma.sync`` (Volta to RTX Blackwell), as ``mmasim.nv_ptx.MMA``."""

    _op = "MMA"


class WGMMA(MMAOperation):
    """``wgmma.mma_async`` (Hopper), as ``mmasim.nv_ptx.WGMMA``."""

    _op = "WGMMA"


class TCGen05MMA(MMAOperation):
    """``tcgen05.mma`` (Blackwell), as ``mmasim.nv_ptx.TCGen05MMA``."""

    _op = "TCGen05MMA"


class MMABlockScale(MMABlockScaleOperation):
    """Block-scaled ``mma.sync`` (RTX Blackwell), as ``mmasim.nv_ptx.MMABlockScale``."""

    _op = "MMABlockScale"


class TCGen05MMABlockScale(MMABlockScaleOperation):
    """Block-scaled ``tcgen05.mma`` (Blackwell), as ``mmasim.nv_ptx.TCGen05MMABlockScale``."""

    _op = "TCGen05MMABlockScale"


class MFMA(MMAOperation):
    """``v_mfma_*`` (CDNA1 to CDNA3), as ``mmasim.amd.MFMA``: built from ``(arch, suffix)``,
    e.g. ``MFMA("CDNA3", "f32_32x32x8_f16")``."""

    def __init__(self, arch: str, suffix: str) -> None:
        self.arch = arch
        self.suffix = suffix
        self.shape_and_type = suffix
        self._unit = find(arch, suffix, "amd")
        f = self._unit.formats
        self.m, self.n, self.k = self._unit.m, self._unit.n, self._unit.k
        self.a_type = _TORCH[f["a"]]
        self.b_type = _TORCH[f["b"]]
        self.c_type = _TORCH[f["c"]]
        self.d_type = _TORCH[f["d"]]
        self.kind = None


nv_ptx = types.ModuleType("mma.compat.nv_ptx", "NVIDIA PTX operations, as mmasim.nv_ptx.")
for _cls in (MMA, MMABlockScale, WGMMA, TCGen05MMA, TCGen05MMABlockScale):
    setattr(nv_ptx, _cls.__name__, _cls)
nv_ptx.__all__ = ["MMA", "MMABlockScale", "WGMMA", "TCGen05MMA", "TCGen05MMABlockScale"]

amd = types.ModuleType("mma.compat.amd", "AMD operations, as mmasim.amd.")
amd.MFMA = MFMA
amd.__all__ = ["MFMA"]
sys.modules[nv_ptx.__name__] = nv_ptx
sys.modules[amd.__name__] = amd
