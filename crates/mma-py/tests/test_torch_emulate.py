"""mma.torch: torch.matmul, F.linear and torch._scaled_mm as a chosen GPU computes them, and the
emulate() mode. Expected bits come from Unit.dots on words composed by hand, NumPy's IEEE
arithmetic, integer rounding written here, mma.scaled_mm, or op-by-op calls of mma.torch;
never from the code under test alone. Skipped, with the reason, where torch is not installed."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import mma

torch = pytest.importorskip("torch", reason="torch is not installed: mma.torch tests skipped")
import mma.torch as mt  # noqa: E402

F = torch.nn.functional
pytestmark = pytest.mark.filterwarnings("ignore::mma.torch.NoRecipeWarning")
INT = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16,
       torch.float8_e4m3fn: torch.uint8}
UINT = {torch.int32: np.uint32, torch.int16: np.uint16, torch.uint8: np.uint8}


@pytest.fixture(autouse=True)
def _fresh_warnings():
    mt._WARNED.clear()  # the one-time NoRecipeWarning, so each test sees its own
    yield


def bits(t):
    """The storage words of a tensor as an unsigned NumPy array."""
    i = INT[t.dtype]
    return t.detach().contiguous().view(i).numpy().view(UINT[i])


def rand(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def bf16_rne(u32):
    """f32 words -> bf16 words, round to nearest even, by integer arithmetic (NaN -> 0x7FFF)."""
    u = u32.astype(np.uint64)
    out = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = ((u32 & 0x7F800000) == 0x7F800000) & ((u32 & 0x7FFFFF) != 0)
    return np.where(nan, np.uint16(0x7FFF), out)


def chain_words(unit, aw, bw):
    """D words of A [M, K] @ B [K, N] by Unit.dots on storage words, K zero-padded by hand to a
    multiple of the instruction's K (word 0 is +0 in every format)."""
    k = aw.shape[1]
    pad = -k % unit.k
    aw = np.concatenate([aw, np.zeros((aw.shape[0], pad), aw.dtype)], axis=1)
    bw = np.concatenate([bw, np.zeros((pad, bw.shape[1]), bw.dtype)], axis=0)
    c = np.zeros((), {"f32": np.uint32, "f16": np.uint16}[unit.formats["c"]])
    return unit.dots(aw[:, None, :], np.ascontiguousarray(bw.T)[None, :, :], c)


def test_import_mma_does_not_import_torch():
    code = "import sys, mma; assert 'torch' not in sys.modules and 'mma.torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_table_names_catalog_instructions_of_the_dtypes():
    fp8 = {"nvidia": [("e4m3", "e4m3"), ("e5m2", "e5m2")], "amd": [("fp8", "e4m3fnuz"),
                                                                    ("bf8", "e5m2fnuz")]}
    rows = {(r["vendor"], r["arch"], r["instr"], r["op"]) for r in mma.catalog()}
    seen = 0
    for g in mt.gpus():
        for col, spec in g["instr"].items():
            if spec is None:
                continue
            op, name = ("WGMMA", spec[6:]) if spec.startswith("WGMMA:") else (None, spec)
            pairs = fp8[g["vendor"]] if col == "fp8" else [(col, col)]
            for sa, fa in pairs:
                for sb, fb in pairs:
                    instr = name.format(a=sa, b=sb)
                    u = mma.find(g["arch"], instr, g["vendor"], op=op)
                    assert (u.vendor, u.arch, u.instr, u.op) in rows
                    assert (u.formats["a"], u.formats["b"]) == (fa, fb), (g["name"], instr)
                    assert u.formats["d"] == "f32", (g["name"], instr)
                    seen += 1
        if g["platform"] is not None:  # the table agrees with the platform's own units
            units = {(a, b): i for a, b, i in mma.platform(g["platform"])["units"]}
            for (a, b), i in units.items():
                assert i == g["instr"]["fp8"].replace("WGMMA:", "").format(a=a, b=b)
    assert seen > 60
    with pytest.raises(KeyError, match="unknown GPU 'H900'.*'A100'"):
        mt.gpu_info("H900")
    assert mt.gpu_info("h100-pcie")["platform"] == "H100 PCIe"


