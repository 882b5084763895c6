// `mma_probe --self-test` of the HIP harness (host only, no GPU): the layout functions against
// the calculator's equations written out separately, the published examples and a simulated
// MFMA; the instruction table (operand sizes against shapes, the catalog's 165 CDNA1-CDNA4 MFMA names in
// 215 rows; the f8f6f4 rows' cbsz/blgp codes against their formats).
// `--self-test --mutate N` (N = 1..7, g_mutation in layouts.h and runner.h) breaks one rule on
// purpose and must fail; check.sh runs every N.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>
#include "caseio.h"
#include "formats.h"
#include "instrs.h"
#include "layouts.h"
#include "runner.h"

// ---------------------------------------------------------------------------------------------
// Self-test (host only): the layout functions against each other, the published examples and a
// simulated MFMA
// ---------------------------------------------------------------------------------------------

// The calculator's printed per-shape equations (InstCalcGfx9._coord_to_lane_eqn,
// _coord_to_output_reg_eqn, _coord_to_input_reg_eqn), written out separately from in_loc() and
// out_loc(); the slot count per lane comes from the builtin's operand size, not from M K B / 64.
static Loc eq_in(const Op &op, bool is_b, int i, int k, int b) {
  int M = is_b ? op.n : op.m;
  int div = std::max(M * op.k * op.blocks / 64, 1);
  int lane = (op.blocks > 1 ? M * b : 0) + (M * op.blocks < 64 ? M * op.blocks * (k / div) : 0) + i;
  int per_lane = std::max(op.reg_bytes(is_b) * 8 / op.bits(is_b), 1);
  return {lane, k % per_lane};
}
static Loc eq_out(const Op &op, int i, int j, int b) {
  const int M = op.m, N = op.n;
  if (op.out_bits() == 64) {
    int lane = 16 * (i % 4) + (M * N < 64 ? N * b : 0) + j;
    if (op.blocks == 1) return {lane, i / 4};
    if (op.blocks == 4) return {lane, 0};
    return {-1, -1};
  }
  int lane = (N * M / 4 > 64 ? (N * (i / 4)) % 64 : N * M / 4 == 64 ? N * (i / 4) : 0) +
             (M * N < 64 ? N * b : 0) + j;
  if (M == 4 && N == 4 && op.blocks == 16) return {lane, i};
  if (M == 16 && N == 16 && op.blocks == 4) return {lane, 4 * b + i % 4};
  if (M == 16 && N == 16 && op.blocks == 1) return {lane, i % 4};
  if (M == 32 && N == 32 && op.blocks == 2) return {lane, 16 * b + 4 * (i / 8) + i % 4};
  if (M == 32 && N == 32 && op.blocks == 1) return {lane, 4 * (i / 8) + i % 4};
  return {-1, -1};
}

// A stand-in for the device: decodes the images with the equations above (not with in_loc and
// out_loc), computes every block of A B + C exactly (small integers) and encodes D the same way.
// Scaled MFMAs: each product times the ue8m0 scales (byte 0) of the lanes that hold its A and
// its B element (the lanes the equations give).
static bool simulate(int opi, size_t n, const std::vector<uint64_t> &a, const std::vector<uint64_t> &b,
                     const std::vector<uint32_t> &c, const std::vector<uint32_t> &sc, std::vector<uint32_t> &d,
                     std::string &) {
  const Op &op = OPS[opi];
  for (size_t cs = 0; cs < n; cs++)
    for (int bl = 0; bl < op.blocks; bl++)
      for (int i = 0; i < op.m; i++)
        for (int j = 0; j < op.n; j++) {
          double s = decode(op.cd, get_out(op, c, cs, eq_out(op, i, j, bl)));
          for (int k = 0; k < op.k; k++) {
            Loc la = eq_in(op, false, i, k, bl), lb = eq_in(op, true, j, k, bl);
            double p = decode(op.a, get_in(op, false, a, cs, la)) * decode(op.b, get_in(op, true, b, cs, lb));
            if (op.scaled())
              p *= decode(UE8M0, sc[(cs * 64 + la.lane) * 2] & 0xff) * decode(UE8M0, sc[(cs * 64 + lb.lane) * 2 + 1] & 0xff);
            s += p;
          }
          put_out(op, d, cs, eq_out(op, i, j, bl), encode_out(op.cd, s));
        }
  return true;
}

