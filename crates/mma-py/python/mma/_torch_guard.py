"""The backstop of :class:`mma.torch.emulate`: every matrix product that reaches torch's
dispatcher outside the emulation is refused (or, under ``fallback="native"``, run natively
with a warning and a log entry), never computed natively unnoticed.

``emulate`` is a ``TorchFunctionMode``: it sees the public functions a model calls
(``torch.matmul``, ``F.linear``, ...) and emulates those it knows. Products it does not see as
such (``Tensor.baddbmm_``, ``torch.cdist``, ``nn.LSTM``, ``torch.linalg.matrix_power``, an op
called from C++ or through ``torch.ops.aten``) reach the dispatcher as aten ops; the
:class:`Guard` here, a ``TorchDispatchMode`` entered on the same thread together with the
function mode, sees every one of them and refuses those that :func:`refuses` names.

Which ops are matrix products (:func:`refuses`): an op whose name (``namespace::name``, the
overload dropped) has a token (the name split at ``_``) that ends in ``mm``, ``mv``, ``dot``
or ``linear``, contains ``matmul``, ``gemm`` or ``conv`` (not ``convert``), or is one of
:data:`WORDS`, or whose name contains ``matrix_power``; less the ops of
:data:`NOT_PRODUCTS` (the rule matches them, but they compute no product on matrix units),
plus the ops of :data:`HIDDEN_PRODUCTS` (whose kernels compute products that no name says).
The rule runs on each op the first time the guard sees it, so an op a later torch adds is
refused if its name says it is a product. Ops on the ``meta`` device compute no values and
pass. Higher-order operators (``flex_attention``, ``cond``, ...) are refused as a kind.

Ops with a ``CompositeImplicitAutograd`` kernel (``aten::linear``, ``aten::pinverse``, ...)
normally decompose before a dispatch mode sees them; under ``torch.inference_mode`` they reach
it whole. The guard then runs their decomposition with itself re-entered, so the products
inside are seen as they are under ``torch.no_grad()``.

Not matrix products here: factorizations and solves (``linalg.qr``, ``svd``, ``eigh``,
``solve``, ``lstsq``, ``householder_product``, ...: LAPACK/cuSOLVER routines, not GEMMs of the
model), reductions (``sum``, ``linalg.vector_norm``, ``pdist``), FFTs, and the ops of
:data:`NOT_PRODUCTS`.
"""

from __future__ import annotations

import fnmatch
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .library import NotModelledError

#: Whole tokens of op names that denote a matrix product.
WORDS = frozenset(("attention", "cdist", "einsum", "rnn", "lstm", "gru", "cov", "corrcoef",
                   "inner", "outer", "ger", "addr", "kron", "bilinear", "trilinear"))

#: Ops the name rule matches that compute no product on matrix units (fnmatch patterns on
#: ``namespace::name``), with the reason.
NOT_PRODUCTS: Dict[str, str] = {
    **dict.fromkeys(("aten::outer", "aten::ger", "aten::addr", "aten::addr_", "aten::kron"),
                    "an outer product (K = 1): one multiplication per output and no "
                    "accumulation along K; GPUs compute it elementwise, not on matrix units"),
    **dict.fromkeys(("*::*prepack", "*::*prepack_*", "*::*unpack", "*::*unpack_*",
                     "*::*reorder_*", "*::*flatten_weight",
                     "aten::fbgemm_linear_quantize_weight", "*fbgemm_pack_*"),
                    "packs, unpacks, reorders or quantizes a weight: moves data, no product"),
    **dict.fromkeys(("quantized::conv*_stride", "quantized::conv*_padding",
                     "quantized::conv*_dilation", "quantized::conv*_groups",
                     "quantized::conv*d_transpose"),
                    "reads a parameter of a packed convolution weight"),
    "aten::_cslt_sparse_mm_search": "returns the id of a cuSPARSELt algorithm, not a product",
    "aten::_compute_linear_combination": "scalar multiples of whole matrices summed "
                                         "elementwise (matrix_exp's helper), no matrix product",
    "export::access_subclass_inner_tensor": "'inner' is a tensor subclass's inner tensor",
}