@pytest.mark.parametrize("gpu, arch, instr", [
    ("A100", "Ampere", "m16n8k16.f32.bf16.bf16.f32"),
    ("H100", "Hopper", "m64n8k16.f32.bf16.bf16"),
    ("MI300X", "CDNA3", "f32_32x32x8_bf16"),
])
def test_bf16_matmul_is_the_chain_rounded_to_bf16(gpu, arch, instr):
    a, b = rand((5, 48), torch.bfloat16, 1), rand((48, 7), torch.bfloat16, 2)
    log = []
    with pytest.warns(mt.NoRecipeWarning, match=f"matmul on {gpu}.*no library recipe"):
        d = mt.matmul(a, b, gpu=gpu, log=log)
    assert d.dtype == torch.bfloat16 and d.shape == (5, 7)
    want = bf16_rne(chain_words(mma.find(arch, instr), bits(a), bits(b)))
    assert np.array_equal(bits(d), want)
    assert log[0]["op"] == "matmul" and instr in log[0]["unit"]
    assert "no library recipe" in log[0]["recipe"] and "bf16 (RNE)" in log[0]["recipe"]
    with warnings.catch_warnings():  # one warning per GPU, op and dtype
        warnings.simplefilter("error", mt.NoRecipeWarning)
        assert np.array_equal(bits(mt.matmul(a, b, gpu=gpu, threads=1)), want)
    with pytest.raises(ValueError, match="threads"):
        mt.matmul(a, b, gpu=gpu, threads=0)


def test_k_is_padded_with_zeros_to_the_instruction_k():
    a, b = rand((3, 20), torch.bfloat16, 3), rand((20, 9), torch.bfloat16, 4)
    u = mma.find("Ampere", "m16n8k16.f32.bf16.bf16.f32")
    with pytest.warns(mt.NoRecipeWarning):
        d = mt.matmul(a, b, gpu="A100")
    assert np.array_equal(bits(d), bf16_rne(chain_words(u, bits(a), bits(b))))  # K 20 -> 32
    z = mt.matmul(torch.ones(3, 0, dtype=torch.bfloat16), torch.ones(0, 2, dtype=torch.bfloat16),
                  gpu="A100")
    assert z.shape == (3, 2) and not bits(z).any()  # K = 0: +0, as torch gives


def test_bf16_output_rounds_ties_to_even_and_overflows_to_inf():
    # Rows of A (bf16 words) against a column of ones, K = 16 (A100): D = the row's exact sum
    # in f32, then RNE to bf16, derived by hand.
    rows = [[0x3F80, 0x3B80],  # 1 + 2^-8: a tie, to 1.0 (even)
            [0x3F80, 0x3BC0],  # 1 + 3 * 2^-9: above the tie, to 1 + 2^-7
            [0x3F81, 0x3B80],  # 1 + 2^-7 + 2^-8: a tie, to 1 + 2^-6 (even)
            [0x7F7F, 0x7B40],  # max bf16 + 1.5 * 2^119 = 2^128 - 2^118 (finite f32): Inf
            [0xBF80, 0xBB80]]  # -(1 + 2^-8): to -1.0
    aw = np.zeros((5, 16), np.uint16)
    aw[:, :2] = rows
    a = torch.from_numpy(aw.view(np.int16)).view(torch.bfloat16)
    d = mt.matmul(a, torch.ones(16, 1, dtype=torch.bfloat16), gpu="A100")
    assert bits(d).reshape(-1).tolist() == [0x3F80, 0x3F81, 0x3F82, 0x7F80, 0xBF80]


