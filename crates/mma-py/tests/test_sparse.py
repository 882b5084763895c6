"""Structured-sparse instructions in the Python package (issue 58): ``Unit.sparse``,
``Unit.dots(..., meta=)`` and ``Unit.matmul(..., meta=)``, and the catalog's ``sparse`` key.

A sparse instruction of logical K is its dense unit of K/2 applied to A's kept elements and B
at the positions the metadata selects (``mma_core::sparse``); the disabled positions of a
dense A are not read. The expected values below are derived by hand next to each case; the
comparisons with the dense unit compare bits."""

import itertools

import numpy as np
import pytest

import mma

pytestmark = pytest.mark.filterwarnings("ignore::mma.UnverifiedWarning")

F16_ONE, F16_NAN = 0x3C00, 0x7E00
F32_ONE, F32_NAN = 0x3F800000, 0x7FC00000
# f16 1, 2, 4, 8: exponent fields 15..18, fraction 0.
F16_POW2 = [0x3C00, 0x4000, 0x4400, 0x4800]


def f32(x):
    """The binary32 bits of a value float32 holds exactly (the expected D words)."""
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def ampere_sp():
    return mma.find("A100", "sp.m16n8k32.f32.f16.f16.f32")


def dense_rows(k, meta, kept, disabled, group=4, keep=2):
    """A dense logical row (uint16 words): ``kept[j]`` at the j-th selected position (meta's
    j-th index in group j // keep), ``disabled`` elsewhere. Test scaffolding: where the words
    sit, not arithmetic."""
    row = np.full(k, disabled, dtype=np.uint16)
    for j, i in enumerate(meta):
        row[j // keep * group + i] = kept[j]
    return row


# Identity and catalog --------------------------------------------------------------------------
def test_unit_and_catalog_say_sparse():
    u = ampere_sp()
    assert u.sparse == "2:4" and u.op == "MMASp" and u.k == 32
    assert mma.find("A100", "m16n8k16.f32.f16.f16.f32").sparse is None
    assert mma.find("A100", "sp.m16n8k16.f32.tf32.tf32.f32").sparse == "1:2"
    assert mma.find("MI300X", "v_smfmac_f32_16x16x32_f16").sparse == "2:4"
    rows = mma.catalog(arch="A100")
    by = {r["instr"]: r for r in rows}
    assert by["sp.m16n8k32.f32.f16.f16.f32"]["sparse"] == "2:4"
    assert by["sp.m16n8k32.f32.f16.f16.f32"]["k"] == 32
    assert by["sp.m16n8k16.f32.tf32.tf32.f32"]["sparse"] == "1:2"
    assert by["m16n8k16.f32.f16.f16.f32"]["sparse"] is None
    assert {r["sparse"] for r in mma.catalog()} == {None, "2:4", "1:2", "4:8-pairs"}


# Ampere mma.sp f16 -----------------------------------------------------------------------------
def test_ones_with_nan_at_disabled_positions():
    # K = 32: 8 groups of 4, 2 kept each = 16 products. Groups alternate the selectors (0, 1)
    # and (2, 3). A holds 1.0 at the kept positions and NaN at the disabled ones, which the
    # instruction never reads; B is all ones. So D = 16 * (1 * 1) + C: with C = +0, 16.0
    # (binary32 0x41800000: exponent 4 + 127 = 131); with C = 1.0, 17.0 (0x41880000).
    u = ampere_sp()
    meta = np.array([0, 1, 2, 3] * 4, dtype=np.int64)
    a = dense_rows(32, meta, [F16_ONE] * 16, F16_NAN)
    b = np.full(32, F16_ONE, dtype=np.uint16)
    d0 = u.dots(a, b, np.uint32(0), meta=meta)
    d1 = u.dots(a, b, np.uint32(F32_ONE), meta=meta)
    assert d0.shape == () and int(d0) == 0x41800000 == f32(16.0)
    assert int(d1) == 0x41880000 == f32(17.0)
    # The dense unit of K/2 = 16 on the compressed A (sixteen ones) and B gathered at the
    # selected positions (sixteen ones): the same bits.
    dense = mma.find("A100", "m16n8k16.f32.f16.f16.f32")
    ones = np.full(16, F16_ONE, dtype=np.uint16)
    assert int(dense.dots(ones, ones, np.uint32(0))) == int(d0)
    assert int(dense.dots(ones, ones, np.uint32(F32_ONE))) == int(d1)
    # The compressed A (the kept elements in order) gives the same bits.
    assert int(u.dots(ones, b, np.uint32(0), meta=meta)) == int(d0)


@pytest.mark.parametrize("sel", list(itertools.combinations(range(4), 2)))
def test_every_legal_2_4_selector(sel):
    # The six selectors of 2 of 4 with increasing indices. A's group holds 1, 2, 4, 8 at
    # positions 0..3 (f16 0x3C00, 0x4000, 0x4400, 0x4800), B is ones, every one of the 8
    # groups uses the selector (i0, i1): each group adds 2^i0 + 2^i1, so
    # D = 8 * (2^i0 + 2^i1), exact in binary32 (at most 8 * 12 = 96).
    u = ampere_sp()
    i0, i1 = sel
    meta = np.array([i0, i1] * 8, dtype=np.int64)
    a = np.array(F16_POW2 * 8, dtype=np.uint16)
    b = np.full(32, F16_ONE, dtype=np.uint16)
    d = u.dots(a, b, np.uint32(0), meta=meta)
    assert int(d) == f32(8 * (2**i0 + 2**i1))
    # Compressed: the kept elements 2^i0, 2^i1 per group.
    ac = np.array([F16_POW2[i0], F16_POW2[i1]] * 8, dtype=np.uint16)
    assert int(u.dots(ac, b, np.uint32(0), meta=meta)) == int(d)
    # B carries the values instead (A ones at the kept positions, NaN elsewhere): the same sum.
    a1 = dense_rows(32, meta, [F16_ONE] * 16, F16_NAN)
    assert int(u.dots(a1, a, np.uint32(0), meta=meta)) == int(d)


def test_illegal_selectors_are_refused_naming_row_and_group():
    u = ampere_sp()
    meta = np.array([[0, 1] * 8] * 4, dtype=np.int64)
    a = np.full((4, 32), F16_ONE, dtype=np.uint16)
    b = np.full((4, 32), F16_ONE, dtype=np.uint16)
    c = np.zeros(4, dtype=np.uint32)
    assert list(u.dots(a, b, c, meta=meta)) == [f32(16.0)] * 4
    # Row 3, group 1 (its indices 2 and 3): the same position twice.
    bad = meta.copy()
    bad[3, 2:4] = [3, 3]
    msg = "meta[3]: group 1: selector [3, 3] is not allowed (indices must increase within a group)"
    with pytest.raises(ValueError) as e:
        u.dots(a, b, c, meta=bad)
    assert str(e.value) == msg
    # Decreasing, and an index beyond the group of 4.
    bad = meta.copy()
    bad[0, 14:16] = [2, 1]
    with pytest.raises(ValueError, match=r"meta\[0\]: group 7: selector \[2, 1\]"):
        u.dots(a, b, c, meta=bad)
    bad = meta.copy()
    bad[2, 0:2] = [0, 4]
    with pytest.raises(ValueError, match=r"meta\[2\]: group 0: selector \[0, 4\] is not "
                                         r"allowed \(an index beyond the group\)"):
        u.dots(a, b, c, meta=bad)
    bad[2, 0:2] = [-1, 1]
    with pytest.raises(ValueError, match=r"meta\[2\]: group 0: selector \[-1, 1\]"):
        u.dots(a, b, c, meta=bad)
    # matmul names the row of A the same way.
    A = np.ones((16, 32), dtype=np.float16)
    B = np.ones((32, 8), dtype=np.float16)
    mm = np.array([[0, 1] * 8] * 16, dtype=np.int64)
    mm[5, 2:4] = [3, 3]
    with pytest.raises(ValueError) as e:
        u.matmul(A, B, meta=mm)
    assert str(e.value) == msg.replace("meta[3]", "meta[5]")


def test_meta_missing_wrong_or_for_a_dense_unit():
    u = ampere_sp()
    a = np.full(32, F16_ONE, dtype=np.uint16)
    with pytest.raises(ValueError, match=r"meta: .*2:4 sparse instruction"):
        u.dots(a, a, np.uint32(0))
    with pytest.raises(ValueError, match=r"meta: .*2:4 sparse instruction"):
        u.matmul(np.ones((16, 32), np.float16), np.ones((32, 8), np.float16))
    with pytest.raises(TypeError, match="meta: expected integers"):
        u.dots(a, a, np.uint32(0), meta=np.zeros(16, dtype=np.float32))
    with pytest.raises(ValueError, match=r"meta: 8 indices per row; expected K/2 = 16"):
        u.dots(a, a, np.uint32(0), meta=np.array([0, 1] * 4))
    with pytest.raises(ValueError, match=r"a: 24 elements per row"):
        u.dots(a[:24], a, np.uint32(0), meta=np.array([0, 1] * 8))
    dense = mma.find("A100", "m16n8k16.f32.f16.f16.f32")
    with pytest.raises(ValueError, match=r"meta: .* is a dense instruction"):
        dense.dots(a[:16], a[:16], np.uint32(0), meta=np.array([0, 1] * 8))
    with pytest.raises(ValueError, match=r"meta: .* is a dense instruction"):
        dense.matmul(np.ones((16, 16), np.float16), np.ones((16, 8), np.float16),
                     meta=np.zeros((16, 8), dtype=np.int64))


def test_dense_and_compressed_a_agree_with_the_dense_unit_on_random_words():
    # Finite f16 words (exponent field below 31), random selectors per row: the sparse unit on
    # the dense A (NaN at the disabled positions) and on the compressed A, and the dense unit
    # of K/2 on the compressed A and B gathered at the selected positions, give the same D
    # bits; K = 64 chains two instructions, as the dense unit's dots chain K/2 = 32 in steps
    # of 16.
    rng = np.random.default_rng(58)
    u, dense = ampere_sp(), mma.find("A100", "m16n8k16.f32.f16.f16.f32")
    rows, k = 200, 64
    sels = np.array(list(itertools.combinations(range(4), 2)))
    meta = sels[rng.integers(0, 6, size=(rows, k // 4))].reshape(rows, k // 2)
    pos = (np.arange(k // 2) // 2 * 4)[None, :] + meta
    words = lambda *s: (rng.integers(0, 0x7800, size=s) | (rng.integers(0, 2, size=s) << 15)
                        ).astype(np.uint16)
    a, b = words(rows, k), words(rows, k)
    c = rng.integers(0, 0x7F000000, size=rows).astype(np.uint32)
    ac = np.take_along_axis(a, pos, axis=1)
    bg = np.take_along_axis(b, pos, axis=1)
    a_nan = np.full_like(a, F16_NAN)
    np.put_along_axis(a_nan, pos, ac, axis=1)
    want = dense.dots(ac, bg, c)
    assert np.array_equal(u.dots(a, b, c, meta=meta), want)
    assert np.array_equal(u.dots(a_nan, b, c, meta=meta), want)
    assert np.array_equal(u.dots(ac, b, c, meta=meta), want)
    # Batch dimensions broadcast: one meta row for every row of a (2, 3) batch.
    d = u.dots(a[:6].reshape(2, 3, k), b[:6].reshape(2, 3, k), c[:6].reshape(2, 3),
               meta=meta[0])
    want0 = dense.dots(np.take_along_axis(a[:6], np.broadcast_to(pos[:1], (6, k // 2)), 1),
                       np.take_along_axis(b[:6], np.broadcast_to(pos[:1], (6, k // 2)), 1),
                       c[:6])
    assert np.array_equal(d, want0.reshape(2, 3))


# matmul ----------------------------------------------------------------------------------------
def test_matmul_by_hand_and_against_dots():
    # A 16x64 (two instructions along K): row i uses the selector sels[i % 6] in every group
    # and holds 1 at the kept positions, NaN at the disabled ones; B[r, j] = 2^(r % 4) * (j+1)
    # (exact in f16: at most 8 * 8 = 64). Row i then sums, over 16 groups,
    # (2^i0 + 2^i1) * (j+1): D[i, j] = 16 * (2^i0 + 2^i1) * (j + 1), at most 16*12*8 = 1536,
    # exact in binary32.
    u = ampere_sp()
    sels = list(itertools.combinations(range(4), 2))
    m, n, k = 16, 8, 64
    meta = np.array([list(sels[i % 6]) * (k // 4) for i in range(m)], dtype=np.int64)
    A = np.full((m, k), np.nan, dtype=np.float16)
    for i in range(m):
        i0, i1 = sels[i % 6]
        A[i, i0::4] = 1
        A[i, i1::4] = 1
    B = (2.0 ** (np.arange(k) % 4))[:, None] * (np.arange(n) + 1)[None, :]
    B = B.astype(np.float16)
    D = u.matmul(A, B, meta=meta)
    assert D.dtype == np.float32 and D.shape == (m, n)
    want = np.array([[16 * (2**sels[i % 6][0] + 2**sels[i % 6][1]) * (j + 1) for j in range(n)]
                     for i in range(m)], dtype=np.float32)
    assert np.array_equal(D, want)
    # Compressed A (ones, 16x32) and a C: the same plus C.
    C = np.full((m, n), 0.5, dtype=np.float32)
    D2 = u.matmul(np.ones((m, k // 2), np.float16), B, C, meta=meta)
    assert np.array_equal(D2, want + np.float32(0.5))
    # Against dots, element by element (B's column j as the row of b).
    aw = np.asarray(A).view(np.uint16)
    bw = np.ascontiguousarray(B.T).view(np.uint16)
    for i in (0, 5, 11):
        d = u.dots(np.broadcast_to(aw[i], (n, k)), bw, np.zeros(n, np.uint32),
                   meta=meta[i])
        assert np.array_equal(d, D[i].view(np.uint32))
    # A value of A's format at a kept position is checked; the disabled ones are not.
    A64 = A.astype(np.float64)
    A64[0, 2] = 0.1  # row 0 keeps positions 0 and 1 of each group: 2 is disabled
    assert np.array_equal(u.matmul(A64, B, meta=meta), D)
    A64[0, 0] = 0.1
    with pytest.raises(ValueError, match=r"A\[0, 0\] = 0.1 is not exactly representable in f16"):
        u.matmul(A64, B, meta=meta)
    with pytest.raises(ValueError, match=r"meta: expected shape \(16, 32\)"):
        u.matmul(A, B, meta=meta[:, :16])
    with pytest.raises(ValueError, match="K = 48 is not a positive multiple"):
        u.matmul(A[:, :48], B[:48], meta=meta[:, :24])


# tf32 1:2 --------------------------------------------------------------------------------------
def test_tf32_one_of_two():
    # sp.m16n8k16 tf32: K = 16, 8 groups of 2, one kept each. A holds 1.0 at the kept position
    # (alternately 0 and 1) and NaN at the other; B = 2.0 everywhere (0x40000000): D = 8 * 2 =
    # 16.0 (0x41800000), as the dense m16n8k8 tf32 on eight ones and eight twos.
    u = mma.find("A100", "sp.m16n8k16.f32.tf32.tf32.f32")
    assert u.k == 16 and u.sparse == "1:2"
    meta = np.array([0, 1] * 4, dtype=np.int64)
    a = np.array([F32_ONE, F32_NAN, F32_NAN, F32_ONE] * 4, dtype=np.uint32)
    b = np.full(16, 0x40000000, dtype=np.uint32)
    d = u.dots(a, b, np.uint32(0), meta=meta)
    assert int(d) == f32(16.0)
    dense = mma.find("A100", "m16n8k8.f32.tf32.tf32.f32")
    assert int(dense.dots(np.full(8, F32_ONE, np.uint32), b[:8], np.uint32(0))) == int(d)
    assert int(u.dots(np.full(8, F32_ONE, np.uint32), b, np.uint32(0), meta=meta)) == int(d)
    # The only selector of 1 of 2 is one index below 2.
    bad = meta.copy()
    bad[6] = 2
    with pytest.raises(ValueError, match=r"meta: group 6: selector \[2\] is not allowed "
                                         r"\(an index beyond the group\)"):
        u.dots(a, b, np.uint32(0), meta=bad)


# AMD v_smfmac -----------------------------------------------------------------------------------
def test_amd_smfmac():
    # v_smfmac_f32_16x16x32_f16 on CDNA3: K = 32, 2 of each 4. A holds 1, 2, 4, 8 in each group,
    # meta selects (1, 3) everywhere: each group adds 2 + 8 = 10, 8 groups 80; B ones, C = 1.0:
    # D = 81.0 = 1.265625 * 2^6, binary32 0x42A20000. The dense v_mfma_f32_16x16x16_f16 on the
    # kept elements gives the same bits.
    u = mma.find("MI300X", "v_smfmac_f32_16x16x32_f16")
    assert u.vendor == "amd" and u.op == "SMFMAC" and u.k == 32
    meta = np.array([1, 3] * 8, dtype=np.int64)
    a = np.array(F16_POW2 * 8, dtype=np.uint16)
    b = np.full(32, F16_ONE, dtype=np.uint16)
    d = u.dots(a, b, np.uint32(F32_ONE), meta=meta)
    assert int(d) == 0x42A20000 == f32(81.0)
    dense = mma.find("MI300X", "v_mfma_f32_16x16x16_f16")
    kept = np.array([F16_POW2[1], F16_POW2[3]] * 8, dtype=np.uint16)
    assert int(dense.dots(kept, b[:16], np.uint32(F32_ONE))) == int(d)
    D = u.matmul(np.ones((16, 16), np.float16), np.ones((32, 16), np.float16),
                 meta=np.tile(meta, (16, 1)))
    # Compressed ones: 16 products of 1 * 1.
    assert np.array_equal(D, np.full((16, 16), 16.0, np.float32))


# Integer ---------------------------------------------------------------------------------------
def test_integer_s8_and_packed_s4():
    # sp.m16n8k32 s8: A = -1 at kept positions, 100 (any value in range) at disabled ones;
    # B = 3: D = 16 * (-1 * 3) + C = -48 + 5 = -43, exact in s32.
    u = mma.find("A100", "sp.m16n8k32.s32.s8.s8.s32")
    meta = np.array([0, 2] * 8, dtype=np.int64)
    a = np.full(32, 100, dtype=np.int8)
    a[0::4] = -1
    a[2::4] = -1
    b = np.full(32, 3, dtype=np.int8)
    d = u.dots(a, b, 5, meta=meta)
    assert d.dtype == np.int32 and int(d) == -43
    D = u.matmul(a[None, :], np.full((32, 8), 3, np.int8), np.full((1, 8), 5, np.int32),
                 meta=meta[None, :])
    assert D.dtype == np.int32 and np.array_equal(D, np.full((1, 8), -43, np.int32))
    # s4, two to a byte (packed_int4): K = 64, 32 kept -1 * 3 products: -96.
    u4 = mma.find("A100", "sp.m16n8k64.s32.s4.s4.s32")
    meta = np.array([1, 3] * 16, dtype=np.int64)
    a = np.full(64, 7, dtype=np.int8)
    a[1::4] = -1
    a[3::4] = -1
    assert int(u4.dots(a, np.full(64, 3, np.int8), 0, meta=meta)) == -96
    assert int(u4.dots(np.full(32, -1, np.int8), np.full(64, 3, np.int8), 0, meta=meta)) == -96
