#!/usr/bin/env python3
"""Evaluate dot products with mmasim 2.1.1 (the Python reference model).

Usage (inside the venv, which also puts `ninja` on PATH, needed by mmasim's
import-time C++ build):
    source target/venv-mmasim/bin/activate   # as xtask/scripts/bench_mmasim.sh sets it up
    python mmasim_eval.py cases.jsonl [-o out.jsonl]     # '-' or no file: stdin

Input: JSON Lines, one dot product per line:
  {"vendor":"nvidia"|"amd", "arch":"Hopper", "op":"MMA|WGMMA|TCGen05MMA|MMABlockScale|
   TCGen05MMABlockScale|MFMA", "instr":"<mmasim shape_and_type or MFMA suffix>",
   "a":[hex...], "b":[hex...], "c":hex, "d":hex, "scale_a":[hex...], "scale_b":[hex...]}
Hex strings are raw storage bits.  fp6 sits in bits 5:0 of a byte, fp4 in bits 5:2
(exactly what mmasim expects).  For kind::mxf4 / kind::mxf4nvf4, "a"/"b" are K/2
packed bytes, element 2i in the HIGH nibble, 2i+1 in the low nibble (mmasim's own
packing); a list of K entries is also accepted and then read as one fp4 per byte in
bits 5:2 (like kind::f8f6f4) and packed here.
Scales: K/block entries each for row 0 of A (scale_a) and column 0 of B (scale_b).

The result is row 0 of A times column 0 of B plus C[0,0] with all other matrix entries
zero; every mmasim model computes each output element independently, so this script
calls the simulator's own dpa() on a batch of vectors (one per line), which gives the
same bits as __call__ on full matrices (checked by --selftest).
Output: each input line, unchanged except "d" = mmasim's result bits (lower-case hex,
zero padded to the output width).  A line that cannot be evaluated gets "d": null and
an "error" field.
"""
import argparse
import json
import sys

import torch
from mmasim.nv_ptx import MMA, WGMMA, TCGen05MMA, MMABlockScale, TCGen05MMABlockScale
from mmasim.amd import MFMA

OPS = {
    "MMA": MMA, "WGMMA": WGMMA, "TCGen05MMA": TCGen05MMA,
    "MMABlockScale": MMABlockScale, "TCGen05MMABlockScale": TCGen05MMABlockScale,
    "MFMA": MFMA,
}
ARCH_ALIASES = {
    "ada": "Ada Lovelace", "adalovelace": "Ada Lovelace", "ada_lovelace": "Ada Lovelace",
    "sm_89": "Ada Lovelace", "sm89": "Ada Lovelace",
    "rtxblackwell": "RTX Blackwell", "rtx_blackwell": "RTX Blackwell", "sm_120": "RTX Blackwell",
    "sm120": "RTX Blackwell", "volta": "Volta", "sm_70": "Volta", "turing": "Turing",
    "sm_75": "Turing", "ampere": "Ampere", "sm_80": "Ampere", "hopper": "Hopper",
    "sm_90": "Hopper", "blackwell": "Blackwell", "sm_100": "Blackwell",
    "cdna1": "CDNA1", "cdna2": "CDNA2", "cdna3": "CDNA3",
    "mi100": "CDNA1", "mi200": "CDNA2", "mi250": "CDNA2", "mi300": "CDNA3",
}
OP_ALIASES = {k.lower(): k for k in OPS}
OP_ALIASES.update({"mma.sync": "MMA", "tcgen05.mma": "TCGen05MMA", "mfma": "MFMA"})

# storage integer dtype and hex width per torch dtype
_STORE = {
    torch.float64: (torch.int64, 16), torch.float32: (torch.int32, 8),
    torch.float16: (torch.int16, 4), torch.bfloat16: (torch.int16, 4),
    torch.float8_e4m3fn: (torch.uint8, 2), torch.float8_e5m2: (torch.uint8, 2),
    torch.float8_e8m0fnu: (torch.uint8, 2), torch.float8_e4m3fnuz: (torch.uint8, 2),
    torch.float8_e5m2fnuz: (torch.uint8, 2), torch.uint8: (torch.uint8, 2),
}


def norm_arch(a):
    if a in ("Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell",
             "RTX Blackwell", "CDNA1", "CDNA2", "CDNA3"):
        return a
    return ARCH_ALIASES.get(a.lower().replace(" ", ""), ARCH_ALIASES.get(a.lower(), a))


def norm_op(o):
    return o if o in OPS else OP_ALIASES.get(o.lower(), o)


