// `mma_probe --self-test` of the HIP harness (host only, no GPU): the layout functions against
// the calculator's equations written out separately, the published examples and a simulated
// MFMA; the instruction table (operand sizes against shapes, the catalog's 59 CDNA1-CDNA3 names in 79 rows).
// `--self-test --mutate N` (N = 1..5, g_mutation in layouts.h and runner.h) breaks one rule on
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
  int per_lane = std::max(op.opnd_bytes * 8 / op.in_bits(), 1);
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
static bool simulate(int opi, size_t n, const std::vector<uint64_t> &a, const std::vector<uint64_t> &b,
                     const std::vector<uint32_t> &c, std::vector<uint32_t> &d, std::string &) {
  const Op &op = OPS[opi];
  for (size_t cs = 0; cs < n; cs++)
    for (int bl = 0; bl < op.blocks; bl++)
      for (int i = 0; i < op.m; i++)
        for (int j = 0; j < op.n; j++) {
          double s = decode(op.cd, get_out(op, c, cs, eq_out(op, i, j, bl)));
          for (int k = 0; k < op.k; k++)
            s += decode(op.a, get_in(op, a, cs, eq_in(op, false, i, k, bl))) *
                 decode(op.b, get_in(op, b, cs, eq_in(op, true, j, k, bl)));
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
  const std::string nm = op.builtin;
  const int e_a = op.k * op.m * op.blocks / 64, e_b = op.k * op.n * op.blocks / 64;
  const int outs = op.m * op.n * op.blocks / 64;
  // The table: operand sizes follow from the shape.
  t.expect(op.k * op.m * op.blocks % 64 == 0 && e_a * op.in_bits() == op.opnd_bytes * 8,
           nm + ": A operand size " + std::to_string(op.opnd_bytes) + " bytes vs shape");
  t.expect(e_b * op.in_bits() == op.opnd_bytes * 8, nm + ": B operand size vs shape");
  t.expect(outs * op.out_bits() == op.acc_bytes * 8, nm + ": C/D operand size vs shape");
  t.expect(FMTS[op.a].bits == FMTS[op.b].bits, nm + ": A and B widths");

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

  // A case as run_cases packs it: each element of A row 0 and B column 0 in exactly one
  // (lane, slot) of the image and nothing else set; C[0][0] in exactly one (lane, register); the
  // result read from the one place D[0][0] has. Markers k+1 stand for the elements.
  {
    std::vector<Case> cases(1);
    cases[0].line = 0;
    for (int k = 0; k < op.k; k++) {
      cases[0].a.push_back((uint64_t)(k + 1));
      cases[0].b.push_back((uint64_t)(k + 1 + 64));
    }
    cases[0].c = 0x5a;
    std::vector<uint64_t> ai, bi;
    std::vector<uint32_t> ci;
    Launcher grab = [&](int, size_t, const std::vector<uint64_t> &a, const std::vector<uint64_t> &b,
                        const std::vector<uint32_t> &c, std::vector<uint32_t> &d, std::string &) {
      ai = a;
      bi = b;
      ci = c;
      std::fill(d.begin(), d.end(), 0u);
      put_out(op, d, 0, eq_out(op, 0, 0, 0), 0x77);  // D[0][0] where the equations put it
      return true;
    };
    std::string err;
    bool ok = run_cases(opi, cases, grab, err);
    t.expect(ok, nm + ": run_cases: " + err);
    t.expect(cases[0].d == 0x77, nm + ": D[0][0] read from the wrong place");
    std::vector<int> count_a(op.k, 0), count_b(op.k, 0);
    for (int lane = 0; lane < 64; lane++) {
      for (int s = 0; s < e_a; s++) {
        uint64_t v = get_in(op, ai, 0, {lane, s});
        if (!v) continue;
        bool marker = v >= 1 && v <= (uint64_t)op.k;
        t.expect(marker, nm + ": A image holds a stray value at " + ls({lane, s}));
        if (!marker) continue;
        count_a[v - 1]++;
        t.expect(eq_in(op, false, 0, (int)v - 1, 0) == Loc{lane, s},
                 nm + ": A[0][" + std::to_string(v - 1) + "] packed at " + ls({lane, s}));
      }
      for (int s = 0; s < e_b; s++) {
        uint64_t v = get_in(op, bi, 0, {lane, s});
        if (!v) continue;
        bool marker = v >= 65 && v <= (uint64_t)op.k + 64;
        t.expect(marker, nm + ": B image holds a stray value at " + ls({lane, s}));
        if (!marker) continue;
        count_b[v - 65]++;
        t.expect(eq_in(op, true, 0, (int)v - 65, 0) == Loc{lane, s},
                 nm + ": B[" + std::to_string(v - 65) + "][0] packed at " + ls({lane, s}));
      }
    }
    for (int k = 0; k < op.k; k++) {
      t.expect(count_a[k] == 1, nm + ": A[0][" + std::to_string(k) + "] packed " + std::to_string(count_a[k]) + " times");
      t.expect(count_b[k] == 1, nm + ": B[" + std::to_string(k) + "][0] packed " + std::to_string(count_b[k]) + " times");
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
    for (int calls = 1; calls <= 3; calls++)
      for (int rep = 0; rep < 3; rep++) {
        Case cs;
        cs.line = cases.size();
        long c = cval(rng), s = c;
        cs.c = encode_small(op.cd, (int)c);
        for (int k = 0; k < calls * op.k; k++) {
          int x = small(rng), y = small(rng);
          cs.a.push_back(encode_small(op.a, x));
          cs.b.push_back(encode_small(op.b, y));
          s += (long)x * y;
        }
        cases.push_back(cs);
        want.push_back(s);
      }
    std::string err;
    bool ok = run_cases(opi, cases, simulate, err);
    t.expect(ok, nm + ": chained run: " + err);
    for (size_t i = 0; ok && i < cases.size(); i++)
      t.expect(cases[i].d == encode_out(op.cd, (double)want[i]),
               nm + ": chained case " + std::to_string(i) + " (" + std::to_string(cases[i].a.size()) +
                   " elements): d = " + std::to_string(decode(op.cd, cases[i].d)) + ", want " + std::to_string(want[i]));
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
  // catalog's K; 64 (architecture, name) rows.
  int rows = 0;
  for (const Name &n : NAMES) {
    int i = op_index(n.builtin);
    t.expect(i >= 0, std::string(n.name) + ": no builtin " + n.builtin);
    if (i < 0) continue;
    t.expect((n.archs & ~OPS[i].archs) == 0, std::string(n.name) + ": listed on an architecture its builtin is not compiled for");
    t.expect(n.k == OPS[i].k, std::string(n.name) + ": catalog K differs from the MFMA's");
    for (unsigned a = n.archs; a; a &= a - 1) rows++;
    for (const Name &o : NAMES) t.expect(&o == &n || strcmp(o.name, n.name), std::string(n.name) + ": listed twice");
  }
  t.expect(N_NAMES == 59 && rows == 79,
           "59 names in 79 (architecture, name) rows, as `mma list --vendor amd` for CDNA1-CDNA3");
  for (int i = 0; i < N_OPS; i++) {
    unsigned covered = 0;
    for (const Name &n : NAMES)
      if (!strcmp(n.builtin, OPS[i].builtin)) covered |= n.archs;
    t.expect(covered == OPS[i].archs, std::string(OPS[i].builtin) + ": compiled for architectures no name runs it on");
  }
  for (int i = 0; i < N_OPS; i++) test_op(i, t);
  test_published(t);
  t.expect(g_out_of_range == 0, std::to_string(g_out_of_range) + " accesses outside a lane's operand");
  std::cout << "self-test" << (mutation ? " (mutation " + std::to_string(mutation) + ")" : std::string()) << ": "
            << N_OPS << " MFMAs, " << N_NAMES << " catalog names: " << t.checks << " checks, " << t.failed
            << " failed\n";
  return t.failed ? 1 : 0;
}
