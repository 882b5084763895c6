"""Integer units (issue 58): `Unit.dots`, `Unit.matmul` and `Unit.pack` take integer values
(NumPy int8/uint8/int32/bool arrays, Python ints), the engine checks their ranges and computes
the exact sum wrapped modulo 2^32 or clamped (`.satfinite`); `matmul` and `dots` give int32.
Every expected value is derived by hand beside its case."""

import warnings

import numpy as np
import pytest

import mma


def _find(arch, instr):
    # The integer rows of the catalogs (NVIDIA Turing/Ampere `mma.sync` s8/u8/s4/u4/b1, AMD
    # CDNA `v_mfma_i32_*`), unverified: the warning is expected and silenced here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mma.UnverifiedWarning)
        return mma.find(arch, instr)


S8 = ("Ampere", "m16n8k16.s32.s8.s8.s32")
S8_SAT = ("Ampere", "m16n8k16.satfinite.s32.s8.s8.s32")
S8_U8 = ("Ampere", "m16n8k16.s32.s8.u8.s32")
S4 = ("Turing", "m8n8k32.s32.s4.s4.s32")
B1_XOR = ("Ampere", "m16n8k128.s32.b1.b1.s32.xor.popc")
B1_AND = ("Ampere", "m16n8k128.s32.b1.b1.s32.and.popc")


def test_s8_wraps_and_satfinite_clamps():
    # 16 products 127·127 = 16129 each: 258064; plus C = 2^31 - 1 = 2147483647 gives
    # 2147741711, above s32's largest value. Modulo 2^32: 2147741711 - 4294967296 =
    # -2147225585, the word 0x8003f00f (2^32 - 2147225585 = 2147741711 = 0x8003f00f). The
    # .satfinite form clamps to 2147483647.
    u, s = _find(*S8), _find(*S8_SAT)
    a = np.full((1, 16), 127, np.int8)
    c = np.array([2**31 - 1], np.int32)
    d = u.dots(a, a, c)
    assert d.dtype == np.int32 and d.tolist() == [-2147225585]
    assert int(d.view(np.uint32)[0]) == 0x8003F00F
    assert s.dots(a, a, c).tolist() == [2147483647]
    m = u.matmul(a, a.T, [[2**31 - 1]])
    assert m.dtype == np.int32 and m.tolist() == [[-2147225585]]
    assert s.matmul(a, a.T, np.array([[2**31 - 1]], np.int32)).tolist() == [[2147483647]]
    # The same words as uint8 (0x7f) and uint32 (0x7fffffff): the words as they are.
    w = np.full((1, 16), 0x7F, np.uint8)
    assert u.dots(w, w, np.array([0x7FFFFFFF], np.uint32)).tolist() == [-2147225585]


def test_s8_negative_values_and_no_overflow():
    # -128·-128 = 16384 per element, 16 of them 262144; C = -262144: exactly 0.
    u = _find(*S8)
    a = np.full((2, 16), -128, np.int8)
    assert u.dots(a, a, np.array([-262144, 1], np.int32)).tolist() == [0, 262145]


def test_u8_times_s8():
    # A s8 -128, B u8 255: each product -32640, 16 of them -522240; C = 0.
    u = _find(*S8_U8)
    d = u.matmul(np.full((1, 16), -128, np.int8), np.full((16, 1), 255, np.uint8))
    assert d.tolist() == [[-522240]]
    # 255 is out of s8's range for A, and -1 out of u8's range for B.
    with pytest.raises(ValueError, match=r"A\[0, 3\] = 255: outside s8's range -128\.\.127"):
        u.matmul(np.array([[0, 0, 0, 255] + [0] * 12]), np.zeros((16, 1), np.uint8))
    with pytest.raises(ValueError, match=r"B\[2, 0\] = -1: outside u8's range 0\.\.255"):
        u.matmul(np.zeros((1, 16), np.int8), np.array([[0], [0], [-1]] + [[0]] * 13))