def to_signed(v, bits):
    return v - (1 << bits) if v >= (1 << (bits - 1)) else v


def tensor_from_hex(rows, dtype):
    """rows: list of lists of hex strings (all same length) -> tensor of dtype."""
    itype, _ = _STORE[dtype]
    bits = {torch.int64: 64, torch.int32: 32, torch.int16: 16, torch.uint8: 8}[itype]
    mask = (1 << bits) - 1
    if itype == torch.uint8:
        vals = [[int(h, 16) & mask for h in r] for r in rows]
    else:
        vals = [[to_signed(int(h, 16) & mask, bits) for h in r] for r in rows]
    t = torch.tensor(vals, dtype=itype)
    return t if dtype == torch.uint8 else t.view(dtype)


def hex_from_tensor(t):
    itype, width = _STORE[t.dtype]
    bits = width * 4
    ints = t.contiguous().view(itype).tolist()
    return [format(v & ((1 << bits) - 1), "0%dx" % width) for v in ints]


_sim_cache = {}


def get_sim(vendor, arch, op, instr):
    key = (arch, op, instr)
    if key not in _sim_cache:
        if op == "MFMA" and instr.startswith("v_mfma_"):
            instr = instr[len("v_mfma_"):]
        _sim_cache[key] = OPS[op](arch, instr)
    return _sim_cache[key]