struct Tally {
  long checks = 0, failed = 0;
  void expect(bool ok, const std::string &what) {
    checks++;
    if (!ok && failed++ < 12) std::cerr << "self-test FAILED: " << what << "\n";
  }
};

static std::string ls(Loc l) { return "(lane " + std::to_string(l.lane) + ", slot " + std::to_string(l.slot) + ")"; }

static void test_op(int opi, Tally &t) {
  const Op &op = OPS[opi];
  const std::string nm = op.id;
  const int e_a = op.k * op.m * op.blocks / 64, e_b = op.k * op.n * op.blocks / 64;
  const int outs = op.m * op.n * op.blocks / 64;
  // The table: operand sizes follow from the shape (A and B apart: f8f6f4 mixes widths).
  t.expect(op.k * op.m * op.blocks % 64 == 0 && e_a * op.a_bits() == op.reg_bytes(false) * 8,
           nm + ": A operand size " + std::to_string(op.reg_bytes(false)) + " bytes vs shape");
  t.expect(e_b * op.b_bits() == op.reg_bytes(true) * 8, nm + ": B operand size vs shape");
  t.expect(op.reg_bytes(false) <= op.opnd_bytes && op.reg_bytes(true) <= op.opnd_bytes &&
               op.opnd_bytes <= MAX_OPND_BYTES,
           nm + ": data larger than the builtin's operand or the image");
  t.expect(outs * op.out_bits() == op.acc_bytes * 8, nm + ": C/D operand size vs shape");
  t.expect(op.f8f6f4 || FMTS[op.a].bits == FMTS[op.b].bits, nm + ": A and B widths");
  if (op.f8f6f4) {
    // The row's formats are the ones its cbsz/blgp codes select; one block of M = N, K = 128
    // (16x16) or 64 (32x32): 32 elements per lane, one scale block.
    t.expect(op.cbsz >= 0 && op.cbsz < 5 && F8F6F4_CODE[op.cbsz] == op.a, nm + ": cbsz does not select A's format");
    t.expect(op.blgp >= 0 && op.blgp < 5 && F8F6F4_CODE[op.blgp] == op.b, nm + ": blgp does not select B's format");
    t.expect(e_a == 32 && e_b == 32 && op.blocks == 1 && op.m == op.n && op.m * op.k == 2048,
             nm + ": f8f6f4 shape: 32 elements per lane");
    t.expect(op.opnd_bytes == 32 && op.archs == CDNA4, nm + ": f8f6f4: int8 operands, gfx950 only");
  }

  // Every element of A, B and C/D (all blocks) in range and in exactly one place, and at the
  // place the calculator's equations give.
  std::vector<int> seen_a(64 * e_a, 0), seen_b(64 * e_b, 0), seen_c(64 * outs, 0);
  for (int b = 0; b < op.blocks; b++) {
    for (int i = 0; i < op.m; i++)
      for (int k = 0; k < op.k; k++) {
        Loc l = a_loc(op, i, k, b), q = eq_in(op, false, i, k, b);
        bool in = l.lane >= 0 && l.lane < 64 && l.slot >= 0 && l.slot < e_a;
        t.expect(in, nm + ": A[" + std::to_string(i) + "][" + std::to_string(k) + "] out of range " + ls(l));
        if (in) seen_a[l.lane * e_a + l.slot]++;
        t.expect(l == q, nm + ": A[" + std::to_string(i) + "][" + std::to_string(k) + "] block " +
                             std::to_string(b) + " at " + ls(l) + ", equations say " + ls(q));
      }
    for (int k = 0; k < op.k; k++)
      for (int j = 0; j < op.n; j++) {
        Loc l = b_loc(op, k, j, b), q = eq_in(op, true, j, k, b);
        bool in = l.lane >= 0 && l.lane < 64 && l.slot >= 0 && l.slot < e_b;
        t.expect(in, nm + ": B[" + std::to_string(k) + "][" + std::to_string(j) + "] out of range " + ls(l));
        if (in) seen_b[l.lane * e_b + l.slot]++;
        t.expect(l == q, nm + ": B[" + std::to_string(k) + "][" + std::to_string(j) + "] block " +
                             std::to_string(b) + " at " + ls(l) + ", equations say " + ls(q));
      }
    for (int i = 0; i < op.m; i++)
      for (int j = 0; j < op.n; j++) {
        Loc l = out_loc(op, i, j, b), q = eq_out(op, i, j, b);
        bool in = l.lane >= 0 && l.lane < 64 && l.slot >= 0 && l.slot < outs;
        t.expect(in, nm + ": D[" + std::to_string(i) + "][" + std::to_string(j) + "] out of range " + ls(l));
        if (in) seen_c[l.lane * outs + l.slot]++;
        t.expect(l == q, nm + ": D[" + std::to_string(i) + "][" + std::to_string(j) + "] block " +
                             std::to_string(b) + " at " + ls(l) + ", equations say " + ls(q));
      }
  }
  for (int s : seen_a) t.expect(s == 1, nm + ": an A (lane, slot) holds " + std::to_string(s) + " elements");
  for (int s : seen_b) t.expect(s == 1, nm + ": a B (lane, slot) holds " + std::to_string(s) + " elements");
  for (int s : seen_c) t.expect(s == 1, nm + ": a C/D (lane, register) holds " + std::to_string(s) + " elements");
  if (op.f8f6f4)  // a scale block (32 consecutive k of one row of A / column of B) in one lane
    for (int k = 0; k < op.k; k++)
      for (int i = 0; i < op.m; i++) {
        t.expect(scale_lane(op, false, i, k) == scale_lane(op, false, i, k - k % 32), nm + ": A scale block split over lanes");
        t.expect(scale_lane(op, true, i, k) == scale_lane(op, true, i, k - k % 32), nm + ": B scale block split over lanes");
      }

  // A case as run_cases packs it: each element of A row 0 and B column 0 in exactly one
  // (lane, slot) of the image and nothing else set; C[0][0] in exactly one (lane, register); the
  // result read from the one place D[0][0] has; the scales of the scaled MFMAs in the lanes that
  // hold their blocks and 127 (2^0) everywhere else. Markers stand for the elements: 1, 2, ...
  // for the elements of one round, as many rounds as the narrowest width needs (fp4: 15 a round).
  const int round = (1 << std::min(std::min(op.a_bits(), op.b_bits()), 8)) - 1;
  for (int r0 = 0; r0 < op.k; r0 += round) {
    std::vector<Case> cases(1);
    cases[0].line = 0;
    for (int k = 0; k < op.k; k++) {
      bool mine = k >= r0 && k < r0 + round;
      cases[0].a.push_back(mine ? (uint64_t)(k - r0 + 1) : 0);
      cases[0].b.push_back(mine ? (uint64_t)(k - r0 + 1) : 0);
    }
    for (int g = 0; op.scaled() && g < op.k / 32; g++) {
      cases[0].sa.push_back((uint64_t)(1 + g));
      cases[0].sb.push_back((uint64_t)(201 + g));
    }
    cases[0].c = 0x5a;
    std::vector<uint64_t> ai, bi;
    std::vector<uint32_t> ci, si;
    Launcher grab = [&](int, size_t, const std::vector<uint64_t> &a, const std::vector<uint64_t> &b,
                        const std::vector<uint32_t> &c, const std::vector<uint32_t> &s, std::vector<uint32_t> &d,
                        std::string &) {
      ai = a;
      bi = b;
      ci = c;
      si = s;
      std::fill(d.begin(), d.end(), 0u);
      put_out(op, d, 0, eq_out(op, 0, 0, 0), 0x77);  // D[0][0] where the equations put it
      return true;
    };
    std::string err;
    bool ok = run_cases(opi, cases, grab, err);
    t.expect(ok, nm + ": run_cases: " + err);
    t.expect(cases[0].d == 0x77, nm + ": D[0][0] read from the wrong place");
    t.expect(ai.size() == 64 * IW && bi.size() == 64 * IW && si.size() == 128, nm + ": image sizes");
    if (ai.size() != 64 * IW || bi.size() != 64 * IW || si.size() != 128) continue;
    const int n_this = std::min(round, op.k - r0);
    std::vector<int> count_a(n_this, 0), count_b(n_this, 0);
    for (int lane = 0; lane < 64; lane++) {
      for (int s = 0; s < e_a; s++) {
        uint64_t v = get_in(op, false, ai, 0, {lane, s});
        if (!v) continue;
        bool marker = v >= 1 && v <= (uint64_t)n_this;
        t.expect(marker, nm + ": A image holds a stray value at " + ls({lane, s}));
        if (!marker) continue;
        count_a[v - 1]++;
        t.expect(eq_in(op, false, 0, r0 + (int)v - 1, 0) == Loc{lane, s},
                 nm + ": A[0][" + std::to_string(r0 + v - 1) + "] packed at " + ls({lane, s}));
      }
      for (int s = 0; s < e_b; s++) {
        uint64_t v = get_in(op, true, bi, 0, {lane, s});
        if (!v) continue;
        bool marker = v >= 1 && v <= (uint64_t)n_this;
        t.expect(marker, nm + ": B image holds a stray value at " + ls({lane, s}));
        if (!marker) continue;
        count_b[v - 1]++;
        t.expect(eq_in(op, true, 0, r0 + (int)v - 1, 0) == Loc{lane, s},
                 nm + ": B[" + std::to_string(r0 + v - 1) + "][0] packed at " + ls({lane, s}));
      }
      // No bit set beyond the data of the lane's operand.
      for (int w = 0; w < IW; w++) {
        int lo = 64 * w, nb_a = op.reg_bytes(false) * 8, nb_b = op.reg_bytes(true) * 8;
        uint64_t beyond_a = nb_a <= lo ? ~0ull : nb_a >= lo + 64 ? 0 : ~0ull << (nb_a - lo);
        uint64_t beyond_b = nb_b <= lo ? ~0ull : nb_b >= lo + 64 ? 0 : ~0ull << (nb_b - lo);
        t.expect(!(ai[lane * IW + w] & beyond_a) && !(bi[lane * IW + w] & beyond_b),
                 nm + ": bits set beyond the operand in lane " + std::to_string(lane));
      }
      // Scales: the block's lane carries it, every other lane 2^0.
      for (int ab = 0; ab < 2; ab++) {
        uint32_t want = SCALE_ONE;
        for (int g = 0; op.scaled() && g < op.k / 32; g++)
          if (eq_in(op, ab == 1, 0, 32 * g, 0).lane == lane) want = ab ? 201 + g : 1 + g;
        t.expect(si[lane * 2 + ab] == want, nm + ": scale_" + (ab ? "b" : "a") + " of lane " + std::to_string(lane) +
                                                 " is " + std::to_string(si[lane * 2 + ab]) + ", want " + std::to_string(want));
      }
    }
    for (int k = 0; k < n_this; k++) {
      t.expect(count_a[k] == 1, nm + ": A[0][" + std::to_string(r0 + k) + "] packed " + std::to_string(count_a[k]) + " times");
      t.expect(count_b[k] == 1, nm + ": B[" + std::to_string(r0 + k) + "][0] packed " + std::to_string(count_b[k]) + " times");
    }
    int count_c = 0;
    for (int lane = 0; lane < 64; lane++)
      for (int s = 0; s < outs; s++) {
        uint64_t v = get_out(op, ci, 0, {lane, s});
        if (!v) continue;
        count_c++;
        t.expect(v == 0x5a && eq_out(op, 0, 0, 0) == Loc{lane, s},
                 nm + ": C image holds " + std::to_string(v) + " at " + ls({lane, s}) + ", C[0][0] is 90");
      }
    t.expect(count_c == 1, nm + ": C[0][0] packed " + std::to_string(count_c) + " times");
  }

// Whole matrices through the simulated device, and chained dot products (mixed lengths: 1, 2
  // and 3 calls) through run_cases.
  std::string report;
  t.expect(layout_check(opi, simulate, 2, 7 + opi, report), nm + ": simulated layout check: " + report);
  {
    std::mt19937 rng(100 + opi);
    std::uniform_int_distribution<int> small(-2, 2), cval(-3, 3);
    std::vector<Case> cases;
    std::vector<long> want;
    std::vector<double> want_d;
    for (int calls = 1; calls <= 3; calls++)
      for (int rep = 0; rep < 3; rep++) {
        Case cs;
        cs.line = cases.size();
        long c = cval(rng), s = c;
        cs.c = encode_small(op.cd, (int)c);
        std::vector<int> ea, eb;  // scaled: exponents of the blocks (2^-1 .. 2^1)
        for (int g = 0; op.scaled() && g < calls * op.k / 32; g++) {
          ea.push_back(small(rng) / 2);
          eb.push_back(small(rng) / 2);
          cs.sa.push_back((uint64_t)(127 + ea.back()));
          cs.sb.push_back((uint64_t)(127 + eb.back()));
        }
        double sd = 0;
        for (int k = 0; k < calls * op.k; k++) {
          int x = small(rng), y = small(rng);
          cs.a.push_back(encode_small(op.a, x));
          cs.b.push_back(encode_small(op.b, y));
          if (op.scaled())
            sd += ldexp((double)x * y, ea[k / 32] + eb[k / 32]);
          else
            s += (long)x * y;
        }
        if (op.scaled()) {  // products of 2^-2 .. 2^2 times small integers: exact in f32
          cases.push_back(cs);
          want_d.push_back(sd + (double)s);
          want.push_back(0);
          continue;
        }
        want_d.push_back((double)s);
        cases.push_back(cs);
        want.push_back(s);
      }
    std::string err;
    bool ok = run_cases(opi, cases, simulate, err);
    t.expect(ok, nm + ": chained run: " + err);
    for (size_t i = 0; ok && i < cases.size(); i++)
      t.expect(cases[i].d == encode_out(op.cd, want_d[i]),
               nm + ": chained case " + std::to_string(i) + " (" + std::to_string(cases[i].a.size()) +
                   " elements): d = " + std::to_string(decode(op.cd, cases[i].d)) + ", want " + std::to_string(want_d[i]));
  }
}