def test_the_epilogue_roundings_are_ieee():
    # The engine's epilogue (mt._epilogue: binary32 addition and narrowing in integer steps)
    # against NumPy's and ml_dtypes' IEEE arithmetic, subnormals, overflow and ties included.
    rng = np.random.default_rng(0)
    v = rng.standard_normal(50000) * 2.0 ** rng.integers(-160, 140, 50000)
    v = np.concatenate([v, [0.0, -0.0, np.inf, -np.inf, 2.0 ** -149, 2.0 ** -150,
                            3 * 2.0 ** -151, 65520.0, 65519.99, 2.0 ** -25, 3 * 2.0 ** -26]])
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        f32 = v.astype(np.float32)
        w = f32.view(np.uint32)
        assert np.array_equal(mt._epilogue("nvidia", "f32", w, "f16", None),
                              f32.astype(np.float16).view(np.uint16))
        assert np.array_equal(mt._epilogue("nvidia", "f32", w, "bf16", None), bf16_rne(w))
        # D + bias: NumPy's binary32 addition (a NaN sum is the vendor's NaN).
        y = f32[::-1].copy()
        s = f32 + y
        want = np.where(np.isnan(s), np.uint32(0x7FFFFFFF), s.view(np.uint32))
        assert np.array_equal(mt._epilogue("nvidia", "f32", w, "f32", y.view(np.uint32)), want)
        h = f32.astype(np.float16)  # f16 D + f16 bias: in binary32, then to f16
        hs = (h.astype(np.float32) + h[::-1].astype(np.float32)).astype(np.float16)
        got = mt._epilogue("nvidia", "f16", h.view(np.uint16), "f16", h[::-1].view(np.uint16))
        assert np.array_equal(got[~np.isnan(hs)], hs.view(np.uint16)[~np.isnan(hs)])
        assert (got[np.isnan(hs)] == 0x7FFF).all()
    nan = np.array([0x7FC00000], np.uint32)
    assert mt._epilogue("nvidia", "f32", nan, "bf16", None)[0] == 0x7FFF
    assert mt._epilogue("amd", "f32", nan, "f32", np.array([0], np.uint32))[0] == 0x7FC00000


def test_fp16_on_v100_rounds_the_f32_words_to_f16():
    a, b = rand((4, 24), torch.float16, 5), rand((24, 6), torch.float16, 6)
    a[0], b[:, 0] = 1000.0, 100.0  # D[0, 0] = 2.4e6: Inf in fp16
    with pytest.warns(mt.NoRecipeWarning):
        d = mt.matmul(a, b, gpu="V100")
    w = chain_words(mma.find("Volta", "m8n8k4.f32.f16.f16.f32"), bits(a), bits(b))
    with np.errstate(over="ignore"):
        want = w.view(np.float32).astype(np.float16).view(np.uint16)  # NumPy's IEEE RNE
    assert np.array_equal(bits(d), want) and torch.isinf(d[0, 0])


def test_fp32_runs_tf32_only_where_allowed():
    a, b = rand((4, 16), torch.float32, 7), rand((16, 5), torch.float32, 8)
    with pytest.raises(mt.NotModelledError, match="TF32 is not allowed"):
        mt.matmul(a, b, gpu="A100", allow_tf32=False)
    with pytest.raises(mt.NotModelledError, match=r"A\[0, 0\] = .* is not a tf32 value"):
        mt.matmul(a, b, gpu="A100", allow_tf32=True)
    at, bt = (x.view(torch.int32).bitwise_and(~0x1FFF).view(torch.float32) for x in (a, b))
    with pytest.warns(mt.NoRecipeWarning):
        d = mt.matmul(at, bt, gpu="A100", allow_tf32=True)
    want = chain_words(mma.find("Ampere", "m16n8k8.f32.tf32.tf32.f32"), bits(at), bits(bt))
    assert d.dtype == torch.float32 and np.array_equal(bits(d), want)
    old = torch.backends.cuda.matmul.allow_tf32
    try:  # None reads torch's flag
        torch.backends.cuda.matmul.allow_tf32 = True
        assert np.array_equal(bits(mt.matmul(at, bt, gpu="A100")), want)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    # instr= names the tf32 instruction whatever the flag says.
    d2 = mt.matmul(at, bt, gpu="A100", allow_tf32=False, instr="m16n8k4.f32.tf32.tf32.f32")
    want2 = chain_words(mma.find("Ampere", "m16n8k4.f32.tf32.tf32.f32"), bits(at), bits(bt))
    assert np.array_equal(bits(d2), want2)
    # MI300X without TF32: its fp32 MFMA instruction, on any fp32 value.
    d3 = mt.matmul(a, b, gpu="MI300X", allow_tf32=False)
    assert np.array_equal(bits(d3), chain_words(mma.find("CDNA3", "f32_32x32x2_f32"), bits(a),
                                                bits(b)))
    with pytest.raises(mt.NotModelledError, match="V100.*no tf32 instruction"):
        mt.matmul(at, bt, gpu="V100", allow_tf32=True)
    with pytest.raises(ValueError, match="instr: .*takes bf16"):
        mt.matmul(at, bt, gpu="A100", instr="m16n8k16.f32.bf16.bf16.f32")


