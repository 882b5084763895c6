// Running cases of the HIP harness through a Launcher (the device, or the self-test's simulated
// MFMA): chained single dot products as the case files give them (run_cases), and whole random
// matrices that check every place of a lane layout (layout_check).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include "caseio.h"
#include "formats.h"
#include "instrs.h"
#include "layouts.h"

// ---------------------------------------------------------------------------------------------
// Running cases
// ---------------------------------------------------------------------------------------------

// Runs n waves of one MFMA: A/B images (64 IW words a case), C image in, scale image (64 2
// words a case: scale_a, scale_b; read by the scaled MFMAs only), D image out.
using Launcher = std::function<bool(int op, size_t n, const std::vector<uint64_t> &a,
                                    const std::vector<uint64_t> &b, const std::vector<uint32_t> &c,
                                    const std::vector<uint32_t> &s, std::vector<uint32_t> &d,
                                    std::string &err)>;

static bool is_zero(Fmt f, uint64_t v) {
  if (f == S32) return (uint32_t)v == 0;  // 0x80000000 is -2^31, not a zero
  return f == F64 ? (v << 1) == 0 : (uint32_t)(v << 1) == 0;
}

// Every case as chained calls of one MFMA; sets each case's d. Besides D[0][0], the device's
// whole D is checked: with A, B and C zero outside row 0 / column 0 / C[0][0] of block 0, every
// other element of D is 0, except that row 0 and column 0 may hold NaN (Inf times 0). Anything
// else means the data did not land where the layout says.
static bool run_cases(int opi, std::vector<Case> &cases, const Launcher &launch, std::string &err) {
  const Op &op = OPS[opi];
  const size_t K = op.k, W = op.acc_words();
  const size_t CHUNK = 4096;
  size_t steps = 0;
  for (Case &cs : cases) {
    cs.d = cs.c;
    steps = std::max(steps, cs.a.size() / K);
  }
  for (size_t step = 0; step < steps; step++) {
    std::vector<size_t> active;
    for (size_t i = 0; i < cases.size(); i++)
      if (cases[i].a.size() / K > step) active.push_back(i);
    for (size_t from = 0; from < active.size(); from += CHUNK) {
      size_t n = std::min(CHUNK, active.size() - from);
      std::vector<uint64_t> ai(n * 64 * IW, 0), bi(n * 64 * IW, 0);
      std::vector<uint32_t> ci(n * 64 * W, 0), di(n * 64 * W, 0), si(n * 64 * 2, SCALE_ONE);
      for (size_t c = 0; c < n; c++) {
        const Case &cs = cases[active[from + c]];
        for (size_t kk = 0; kk < K; kk++) {
          put_in(op, false, ai, c, a_loc(op, 0, (int)kk, 0), cs.a[step * K + kk]);
          put_in(op, true, bi, c, b_loc(op, (int)kk, 0, 0), cs.b[step * K + kk]);
        }
        // The scales of A row 0 and B column 0, one per 32 k, in the lanes that hold those k.
        if (op.scaled())
          for (size_t g = 0; g < K / 32; g++) {
            si[(c * 64 + scale_lane(op, false, 0, (int)(32 * g))) * 2] = (uint32_t)cs.sa[step * K / 32 + g];
            si[(c * 64 + scale_lane(op, true, 0, (int)(32 * g))) * 2 + 1] = (uint32_t)cs.sb[step * K / 32 + g];
          }
        // D of the previous call is C of this one.
        put_out(op, ci, c, out_loc(op, 0, 0, 0), g_mutation == 5 ? cs.c : cs.d);
      }
      if (!launch(opi, n, ai, bi, ci, si, di, err)) return false;
      for (size_t c = 0; c < n; c++) {
        Case &cs = cases[active[from + c]];
        cs.d = get_out(op, di, c, out_loc(op, 0, 0, 0));
        for (int b = 0; b < op.blocks; b++)
          for (int i = 0; i < op.m; i++)
            for (int j = 0; j < op.n; j++) {
              if (b == 0 && i == 0 && j == 0) continue;
              uint64_t v = get_out(op, di, c, out_loc(op, i, j, b));
              bool edge = b == 0 && (i == 0 || j == 0);
              if (is_zero(op.cd, v) || (edge && std::isnan(decode(op.cd, v)))) continue;
              char buf[400];
              snprintf(buf, sizeof buf,
                       "line %zu (call %zu): D[%d][%d] of block %d is 0x%llx, not 0: the data "
                       "did not land where the lane layout of this MFMA says; results not written",
                       cs.line + 1, step + 1, i, j, b, (unsigned long long)v);
              err = buf;
              return false;
            }
      }
    }
  }
  if (g_out_of_range) {
    err = "a layout place outside the lane's operand (the MFMA table is inconsistent; see --self-test)";
    return false;
  }
  return true;
}

