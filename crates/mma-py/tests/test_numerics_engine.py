"""The numbers the package returns come from the engine (issue 57, "Numerics only in Rust"):
the engine-backed functions of ``src/numerics.rs`` against independent expectations (values
derived by hand next to each case, or Python's ``fractions.Fraction``, used here in the test
only, as a second arithmetic), and a tidy check that the Python half keeps no arithmetic and
no table of format facts of its own."""

import ast
import pathlib
import re
from fractions import Fraction

import numpy as np
import pytest

import mma
from mma import _mma

PACKAGE = pathlib.Path(mma.__file__).resolve().parent


# The table of formats -------------------------------------------------------------------------
def test_format_table_is_the_engines_list_with_its_facts():
    table = {f["name"]: f for f in _mma.format_table()}
    assert list(table) == mma.formats()
    # IEEE binary16 (IEEE 754 §3.6): 5 exponent bits, 10 fraction bits, bias 15, so normal
    # exponents -14..15; the default quiet NaN 0 11111 1000000000 = 0x7E00, NVIDIA's all-ones
    # NaN 0x7FFF.
    f16 = table["f16"]
    assert (f16["storage_bits"], f16["exp_bits"], f16["man_bits"], f16["bias"]) == (16, 5, 10, 15)
    assert (f16["emin"], f16["emax"], f16["has_inf"], f16["has_nan"]) == (-14, 15, True, True)
    assert (f16["default_nan"], f16["all_ones_nan"]) == (0x7E00, 0x7FFF)
    assert (f16["numpy"], f16["torch"]) == ("float16", "float16")
    # OCP E4M3: no Inf, the top binade finite up to 1.75 * 2^8 = 448 (emax 8), NaN S.1111.111.
    e4m3 = table["e4m3"]
    assert (e4m3["storage_bits"], e4m3["emax"], e4m3["has_inf"], e4m3["has_nan"]) == (8, 8, False, True)
    assert e4m3["default_nan"] == 0x7F and e4m3["numpy"] == "float8_e4m3fn"
    # tf32 sits in f32 words with its 10 fraction bits above 13 ignored ones.
    tf32 = table["tf32"]
    assert (tf32["storage_bits"], tf32["man_bits"], tf32["lsb"]) == (32, 10, 13)
    assert (tf32["numpy"], tf32["torch"]) == (None, "float32")
    # fp4 E2M1 in a byte, finite only; mmasim's tensors of it are uint8 codes.
    e2m1 = table["e2m1"]
    assert (e2m1["storage_bits"], e2m1["width"], e2m1["has_inf"], e2m1["has_nan"]) == (8, 4, False, False)
    assert (e2m1["numpy"], e2m1["torch"]) == ("float4_e2m1fn", "uint8")
    assert _mma.format_canonical("torch.bfloat16") == "bf16"
    assert _mma.format_canonical("float8_e4m3fn") == "e4m3" and _mma.format_canonical("x") is None


# Exact dot products and errors in ulps ------------------------------------------------------
def test_exact_dot_by_hand():
    # f16 1*1 + 2^-24 (0x0001, the smallest subnormal) * 1 + f32 2^24 (0x4b800000):
    # 2^24 + 1 + 2^-24, 49 bits, nothing rounded.
    x = _mma.exact_dot("f16", "f16", "f32", [0x3C00, 0x0001], [0x3C00, 0x3C00], 0x4B800000)
    assert x == Fraction(2**24 + 1) + Fraction(1, 2**24) and isinstance(x, Fraction)
    # Inf * 0 is NaN; +Inf and -Inf together are NaN; one Inf wins over finite terms.
    assert np.isnan(_mma.exact_dot("f16", "f16", "f32", [0x7C00], [0x0000], 0))
    assert np.isnan(_mma.exact_dot("f16", "f16", "f32", [0x7C00, 0xFC00], [0x3C00, 0x3C00], 0))
    assert _mma.exact_dot("f16", "f16", "f32", [0xFC00], [0x3C00], 0x3F800000) == -np.inf
    # e4m3 1.0 (0x38) squared, scaled by ue8m0 2^1 (0x80) and 2^-1 (0x7e): 1.
    assert _mma.exact_dot("e4m3", "e4m3", "f32", [0x38], [0x38], 0, scale=("ue8m0", 32),
                          scale_a=[0x80], scale_b=[0x7E]) == 1
    with pytest.raises(ValueError, match=r"a\[0\] = 0x10000 is not a valid f16 word"):
        _mma.exact_dot("f16", "f16", "f32", [0x10000], [0], 0)