def test_linear_adds_the_bias_in_fp32_then_rounds():
    x, w, bias = rand((6, 32), torch.bfloat16, 9), rand((10, 32), torch.bfloat16, 10), \
        rand((10,), torch.bfloat16, 11)
    with pytest.warns(mt.NoRecipeWarning):
        y = mt.linear(x, w, bias, gpu="A100")
    acc = chain_words(mma.find("Ampere", "m16n8k16.f32.bf16.bf16.f32"), bits(x), bits(w).T)
    b32 = (bits(bias).astype(np.uint32) << 16).view(np.float32)  # bf16 -> f32 exactly
    s = acc.view(np.float32) + b32[None, :]  # one IEEE binary32 addition
    assert np.array_equal(bits(y), bf16_rne(s.view(np.uint32)))
    with pytest.raises(mt.GpuRejectsError, match="bias/C of torch.float32"):
        mt.linear(x, w, bias.float(), gpu="A100")


def test_shapes_broadcast_as_torch_matmul():
    a, b = rand((2, 1, 4, 32), torch.bfloat16, 12), rand((3, 32, 5), torch.bfloat16, 13)
    with pytest.warns(mt.NoRecipeWarning):
        d = mt.matmul(a, b, gpu="H100")
    assert d.shape == torch.matmul(a, b).shape == (2, 3, 4, 5)
    for i in range(2):
        for j in range(3):
            assert np.array_equal(bits(d[i, j]), bits(mt.matmul(a[i, 0], b[j], gpu="H100")))
    m, v = rand((4, 32), torch.bfloat16, 14), rand((32,), torch.bfloat16, 15)
    for x, y in ((v, b[0]), (m, v), (v, v), (a[:, 0], v)):
        got = mt.matmul(x, y, gpu="H100")
        assert got.shape == torch.matmul(x, y).shape
        full = mt.matmul(x.reshape(-1, 32), y.reshape(32, -1), gpu="H100")
        assert np.array_equal(bits(got).reshape(-1), bits(full).reshape(-1))
    with pytest.raises(mt.GpuRejectsError, match="cannot be multiplied"):
        mt.matmul(m, m, gpu="H100")
    with pytest.raises(mt.GpuRejectsError, match="do not broadcast"):
        mt.matmul(rand((2, 4, 32), torch.bfloat16, 1), rand((3, 32, 4), torch.bfloat16, 1),
                  gpu="H100")
    with pytest.raises(mt.GpuRejectsError, match="same dtype"):
        mt.matmul(m, v.half(), gpu="H100")
    with pytest.raises(mt.NotModelledError, match="float64 products are not modelled"):
        mt.matmul(m.double(), v.double(), gpu="H100")
    with pytest.raises(mt.NotModelledError, match="V100.*no bf16 matrix instruction"):
        mt.matmul(m, v, gpu="V100")
    with pytest.raises(KeyError, match="unknown GPU"):
        mt.matmul(m, v, gpu="H900")


def fp8(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * 4).to(torch.float8_e4m3fn)


def test_fp8_matmul_follows_the_library_recipe_where_one_is_known():
    a, b = fp8((16, 256), 16), fp8((256, 32), 17)
    with warnings.catch_warnings():
        warnings.simplefilter("error", mt.NoRecipeWarning)
        log = []
        d = mt.matmul(a, b, gpu="RTX 4060", log=log)
    one = torch.tensor(1.0)
    want = mma.scaled_mm(a, b, one, one, out_dtype=torch.float32, gpu="RTX 4060")
    assert d.dtype == torch.float32 and np.array_equal(bits(d), bits(want))
    assert "RTX 4060 platform" in log[0]["recipe"] and "verified" in log[0]["recipe"]
    d2 = mt.matmul(a, b, gpu="RTX 4060", splitk=(3, "pairwise"))
    want2 = mma.scaled_mm(a, b, one, one, out_dtype=torch.float32, gpu="RTX 4060",
                          splitk=(3, "pairwise"))
    assert np.array_equal(bits(d2), bits(want2))
    # No recipe on the B200: the instruction chain, said by a warning.
    with pytest.warns(mt.NoRecipeWarning, match="B200"):
        d3 = mt.matmul(a, b, gpu="B200")
    u = mma.find("Blackwell", "m128n8k32.kind::f8f6f4.f32.e4m3.e4m3")
    assert np.array_equal(bits(d3), chain_words(u, bits(a), bits(b)))
    with pytest.raises(mt.NotModelledError, match="bias/C on FP8"):
        mt.linear(a, b.t(), torch.zeros(32), gpu="RTX 4060")
    with pytest.raises(mt.GpuRejectsError, match="not an FP8 type of amd"):
        mt.matmul(a, b, gpu="MI300X")