def test_out_of_range_names_the_argument_and_index():
    u = _find(*S8)
    with pytest.raises(ValueError, match=r"a\[1, 0\] = 300: outside s8's range -128\.\.127"):
        u.dots(np.array([[1] * 16, [300] + [1] * 15]), np.ones((2, 16), np.int8), [0, 0])
    with pytest.raises(ValueError, match=r"codes\[1, 1\] = -129: outside s8's range"):
        u.pack("a", [[1, 2], [3, -129]])
    with pytest.raises(ValueError, match=r"C\[0, 0\] = 2147483648: outside s32's range"):
        u.matmul(np.zeros((1, 16), np.int8), np.zeros((16, 1), np.int8), [[2**31]])
    with pytest.raises(TypeError, match=r"A: s8 takes integer values"):
        u.matmul(np.full((1, 16), 0.5), np.zeros((16, 1), np.int8))


def test_pack_takes_values():
    # s8 -8..7 as two's-complement bytes: -8 is 0xf8 = 248, -1 is 0xff = 255; C -1 is the s32
    # word 0xffffffff.
    u = _find(*S8)
    assert u.pack("a", np.arange(-8, 8, dtype=np.int8)).tolist() == list(range(248, 256)) + list(
        range(8))
    assert u.pack("c", [-1]).tolist() == [0xFFFFFFFF]


def test_s4_packed_and_range():
    # s4 × s4, K = 32: two to a byte, element 2i in the low nibble. A = -8, 7, then zeros;
    # B = 7, 7, then zeros: -8·7 + 7·7 = -7; C = 0.
    u = _find(*S4)
    assert u.layout == "packed_int4"
    a = np.zeros(32, np.int8)
    b = np.zeros(32, np.int8)
    a[:2] = [-8, 7]
    b[:2] = [7, 7]
    # -8 is the nibble 0x8 (low), 7 the nibble 0x7 (high): the byte 0x78.
    assert u.pack("a", a)[:2].tolist() == [0x78, 0]
    assert u.dots(a, b, 0).tolist() == -7
    assert u.matmul(a[None], b[:, None]).tolist() == [[-7]]
    # The packed bytes themselves (uint8) read the same.
    assert u.dots(u.pack("a", a), u.pack("b", b), np.uint32(0)).tolist() == -7
    with pytest.raises(ValueError, match=r"a\[0, 5\] = 8: outside s4's range -8\.\.7"):
        u.dots(np.array([[0] * 5 + [8] + [0] * 26]), b[None], [0])
    with pytest.raises(ValueError, match=r"codes\[2\] = -9: outside s4's range -8\.\.7"):
        u.pack("a", np.array([0, 0, -9, 0], np.int8))


def test_b1_xor_and_and_popcount():
    # K = 128 bits. A has bits 0, 1, 2 set; B bits 1, 2, 3, 4. XOR: bits 0, 3, 4 (3 of them);
    # AND: bits 1, 2 (2 of them). With C = 5: 8 and 7.
    ux, ua = _find(*B1_XOR), _find(*B1_AND)
    a = np.zeros(128, bool)
    b = np.zeros(128, bool)
    a[:3] = True
    b[1:5] = True
    assert ux.dots(a, b, 5).tolist() == 8
    assert ua.dots(a, b, 5).tolist() == 7
    # As 0/1 uint8 values through matmul (no C: zero), and as packed bytes: bits 0..2 are
    # 0b111 = 7, bits 1..4 are 0b11110 = 30 (element 8i in bit 0 of byte i).
    assert ux.matmul(a[None].astype(np.uint8), b[:, None]).tolist() == [[3]]
    pa, pb = ux.pack("a", a), ux.pack("b", b)
    assert pa[:2].tolist() == [7, 0] and pb[:2].tolist() == [30, 0]
    assert ua.dots(pa, pb, np.uint32(5)).tolist() == 7
    with pytest.raises(ValueError, match=r"a\[0, 1\] = 2: outside b1's range 0\.\.1"):
        ux.dots(np.array([[0, 2] + [0] * 126]), b[None], [0])


def test_integer_units_chain_k():
    # K = 32 on a K = 16 instruction: two instructions, D fed back as C. All ones: 32 + C 10.
    u = _find(*S8)
    assert u.dots(np.ones((1, 32), np.int8), np.ones((1, 32), np.int8), [10]).tolist() == [42]