def test_exact_dot_against_fractions():
    rng = np.random.default_rng(7)
    for _ in range(50):
        a = mma.encode("bf16", _bf16_values(rng, 16))
        b = mma.encode("bf16", _bf16_values(rng, 16))
        c = mma.encode("f32", np.array([np.float32(rng.standard_normal()
                                                   * 2.0 ** int(rng.integers(-30, 30)))],
                                       np.float64))[0]
        va, vb = mma.decode("bf16", a), mma.decode("bf16", b)
        want = sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(va, vb)),
                   Fraction(float(mma.decode("f32", np.array([c]))[0])))
        assert _mma.exact_dot("bf16", "bf16", "f32", a.tolist(), b.tolist(), int(c)) == want


def _bf16_values(rng, n):
    """bf16 values over a wide range of binades (f32 words with the low 16 bits cleared)."""
    x = (rng.standard_normal(n) * 2.0 ** rng.integers(-60, 60, n)).astype(np.float32)
    return (x.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32).astype(np.float64)


def test_ulp_error_by_hand():
    x = Fraction(2**30 + 1, 2**30)  # 1 + 2^-30
    # f32 D = 1 (0x3f800000): (1 - x) / 2^-23 = -2^-7.
    assert _mma.ulp_error("f32", 0x3F800000, x) == Fraction(-1, 128)
    # D one ulp up (1 + 2^-23): (2^-23 - 2^-30) / 2^-23 = 1 - 2^-7.
    assert _mma.ulp_error("f32", 0x3F800001, x) == 1 - Fraction(1, 128)
    assert _mma.ulp_error("f32", 0x7F800000, x) is None  # Inf: an infinite error
    # Exact zero: the subnormal quantum 2^-149 is the ulp; -0 is 0 ulps, 0x00000001 one.
    assert _mma.ulp_error("f32", 0x80000000, 0) == 0
    assert _mma.ulp_error("f32", 0x00000001, 0) == 1
    # Below the normal range the quantum stays 2^-149: exact 2^-140, D 2^-140 + 2^-149.
    assert _mma.ulp_error("f32", (1 << 9) + 1, Fraction(1, 2**140)) == 1
    with pytest.raises(ValueError, match="not a binary fraction"):
        _mma.ulp_error("f32", 0, Fraction(1, 3))