def test_scaled_mm_is_the_platforms_and_rejects_as_the_gpu():
    a, w = fp8((16, 64), 18), fp8((32, 64), 19)
    sa, sb = torch.tensor(0.5), torch.tensor(2.0)
    got = mt.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16, gpu="RTX 4060",
                       splitk=(2, "serial"))
    want = mma.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16, gpu="RTX 4060",
                         splitk=(2, "serial"))
    assert got.dtype == torch.bfloat16 and np.array_equal(bits(got), bits(want))
    with pytest.warns(UserWarning, match="unverified"):
        mt.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.float32, gpu="H100 PCIe")
    with pytest.raises(mt.GpuRejectsError, match="A100 .*no FP8"):
        mt.scaled_mm(a, w.t(), sa, sb, gpu="A100")
    with pytest.raises(mt.NotModelledError, match="no library recipe"):
        mt.scaled_mm(a, w.t(), sa, sb, gpu="H100")
    with pytest.raises(mt.GpuRejectsError, match="e5m2"):
        mt.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.float8_e5m2, gpu="RTX 4060")


def test_emulate_routes_every_op_and_logs_it():
    torch.manual_seed(20)
    lin = torch.nn.Linear(32, 16).to(torch.bfloat16)
    x = rand((4, 32), torch.bfloat16, 21)
    w, bias = lin.weight.detach(), lin.bias.detach()
    with pytest.raises(mt.NotModelledError, match="autograd is not modelled"):
        with mt.emulate(gpu="A100"):
            lin(x)  # lin.weight requires grad
    with pytest.warns(mt.NoRecipeWarning), torch.no_grad():
        with mt.emulate(gpu="A100", log=True) as em:
            got = [lin(x), x @ w.t(), torch.mm(x, w.t()), torch.bmm(x[None], w.t()[None])[0],
                   torch.addmm(bias, x, w.t()), x.matmul(w.t()), F.linear(x, w)]
    want_lin = mt.linear(x, w, bias, gpu="A100")
    want_mm = mt.matmul(x, w.t(), gpu="A100")
    for g, wnt in zip(got, [want_lin, want_mm, want_mm, want_mm, want_lin, want_mm, want_mm]):
        assert g.dtype == torch.bfloat16 and np.array_equal(bits(g), bits(wnt))
    assert [e["op"] for e in em.log] == ["linear", "matmul", "mm", "bmm", "addmm", "matmul",
                                         "linear"]
    e = em.log[0]
    assert e["unit"] == "nvidia Ampere MMA m16n8k16.f32.bf16.bf16.f32"
    assert e["shapes"] == [(4, 32), (16, 32), (16,)] and e["dtypes"][0] == "torch.bfloat16"
    assert "no library recipe" in e["recipe"] and e["time_s"] >= 0
    a, wf = fp8((16, 64), 22), fp8((32, 64), 23)
    one = torch.tensor(1.0)
    with mt.emulate(gpu="RTX 4060", splitk=(2, "pairwise"), log=True) as em2:
        d = torch._scaled_mm(a, wf.t(), one, one, out_dtype=torch.bfloat16)
    want = mma.scaled_mm(a, wf.t(), one, one, out_dtype=torch.bfloat16, gpu="RTX 4060",
                         splitk=(2, "pairwise"))
    assert np.array_equal(bits(d), bits(want))
    assert "RTX 4060 platform" in em2.log[0]["recipe"] and "(2, 'pairwise')" in em2.log[0]["recipe"]