def pack_fp4(row):
    """K entries, fp4 in bits 5:2 of each -> K/2 bytes, element 2i in high nibble."""
    v = [(int(h, 16) >> 2) & 0xF for h in row]
    return ["%02x" % ((v[2 * i] << 4) | v[2 * i + 1]) for i in range(len(v) // 2)]


def eval_group(sim, recs):
    """Evaluate a list of records that share one simulator.  Returns list of hex."""
    K = sim.k
    packed = getattr(sim, "packing", 1) == 2
    arows, brows = [], []
    for r in recs:
        a, b = list(r["a"]), list(r["b"])
        if packed:
            if len(a) == K:
                a = pack_fp4(a)
            if len(b) == K:
                b = pack_fp4(b)
            want = K // 2
        else:
            want = K
        if len(a) != want or len(b) != want:
            raise ValueError(f"need {want} a/b entries, got {len(a)}/{len(b)}")
        arows.append(a)
        brows.append(b)
    a = tensor_from_hex(arows, sim.a_type)
    b = tensor_from_hex(brows, sim.b_type)
    c = tensor_from_hex([[r["c"]] for r in recs], sim.c_type).reshape(-1)
    if hasattr(sim, "s_type"):
        nblk = K // sim.block_size
        sa = [list(r["scale_a"]) for r in recs]
        sb = [list(r["scale_b"]) for r in recs]
        for x in sa + sb:
            if len(x) != nblk:
                raise ValueError(f"need {nblk} scales per side, got {len(x)}")
        alpha = tensor_from_hex(sa, sim.s_type)
        beta = tensor_from_hex(sb, sim.s_type)
        d = sim.dpa(a, b, c, alpha, beta)
    else:
        d = sim.dpa(a, b, c)
    assert d.dtype == sim.d_type, (d.dtype, sim.d_type)
    return hex_from_tensor(d)


def run(lines, out, batch=4096):
    recs = []
    for ln in lines:
        ln = ln.strip()
        if not ln:
            continue
        recs.append(json.loads(ln))
    groups = {}
    for i, r in enumerate(recs):
        key = (r.get("vendor", ""), norm_arch(r["arch"]), norm_op(r["op"]), r["instr"])
        groups.setdefault(key, []).append(i)
    for key, idxs in groups.items():
        try:
            sim = get_sim(*key)
        except Exception as e:  # unknown instruction etc.
            for i in idxs:
                recs[i]["d"] = None
                recs[i]["error"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
            continue
        for s in range(0, len(idxs), batch):
            chunk = idxs[s:s + batch]
            try:
                ds = eval_group(sim, [recs[i] for i in chunk])
                for i, d in zip(chunk, ds):
                    recs[i]["d"] = d
            except Exception:
                # fall back to one at a time so one bad line does not spoil the batch
                for i in chunk:
                    try:
                        recs[i]["d"] = eval_group(sim, [recs[i]])[0]
                    except Exception as e:
                        recs[i]["d"] = None
                        recs[i]["error"] = f"{type(e).__name__}: {e}"
    for r in recs:
        out.write(json.dumps(r, separators=(",", ":")) + "\n")


def selftest():
    """Check dpa-batching == __call__ on full zero-padded matrices, for one case per op."""
    import random
    rnd = random.Random(1)
    cases = [("nvidia", "Hopper", "WGMMA", "m64n8k16.f32.f16.f16"),
             ("nvidia", "Ada Lovelace", "MMA", "m16n8k32.f32.e4m3.e4m3.f32"),
             ("nvidia", "RTX Blackwell", "MMABlockScale",
              "m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3"),
             ("nvidia", "RTX Blackwell", "MMABlockScale",
              "m16n8k32.kind::mxf8f6f4.block32.f32.e3m2.e2m1.f32.ue8m0"),
             ("amd", "CDNA3", "MFMA", "f32_32x32x8_f16"),
             ("amd", "CDNA3", "MFMA", "f32_32x32x16_fp8_bf8"),
             ("amd", "CDNA2", "MFMA", "f32_32x32x8bf16_1k"),
             ("amd", "CDNA1", "MFMA", "f32_32x32x8f16"),
             ("nvidia", "Hopper", "MMA", "m16n8k16.f64.f64.f64.f64")]
    bad = 0
    for key in cases:
        sim = get_sim(*key)
        K = sim.k
        packed = getattr(sim, "packing", 1) == 2
        ka = K // 2 if packed else K
        _, wa = _STORE[sim.a_type]
        _, wc = _STORE[sim.c_type]

        def rh(w, lim=None):
            v = rnd.getrandbits(4 * w)
            if sim.a_type == torch.uint8 and not packed:
                v &= 0x3F
            return format(v, "0%dx" % w)
        for _ in range(20):
            r = {"a": [rh(wa) for _ in range(ka)], "b": [rh(wa) for _ in range(ka)],
                 "c": format(rnd.getrandbits(4 * wc) & (0x3FFFFFFF if wc == 8 else -1 & ((1 << 4 * wc) - 1)), "0%dx" % wc)}
            if hasattr(sim, "s_type"):
                nb = K // sim.block_size
                r["scale_a"] = ["%02x" % rnd.choice([0x7f, 0x80, 0x3c, 0x38, 0x81, 0x7e]) for _ in range(nb)]
                r["scale_b"] = ["%02x" % rnd.choice([0x7f, 0x80, 0x3c, 0x38, 0x81, 0x7e]) for _ in range(nb)]
            d1 = eval_group(sim, [r])[0]
            # full-matrix __call__ with zero padding
            M, N = 2, 3
            A = torch.zeros((M, ka), dtype=_STORE[sim.a_type][0])
            B = torch.zeros((ka, N), dtype=_STORE[sim.b_type][0])
            C = torch.zeros((M, N), dtype=_STORE[sim.c_type][0])
            A[0] = tensor_from_hex([r["a"]], sim.a_type).view(A.dtype)[0]
            B[:, 0] = tensor_from_hex([r["b"]], sim.b_type).view(B.dtype)[0]
            C[0, 0] = tensor_from_hex([[r["c"]]], sim.c_type).view(C.dtype)[0, 0]
            args = [A if sim.a_type == torch.uint8 else A.view(sim.a_type),
                    B if sim.b_type == torch.uint8 else B.view(sim.b_type),
                    C.view(sim.c_type)]
            if hasattr(sim, "s_type"):
                nb = K // sim.block_size
                al = torch.full((M, nb), 0x7F, dtype=torch.uint8)
                be = torch.full((nb, N), 0x7F, dtype=torch.uint8) if sim.s_type == torch.float8_e8m0fnu else torch.full((nb, N), 0x38, dtype=torch.uint8)
                if sim.s_type != torch.float8_e8m0fnu:
                    al[:] = 0x38
                al[0] = tensor_from_hex([r["scale_a"]], sim.s_type).view(torch.uint8)[0]
                be[:, 0] = tensor_from_hex([r["scale_b"]], sim.s_type).view(torch.uint8)[0]
                args += [al.view(sim.s_type), be.view(sim.s_type)]
            D = sim(*args)
            d2 = hex_from_tensor(D[0, 0].reshape(1))[0]
            if d1 != d2:
                bad += 1
                print("MISMATCH", key, r, d1, d2)
    print("selftest:", "ok" if bad == 0 else f"{bad} mismatches")
    return bad == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", nargs="?", default="-")
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    if args.selftest:
        sys.exit(0 if selftest() else 1)
    fin = sys.stdin if args.input == "-" else open(args.input)
    fout = sys.stdout if args.output == "-" else open(args.output, "w")
    with fin, fout:
        run(fin, fout)


if __name__ == "__main__":
    main()