def test_campaign_batch_and_merge_against_fractions():
    # A100 bf16 -> f32 on normal samples, with D's words from the unit and some moved by a few
    # ulps (and one made Inf), compared with the test's own Fraction arithmetic.
    u = mma.find("A100", "m16n8k16.f32.bf16.bf16.f32")
    rng = np.random.default_rng(3)
    n, k = 64, 16
    a = mma.encode("bf16", _bf16_values(rng, n * k).reshape(n, k))
    b = mma.encode("bf16", _bf16_values(rng, n * k).reshape(n, k))
    c = mma.encode("f32", rng.standard_normal(n).astype(np.float32).astype(np.float64))
    d = u.dots(a.astype(np.uint16), b.astype(np.uint16), c.astype(np.uint32)).astype(np.uint64)
    d[:8] += np.arange(8, dtype=np.uint64)  # up to 7 ulps off (same binade: normal samples)
    d[8] = 0x7F800000
    part = _mma.campaign_batch(u._u, a, b, c, d)

    def frac(pair):
        m, e = pair
        return Fraction(m) * Fraction(2) ** e

    errs = []
    for i in range(n):
        if i == 8:
            continue
        va, vb = mma.decode("bf16", a[i]), mma.decode("bf16", b[i])
        x = sum((Fraction(float(p)) * Fraction(float(q)) for p, q in zip(va, vb)),
                Fraction(float(mma.decode("f32", c[i:i + 1])[0])))
        dv = Fraction(float(mma.decode("f32", d[i:i + 1])[0]))
        e = -126 if x == 0 else max(_floor_log2(abs(x)), -126)  # f32: ulp = 2^(e - 23)
        errs.append(((dv - x) / Fraction(2) ** (e - 23), x, i))
    assert (part["finite"], part["nonfinite"]) == (n - 1, 1)
    half = Fraction(1, 2)
    assert part["correctly_rounded"] == sum(
        1 for s, _, i in errs if abs(s) < half or (abs(s) == half and int(d[i]) % 2 == 0))
    assert frac(part["sum"]) == sum(abs(s) for s, _, _ in errs)
    edges = [Fraction(0), half] + [Fraction(2) ** j for j in range(21)]
    hist = [0] * 24
    for s, _, _ in errs:
        hist[next((j for j, edge in enumerate(edges) if abs(s) <= edge), 23)] += 1
    assert part["hist"] == hist
    top, x, row = max(errs, key=lambda t: (abs(t[0]), -t[2]))
    w = part["worst"]
    assert w["row"] == row and frac(w["err"]) == abs(top) and frac(w["ulps"]) == top
    assert frac(w["exact"]) == x
    # Merging two copies: counts double, the maximum and mean are the same numbers.
    second = dict(part, worst=dict(part["worst"], tag="second"))
    first = dict(part, worst=dict(part["worst"], tag="first"))
    tot = _mma.campaign_merge([first, second])
    assert (tot["finite"], tot["nonfinite"]) == (2 * (n - 1), 2)
    assert tot["max_ulps"] == float(abs(top))
    assert tot["mean_ulps"] == float(sum(abs(s) for s, _, _ in errs) / (n - 1))
    assert tot["worst"]["tag"] == "first" and "err" not in tot["worst"]  # ties keep the first
    assert tot["worst"]["ulps"] == float(top) and tot["worst"]["exact"] == x
    labels = ["0", "(0, 1/2]", "(1/2, 1]"] + [f"({2 ** (j - 1)}, {2 ** j}]" for j in range(1, 21)]
    assert list(tot["histogram"]) == labels + ["> 1048576"] == _mma.campaign_bins()
    assert list(tot["histogram"].values()) == [2 * h for h in hist]
    empty = _mma.campaign_merge([])
    assert np.isnan(empty["mean_ulps"]) and empty["max_ulps"] == 0.0 and empty["worst"] is None


def _floor_log2(x):
    n, d = x.numerator, x.denominator
    e = n.bit_length() - d.bit_length()
    return e if (n << max(0, -e)) >= (d << max(0, e)) else e - 1


