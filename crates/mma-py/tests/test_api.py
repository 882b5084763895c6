"""The Python API: look-up, Unit.dots shapes and K chaining, Unit.matmul against dots composed
by hand, errors, thread counts. Expected words are hand-derived (noted at each) or come from
the engine's own dots, never from the code under test alone."""

from __future__ import annotations

import numpy as np
import pytest

import mma

HOPPER = ("H100", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16")
ONE_F16 = 0x3C00
ONE_F32 = 0x3F800000


def hopper() -> mma.Unit:
    return mma.find(*HOPPER)


def test_find_accepts_the_names_the_tool_accepts():
    u = hopper()
    assert (u.vendor, u.arch, u.op, u.instr, u.k) == ("nvidia", "Hopper", "WGMMA",
                                                     "m64n8k16.f32.f16.f16", 16)
    assert mma.find("sm_90", "m64n8k16.f32.f16.f16") == u
    assert mma.find("Hopper", "m64n8k16.f32.f16.f16", "nvidia") == u
    amd = mma.find("MI300X", "v_mfma_f32_32x32x8_f16")
    assert (amd.vendor, amd.arch, amd.instr) == ("amd", "CDNA3", "f32_32x32x8_f16")
    assert amd.spelling == "v_mfma_f32_32x32x8_f16"
    assert u.formats == {"a": "f16", "b": "f16", "c": "f32", "d": "f32", "scale": None,
                         "scale_block": None}
    # Hopper f16 -> f32 is T-FDPA with F = 25, L_max = 16, e_zero = -133, RZ to fp32 (mmasim's
    # nv_ptx/sim.py table; the first paper), with NVIDIA's fused-path conventions (the first
    # paper and the hardware records): NaN results all ones, -0 returned as +0, overflow to Inf.
    assert u.model == "T-FDPA"
    assert u.params == {"F": 25, "L_max": 16, "e_zero": -133, "rho": "RZ-FP32",
                        "nan": "all-ones", "neg_zero_to_pos": True, "overflow": "inf"}
    # Parameters that the one-line description leaves out are there too: Ampere's fp64 FMA.
    assert mma.find("A100", "m8n8k4.f64.f64.f64.f64").params == {
        "L_max": 1, "nan": "all-ones", "rounding": "RNE"}
    assert "m64n8k16.f32.f16.f16" in repr(u) and "T-FDPA" in repr(u)


def test_catalog_rows():
    rows = mma.catalog()
    nv = [r for r in rows if r["vendor"] == "nvidia"]
    # mmasim 2.1.1 lists 4935 NVIDIA instructions; the catalog holds them all plus documented
    # additions (vectors/mmasim/nvidia/instructions.txt).
    assert len(nv) >= 4935
    cdna3 = mma.catalog(arch="MI300X")
    assert cdna3 and all(r["arch"] == "CDNA3" and r["mnemonic"] for r in cdna3)
    assert set(rows[0]) == {"vendor", "arch", "op", "instr", "k", "ptx", "mnemonic", "model",
                            "parameters", "note", "evidence", "sparse"}
    assert {r["evidence"] for r in rows} == {"hardware", "reference", "unverified"}
    # mmasim's corpus has lines of every dense floating-point CDNA3 instruction; no AMD record
    # is held, and the integer MFMAs and the structured-sparse rows (v_smfmac, issue 58) have
    # neither.
    assert all(r["evidence"] == "reference" for r in cdna3
               if r["sparse"] is None and not r["instr"].startswith("i32"))
    assert all(r["evidence"] == "unverified" for r in cdna3 if r["sparse"] is not None)
    # An architecture of the other vendor is an error naming the argument, not an empty list.
    with pytest.raises(KeyError, match="arch: .*Hopper.* is not among the amd architectures"):
        mma.catalog(vendor="amd", arch="Hopper")


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: mma.find("H900", "m64n8k16.f32.f16.f16"), KeyError, "H900"),
        (lambda: mma.find("Hopper", "m64n8k17.f32.f16.f16"), KeyError, "m64n8k17"),
        (lambda: mma.find("Hopper", "m64n8k16.f32.f16.f16", "intel"), KeyError, "intel"),
        (lambda: mma.find("Hopper", 16), TypeError, "instr"),
        (lambda: mma.find("CDNA3", "f32_32x32x8_f16", op="WGMMA"), KeyError, "op"),
        (lambda: mma.catalog(vendor="intel"), KeyError, "intel"),
        (lambda: mma.catalog(arch="Pascal"), KeyError, "Pascal"),
    ],
)
def test_lookup_errors_name_the_input(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def test_dots_hand_derived():
    u = hopper()
    # 16 products 1.0 * 1.0 plus C = 1.0 is 17.0 exactly (0x41880000).
    a = np.full((2, 3, 16), ONE_F16, np.uint16)
    c = np.full((2, 3), ONE_F32, np.uint32)
    d = u.dots(a, a, c)
    assert d.shape == (2, 3) and d.dtype == np.uint32
    assert (d == 0x41880000).all()
    # Batch dimensions broadcast: one row of B for every row of A.
    d = u.dots(a, a[0, 0], np.uint32(0))
    assert (d == 0x41800000).all()  # 16.0


def test_k_chaining_feeds_d_back_as_c():
    u = hopper()
    rng = np.random.default_rng(1)
    n, steps = 40, 3
    # Moderate f16 values (exponents near 1) so that the chain's roundings matter.
    a = (rng.integers(0x3000, 0x4400, (n, 16 * steps)) | rng.integers(0, 2, (n, 1)) << 15)
    b = rng.integers(0x3000, 0x4400, (n, 16 * steps))
    a, b = a.astype(np.uint16), b.astype(np.uint16)
    c = np.full(n, 0x3DCCCCCD, np.uint32)  # 0.1f
    acc = c
    for t in range(steps):
        acc = u.dots(a[:, 16 * t:16 * t + 16], b[:, 16 * t:16 * t + 16], acc)
    assert np.array_equal(u.dots(a, b, c), acc)


def test_matmul_is_dots_composed_by_hand():
    u = hopper()
    rng = np.random.default_rng(2)
    m, n, k = 5, 7, 48
    A = rng.integers(-64, 64, (m, k)).astype(np.float16) / np.float16(8)
    B = rng.integers(-64, 64, (k, n)).astype(np.float16) / np.float16(16)
    C = (rng.standard_normal((m, n))).astype(np.float32)
    D = u.matmul(A, B, C)
    assert D.dtype == np.float32 and D.shape == (m, n)
    aw, bw = A.view(np.uint16), np.ascontiguousarray(B.T).view(np.uint16)
    by_hand = u.dots(aw[:, None, :], bw[None, :, :], C.view(np.uint32))
    assert np.array_equal(D.view(np.uint32), by_hand)
    # Threads do not change the result.
    assert np.array_equal(u.matmul(A, B, C, threads=1).view(np.uint32), by_hand)
    assert np.array_equal(u.matmul(A, B, C, threads=3).view(np.uint32), by_hand)
    # C = None is zeros; float64 and float32 inputs of f16 values are accepted.
    D0 = u.matmul(A.astype(np.float64), B.astype(np.float32))
    assert np.array_equal(D0.view(np.uint32), u.dots(aw[:, None, :], bw[None], np.uint32(0)))


def test_matmul_on_words_is_matmul_on_values():
    # `_matmul_words` (the path of mma.torch: storage words as they are, B column by column)
    # against `matmul` on the values those words hold, C given and C = +0.
    u = hopper()
    rng = np.random.default_rng(5)
    m, n, k = 9, 11, 48
    A = rng.integers(-64, 64, (m, k)).astype(np.float16) / np.float16(8)
    B = rng.integers(-64, 64, (k, n)).astype(np.float16) / np.float16(16)
    C = rng.standard_normal((m, n)).astype(np.float32)
    aw, bcols = A.view(np.uint16), np.ascontiguousarray(B.T).view(np.uint16)
    for c, c_words in ((C, C.view(np.uint32).reshape(-1)), (np.zeros((m, n)), None)):
        want = u.matmul(A, B, c).view(np.uint32).reshape(-1)
        for t in (1, 2):
            got = u._u._matmul_words(aw.reshape(-1), bcols.reshape(-1), c_words, m, n, k, t)
            assert got.dtype == np.uint32 and np.array_equal(got, want)
    # tf32 in uint32 (f32 words with the low 13 bits clear), chained along K = 3 x 8.
    t32 = mma.find("Ampere", "m16n8k8.f32.tf32.tf32.f32")
    At = (rng.integers(-512, 512, (4, 24)) / 64).astype(np.float32)
    Bt = (rng.integers(-512, 512, (24, 5)) / 32).astype(np.float32)
    want = t32.matmul(At, Bt).view(np.uint32).reshape(-1)
    got = t32._u._matmul_words(At.view(np.uint32).reshape(-1),
                               np.ascontiguousarray(Bt.T).view(np.uint32).reshape(-1),
                               None, 4, 5, 24, 1)
    assert np.array_equal(got, want)


def test_matmul_on_words_checks_what_it_is_given():
    u = hopper()
    a, b = np.zeros(2 * 16, np.uint16), np.zeros(3 * 16, np.uint16)
    with pytest.raises(TypeError, match=r"A: expected uint16 words \(f16\), got uint32"):
        u._u._matmul_words(a.astype(np.uint32), b, None, 2, 3, 16, 1)
    with pytest.raises(ValueError, match=r"b_cols: 48 words do not fit \(m, n, k\) = \(2, 4, 16\)"):
        u._u._matmul_words(a, b, None, 2, 4, 16, 1)
    with pytest.raises(ValueError, match=r"c: 5 words"):
        u._u._matmul_words(a, b, np.zeros(5, np.uint32), 2, 3, 16, 1)
    with pytest.raises(ValueError, match="multiple of the instruction's K = 16"):
        u._u._matmul_words(a[:16], b[:24], None, 2, 3, 8, 1)
    # e2m1 codes take four bits: the word 0x10 is no e2m1 element (row 0, column 1 of A).
    fp4 = mma.find("Blackwell", "m64n8k32.kind::f8f6f4.f32.e2m1.e5m2", op="TCGen05MMA")
    a4 = np.zeros(32, np.uint8)
    a4[1] = 0x10
    with pytest.raises(ValueError, match=r"A\[0, 1\] = 0x10 is not a valid e2m1 word"):
        fp4._u._matmul_words(a4, np.zeros(32, np.uint8), None, 1, 1, 32, 1)


def test_dots_takes_any_memory_order():
    # The quick path for rows already in shape copies what is not contiguous, as the general
    # path does: Fortran order and a strided view give the same words as contiguous rows.
    u = hopper()
    rng = np.random.default_rng(6)
    a = rng.integers(0, 0x7C00, (40, 32)).astype(np.uint16)
    b = rng.integers(0, 0x7C00, (40, 32)).astype(np.uint16)
    c = rng.integers(0, 0x3F800000, 80).astype(np.uint32)
    want = u.dots(a, b, c[::2].copy())
    assert np.array_equal(u.dots(np.asfortranarray(a), np.asfortranarray(b), c[::2]), want)
    wide = np.zeros((40, 64), np.uint16)
    wide[:, ::2] = a
    assert np.array_equal(u.dots(wide[:, ::2], b, c[::2]), want)


def test_matmul_names_the_first_inexact_element():
    u = hopper()
    A = np.ones((2, 16), np.float32)
    A[1, 5] = 0.1
    with pytest.raises(ValueError, match=r"A\[1, 5\] = 0\.1.*f16"):
        u.matmul(A, np.ones((16, 2), np.float32))
    with pytest.raises(ValueError, match=r"B\[0, 1\] = 70000\.0"):
        u.matmul(np.ones((1, 16)), np.array([[1.0, 70000.0]] * 16))
    with pytest.raises(ValueError, match="multiple of the instruction's K = 16"):
        u.matmul(np.ones((2, 8)), np.ones((8, 2)))
    with pytest.raises(ValueError, match="K differ"):
        u.matmul(np.ones((2, 16)), np.ones((32, 2)))
    with pytest.raises(TypeError, match="A: expected float16"):
        u.matmul(np.ones((2, 16), np.int32), np.ones((16, 2)))
    with pytest.raises(TypeError, match="NumPy array or a torch tensor"):
        u.matmul([[1.0] * 16], np.ones((16, 2)))


def test_matmul_ml_dtypes():
    ml = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
    u = mma.find("Ada Lovelace", "m16n8k32.f32.e4m3.e4m3.f32", op="MMA")
    rng = np.random.default_rng(3)
    A = rng.standard_normal((3, 32)).astype(ml.float8_e4m3fn)
    B = rng.standard_normal((32, 4)).astype(ml.float8_e4m3fn)
    D = u.matmul(A, B)
    by_hand = u.dots(A.view(np.uint8)[:, None, :], np.ascontiguousarray(B.T).view(np.uint8)[None],
                     np.uint32(0))
    assert np.array_equal(D.view(np.uint32), by_hand)
    bu = mma.find("Ampere", "m16n8k16.f32.bf16.bf16.f32")
    Ab = np.array([[1.0, 2.0] + [0.0] * 14], dtype=ml.bfloat16)
    Bb = np.array([[1.0]] * 16, dtype=ml.bfloat16)
    assert bu.matmul(Ab, Bb)[0, 0] == 3.0  # 1*1 + 2*1, exact


@pytest.mark.parametrize(
    "args, exc, text",
    [
        ((np.zeros((2, 16), np.uint32), np.zeros((2, 16), np.uint16), np.zeros(2, np.uint32)),
         TypeError, "a: expected dtype uint16, got uint32"),
        ((np.zeros((2, 16), np.uint16), np.zeros((2, 16), np.uint16), np.zeros(2, np.uint16)),
         TypeError, "c: expected dtype uint32"),
        ((np.zeros((2, 12), np.uint16), np.zeros((2, 12), np.uint16), np.zeros(2, np.uint32)),
         ValueError, "K = 12 elements is not a multiple of the instruction's K = 16"),
        ((np.zeros((2, 16), np.uint16), np.zeros((2, 32), np.uint16), np.zeros(2, np.uint32)),
         ValueError, "a has 16 words per row but b has 32"),
        ((np.zeros((2, 16), np.uint16), np.zeros((3, 16), np.uint16), np.zeros(2, np.uint32)),
         ValueError, "do not broadcast"),
        (([0] * 16, np.zeros((1, 16), np.uint16), np.zeros(1, np.uint32)),
         TypeError, "a: expected a NumPy array of uint16"),
    ],
)
def test_dots_errors_name_the_argument(args, exc, text):
    with pytest.raises(exc, match=text):
        hopper().dots(*args)


def test_dots_rejects_bad_encodings_by_element():
    bw = mma.find("Blackwell", "m128n8k32.kind::f8f6f4.f32.e2m1.e2m1", op="TCGen05MMA")
    a = np.zeros((3, 32), np.uint8)
    a[2, 7] = 0x01  # fp4 sits in bits 5:2; bit 0 set is no fp4 byte
    with pytest.raises(ValueError, match=r"a\[2, 7\] = 0x1 .*bits 5:2"):
        bw.dots(a, np.zeros((3, 32), np.uint8), np.zeros(3, np.uint32))
    # fp6 sits in bits 5:0 of its byte; 0x40 sets bit 6. The row before it is fine, so the
    # error names the first bad element, not its row.
    f6 = mma.find("Blackwell", "m128n8k32.kind::f8f6f4.f32.e3m2.e3m2", op="TCGen05MMA")
    a6 = np.full((2, 32), 0x0C, np.uint8)
    a6[1, 31] = 0x40
    with pytest.raises(ValueError, match=r"b\[1, 31\] = 0x40 .*bits 7:6 zero"):
        f6.dots(np.zeros((2, 32), np.uint8), a6, np.zeros(2, np.uint32))
    u = hopper()
    with pytest.raises(ValueError, match="scale_a: .*no block scaling"):
        u.dots(np.zeros((1, 16), np.uint16), np.zeros((1, 16), np.uint16),
               np.zeros(1, np.uint32), np.zeros((1, 1), np.uint8))
    sc = mma.find("Blackwell", "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0")
    z = np.zeros((1, 32), np.uint8)
    with pytest.raises(ValueError, match=r"scale_b: expected shape \[\.\.\., 2\]"):
        sc.dots(z, z, np.zeros(1, np.uint32), np.zeros((1, 2), np.uint8),
                np.zeros((1, 3), np.uint8))
    with pytest.raises(ValueError, match="threads"):
        u.dots(np.zeros((1, 16), np.uint16), np.zeros((1, 16), np.uint16),
               np.zeros(1, np.uint32), threads=0)


def test_packed_fp4_with_scales_hand_derived():
    sc = mma.find("Blackwell", "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0")
    # Byte 0x22: two fp4 1.0 (e2m1 0b0010). 64 products 1.0 * 1.0 with scales 2^0 (0x7f) sum
    # to 64.0 = 0x42800000.
    a = np.full((4, 32), 0x22, np.uint8)
    s = np.full((4, 2), 0x7F, np.uint8)
    d = sc.dots(a, a, np.zeros(4, np.uint32), s, s)
    assert (d == 0x42800000).all()
    # Scale 2^1 (0x80) on A's first block: 32 * 2 + 32 = 96.0 = 0x42c00000.
    s2 = s.copy()
    s2[:, 0] = 0x80
    assert (sc.dots(a, a, np.zeros(4, np.uint32), s2, s) == 0x42C00000).all()


def test_decode_encode():
    assert list(mma.decode("f16", np.array([0x3C00, 0xC000], np.uint16))) == [1.0, -2.0]
    # e4m3, bias 7: 448 = 1.75 * 2^8 is 0 1111 110; -0.5 = -2^-1 is 1 0110 000.
    assert list(mma.encode("e4m3", [448.0, -0.5])) == [0x7E, 0xB0]
    with pytest.raises(ValueError, match=r"values\[0\] = 480\.0"):
        mma.encode("e4m3", [480.0])  # E4M3's largest finite is 448 (0x7e)
    with pytest.raises(KeyError, match="fmt"):
        mma.decode("f17", [0])


def test_formats_are_the_engines_and_each_decodes():
    # The fourteen formats of the models' papers and the OCP MX specification, in the engine's
    # order; decode accepts every name. Word 0 is +0 in each but ue8m0, whose word e is
    # 2^(e - 127) (OCP Microscaling Formats v1.0: E8M0, no sign, no zero, bias 127): 2^-127.
    assert mma.formats() == ["f64", "f32", "tf32", "f16", "bf16", "e5m2", "e4m3", "e4m3fnuz",
                             "e5m2fnuz", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3"]
    for f in mma.formats():
        zero = mma.decode(f, np.array([0], dtype=np.uint64))[0]
        assert zero == (2.0 ** -127 if f == "ue8m0" else 0.0), f


def test_unit_pack_hand_derived():
    # packed fp4 (kind::mxf4): element 2i in the high nibble, so codes 1, 2, 0xf, 0 pack to
    # the bytes 0x12 and 0xf0; a row of four codes becomes a row of two bytes.
    sc = mma.find("Blackwell", "m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0")
    got = sc.pack("a", np.array([[1, 2, 0xF, 0], [0, 0, 3, 4]], np.uint64))
    assert got.dtype == np.uint8 and got.tolist() == [[0x12, 0xF0], [0x00, 0x34]]
    with pytest.raises(ValueError, match="in pairs"):
        sc.pack("b", np.array([1, 2, 3], np.uint64))
    # byte layout (kind::f8f6f4): an e2m1 code sits in bits 5:2, so 0x7 -> 0x1c; e5m2 B is
    # one byte as it is; C (f32) is plain, its words unchanged.
    bw = mma.find("Blackwell", "m64n8k32.kind::f8f6f4.f32.e2m1.e5m2", op="TCGen05MMA")
    assert bw.pack("a", np.array([0x7, 0xF], np.uint64)).tolist() == [0x1C, 0x3C]
    assert bw.pack("b", np.array([0x7F], np.uint64)).tolist() == [0x7F]
    c = bw.pack("c", np.array([0x3F800000], np.uint64))
    assert c.dtype == np.uint32 and c.tolist() == [0x3F800000]
    # 0x10 is no e2m1 code (four bits), and "d" is no operand to pack.
    with pytest.raises(ValueError, match=r"codes\[1\] = 0x10 is not a valid e2m1 word"):
        bw.pack("a", np.array([1, 0x10], np.uint64))
    with pytest.raises(ValueError, match="which"):
        bw.pack("d", np.array([1], np.uint64))


def test_an_unverified_instruction_warns_on_lookup():
    # Hopper's mixed e5m2 x e4m3 mma.sync: no GPU record, no mmasim line (`mma list`: unverified).
    with pytest.warns(mma.UnverifiedWarning, match="Hopper MMA m16n8k32.f32.e5m2.e4m3.f32 is "
                      "unverified"):
        u = mma.find("Hopper", "m16n8k32.f32.e5m2.e4m3.f32", op="MMA")
    assert u.evidence == "unverified"
    # Hopper's wgmma f16 is mmasim's (reference) and V100's m8n8k4 f32 is recorded (hardware):
    # no warning for either.
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", mma.UnverifiedWarning)
        assert mma.find("Hopper", "m64n8k16.f32.f16.f16").evidence == "reference"
        assert mma.find("Volta", "m8n8k4.f32.f16.f16.f32").evidence == "hardware"