// The examples of "Matrix Core Programming on AMD CDNA3 and CDNA4 architecture" (ROCm blogs,
// 2025), sections 5.1-5.3, transcribed from their kernels' index arithmetic: lane t (threadIdx.x)
// and element s of its operand vector.
static void test_published(Tally &t) {
  const Op &f32 = OPS[op_index("f32_32x32x2f32")];
  const Op &f16 = OPS[op_index("f32_16x16x16f16")];
  const Op &fp8 = OPS[op_index("f32_32x32x16_fp8_fp8")];
  for (int lane = 0; lane < 64; lane++) {
    // 5.1: a = A[t%32][t/32], b = B[t/32][t%32]; c_reg[4i+s] = C[(t/32)*4 + s + 8i][t%32]
    t.expect(a_loc(f32, lane % 32, lane / 32, 0) == Loc{lane, 0}, "blog 5.1 A, lane " + std::to_string(lane));
    t.expect(b_loc(f32, lane / 32, lane % 32, 0) == Loc{lane, 0}, "blog 5.1 B, lane " + std::to_string(lane));
    for (int r = 0; r < 16; r++)
      t.expect(out_loc(f32, (lane / 32) * 4 + r % 4 + 8 * (r / 4), lane % 32, 0) == Loc{lane, r},
               "blog 5.1 C, lane " + std::to_string(lane) + " reg " + std::to_string(r));
    // 5.2: a[s] = A[t%16][4(t/16)+s], b[s] = B[4(t/16)+s][t%16]; c[s] = C[s + 4(t/16)][t%16]
    for (int s = 0; s < 4; s++) {
      t.expect(a_loc(f16, lane % 16, 4 * (lane / 16) + s, 0) == Loc{lane, s}, "blog 5.2 A, lane " + std::to_string(lane));
      t.expect(b_loc(f16, 4 * (lane / 16) + s, lane % 16, 0) == Loc{lane, s}, "blog 5.2 B, lane " + std::to_string(lane));
      t.expect(out_loc(f16, s + 4 * (lane / 16), lane % 16, 0) == Loc{lane, s}, "blog 5.2 C, lane " + std::to_string(lane));
    }
    // 5.3: a[s] = A[t%32][8(t/32)+s], b[s] = B[s+8(t/32)][t%32]; C as in 5.1
    for (int s = 0; s < 8; s++) {
      t.expect(a_loc(fp8, lane % 32, 8 * (lane / 32) + s, 0) == Loc{lane, s}, "blog 5.3 A, lane " + std::to_string(lane));
      t.expect(b_loc(fp8, s + 8 * (lane / 32), lane % 32, 0) == Loc{lane, s}, "blog 5.3 B, lane " + std::to_string(lane));
    }
    for (int r = 0; r < 16; r++)
      t.expect(out_loc(fp8, (lane / 32) * 4 + r % 4 + 8 * (r / 4), lane % 32, 0) == Loc{lane, r},
               "blog 5.3 C, lane " + std::to_string(lane) + " reg " + std::to_string(r));
  }
}