def test_emulate_raises_or_falls_back_never_approximates():
    x = rand((4, 32), torch.float64, 24)
    with mt.emulate(gpu="A100"):
        with pytest.raises(mt.NotModelledError, match="float64"):
            torch.matmul(x, x.t())
        with pytest.raises(mt.NotModelledError, match="einsum"):
            torch.einsum("ij,kj->ik", x, x)
        with pytest.raises(mt.NotModelledError, match="alpha=2"):
            torch.addmm(x[:, :4], x, x.t(), alpha=2)
        with pytest.raises(mt.NotModelledError, match="out= is not emulated"):
            F.linear(x.bfloat16(), x.bfloat16(), out=torch.empty(4, 4, dtype=torch.bfloat16))
        with pytest.raises(mt.NotModelledError, match="float8"):
            torch.matmul(fp8((16, 16), 1), fp8((16, 16), 2))
    native = torch.matmul(x, x.t())
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with mt.emulate(gpu="A100", fallback="native", log=True) as em:
            d1 = torch.matmul(x, x.t())
            d2 = x @ x.t()  # no second warning for the same op
            with pytest.raises(mt.GpuRejectsError, match="same dtype"):  # the GPU raises too
                torch.mm(x.bfloat16(), x.t().half())
    fell = [str(w.message) for w in seen if w.category is mt.NativeFallbackWarning]
    assert len(fell) == 1 and "matmul ran natively" in fell[0] and "float64" in fell[0]
    assert torch.equal(d1, native) and torch.equal(d2, native)
    assert em.log[0]["recipe"].startswith("native (fallback)") and em.log[0]["unit"] is None
    with pytest.warns(mt.NoRecipeWarning):
        with mt.emulate(gpu="A100", ops=("linear",)):
            xb, wb = x.bfloat16(), rand((8, 32), torch.bfloat16, 25)
            nat = xb @ wb.t()  # not among the ops: native
            lin = F.linear(xb, wb)
    assert torch.equal(nat, xb @ wb.t())
    assert np.array_equal(bits(lin), bits(mt.linear(xb, wb, gpu="A100")))
    with pytest.raises(KeyError, match="unknown GPU"):
        mt.emulate(gpu="H900")
    with pytest.raises(ValueError, match="fallback"):
        mt.emulate(fallback="quietly")
    with pytest.raises(ValueError, match="ops"):
        mt.emulate(ops=("conv2d",))


# The worked example: a transformer block on two GPUs ---------------------------------------------
class Block(torch.nn.Module):
    """Pre-norm attention (Q/K/V/O projections, 4 heads) and an MLP of two linears; the
    elementwise steps in fp32, the matrix products in the block's dtype."""

    def __init__(self, d=128, heads=4, hidden=512):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (torch.nn.Linear(d, d) for _ in range(4))
        self.fc1, self.fc2 = torch.nn.Linear(d, hidden), torch.nn.Linear(hidden, d)

    def forward(self, x, trace, lin=None, mm=None):
        lin = lin or (lambda name, h: getattr(self, name)(h))
        mm = mm or (lambda a, b: a @ b)
        dt, (s, d) = x.dtype, x.shape
        dh = d // self.heads
        h = F.layer_norm(x.float(), (d,)).to(dt)
        for name in "qkv":
            trace[name] = lin(name, h)
        q, k, v = (trace[n].reshape(s, self.heads, dh).transpose(0, 1) for n in "qkv")
        trace["scores"] = mm(q, k.transpose(1, 2))  # K = 32
        p = F.softmax(trace["scores"].float() / dh ** 0.5, dim=-1).to(dt)
        trace["attn"] = mm(p, v)  # K = 40 tokens: padded to the instruction's K
        trace["o"] = lin("o", trace["attn"].transpose(0, 1).reshape(s, d))
        x = (x.float() + trace["o"].float()).to(dt)
        trace["fc1"] = lin("fc1", F.layer_norm(x.float(), (d,)).to(dt))
        trace["fc2"] = lin("fc2", F.gelu(trace["fc1"].float()).to(dt))
        trace["out"] = (x.float() + trace["fc2"].float()).to(dt)
        return trace["out"]


def ordinal(t):
    """Bit patterns mapped to integers in value order, so that ulps are differences."""
    w = t.detach().contiguous().view(INT[t.dtype]).numpy().astype(np.int64)
    top = 1 << (8 * t.element_size() - 1)
    w = np.where(w < 0, w + 2 * top, w)  # unsigned words
    return np.where(w >= top, top - w, w)


def ulps(a, b):
    return np.abs(ordinal(a) - ordinal(b))


@pytest.mark.parametrize("dtype, gpus", [(torch.bfloat16, ("A100", "H100")),
                                          (torch.float16, ("V100", "H100"))])
