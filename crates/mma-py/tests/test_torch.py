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


def test_gpu_table_comes_from_the_engine_with_the_same_answers():
    """``mma.torch.gpus()`` reads the engine's GPU tables (the vendor crates' data): every name
    of the former Python table is still there, with the same row (copied here from that
    table, `git show df7fb3e:crates/mma-py/python/mma/torch.py`), and every instruction cell
    is a unit ``mma.find`` gives."""
    import mma.torch as mt

    before = {
        "V100": ("nvidia", "Volta", {"f16": "m8n8k4.f32.f16.f16.f32", "bf16": None,
                                     "tf32": None, "f32": None, "fp8": None}, None),
        "A10": ("nvidia", "Ampere", {"f16": "m16n8k16.f32.f16.f16.f32",
                                     "bf16": "m16n8k16.f32.bf16.bf16.f32",
                                     "tf32": "m16n8k8.f32.tf32.tf32.f32", "f32": None,
                                     "fp8": None}, None),
        "H100 PCIe": ("nvidia", "Hopper", {"f16": "WGMMA:m64n8k16.f32.f16.f16",
                                           "bf16": "WGMMA:m64n8k16.f32.bf16.bf16",
                                           "tf32": "WGMMA:m64n8k8.f32.tf32.tf32", "f32": None,
                                           "fp8": "WGMMA:m64n8k32.f32.{a}.{b}"}, "H100 PCIe"),
        "GB200": ("nvidia", "Blackwell", {"f16": "m128n8k16.kind::f16.f32.f16.f16",
                                          "bf16": "m128n8k16.kind::f16.f32.bf16.bf16",
                                          "tf32": "m128n8k8.kind::tf32.f32.tf32.tf32",
                                          "f32": None,
                                          "fp8": "m128n8k32.kind::f8f6f4.f32.{a}.{b}"}, None),
        "MI250X": ("amd", "CDNA2", {"f16": "f32_32x32x8f16", "bf16": "f32_32x32x8bf16_1k",
                                    "tf32": None, "f32": "f32_32x32x2f32", "fp8": None}, None),
        "MI325X": ("amd", "CDNA3", {"f16": "f32_32x32x8_f16", "bf16": "f32_32x32x8_bf16",
                                    "tf32": "f32_32x32x4_xf32", "f32": "f32_32x32x2_f32",
                                    "fp8": "f32_32x32x16_{a}_{b}"}, None),
    }
    names = ["V100", "T4", "A100", "A10", "RTX 3090", "RTX 4060", "L4", "L40S", "RTX 4090",
             "H100", "H100 SXM", "H200", "H100 PCIe", "B200", "B300", "GB200", "RTX 5090",
             "RTX PRO 6000", "MI100", "MI210", "MI250", "MI250X", "MI300X", "MI300A", "MI325X",
                 "MI350X", "MI355X"]
    assert [g["name"] for g in mt.gpus()] == names
    for name, (vendor, arch, instr, plat) in before.items():
        assert mt.gpu_info(name) == {"name": name, "vendor": vendor, "arch": arch,
                                     "instr": instr, "platform": plat}
    spell = {"nvidia": "e4m3", "amd": "fp8"}
    for g in mt.gpus():
        for col, cell in g["instr"].items():
            if cell is None:
                continue
            op, _, name = cell.rpartition(":") if ":" in cell.split(".")[0] else ("", "", cell)
            name = name.replace("{a}", spell[g["vendor"]]).replace("{b}", spell[g["vendor"]])
            assert mma.find(g["arch"], name, g["vendor"], op=op or None) is not None
    assert "H100, H100 SXM, H200 | nvidia | Hopper | WGMMA:m64n8k16.f32.f16.f16" in mt.GPU_TABLE
