"""Bit-exact models of GPU matrix multiply-accumulate units, from Python.

``mma.find(arch, instr)`` gives a :class:`Unit`: one instruction of the NVIDIA (``mma.sync``,
``wgmma``, ``tcgen05.mma``) or AMD (``v_mfma_*``) catalogs. ``Unit.dots`` evaluates batches of
dot products on raw storage words, bit for bit as the GPU does; ``Unit.matmul`` multiplies
NumPy arrays or PyTorch tensors of real values. ``mma.compat`` mimics the public API of
mmasim 2.1.1. The arithmetic runs in Rust (the ``mma`` crates), on all cores unless
``threads=`` says otherwise, with the Python GIL released.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _mma
from ._threads import MAX_THREADS
from ._threads import threads_arg as _threads
from .library import (
    GpuRejectsError,
    NotModelledError,
    SplitUnknownError,
    platform,
    scaled_mm,
)

__all__ = ["Unit", "find", "catalog", "decode", "encode", "formats", "scaled_mm", "platform",
           "GpuRejectsError", "NotModelledError", "SplitUnknownError", "UnverifiedWarning",
           "MAX_THREADS"]


class UnverifiedWarning(UserWarning):
    """An instruction whose model no GPU record and no reference corpus checks
    (``Unit.evidence == "unverified"``) was looked up: its bits are the model's best reading,
    not a verified one. ``warnings.simplefilter("ignore", mma.UnverifiedWarning)`` silences it."""

#: The engine's formats by name (``mma::format``: storage bits, fields, and the names of the
#: NumPy and torch dtypes that hold them): the one table of format facts. Python only makes
#: dtypes from it.
_FORMATS: Dict[str, Dict[str, Any]] = {f["name"]: f for f in _mma.format_table()}


def _uint(bits: int) -> np.dtype:
    """The unsigned integer dtype of ``bits``-bit words."""
    return np.dtype(f"uint{bits}")


def _np_dtype(name: str) -> np.dtype:
    """A dtype by its NumPy or ml_dtypes name (``"float32"``, ``"bfloat16"``,
    ``"float8_e5m2"``)."""
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))


class Unit:
    """One instruction of a catalog: its formats, its model and parameters, and evaluation.

    Get one with :func:`find`. ``k`` is the instruction's K (elements per dot product of one
    instruction); ``formats`` names the formats of A, B, C, D and the scale factors;
    ``model`` and ``params`` are the arithmetic model of the papers and its parameters.
    """

    __slots__ = ("_u", "_words")

    def __init__(self, native: Any) -> None:
        self._u = native
        # What every call of `dots` needs, read from the native unit once: the word dtype of
        # each operand and the scale block. (Reading `formats` builds a dict each time; doing
        # that per call was most of a small batch's time.)
        f = native.formats
        plain = native.layout == "plain"
        self._words = {
            w: (np.dtype(np.uint8) if w in ("a", "b") and not plain
                else _uint(f[w]["storage_bits"]))
            for w in ("a", "b", "c", "d")
        }
        self._words.update(scale_block=f["scale_block"], layout=native.layout, k=native.k,
                           per_word=native.per_word, integer=native.is_integer("a"),
                           sparse=native.sparse)

    # Identity --------------------------------------------------------------------------------
    @property
    def vendor(self) -> str:
        """``"nvidia"`` or ``"amd"``."""
        return self._u.vendor

    @property
    def arch(self) -> str:
        """The architecture, as mmasim names it (``"Hopper"``, ``"CDNA3"``)."""
        return self._u.arch

    @property
    def op(self) -> str:
        """The operation: ``MMA``, ``WGMMA``, ``TCGen05MMA``, ``MMABlockScale``,
        ``TCGen05MMABlockScale`` or ``MFMA``."""
        return self._u.op

    @property
    def instr(self) -> str:
        """The instruction's name in mmasim's spelling (``m64n8k16.f32.f16.f16``)."""
        return self._u.name

    @property
    def spelling(self) -> str:
        """The PTX spelling (NVIDIA) or the ISA mnemonic (AMD)."""
        return self._u.spelling

    @property
    def m(self) -> int:
        """Rows of the instruction's D."""
        return self._u.m

    @property
    def n(self) -> int:
        """Columns of the instruction's D."""
        return self._u.n

    @property
    def k(self) -> int:
        """Elements per dot product of one instruction (the instruction's K; the logical K,
        A's row before compression, for a sparse unit)."""
        return self._u.k

    @property
    def sparse(self) -> Optional[str]:
        """The structured-sparsity pattern of a sparse instruction (``mma.sp``,
        ``wgmma.mma_async.sp``, ``tcgen05.mma.sp``, AMD ``v_smfmac``): ``"2:4"`` (2 kept of
        every 4 elements of A's row) or ``"1:2"`` (tf32); None for a dense one. A sparse unit's
        :attr:`k` is the logical K, and :meth:`dots` and :meth:`matmul` take the metadata as
        ``meta=``."""
        return self._u.sparse

    @property
    def layout(self) -> str:
        """How A and B words hold elements: ``"plain"`` (one per storage word), ``"byte"``
        (one fp6 in bits 5:0 or fp4 in bits 5:2 per byte) or ``"packed_fp4"`` (two fp4 per
        byte, element 2i in the high nibble)."""
        return self._u.layout

    @property
    def evidence(self) -> str:
        """What the model rests on: ``"hardware"`` (recorded GPU outputs reproduce it),
        ``"reference"`` (mmasim's corpus does, for this instruction's unit) or
        ``"unverified"`` (neither; :func:`find` warns with :class:`UnverifiedWarning`)."""
        return self._u.evidence

    def pack(self, which: str, codes: np.ndarray) -> np.ndarray:
        """The words :meth:`dots` takes for operand ``which`` (``"a"``, ``"b"`` or ``"c"``)
        from ``codes``, one storage word of the operand's format per element (last axis the
        elements): A and B in the unit's :attr:`layout` (``"byte"``: fp4 in bits 5:2;
        ``"packed_fp4"``: two elements to a byte, element ``2i`` in the high nibble, so the last
        axis halves), C as it is. The engine packs (``Layout::pack``); a code that is no word
        of the format is a ``ValueError``."""
        if which not in ("a", "b", "c"):
            raise ValueError(f"which: {which!r}; expected 'a', 'b' or 'c'")
        if self._words["integer"]:
            # Integer units take values (int8/uint8/int32/bool arrays, Python ints): the engine
            # checks each against the format's range and makes its word.
            x = self._int_values(codes, "codes", which)
            if x.ndim == 0:
                raise ValueError("codes: a 0-d array; expected elements on the last axis")
            per = self._words["per_word"] if which != "c" else 1
            if x.shape[-1] % per:
                raise ValueError(f"codes: {x.shape[-1]} elements on the last axis; "
                                 f"{self.layout} takes them in groups of {per}")
            words = self._u.pack(which, np.ascontiguousarray(x.reshape(-1), dtype=np.uint64))
            return words.reshape(x.shape[:-1] + (-1,)) if words.size else \
                words.reshape(x.shape[:-1] + (0,))
        x = np.asarray(codes)
        if x.dtype.kind not in "ui":
            raise TypeError(f"codes: {x.dtype} array; expected unsigned integer words")
        if x.ndim == 0:
            raise ValueError("codes: a 0-d array; expected elements on the last axis")
        if (x < 0).any():
            raise ValueError("codes: negative values are no words")
        if which != "c" and self.layout == "packed_fp4" and x.shape[-1] % 2:
            raise ValueError(f"codes: {x.shape[-1]} elements on the last axis; packed fp4 "
                             "takes them in pairs")
        flat = np.ascontiguousarray(x.reshape(-1), dtype=np.uint64)
        words = self._u.pack(which, flat)
        if x.shape[-1] == 0 or words.size == 0:
            return words.reshape(x.shape[:-1] + (0,))
        return words.reshape(x.shape[:-1] + (-1,))

    @property
    def formats(self) -> Dict[str, Any]:
        """Format names: ``{"a", "b", "c", "d", "scale"}`` (``scale`` is None without block
        scaling) and ``"scale_block"`` (elements per scale factor, or None)."""
        f = self._u.formats
        out: Dict[str, Any] = {w: f[w]["name"] for w in ("a", "b", "c", "d")}
        out["scale"] = f["scale"]["name"] if f["scale"] is not None else None
        out["scale_block"] = f["scale_block"]
        return out

    @property
    def model(self) -> str:
        """The model's name as the papers write it (``"T-FDPA"``, ``"GST-FDPA"``, ...)."""
        return self._u.model

    @property
    def params(self) -> Dict[str, Any]:
        """The model's parameters as a dict, every one the unit-file schema has: ``L_max``
        and the model's own (``F``, ``e_zero``, ``rho``, ``nan``, ``overflow``, ...); integers,
        booleans and names."""
        return dict(self._u.params)

    @property
    def description(self) -> str:
        """Model and parameters in one line, as ``mma list`` prints them."""
        return self._u.description

    @property
    def isa(self) -> str:
        """The instruction set the kernels were planned for on this CPU."""
        return self._u.isa

    @property
    def is_batched(self) -> bool:
        """Whether batches take the vector-lane path (eight dot products per AVX2 vector, sixteen
        per AVX-512 vector)."""
        return self._u.is_batched

    def __repr__(self) -> str:
        return (
            f"<mma.Unit {self.vendor} {self.arch} {self.op} {self.instr}: K={self.k}, "
            f"{self.description}>"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unit) and (
            (self.vendor, self.arch, self.op, self.instr)
            == (other.vendor, other.arch, other.op, other.instr)
        )

    def __hash__(self) -> int:
        return hash((self.vendor, self.arch, self.op, self.instr))

    # Bit level --------------------------------------------------------------------------------
    def _word_dtype(self, which: str) -> Any:
        if which == "d" and self._words["integer"]:
            return self._int_dtype("d")
        return self._words[which]

    def _int_dtype(self, which: str) -> np.dtype:
        """The NumPy dtype of an integer operand's values (int32 for s32, uint8 for u8)."""
        return np.dtype(self._u.int_dtype(which))

    def _int_values(self, x: Any, name: str, which: str) -> np.ndarray:
        """The words of integer values ``x`` of operand ``which`` (a NumPy integer or bool
        array, a Python int, or nested lists of them), in ``x``'s shape: the engine checks each
        value against the format's range (a ValueError naming ``name`` and the index)."""
        if _is_torch(x):
            x = x.detach().to("cpu").numpy()
        arr = np.asarray(x)
        fname = self._u.formats[which]["name"]
        if arr.dtype.kind not in "iub":
            raise TypeError(f"{name}: {fname} takes integer values (an integer or bool array, "
                            f"or Python ints), got {arr.dtype}")
        flat = np.ascontiguousarray(arr.reshape(-1), dtype=np.int64)
        if arr.dtype == np.uint64:
            big = np.flatnonzero(flat < 0)
            if big.size:
                where = np.unravel_index(int(big[0]), arr.shape)
                idx = ", ".join(str(int(i)) for i in where)
                raise ValueError(f"{name}[{idx}] = {arr[where]}: outside {fname}'s range")
        try:
            words = self._u.int_words(which, flat)
        except ValueError as e:
            if len(e.args) == 4:
                msg, _, index, value = e.args
                where = np.unravel_index(index, arr.shape) if arr.ndim else ()
                idx = ", ".join(str(int(i)) for i in where)
                raise ValueError(
                    f"{name}[{idx}] = {value}: {msg.split(': ', 1)[-1]}") from None
            raise
        return words.reshape(arr.shape)

    def _int_operand(self, x: Any, name: str, which: str) -> Any:
        """An operand of :meth:`dots` for an integer unit: words as they are (an array of the
        word dtype: uint8 for A and B, packed bytes in a packed layout, uint32 for C), else
        integer values, turned into words (and packed) by the engine."""
        want = self._words[which]
        if isinstance(x, np.ndarray) and x.dtype == want:
            return x
        w = self._int_values(x, name, which)
        per = self._words["per_word"] if which != "c" else 1
        if per > 1:
            if w.ndim < 1 or w.shape[-1] % per:
                raise ValueError(f"{name}: {w.shape[-1] if w.ndim else 0} elements per row; "
                                 f"{self.layout} takes a multiple of {per}")
            packed = self._u.pack(which, np.ascontiguousarray(w.reshape(-1), dtype=np.uint64))
            w = packed.reshape(w.shape[:-1] + (w.shape[-1] // per,))
        return w

    def dots(
        self,
        a: np.ndarray,
        b: np.ndarray,
        c: np.ndarray,
        scale_a: Optional[np.ndarray] = None,
        scale_b: Optional[np.ndarray] = None,
        *,
        threads: Optional[int] = None,
        meta: Any = None,
    ) -> np.ndarray:
        """Dot products on raw storage words: ``d[...] = a[..., :] · b[..., :] + c[...]``.

        Words are those of the case files: ``uint8`` for 8-bit and narrower formats (fp6 in
        bits 5:0 and fp4 in bits 5:2 of a byte; two fp4 per byte, element 2i in the high
        nibble, for ``kind::mxf4``/``kind::mxf4nvf4``), ``uint16`` for f16/bf16, ``uint32``
        for f32/tf32, ``uint64`` for f64.

        Args:
            a, b: shape ``[..., K]`` (``[..., K/2]`` bytes when packed); K any multiple of the
                instruction's K: longer dot products are chained instruction by instruction,
                each D fed back as the next C, as a kernel's K loop does.
            c: shape ``[...]``, words of C's format.
            scale_a, scale_b: ``uint8``, shape ``[..., K/scale_block]``, for block-scaled
                instructions only.
            threads: None for all cores, 1 for the calling thread, t for t threads. The
                result does not depend on it.
            meta: sparse units only (:attr:`sparse`), and required there: integers, shape
                ``[..., K/2]``, each kept element's index within its group (``0..4`` for
                2:4, ``0..2`` for 1:2, ``0..8`` in adjacent pairs for 4:8-pairs),
                increasing within a group. ``a`` is then either the
                dense logical row, ``[..., K]`` (the disabled positions are not read: any
                word, NaN included, has no effect), or the compressed one, ``[..., K/2]``
                (the kept elements in order); ``b`` is always ``[..., K]``. Each dot product
                is the dense unit of K/2 applied to A's kept elements and B's elements at the
                selected positions (``mma::sparse``), chained per instruction as above.

        Batch dimensions ``[...]`` broadcast against each other.

        Integer units (s8/u8/s4/u4/b1 into s32) take A, B and C as integer values too (int8,
        int32, bool or other integer arrays, Python ints; s4/u4/b1 one value per element, packed
        by the engine), or as words (uint8 bytes, packed for s4/u4/b1; uint32 C); each value is
        checked against its format's range (a ``ValueError`` naming the argument and index).
        D is then int32: the exact sum wrapped modulo 2^32, or clamped in ``.satfinite`` forms.

        Returns:
            D's words, shape ``[...]``, in D's storage dtype (int32 values for integer units).

        Raises:
            TypeError: an argument of the wrong dtype or kind.
            ValueError: shapes that do not fit, a K that is not a multiple of the instruction's
                K, or a word that is not a valid encoding (the message names the element).
        """
        if self._words["integer"]:
            a = self._int_operand(a, "a", "a")
            b = self._int_operand(b, "b", "b")
            c = self._int_operand(c, "c", "c")
        if self._words["sparse"] is not None:
            d = _sparse_dots(self, a, b, c, scale_a, scale_b, meta, threads)
        else:
            if meta is not None:
                raise ValueError(f"meta: {self.instr} is a dense instruction; pass no meta")
            d = _dots(self, a, b, c, scale_a, scale_b, threads, by_instruction=True)
        if self._words["integer"]:
            return d.view(self._int_dtype("d"))
        return d

    # Value level ------------------------------------------------------------------------------
    def matmul(self, A: Any, B: Any, C: Any = None, *, threads: Optional[int] = None,
               meta: Any = None) -> Any:
        """``D = A @ B + C`` as the GPU computes it, for real-valued matrices.

        Args:
            A: ``[M, K]``, B: ``[K, N]``, C: ``[M, N]`` (zeros when None), as NumPy arrays
                (float16, float32, float64, or ml_dtypes' bfloat16, float8, float6 and float4
                types) or PyTorch tensors. K must be a multiple of the instruction's K: the
                product is walked instruction by instruction along K, each D fed back as the
                next C. Every value must be exactly representable in the instruction's
                format for that operand. Block-scaled instructions use scale factors of 1.
                Integer units take integer values (NumPy integer or bool arrays, nested lists of
                Python ints), each in its format's range, and return int32.
            threads: None for all cores, 1 for the calling thread, t for t threads.
            meta: sparse units only (:attr:`sparse`), and required there: integers, shape
                ``[M, K/2]``, each kept element of A's row's index within its group,
                increasing within a group. A is then ``[M, K]`` (dense; the disabled positions
                are not read, NaN included) or ``[M, K/2]`` (compressed); B is ``[K, N]``.
                ``D[i, j]`` is the dense unit of K/2 on row i's kept elements and column j of B
                at row i's selected positions.

        Returns:
            D in D's format (float16, float32 or float64), as the same kind of object as A: a
            NumPy array, or a torch tensor on A's device.

        Raises:
            TypeError: an argument that is neither a NumPy array nor a torch tensor of a
                floating-point type.
            ValueError: shapes that do not fit, or a value that the format cannot hold (the
                message names the first such element, e.g. ``A[0, 3] = 0.1``).
        """
        t = _threads(threads)
        if self._words["sparse"] is None and meta is not None:
            raise ValueError(f"meta: {self.instr} is a dense instruction; pass no meta")
        if self._words["sparse"] is not None:
            return self._sparse_matmul(A, B, C, meta, t)
        if self._words["integer"]:
            return self._int_matmul(A, B, C, t)
        mats = [_as_f64(A, "A"), _as_f64(B, "B")]
        for x, name in zip(mats, "AB"):
            if x.ndim != 2:
                raise ValueError(f"{name}: expected a matrix (2 dimensions), got shape {x.shape}")
        (m, k), (k2, n) = mats[0].shape, mats[1].shape
        if k != k2:
            raise ValueError(f"A is {m}x{k} but B is {k2}x{n}: their K differ")
        if C is None:
            c = np.zeros((m, n), dtype=np.float64)
        else:
            c = _as_f64(C, "C")
            if c.shape != (m, n):
                raise ValueError(f"C: expected shape ({m}, {n}), got {c.shape}")
        if k == 0 or k % self.k:
            raise ValueError(
                f"K = {k} is not a positive multiple of the instruction's K = {self.k}"
            )
        words = self._u.matmul(mats[0], mats[1], c, t).reshape(m, n)
        return self._d_out(words, A)

    def _d_out(self, words: np.ndarray, A: Any) -> Any:
        """D's words as D's values, as the kind of object A is."""
        is_torch = _is_torch(A)
        dname = self._u.formats["d"]["name"]
        if is_torch:
            import torch

            bits = self._u.formats["d"]["storage_bits"]
            tdt = getattr(torch, _FORMATS[dname]["torch"])
            out = torch.from_numpy(words.view(np.dtype(f"int{bits}")).copy()).view(tdt)
            return out.to(A.device)
        return words.view(_np_dtype(_FORMATS[dname]["numpy"]))


    def _sparse_matmul(self, A: Any, B: Any, C: Any, meta: Any, t: int) -> Any:
        """:meth:`matmul` of a sparse unit: shapes and dtypes checked here, the compression,
        the gathering and the arithmetic in the engine."""
        integer = self._words["integer"]
        if integer:
            a = self._int_values(A, "A", "a")
            b = self._int_values(B, "B", "b")
        else:
            a, b = _as_f64(A, "A"), _as_f64(B, "B")
        for x, name in ((a, "A"), (b, "B")):
            if x.ndim != 2:
                raise ValueError(f"{name}: expected a matrix (2 dimensions), got shape {x.shape}")
        (m, ka), (k, n) = a.shape, b.shape
        if k == 0 or k % self.k:
            raise ValueError(
                f"K = {k} is not a positive multiple of the instruction's K = {self.k}"
            )
        if ka not in (k, k // 2):
            raise ValueError(f"A is {m}x{ka} but B is {k}x{n}: A takes K = {k} columns "
                             f"(dense) or K/2 = {k // 2} (compressed, {self.sparse})")
        mt = _meta_arg(meta, self)
        if mt.shape != (m, k // 2):
            raise ValueError(f"meta: expected shape ({m}, {k // 2}) (rows of A, K/2), "
                             f"got {mt.shape}")
        c = None
        if C is not None:
            c = self._int_values(C, "C", "c") if integer else _as_f64(C, "C")
            if c.shape != (m, n):
                raise ValueError(f"C: expected shape ({m}, {n}), got {c.shape}")
        elif not integer:
            c = np.zeros((m, n), dtype=np.float64)
        dt = np.uint64 if integer else np.float64
        flat = [None if x is None else np.ascontiguousarray(x.reshape(-1), dtype=dt)
                for x in (a, b, c)]
        words = self._u._sparse_matmul(flat[0], flat[1], flat[2],
                                       np.ascontiguousarray(mt.reshape(-1)), m, n, k,
                                       not integer, t).reshape(m, n)
        if integer:
            return words.view(self._int_dtype("d"))
        return self._d_out(words, A)

    def _int_matmul(self, A: Any, B: Any, C: Any, t: int) -> np.ndarray:
        """:meth:`matmul` of an integer unit: integer values in, D's values (int32 for s32)
        out; the engine checks the ranges and computes."""
        a = self._int_values(A, "A", "a")
        b = self._int_values(B, "B", "b")
        for x, name in ((a, "A"), (b, "B")):
            if x.ndim != 2:
                raise ValueError(f"{name}: expected a matrix (2 dimensions), got shape {x.shape}")
        (m, k), (k2, n) = a.shape, b.shape
        if k != k2:
            raise ValueError(f"A is {m}x{k} but B is {k2}x{n}: their K differ")
        c = None
        if C is not None:
            c = self._int_values(C, "C", "c")
            if c.shape != (m, n):
                raise ValueError(f"C: expected shape ({m}, {n}), got {c.shape}")
            c = np.ascontiguousarray(c.reshape(-1))
        if k == 0 or k % self.k:
            raise ValueError(
                f"K = {k} is not a positive multiple of the instruction's K = {self.k}"
            )
        words = self._u._matmul_words(np.ascontiguousarray(a.reshape(-1)),
                                      np.ascontiguousarray(b.T).reshape(-1), c, m, n, k, t)
        return words.reshape(m, n).view(self._int_dtype("d"))


def _is_torch(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def _as_f64(x: Any, name: str) -> np.ndarray:
    """A float64 copy of a floating-point NumPy array or torch tensor (exact: every format the
    instructions take is a subset of float64)."""
    if _is_torch(x):
        import torch

        if not (x.dtype.is_floating_point):
            raise TypeError(f"{name}: expected a floating-point tensor, got {x.dtype}")
        return np.ascontiguousarray(x.detach().to("cpu", torch.float64).numpy())
    if not isinstance(x, np.ndarray):
        raise TypeError(
            f"{name}: expected a NumPy array or a torch tensor, got {type(x).__name__}"
        )
    dt = x.dtype
    is_ml = type(dt.type).__module__.startswith("ml_dtypes") or dt.type.__module__.startswith(
        "ml_dtypes"
    )
    if not (np.issubdtype(dt, np.floating) or is_ml):
        raise TypeError(
            f"{name}: expected float16, float32, float64 or an ml_dtypes floating type, got {dt}"
        )
    out = np.ascontiguousarray(x.astype(np.float64))
    if not is_ml and dt.itemsize > 8:
        _check_exact_f64(x, out, name)
    return out


def _check_exact_f64(x: np.ndarray, as_f64: np.ndarray, name: str) -> None:
    """A ValueError naming the first element of ``x`` (a longdouble or an integer array) that
    float64 did not hold exactly: rounding it silently would give wrong bits."""
    with np.errstate(invalid="ignore", over="ignore"):
        back = as_f64.astype(x.dtype)
        same = (back == x) | (np.isnan(as_f64) & (x != x))
    if not np.all(same):
        where = np.unravel_index(int(np.argmin(same.reshape(-1))), x.shape)
        idx = ", ".join(str(int(i)) for i in where)
        raise ValueError(
            f"{name}[{idx}] = {x[where]} is not exactly a float64 value (every format the "
            "instructions take is a subset of float64; round it first if that is intended)"
        )


def _words_arg(x: Any, name: str, want: Any) -> np.ndarray:
    if not isinstance(x, np.ndarray):
        if isinstance(x, (np.integer, int)) and name == "c":
            x = np.asarray(x, dtype=want)
        else:
            raise TypeError(f"{name}: expected a NumPy array of {np.dtype(want)}, got {type(x).__name__}")
    if x.dtype != want:
        raise TypeError(f"{name}: expected dtype {np.dtype(want)}, got {x.dtype}")
    return x


def _dots_args(
    unit: Unit, a: Any, b: Any, c: Any, scale_a: Any, scale_b: Any, by_instruction: bool,
    step: Optional[int] = None,
) -> Tuple[Tuple[int, ...], int, Dict[str, np.ndarray]]:
    """The checks of `Unit.dots` in general: dtypes, K, scales and batch shapes broadcast;
    returns (batch shape, K in elements, each operand flat and contiguous)."""
    u, info = unit._u, unit._words
    a = _words_arg(a, "a", info["a"])
    b = _words_arg(b, "b", info["b"])
    c = _words_arg(c, "c", info["c"])
    for x, name in ((a, "a"), (b, "b")):
        if x.ndim < 1:
            raise ValueError(f"{name}: expected shape [..., K], got a scalar")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"a has {a.shape[-1]} words per row but b has {b.shape[-1]}")
    per = info["per_word"]
    k = a.shape[-1] * per
    step = info["k"] if step is None else step
    if k == 0:
        raise ValueError("a, b: K = 0; expected at least one element per row")
    if by_instruction and k % step:
        raise ValueError(
            f"a, b: K = {k} elements is not a multiple of the instruction's K = {step}"
            + (f" ({per} elements per byte, {info['layout']})" if per > 1 else "")
        )
    block = info["scale_block"]
    ops = [("a", a, 1), ("b", b, 1), ("c", c, 0)]
    if block is None:
        for s, name in ((scale_a, "scale_a"), (scale_b, "scale_b")):
            if s is not None:
                raise ValueError(f"{name}: {unit.instr} has no block scaling; pass None")
    else:
        sstep = step if by_instruction else k
        want = u.scales_for(sstep) * (k // sstep)
        for s, name in ((scale_a, "scale_a"), (scale_b, "scale_b")):
            if s is None:
                raise ValueError(f"{name}: {unit.instr} needs {want} scale factors per row")
            s = _words_arg(s, name, np.uint8)
            if s.ndim < 1 or s.shape[-1] != want:
                raise ValueError(
                    f"{name}: expected shape [..., {want}] (K / {block}), got {s.shape}"
                )
            ops.append((name, s, 1))
    heads = [x.shape[: x.ndim - r] for _, x, r in ops]
    flat = {}
    if all(h == heads[0] for h in heads):
        # The usual call: the same batch shape everywhere, nothing to broadcast.
        batch: Tuple[int, ...] = heads[0]
        for name, x, r in ops:
            flat[name] = np.ascontiguousarray(x).reshape(-1, *x.shape[x.ndim - r :])
    else:
        try:
            batch = np.broadcast_shapes(*heads)
        except ValueError:
            shapes = ", ".join(f"{nm} {x.shape}" for nm, x, _ in ops)
            raise ValueError(f"batch dimensions do not broadcast: {shapes}") from None
        for name, x, r in ops:
            full = np.broadcast_to(x, batch + x.shape[x.ndim - r :])
            flat[name] = np.ascontiguousarray(full).reshape(-1, *full.shape[len(batch) :])
    return batch, k, flat


def _meta_arg(meta: Any, unit: Unit) -> np.ndarray:
    """A sparse unit's metadata as int64 (values checked by the engine)."""
    if meta is None:
        raise ValueError(f"meta: {unit.instr} is a {unit.sparse} sparse instruction; give "
                         "meta=, each kept element's index within its group")
    if _is_torch(meta):
        meta = meta.detach().to("cpu").numpy()
    mt = np.asarray(meta)
    if mt.dtype.kind not in "iu":
        raise TypeError(f"meta: expected integers (each kept element's index within its "
                        f"group), got {mt.dtype}")
    if mt.dtype == np.uint64:
        mt = np.minimum(mt, np.uint64(2**62))
    return mt.astype(np.int64)


def _sparse_dots(unit: Unit, a: Any, b: Any, c: Any, scale_a: Any, scale_b: Any, meta: Any,
                 threads: Optional[int]) -> np.ndarray:
    """`Unit.dots` of a sparse unit: the shapes here, the compression and gathering in the
    engine (`_sparse_operands`), then the dense unit's dots of K/2, chained per instruction."""
    info = unit._words
    mt = _meta_arg(meta, unit)
    a = _words_arg(a, "a", info["a"])
    b = _words_arg(b, "b", info["b"])
    c = _words_arg(c, "c", info["c"])
    for x, name in ((a, "a"), (b, "b"), (mt, "meta")):
        if x.ndim < 1:
            raise ValueError(f"{name}: expected shape [..., K], got a scalar")
    per = info["per_word"]
    k = b.shape[-1] * per
    if k == 0 or k % info["k"]:
        raise ValueError(f"b: K = {k} elements is not a positive multiple of the instruction's "
                         f"K = {info['k']}")
    half = k // 2
    if a.shape[-1] * per not in (k, half):
        raise ValueError(f"a: {a.shape[-1] * per} elements per row; expected K = {k} (dense) "
                         f"or K/2 = {half} (compressed, {unit.sparse})")
    if mt.shape[-1] != half:
        raise ValueError(f"meta: {mt.shape[-1]} indices per row; expected K/2 = {half}")
    ops = [("a", a, 1), ("b", b, 1), ("meta", mt, 1), ("c", c, 0)]
    try:
        batch = np.broadcast_shapes(*[x.shape[: x.ndim - r] for _, x, r in ops])
    except ValueError:
        shapes = ", ".join(f"{nm} {x.shape}" for nm, x, _ in ops)
        raise ValueError(f"batch dimensions do not broadcast: {shapes}") from None
    flat = {}
    for name, x, r in ops:
        full = np.broadcast_to(x, batch + x.shape[x.ndim - r:])
        flat[name] = np.ascontiguousarray(full).reshape(-1)
    rows = math.prod(batch)
    if rows == 0:
        return np.zeros(batch, dtype=unit._word_dtype("d"))
    try:
        ac, bg = unit._u._sparse_operands(flat["a"], flat["b"], flat["meta"], rows, k)
    except ValueError as e:
        msg = str(e)
        if msg.startswith(("meta[", "a[", "b[")) and batch and len(batch) != 1:
            head, rest = msg.split("]", 1)
            name, row = head.split("[")
            idx = ", ".join(str(int(i)) for i in np.unravel_index(int(row), batch))
            raise ValueError(f"{name}[{idx}]{rest}") from None
        if msg.startswith("meta[0]") and not batch:
            raise ValueError("meta" + msg[len("meta[0]"):]) from None
        raise
    ac = ac.reshape(rows, -1)
    bg = bg.reshape(rows, -1)
    d = _dots(unit, ac, bg, flat["c"], scale_a, scale_b, threads, by_instruction=True,
              k_step=info["k"] // 2)
    return d.reshape(batch)


def _dots(
    unit: Unit,
    a: Any,
    b: Any,
    c: Any,
    scale_a: Any,
    scale_b: Any,
    threads: Optional[int],
    by_instruction: bool,
    k_step: Optional[int] = None,
) -> np.ndarray:
    t = _threads(threads)
    u, info = unit._u, unit._words
    step = info["k"] if k_step is None else k_step
    if (
        scale_a is None
        and scale_b is None
        and type(a) is np.ndarray
        and type(b) is np.ndarray
        and type(c) is np.ndarray
        and a.ndim == 2
        and a.shape == b.shape
        and c.shape == a.shape[:1]
        and a.dtype == info["a"]
        and b.dtype == info["b"]
        and c.dtype == info["c"]
        and info["scale_block"] is None
        and info["per_word"] == 1
        and a.shape[1] > 0
        and (a.shape[1] % step == 0 or not by_instruction)
    ):
        # The usual call, rows of words already in shape: nothing to reshape or broadcast, so
        # that a batch of a few thousand dot products is not dominated by the checks below.
        # (The engine checks lengths, dtypes and contiguity once more.)
        batch: Tuple[int, ...] = c.shape
        k = a.shape[1]
        flat = {"a": np.ascontiguousarray(a), "b": np.ascontiguousarray(b),
                "c": np.ascontiguousarray(c)}
    else:
        batch, k, flat = _dots_args(unit, a, b, c, scale_a, scale_b, by_instruction, step)
    n = math.prod(batch)
    if n == 0:
        return np.zeros(batch, dtype=unit._word_dtype("d"))
    try:
        d = u.dots(
            flat["a"],
            flat["b"],
            flat["c"].reshape(-1),
            flat.get("scale_a"),
            flat.get("scale_b"),
            k,
            step if by_instruction else k,
            t,
        )
    except ValueError as e:
        if len(e.args) == 4:
            _, field, index, word = e.args
            row_len = flat[field].shape[1] if flat[field].ndim > 1 else 1
            where = np.unravel_index(index, batch + ((row_len,) if flat[field].ndim > 1 else ()))
            idx = ", ".join(str(int(i)) for i in where)
            fmt = u.formats[field if field in "abc" else "scale"]["name"]
            raise ValueError(
                f"{field}[{idx}] = {word:#x} is not a valid {fmt} word: {e.args[0].split(': ', 2)[-1]}"
            ) from None
        raise
    return d.reshape(batch)


def find(arch: str, instr: str, vendor: Optional[str] = None, *, op: Optional[str] = None) -> Unit:
    """Looks an instruction up by the names the command-line tool accepts.

    Args:
        arch: architecture name (``"Hopper"``, ``"Ada Lovelace"``, ``"CDNA3"``), PTX target
            (``"sm_90"``) or product (``"H100"``, ``"MI300X"``), any case.
        instr: mmasim's instruction name (``"m64n8k16.f32.f16.f16"``, ``"f32_32x32x8_f16"``),
            a PTX spelling (``"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"``) or an AMD
            mnemonic (``"v_mfma_f32_32x32x8_f16"``).
        vendor: ``"nvidia"`` or ``"amd"``; by default the catalog that knows ``arch``.
        op: the NVIDIA operation (``"MMA"``, ``"WGMMA"``, ``"TCGen05MMA"``,
            ``"MMABlockScale"``, ``"TCGen05MMABlockScale"``) when the name alone is ambiguous.

    Raises:
        TypeError: an argument that is not a string.
        KeyError: an unknown architecture, vendor, operation or instruction (the message
            lists the closest valid names).
    """
    for val, name in ((arch, "arch"), (instr, "instr")):
        if not isinstance(val, str):
            raise TypeError(f"{name}: expected a string, got {type(val).__name__}")
    for val, name in ((vendor, "vendor"), (op, "op")):
        if val is not None and not isinstance(val, str):
            raise TypeError(f"{name}: expected None or a string, got {type(val).__name__}")
    unit = Unit(_mma.find(arch, instr, vendor, op))
    if unit.evidence == "unverified":
        warnings.warn(f"{unit.vendor} {unit.arch} {unit.op} {unit.instr} is unverified: no GPU "
                      "record and no reference corpus checks its model (mma.catalog() and "
                      "`mma list` give each instruction's evidence)", UnverifiedWarning,
                      stacklevel=2)
    return unit


def catalog(vendor: Optional[str] = None, arch: Optional[str] = None) -> List[Dict[str, Any]]:
    """Every instruction, as dicts with the keys ``vendor``, ``arch``, ``op``, ``instr``,
    ``k``, ``ptx`` (NVIDIA, else None), ``mnemonic`` (AMD, else None), ``model``,
    ``parameters``, ``note`` (where the arithmetic of an instruction mmasim does not list
    comes from), ``evidence`` (what the model rests on: ``"hardware"``, recorded GPU
    outputs reproduced; ``"reference"``, mmasim's corpus reproduced; ``"unverified"``,
    neither) and ``sparse`` (``"2:4"``, ``"1:2"`` or ``"4:8-pairs"`` for a structured-sparse instruction,
    whose ``k`` is the logical K; None for a dense one). ``vendor`` and ``arch`` filter.

    Raises:
        KeyError: an unknown vendor or architecture.
    """
    return _mma.catalog(vendor, arch)


def formats() -> List[str]:
    """The names of every number format (``"f16"``, ``"e4m3"``, ``"ue8m0"``, ...), as the
    engine lists them."""
    return list(_mma.format_names())


def decode(fmt: str, words: Any) -> np.ndarray:
    """The values (float64, NaN for every NaN encoding) of storage words of format ``fmt``.

    ``words``: an array of unsigned integers, any shape; sub-byte formats take their code in
    the low bits. Raises KeyError for an unknown format, TypeError for a non-integer array and
    ValueError for a word with bits outside the format.
    """
    w = np.asarray(words)
    if w.dtype.kind not in "ui":
        raise TypeError(f"words: expected an array of unsigned integers, got {w.dtype}")
    if w.size and w.min() < 0:
        raise ValueError("words: expected unsigned integers, got a negative value")
    flat = np.ascontiguousarray(w.reshape(-1).astype(np.uint64))
    return _mma.decode(fmt, flat).reshape(w.shape)


def encode(fmt: str, values: Any) -> np.ndarray:
    """The storage words (uint64) of ``values`` in format ``fmt``; every value must be exactly
    representable (NaN becomes the format's default NaN), else ValueError naming the first
    one that is not. Values that float64 itself cannot hold (the integer 2**53 + 1, a
    longdouble 1 + 2**-60) are such values: they are never rounded on the way."""
    raw = np.asarray(values)
    if raw.dtype == object or raw.dtype.kind in "iub" or raw.dtype.itemsize > 8:
        if raw.dtype == object:
            flat = raw.reshape(-1)
            for i, x in enumerate(flat):
                try:
                    exact = float(x) == x and not isinstance(x, complex)
                except (TypeError, ValueError, OverflowError):
                    exact = False
                if not exact and x == x:
                    where = ", ".join(str(int(j)) for j in np.unravel_index(i, raw.shape))
                    raise ValueError(
                        f"values[{where}] = {x!r} is not exactly representable in {fmt}"
                    )
            v = np.asarray(raw.tolist(), dtype=np.float64)
        else:
            v = raw.astype(np.float64)
            if raw.dtype.kind != "b":
                _check_exact_f64(raw, v, "values")
    else:
        v = np.asarray(raw, dtype=np.float64)
    return _mma.encode(fmt, np.ascontiguousarray(v.reshape(-1))).reshape(v.shape)