#: Ops whose kernels compute matrix products that their names do not say (found with
#: torch.profiler: the nested aten::mm/bmm/addmm calls of their CPU kernels).
HIDDEN_PRODUCTS: Dict[str, str] = {
    "aten::_euclidean_dist": "cdist's euclidean path: a matmul of the padded operands",
    "aten::linalg_matrix_exp": "Taylor/Pade polynomials: bmm of the matrix powers",
    "aten::matrix_exp": "linalg_matrix_exp",
    "aten::matrix_exp_backward": "matrix_exp of a block matrix",
    "aten::linalg_polar": "U V^H of an svd: matmul",
    "_native::linalg_polar*": "linalg_polar",
    "aten::linalg_matrix_sqrth": "V diag(sqrt(w)) V^H of an eigh: matmul",
    "aten::linalg_pinv": "V diag(1/s) U^H of an svd: matmul",
    "aten::pinverse": "linalg_pinv",
    "aten::_transformer_encoder_layer_fwd": "nn.TransformerEncoderLayer's fast path: its "
                                            "linears and attention",
}


def _matches(patterns: Dict[str, str], name: str) -> Optional[str]:
    for p, why in patterns.items():
        if fnmatch.fnmatchcase(name, p):
            return why
    return None


def _named_product(base: str) -> bool:
    if "matrix_power" in base:
        return True
    for t in base.split("_"):
        if (t.endswith(("mm", "mv", "dot", "linear")) or "matmul" in t or "gemm" in t
                or ("conv" in t and not t.startswith("convert")) or t in WORDS):
            return True
    return False


def refuses(name: str) -> bool:
    """Whether the guard refuses the op ``name`` (``"aten::mm"``, ``"aten::mm.out"``,
    ``"aten.mm.default"``): see the module docstring."""
    ns, _, rest = name.partition("::" if "::" in name else ".")
    full = f"{ns}::{rest.split('.')[0]}"
    if _matches(HIDDEN_PRODUCTS, full):
        return True
    return _named_product(full.partition("::")[2]) and _matches(NOT_PRODUCTS, full) is None


def covered() -> List[str]:
    """Every op registered with torch's dispatcher now (``namespace::name``, overloads
    dropped) that the guard refuses."""
    names = {n.split(".")[0] for n in torch._C._dispatch_get_all_op_names()}
    return sorted(n for n in names if refuses(n))


def _meta(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device="meta")
    return x


def into(op: str, func: Any, args: Any, kwargs: Dict[str, Any], target: Any,
          compute: Any) -> Tuple[Any, Dict[str, Any]]:
    """The ``out=`` and in-place forms: torch's own checks and resizing of ``target`` (the
    call run first on meta copies of its tensors, which computes nothing and raises what the
    native call raises), then the emulated result of the plain op copied into ``target``."""
    if not isinstance(target, torch.Tensor):
        raise TypeError(f"{op}: out: expected a torch tensor, got {type(target).__name__}")
    want = func(*[_meta(a) for a in args], **{k: _meta(v) for k, v in kwargs.items()})
    if torch.is_grad_enabled() and target.requires_grad:
        raise NotModelledError(f"{op}: autograd is not modelled (out=/in-place on a tensor "
                               "that requires grad): run under torch.no_grad()")
    res, info = compute()
    if res.shape != want.shape or res.dtype != want.dtype:
        raise NotModelledError(f"{op}: torch writes {want.dtype} {tuple(want.shape)} to out=, "
                               f"the emulation gives {res.dtype} {tuple(res.shape)}")
    if target.device != res.device:
        raise RuntimeError(f"{op}: expected out= on {res.device}, the inputs' device; got "
                           f"{target.device}")
    if target.shape != want.shape:  # torch warned (resize_output) in the meta call
        target.resize_(want.shape)
    target.copy_(res)
    return target, info