def test_transformer_block_on_two_gpus(dtype, gpus, tmp_path):
    """The worked example: a block with seeded weights, natively and under emulate() on two
    GPUs; the emulated outputs equal mma.torch op by op, bit for bit; the per-layer ulps
    between the GPUs are printed (pytest -s) and plotted to a PNG."""
    torch.manual_seed(0)
    block = Block().to(dtype)
    x = torch.randn(40, 128).to(dtype)  # 40 tokens
    native = {}
    with torch.no_grad():
        block(x, native)
        traces = {}
        for gpu in gpus:
            t = traces[gpu] = {}
            with pytest.warns(mt.NoRecipeWarning):
                with mt.emulate(gpu=gpu, log=True) as em:
                    block(x, t)
            assert [e["op"] for e in em.log] == ["linear"] * 3 + ["matmul"] * 2 + \
                ["linear"] * 3
            # Op by op through mma.torch: the same bits.
            ref = {}
            block(x, ref,
                  lin=lambda n, h: mt.linear(h, getattr(block, n).weight,
                                             getattr(block, n).bias, gpu=gpu),
                  mm=lambda a, b: mt.matmul(a, b, gpu=gpu))
            for name in t:
                assert t[name].dtype == dtype
                assert np.array_equal(bits(t[name]), bits(ref[name])), (gpu, name)
                assert torch.isfinite(t[name]).all(), (gpu, name)
    # Where the two GPUs first differ, and by how many ulps; and each against the CPU.
    layers = list(native)
    report = {n: ulps(traces[gpus[0]][n], traces[gpus[1]][n]) for n in layers}
    vs_cpu = {gpu: [int(ulps(traces[gpu][n], native[n]).max()) for n in layers] for gpu in gpus}
    first = next((n for n in layers if report[n].any()), None)
    print(f"\n{dtype} {gpus[0]} vs {gpus[1]}: " + ", ".join(
        f"{n} {int((report[n] > 0).sum())} differ (max {int(report[n].max())} ulp)"
        for n in layers))
    print(f"first difference: {first}; max ulps against the CPU: {vs_cpu}")
    # The two units differ (F, L_max): their f32 D words of the Q projection differ, by
    # Unit.matmul on the same inputs, whatever the outputs' rounding then keeps.
    units = [mma.find(mt.gpu_info(g)["arch"], mt.gpu_info(g)["instr"][
        "f16" if dtype == torch.float16 else "bf16"].replace("WGMMA:", "")) for g in gpus]
    assert units[0].params != units[1].params
    h = F.layer_norm(x.float(), (128,)).to(dtype)
    wq = block.q.weight.detach().t().contiguous()
    d32 = [u.matmul(h, wq).view(torch.int32) for u in units]
    assert (d32[0] != d32[1]).float().mean() > 0.05
    if dtype == torch.float16:
        # fp16 keeps 3 bits more than bf16 and Volta's F = 23, L_max = 4 unit truncates more:
        # the outputs part already at the Q/K/V projections, and the difference grows.
        assert first in ("q", "k", "v")
        assert report["out"].any() and (report["out"] > 0).sum() > (report["q"] > 0).sum()
    else:
        # bf16's rounding hides most of the units' f32 differences: a few outputs at most
        # (how many depends on the inputs, so on the CPU's elementwise steps).
        assert all((report[n] > 0).mean() < 0.01 for n in layers)
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: the per-layer plot was not drawn")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.2))
    pos = np.arange(len(layers))
    ax1.bar(pos, [int(report[n].max()) for n in layers])
    ax1.set_yscale("symlog")  # a residual sum near zero turns a small difference into many ulps
    ax1.set_title(f"{str(dtype)[6:]}: max ulps, {gpus[0]} vs {gpus[1]}")
    ax2.bar(pos, [int((report[n] > 0).sum()) for n in layers])
    ax2.set_title("outputs that differ")
    for ax in (ax1, ax2):
        ax.set_xticks(pos, layers)
    fig.tight_layout()
    png = tmp_path / f"layers_{str(dtype)[6:]}.png"
    fig.savefig(png)
    plt.close(fig)
    assert png.exists() and png.stat().st_size > 1000


def test_readme_example_runs():
    md = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = md.split("## PyTorch: run a model's matrix products", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mt.NoRecipeWarning)
        for code in blocks:
            exec(compile(code, "crates/mma-py/README.md", "exec"), {})
