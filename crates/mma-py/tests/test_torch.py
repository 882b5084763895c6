"""PyTorch in, PyTorch out: Unit.matmul on tensors against Unit.dots on their words, and
mma.compat (mmasim's API) against the mmasim corpus lines. Skipped, with the reason, where
torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import mma

torch = pytest.importorskip("torch", reason="torch is not installed: torch tests skipped")


def test_matmul_torch_in_torch_out():
    u = mma.find("Ampere", "m16n8k16.f32.bf16.bf16.f32")
    g = torch.Generator().manual_seed(4)
    A = torch.randn(4, 32, generator=g).to(torch.bfloat16)
    B = torch.randn(32, 3, generator=g).to(torch.bfloat16)
    C = torch.randn(4, 3, generator=g)
    D = u.matmul(A, B, C)
    assert isinstance(D, torch.Tensor) and D.dtype == torch.float32 and D.shape == (4, 3)
    aw = A.view(torch.int16).numpy().view(np.uint16)
    bw = np.ascontiguousarray(B.T.contiguous().view(torch.int16).numpy().view(np.uint16))
    by_hand = u.dots(aw[:, None, :], bw[None], C.numpy().view(np.uint32))
    assert np.array_equal(D.numpy().view(np.uint32), by_hand)
    f8 = mma.find("Hopper", "m64n8k32.f32.e4m3.e4m3", op="WGMMA")
    A8 = torch.randn(2, 32, generator=g).to(torch.float8_e4m3fn)
    B8 = torch.randn(32, 2, generator=g).to(torch.float8_e4m3fn)
    D8 = f8.matmul(A8, B8)
    by_hand8 = f8.dots(A8.view(torch.uint8).numpy()[:, None, :],
                       B8.T.contiguous().view(torch.uint8).numpy()[None], np.uint32(0))
    assert np.array_equal(D8.numpy().view(np.uint32), by_hand8)


def _tensor(words: np.ndarray, dtype):
    size = words.dtype.itemsize
    signed = {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64}[size]
    t = torch.from_numpy(np.ascontiguousarray(words).view(signed))
    return t if dtype == torch.uint8 else t.view(dtype)


def test_compat_dpa_gives_the_corpus_bits():
    """Every mmasim corpus line again, through mma.compat's dpa on torch tensors of mmasim's
    dtypes (same rules as test_corpus.py)."""
    import mma.compat as mmasim
    from test_corpus import _batch, _groups, _is_nan

    classes = {"MMA": mmasim.nv_ptx.MMA, "WGMMA": mmasim.nv_ptx.WGMMA,
               "TCGen05MMA": mmasim.nv_ptx.TCGen05MMA,
               "MMABlockScale": mmasim.nv_ptx.MMABlockScale,
               "TCGen05MMABlockScale": mmasim.nv_ptx.TCGen05MMABlockScale}
    checked = 0
    for vendor in ("nvidia", "amd"):
        _, groups = _groups(vendor)
        for (arch, op, instr), recs in groups.items():
            op_ = classes[op](arch, instr) if vendor == "nvidia" else mmasim.amd.MFMA(arch, instr)
            unit = op_._unit
            a, b, c, sa, sb, want = _batch(unit, recs)
            args = [_tensor(a, op_.a_type), _tensor(b, op_.b_type), _tensor(c, op_.c_type)]
            if sa is not None:
                args += [_tensor(sa, op_.s_type), _tensor(sb, op_.s_type)]
            d = op_.dpa(*args)
            assert d.dtype == op_.d_type
            got = d.view({torch.float16: torch.int16, torch.float32: torch.int32,
                          torch.float64: torch.int64}[d.dtype]).numpy().view(want.dtype)
            # The bits are those of Unit.dots, which test_corpus.py checks line by line.
            assert np.array_equal(got, unit.dots(a, b, c, sa, sb)), f"{arch} {instr}"
            nan = _is_nan(unit.formats["d"], want)
            assert np.array_equal(got[~nan], want[~nan]) or vendor == "amd", f"{arch} {instr}"
            checked += len(recs)
    assert checked > 18000


def test_compat_call_is_dpa_on_rows_and_columns():
    import mma.compat as mmasim

    g = torch.Generator().manual_seed(5)
    op = mmasim.nv_ptx.MMA("Ampere", "m16n8k16.f32.f16.f16.f32")
    A = torch.randn(16, 16, generator=g).half()
    B = torch.randn(16, 8, generator=g).half()
    C = torch.randn(16, 8, generator=g)
    D = op(A, B, C)
    assert D.shape == (16, 8) and D.dtype == torch.float32
    for i in (0, 7, 15):
        for j in (0, 5):
            assert op.dpa(A[i], B[:, j], C[i, j]).item() == D[i, j].item()
    sc = mmasim.nv_ptx.TCGen05MMABlockScale(
        "Blackwell", "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0")
    assert (sc.packing, sc.block_size, sc.k) == (2, 32, 64)
    A4 = torch.full((2, 32), 0x22, dtype=torch.uint8)  # two fp4 1.0 per byte
    B4 = torch.full((32, 3), 0x22, dtype=torch.uint8)
    one = torch.full((2, 2), 1.0).to(sc.s_type)
    D4 = sc(A4, B4, torch.zeros(2, 3), one, torch.full((2, 3), 1.0).to(sc.s_type))
    assert (D4 == 64.0).all()  # 64 products 1 * 1, scales 2^0
    with pytest.raises(TypeError, match="a: expected dtype torch.float16"):
        op.dpa(A.float(), B.T, C[:, 0])
    with pytest.raises(KeyError):
        mmasim.nv_ptx.WGMMA("Ampere", "m64n8k16.f32.f16.f16")