static int self_test(int mutation) {
  g_mutation = mutation;
  Tally t;
  // The name table: every name resolves to an MFMA that exists on its architectures, with the
  // catalog's K; a name twice only for disjoint architectures; 165 names in 215 (architecture,
  // name) rows, as the v_mfma rows of `mma list --vendor amd` (check.sh compares them).
  int rows = 0;
  std::vector<std::string> distinct;
  for (const Name &n : NAMES) {
    int i = op_index(n.op);
    t.expect(i >= 0, std::string(n.name) + ": no MFMA " + n.op);
    if (i < 0) continue;
    t.expect((n.archs & ~OPS[i].archs) == 0, std::string(n.name) + ": listed on an architecture its builtin is not compiled for");
    t.expect(n.k == OPS[i].k, std::string(n.name) + ": catalog K differs from the MFMA's");
    for (unsigned a = n.archs; a; a &= a - 1) rows++;
    for (const Name &o : NAMES)
      t.expect(&o == &n || strcmp(o.name, n.name) || !(o.archs & n.archs), std::string(n.name) + ": listed twice for one architecture");
    if (std::find(distinct.begin(), distinct.end(), n.name) == distinct.end()) distinct.push_back(n.name);
  }
  t.expect(distinct.size() == 165 && rows == 215,
           "165 names in 215 (architecture, name) rows, as the v_mfma rows of `mma list --vendor amd` (CDNA1-CDNA4); got " +
               std::to_string(distinct.size()) + " in " + std::to_string(rows));
  for (int i = 0; i < N_OPS; i++) {
    unsigned covered = 0;
    for (const Name &n : NAMES)
      if (!strcmp(n.op, OPS[i].id)) covered |= n.archs;
    t.expect(covered == OPS[i].archs, std::string(OPS[i].id) + ": compiled for architectures no name runs it on");
    for (int j = 0; j < i; j++) t.expect(strcmp(OPS[i].id, OPS[j].id), std::string(OPS[i].id) + ": id twice");
  }
  for (int i = 0; i < N_OPS; i++) test_op(i, t);
  test_published(t);
  t.expect(g_out_of_range == 0, std::to_string(g_out_of_range) + " accesses outside a lane's operand");
  std::cout << "self-test" << (mutation ? " (mutation " + std::to_string(mutation) + ")" : std::string()) << ": "
            << N_OPS << " MFMA kernels, " << N_NAMES << " catalog name entries: " << t.checks << " checks, " << t.failed
            << " failed\n";
  return t.failed ? 1 : 0;
}