// Full random matrices of small integers in every block, packed with in_loc/out_loc, one call;
// every element of D is compared with the exact A B + C. This checks all of a layout (the
// order of k within a row included), which the single-dot-product runs cannot. For the scaled
// MFMAs every lane's scale_a and scale_b is random in 2^-1, 2^0, 2^1 (ue8m0 126..128) and
// multiplies the products of the 32 k that lane holds (layouts.h, scale_lane): the scale
// placement is checked too.
static bool layout_check(int opi, const Launcher &launch, int ncases, unsigned seed, std::string &report) {
  const Op &op = OPS[opi];
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> small(-2, 2), cval(-3, 3);
  const size_t n = ncases, W = op.acc_words();
  std::vector<uint64_t> ai(n * 64 * IW, 0), bi(n * 64 * IW, 0);
  std::vector<uint32_t> ci(n * 64 * W, 0), di(n * 64 * W, 0), si(n * 64 * 2, SCALE_ONE);
  std::uniform_int_distribution<int> sval(126, 128);
  if (op.scaled())
    for (uint32_t &x : si) x = (uint32_t)sval(rng);
  // A[c][b][i][k], B[c][b][k][j], C[c][b][i][j]
  std::vector<int> A(n * op.blocks * op.m * op.k), B(n * op.blocks * op.k * op.n),
      C(n * op.blocks * op.m * op.n);
  auto ia = [&](size_t c, int b, int i, int k) { return ((c * op.blocks + b) * op.m + i) * op.k + k; };
  auto ib = [&](size_t c, int b, int k, int j) { return ((c * op.blocks + b) * op.k + k) * op.n + j; };
  auto ic = [&](size_t c, int b, int i, int j) { return ((c * op.blocks + b) * op.m + i) * op.n + j; };
  for (size_t c = 0; c < n; c++)
    for (int b = 0; b < op.blocks; b++) {
      for (int i = 0; i < op.m; i++)
        for (int k = 0; k < op.k; k++) {
          A[ia(c, b, i, k)] = small(rng);
          put_in(op, false, ai, c, a_loc(op, i, k, b), encode_small(op.a, A[ia(c, b, i, k)]));
        }
      for (int k = 0; k < op.k; k++)
        for (int j = 0; j < op.n; j++) {
          B[ib(c, b, k, j)] = small(rng);
          put_in(op, true, bi, c, b_loc(op, k, j, b), encode_small(op.b, B[ib(c, b, k, j)]));
        }
      for (int i = 0; i < op.m; i++)
        for (int j = 0; j < op.n; j++) {
          C[ic(c, b, i, j)] = cval(rng);
          put_out(op, ci, c, out_loc(op, i, j, b), encode_small(op.cd, C[ic(c, b, i, j)]));
        }
    }
  std::string err;
  if (!launch(opi, n, ai, bi, ci, si, di, err)) {
    report = err;
    return false;
  }
  size_t bad = 0, total = 0;
  std::ostringstream first;
  for (size_t c = 0; c < n; c++)
    for (int b = 0; b < op.blocks; b++)
      for (int i = 0; i < op.m; i++)
        for (int j = 0; j < op.n; j++) {
          double want = C[ic(c, b, i, j)];
          for (int k = 0; k < op.k; k++) {
            double p = (double)A[ia(c, b, i, k)] * B[ib(c, b, k, j)];
            if (op.scaled())  // exact: powers of two of small integers
              p = ldexp(p, (int)si[(c * 64 + scale_lane(op, false, i, k)) * 2] - 127 +
                               (int)si[(c * 64 + scale_lane(op, true, j, k)) * 2 + 1] - 127);
            want += p;
          }
          double got = decode(op.cd, get_out(op, di, c, out_loc(op, i, j, b)));
          total++;
          if (got != want) {
            if (bad < 4)
              first << " case " << c << " D[" << i << "][" << j << "] block " << b << ": got " << got
                    << ", want " << want << ";";
            bad++;
          }
        }
  std::ostringstream r;
  r << total << " elements of D";
  if (bad) r << ", " << bad << " wrong:" << first.str();
  report = r.str();
  return bad == 0;
}
