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