#: Matrix products the mode knows and cannot emulate: they raise (or fall back) as calls, so
#: that errors name them; any other product is refused where it reaches torch's dispatcher.
NOT_EMULATED = ("einsum", "baddbmm", "addbmm", "addmv", "mv", "dot", "vdot", "inner",
                "tensordot", "chain_matmul", "linalg.multi_dot", "linalg.vecdot",
                "nn.functional.bilinear", "nn.functional.scaled_dot_product_attention",
                "nn.functional.multi_head_attention_forward", "conv1d", "conv2d", "conv3d",
                "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "_addmm_activation")


def not_emulated() -> Dict[Any, str]:
    out: Dict[Any, str] = {}
    for name in NOT_EMULATED:
        for root, prefix in ((torch, "torch."), (torch.Tensor, "Tensor.")):
            obj: Any = root
            for part in name.split("."):
                obj = getattr(obj, part, None)
            if obj is not None:
                out[obj] = prefix + name
    return out


# Thread-local state shared by every emulate on the thread -----------------------------------------
_STATE = threading.local()


def _state() -> Any:
    s = _STATE
    if not hasattr(s, "allowed"):
        s.allowed, s.via = 0, []
    return s


class allowed:
    """Within it, on this thread, the guard lets products through: a native fallback the user
    asked for (``fallback="native"``, or an op left out of ``ops``)."""

    def __enter__(self) -> None:
        _state().allowed += 1

    def __exit__(self, *exc: Any) -> None:
        _state().allowed -= 1


class via:
    """Within it, on this thread, a refused op is said to come from the public function
    ``func`` (the function mode passes it on natively)."""

    def __init__(self, func: Any) -> None:
        self.func = func

    def __enter__(self) -> None:
        _state().via.append(self.func)

    def __exit__(self, *exc: Any) -> None:
        _state().via.pop()


_NAMES: Dict[Any, str] = {}


def public_name(func: Any) -> str:
    """``torch.lstm``, ``torch.Tensor.addmm_``: the name of a public function, as
    ``torch.overrides.resolve_name`` gives it where it can."""
    try:
        name = _NAMES.get(func)
    except TypeError:  # unhashable
        name = None
    if name is None:
        try:
            name = (func.name() if isinstance(func, torch._ops.HigherOrderOperator)
                    else torch.overrides.resolve_name(func))
        except Exception:
            name = None
        name = (name or getattr(func, "__qualname__", None) or repr(func)).replace(
            "torch.functional.", "torch.").replace("torch._VF.", "torch.")
        try:
            _NAMES[func] = name
        except TypeError:
            pass
    return name


def _tensors(args: Any, kwargs: Dict[str, Any]) -> List[torch.Tensor]:
    out: List[torch.Tensor] = []
    for x in list(args) + list(kwargs.values()):
        if isinstance(x, torch.Tensor):
            out.append(x)
        elif isinstance(x, (list, tuple)):
            out.extend(t for t in x if isinstance(t, torch.Tensor))
    return out


_REFUSES: Dict[Any, bool] = {}
_COMPOSITE: Dict[Any, bool] = {}


class Guard(TorchDispatchMode):
    """Refuses the matrix products of :func:`refuses` that reach the dispatcher on this
    thread: ``refused(op, via, func, args, kwargs)`` decides (raise, or run natively)."""

    #: Higher-order operators (``flex_attention``, ``cond``, ...) come here too: all are
    #: refused, since their subgraphs would run with the guard popped.
    supports_higher_order_operators = True

    def __init__(self, refused: Callable[..., Any]) -> None:
        super().__init__()
        self.refused = refused

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (),
                           kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        refuse = _REFUSES.get(func)
        if refuse is None:
            hop = isinstance(func, torch._ops.HigherOrderOperator)
            refuse = _REFUSES[func] = hop or refuses(func.name())
        if refuse:
            ts = _tensors(args, kwargs)
            if _state().allowed == 0 and not (ts and all(t.is_meta for t in ts)):
                v = _state().via
                name = (f"higher-order operator {func.name()}"
                        if isinstance(func, torch._ops.HigherOrderOperator) else str(func))
                return self.refused(name, public_name(v[-1]) if v else None, func, args,
                                    kwargs)
            return func(*args, **kwargs)
        composite = _COMPOSITE.get(func)
        if composite is None:
            composite = _COMPOSITE[func] = torch._C._dispatch_has_kernel_for_dispatch_key(
                func.name(), "CompositeImplicitAutograd")
        if composite and all(t.layout == torch.strided and not t.is_nested
                             for t in _tensors(args, kwargs)):
            with self:  # the decomposition's ops come back here, as under no_grad
                out = func.decompose(*args, **kwargs)
            if out is not NotImplemented:
                return out
        return func(*args, **kwargs)
