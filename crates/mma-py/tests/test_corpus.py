"""Every line of vectors/mmasim/** through ``Unit.dots``, in one batch per instruction, bit for
bit under the rules of the Rust tests:

- NVIDIA (crates/mma/tests/mmasim_nvidia.rs): every line matches, except that on the fp64 FMA
  path (model FMA) a line whose mmasim result is a NaN (its bits come from the host CPU) must
  give the project's all-ones NaN.
- AMD (crates/mma-amd/tests/mmasim_corpus.rs): where mmasim's result is a NaN only NaN-ness is
  compared; lines that ``mma::amd::known_difference`` names are checked against the IEEE result
  the crate documents instead of against mmasim.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import mma
from mma import _mma

VECTORS = Path(__file__).resolve().parents[3] / "vectors" / "mmasim"
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _lines(path: Path):
    for n, line in enumerate(path.read_text().splitlines(), 1):
        t = line.strip()
        if not t or t.startswith("#") or t.startswith("//"):
            continue
        yield n, json.loads(t)


def _hexes(xs):
    return [int(x, 16) for x in xs]


def _groups(vendor: str):
    """Lines grouped by instruction: (arch, op, instr) -> list of (where, record)."""
    files = sorted((VECTORS / vendor).glob("*.jsonl"))
    groups = defaultdict(list)
    for f in files:
        for n, rec in _lines(f):
            groups[(rec["arch"], rec.get("op"), rec["instr"])].append((f"{f.name}:{n}", rec))
    return files, groups


def _batch(unit: mma.Unit, recs):
    """The records' words as Unit.dots arrays, and mmasim's D."""
    dt = {w: unit._word_dtype(w) for w in "abcd"}
    a = np.array([_hexes(r["a"]) for _, r in recs], dtype=dt["a"])
    b = np.array([_hexes(r["b"]) for _, r in recs], dtype=dt["b"])
    c = np.array([int(r["c"], 16) for _, r in recs], dtype=dt["c"])
    want = np.array([int(r["d"], 16) for _, r in recs], dtype=dt["d"])
    sa = sb = None
    if unit.formats["scale"] is not None:
        sa = np.array([_hexes(r["scale_a"]) for _, r in recs], dtype=np.uint8)
        sb = np.array([_hexes(r["scale_b"]) for _, r in recs], dtype=np.uint8)
    return a, b, c, sa, sb, want


def _is_nan(fmt: str, words: np.ndarray) -> np.ndarray:
    return np.isnan(mma.decode(fmt, words.astype(np.uint64)))


def test_every_nvidia_line_matches_mmasim():
    files, groups = _groups("nvidia")
    assert len(files) >= 7, f"expected one file per architecture, found {files}"
    passed = excluded = 0
    per_file = defaultdict(int)
    failed = []
    for (arch, op, instr), recs in groups.items():
        unit = mma.find(arch, instr, "nvidia", op=op)
        a, b, c, sa, sb, want = _batch(unit, recs)
        got = unit.dots(a, b, c, sa, sb)
        dfmt = unit.formats["d"]
        host_nan = (
            _is_nan(dfmt, want) if unit.model == "FMA" else np.zeros(len(want), dtype=bool)
        )
        all_ones = (1 << 63) - 1 if dfmt == "f64" else None
        for i, (where, _) in enumerate(recs):
            if host_nan[i]:
                # mmasim's NaN bits come from the host's std::fma: the model must give the
                # all-ones NaN (crates/mma/tests/mmasim_nvidia.rs).
                if int(got[i]) == all_ones:
                    excluded += 1
                else:
                    failed.append(f"{where}: host NaN line gives {int(got[i]):#x}")
            elif got[i] == want[i]:
                passed += 1
                per_file[where.split(":")[0]] += 1
            else:
                failed.append(
                    f"{where}: {arch} {instr}: mmasim {int(want[i]):#x}, model {int(got[i]):#x}"
                )
    print(f"nvidia: {passed} passed, {len(failed)} failed, {excluded} excluded (fp64 host NaN)")
    for f in files:
        assert per_file[f.name] > 0, f"{f.name}: no line passed"
    assert not failed, f"{len(failed)} mismatches, first:\n" + "\n".join(failed[:20])
    assert passed + excluded == sum(len(r) for r in groups.values())


def test_every_amd_line_matches_mmasim():
    files, groups = _groups("amd")
    assert [f.name for f in files] == ["CDNA1.jsonl", "CDNA2.jsonl", "CDNA3.jsonl"]
    compared = defaultdict(int)
    passed = nan_only = differences = 0
    failed = []
    for (arch, _op, instr), recs in groups.items():
        unit = mma.find(arch, instr, "amd")
        a, b, c, _, _, want = _batch(unit, recs)
        got = unit.dots(a, b, c)
        f = unit.formats
        got_nan, want_nan = _is_nan(f["d"], got), _is_nan(f["d"], want)
        for i, (where, _) in enumerate(recs):
            diff = _mma.amd_known_difference(
                arch, instr, [int(x) for x in a[i]], [int(x) for x in b[i]], int(c[i])
            )
            if diff is not None:
                differences += 1
                ok, why = _ieee_expectation(unit, diff, a[i], b[i], c[i], got[i])
                if not ok:
                    failed.append(f"{where}: {diff}: {why}")
                continue
            compared[arch] += 1
            if want_nan[i]:
                nan_only += 1
                ok = bool(got_nan[i])
            else:
                ok = got[i] == want[i]
            if ok:
                passed += 1
            else:
                failed.append(f"{where}: mmasim {int(want[i]):#x}, model {int(got[i]):#x}")
    print(
        f"amd: {passed} passed / {sum(compared.values())} compared ({nan_only} NaN-only), "
        f"{differences} documented-difference lines checked against IEEE"
    )
    for arch in ("CDNA1", "CDNA2", "CDNA3"):
        assert compared[arch] > 500, f"{arch}: too few corpus lines"
    assert not failed, f"{len(failed)} mismatches, first:\n" + "\n".join(failed[:25])


def _ieee_expectation(unit, diff, a, b, c, got):
    """The result the DIFFERENCES section of mma-amd prescribes (as the Rust test checks)."""
    f = unit.formats
    g = mma.decode(f["d"], np.array([got], dtype=np.uint64))[0]
    any_nan = (
        np.isnan(mma.decode(f["a"], a.astype(np.uint64))).any()
        or np.isnan(mma.decode(f["b"], b.astype(np.uint64))).any()
        or np.isnan(mma.decode(f["c"], np.array([c], dtype=np.uint64)))[0]
    )
    cval = mma.decode(f["c"], np.array([c], dtype=np.uint64))[0]
    if diff == "NonFiniteCDropped":
        ok = np.isnan(g) if any_nan else (g == cval and np.signbit(g) == np.signbit(cval))
        return ok, f"got {g}, IEEE gives {'NaN' if any_nan else cval}"
    if diff == "NegativeZeroSum":
        return (g == 0 and np.signbit(g)), f"got {g}, IEEE gives -0"
    if diff == "NanOperandDropped":
        return bool(np.isnan(g)), f"got {g}, IEEE gives NaN"
    return False, f"unknown difference class {diff}"


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_thread_count_does_not_change_corpus_results(threads):
    """A large batch (the Blackwell corpus of one instruction, repeated past several chunks)
    gives the same words on any number of threads as on one."""
    _, groups = _groups("nvidia")
    (arch, op, instr), recs = max(groups.items(), key=lambda kv: len(kv[1]))
    unit = mma.find(arch, instr, "nvidia", op=op)
    a, b, c, sa, sb, want = _batch(unit, recs)
    reps = 40000 // len(recs) + 1  # several chunks of 131072 / K rows
    tile = lambda x: None if x is None else np.tile(x, (reps, 1) if x.ndim == 2 else reps)
    got1 = unit.dots(tile(a), tile(b), tile(c), tile(sa), tile(sb), threads=1)
    gotn = unit.dots(tile(a), tile(b), tile(c), tile(sa), tile(sb), threads=threads)
    assert np.array_equal(got1, gotn)
    assert np.array_equal(got1[: len(want)], want)