# The mma.torch epilogue -------------------------------------------------------------------
def test_epilogue_by_hand():
    f32 = lambda *w: np.array(w, np.uint64)  # noqa: E731
    # f32 -> bf16, ties to even: 1 + 2^-8 (0x3F808000) to 1.0; 1 + 2^-7 + 2^-8 (0x3F818000)
    # to 1 + 2^-6 (0x3F82); 2^128 - 2^119 (0x7F7F8000, a tie above bf16's max) to Inf.
    got = _mma.epilogue("nvidia", "f32", f32(0x3F808000, 0x3F818000, 0x7F7F8000), "bf16")
    assert got.tolist() == [0x3F80, 0x3F82, 0x7F80]
    # D + bias in one binary32 addition: 1 + 2^-24 (f32 0x33800000) is a tie, to 1.0; 1 +
    # 3 * 2^-25 (0x33C00000) rounds up to 1 + 2^-23; +0 + -0 is +0, -0 + -0 is -0.
    got = _mma.epilogue("nvidia", "f32", f32(0x3F800000, 0x3F800000, 0, 0x80000000), "f32",
                        f32(0x33800000, 0x33C00000, 0x80000000, 0x80000000))
    assert got.tolist() == [0x3F800000, 0x3F800001, 0, 0x80000000]
    # f16 D + f16 bias to f16: 65504 + 16 = 65520 in binary32, then a tie to Inf in f16.
    assert _mma.epilogue("nvidia", "f16", f32(0x7BFF), "f16", f32(0x4C00)).tolist() == [0x7C00]
    # NaN: every bit but the sign for NVIDIA, the IEEE default quiet NaN for AMD (Inf - Inf).
    inf, ninf = f32(0x7F800000), f32(0xFF800000)
    assert _mma.epilogue("nvidia", "f32", inf, "f32", ninf).tolist() == [0x7FFFFFFF]
    assert _mma.epilogue("amd", "f32", inf, "f32", ninf).tolist() == [0x7FC00000]
    assert _mma.epilogue("amd", "f32", inf, "f16", f32(0xFC00)).tolist() == [0x7E00]  # bias f16
    assert _mma.epilogue("nvidia", "f32", f32(0x7FC00001), "bf16").tolist() == [0x7FFF]
    with pytest.raises(ValueError, match="the epilogue takes f32, f16 or bf16"):
        _mma.epilogue("nvidia", "f64", f32(0), "f32")


# Scales given as text --------------------------------------------------------------------
@pytest.mark.parametrize("text, bits", [
    ("0.5", 0x3F000000), ("0x1p-1", 0x3F000000), ("bits:40000000", 0x40000000),
    ("BITS:0x3f800000", 0x3F800000), ("-0x1.8p1", 0xC0400000), ("1e-3", None),
    ("0.1", None), ("1e39", None), ("0x1.000001p0", None), ("-0", 0),
    ("340282346638528859811704183484516925440", 0x7F7FFFFF),
])
def test_parse_f32_exact(text, bits):
    # By hand: 0.5 = 2^-1 (exponent 126: 0x3F000000); -3 = -1.5 * 2^1 (0xC0400000); 1e-3 and
    # 0.1 are no binary fractions; 1e39 is beyond binary32; 1 + 2^-24 needs 24 fraction bits;
    # float32's largest value is (2 - 2^-23) * 2^127. A zero scale is +0.
    assert _mma.parse_f32_exact(text) == bits


@pytest.mark.parametrize("text", ["abc", "inf", "nan", "bits:1ffffffff", "bits:7f800000", ""])
def test_parse_f32_exact_refuses(text):
    with pytest.raises(ValueError):
        _mma.parse_f32_exact(text)


# Tidy: no arithmetic and no format facts of the Python half's own --------------------------
def _sources():
    files = sorted(PACKAGE.glob("*.py"))
    assert files, f"no Python sources under {PACKAGE}"
    return [(p, ast.parse(p.read_text(), str(p))) for p in files]


def test_the_package_does_no_exact_arithmetic_of_its_own():
    for path, tree in _sources():
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0] in ("fractions", "decimal") for n in names), \
                f"{path.name}:{node.lineno}: exact arithmetic belongs to the engine (_mma)"
        assert not re.search(r"\bFraction\(|\bfrexp\(|\bldexp\(", path.read_text()), \
            f"{path.name}: rounding or exact sums in Python; ask the engine (_mma)"


def test_no_literal_table_of_format_facts_in_the_package():
    formats = set(mma.formats())
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Dict):
                continue
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            values = [v.value for v in node.values if isinstance(v, ast.Constant)]
            by_format = sum(1 for k in keys if k in formats)
            to_format = sum(1 for v in values if isinstance(v, str) and v in formats)
            # {8: np.uint8, ...} or {1: torch.uint8, ...}: word dtypes by width.
            by_width = sum(1 for k in keys if type(k) is int and k in (1, 2, 4, 8, 16, 32, 64))
            assert by_format < 2 and to_format < 2 and by_width < 2, (
                f"{path.name}:{node.lineno}: a literal table of format facts; take them from "
                "the engine's table (_mma.format_table, mma._FORMATS)")
