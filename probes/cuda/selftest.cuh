// `mma_probe --self-test`: everything that can be checked without a GPU, on the host, through the
// same __host__ __device__ functions the kernels use. `--self-test --mutate N` breaks one rule
// (layouts.cuh MUT(N)) and must fail; check.sh runs every N.
#pragma once
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include "caseio.cuh"

static int st_checks = 0, st_fails = 0;
#define ST(cond, ...)                                      \
  do {                                                     \
    st_checks++;                                           \
    if (!(cond)) {                                         \
      if (st_fails++ < 12) {                               \
        fprintf(stderr, "self-test FAIL: " __VA_ARGS__);   \
        fprintf(stderr, "\n");                             \
      }                                                    \
    }                                                      \
  } while (0)

// --- reference fragments, transcribed per PTX ISA section (element i, low to high) ----------
// Independent of the one rule in layouts.cuh: the self-test compares the two for every lane.
static bool is8bit(Fmt f) { return f == E4M3 || f == E5M2 || f == E3M2 || f == E2M3 || f == E2M1; }
static Pos ref_a(const MmaDesc &m, int lane, int i) {
  int g = lane >> 2, t = lane & 3, hi = lane >= 16;
  if (m.lay == L_QP884) return {(lane >> 2) & 3, (lane & 3) + 4 * hi, i};  // 9.7.14.5.1 row-major
  if (m.m == 8) return {0, g, t};                                          // 9.7.14.5.2
  switch (m.k) {
    case 4: return {0, i == 0 ? g : g + 8, t};                             // 9.7.14.5.6
    case 8:                                                                // 9.7.14.5.7
      if (m.a == F16 || m.a == BF16) return {0, i < 2 ? g : g + 8, 2 * t + (i & 1)};
      return {0, (i == 0 || i == 2) ? g : g + 8, i < 2 ? t : t + 4};
    case 16:                                                               // 9.7.14.5.8 / .9
      if (m.a == F16 || m.a == BF16)
        return {0, (i < 2 || (i >= 4 && i < 6)) ? g : g + 8, 2 * t + (i & 1) + (i >= 4 ? 8 : 0)};
      if (m.a == F64) return {0, i % 2 == 0 ? g : g + 8, i % 2 == 0 ? i * 2 + t : i * 2 - 2 + t};
      return {0, i < 4 ? g : g + 8, 4 * t + (i & 3)};
    case 32:                                                               // 9.7.14.5.10
      return {0, (i < 4 || (i >= 8 && i < 12)) ? g : g + 8, 4 * t + (i & 3) + (i >= 8 ? 16 : 0)};
    case 64:                                                               // 9.7.14.5.11
      return {0, (i < 8 || (i >= 16 && i < 24)) ? g : g + 8, 8 * t + (i & 7) + (i >= 16 ? 32 : 0)};
  }
  return {-1, -1, -1};
}
static Pos ref_b(const MmaDesc &m, int lane, int i) {
  int g = lane >> 2, t = lane & 3, hi = lane >= 16;
  if (m.lay == L_QP884) return {(lane >> 2) & 3, i, (lane & 3) + 4 * hi};  // column-major B
  if (m.m == 8) return {0, t, g};
  switch (m.k) {
    case 4: return {0, t, g};
    case 8:
      if (m.b == F16 || m.b == BF16) return {0, 2 * t + i, g};
      return {0, i == 0 ? t : t + 4, g};
    case 16:
      if (m.b == F16 || m.b == BF16) return {0, 2 * t + (i & 1) + (i >= 2 ? 8 : 0), g};
      if (m.b == F64) return {0, t + 4 * i, g};
      return {0, 4 * t + i, g};
    case 32: return {0, 4 * t + (i & 3) + (i >= 4 ? 16 : 0), g};
    case 64: return {0, 8 * t + (i & 7) + (i >= 8 ? 32 : 0), g};
  }
  return {-1, -1, -1};
}
static Pos ref_acc(const MmaDesc &m, Fmt f, int lane, int i) {
  int g = lane >> 2, t = lane & 3, hi = lane >= 16;
  if (m.lay == L_QP884) {
    if (f == F16) return {(lane >> 2) & 3, (lane & 3) + 4 * hi, i};
    return {(lane >> 2) & 3, (lane & 1) + (i & 2) + 4 * hi, (i & 4) + (lane & 2) + (i & 1)};
  }
  return {0, i < 2 ? g : g + 8, 2 * t + (i & 1)};
}

// The PTX spelling parsed on its own, to catch a typo in a table row.
static void check_spelling(const std::string &tail, const MmaDesc &m) {
  std::vector<std::string> tok;
  for (size_t p = 0, e; p <= tail.size(); p = e + 1) {
    e = tail.find('.', p);
    if (e == std::string::npos) e = tail.size();
    tok.push_back(tail.substr(p, e - p));
  }
  int M = 0, N = 0, K = 0;
  ST(sscanf(tok[0].c_str(), "m%dn%dk%d", &M, &N, &K) == 3 && M == m.m && N == m.n && K == m.k,
     "%s: shape", tail.c_str());
  ST(tok[1] == "row" && tok[2] == "col", "%s: .row.col", tail.c_str());
  size_t i = 3;
  Pack pk = P_NATIVE;
  int vec = 0;
  if (tok[i].rfind("kind::", 0) == 0) {
    std::string kd = tok[i++].substr(6);
    pk = kd == "f8f6f4" || kd == "mxf8f6f4" ? P_CONT8 : P_NIB4;
    if (i < tok.size() && tok[i] == "block_scale") {
      i++;
      ST(sscanf(tok[i++].c_str(), "scale_vec::%dX", &vec) == 1, "%s: scale_vec", tail.c_str());
    }
  }
  ST(pk == m.pack && vec == m.vec, "%s: kind/packing/scale_vec", tail.c_str());
  ST(tok.size() == i + 4 + (vec ? 1 : 0), "%s: type count", tail.c_str());
  if (tok.size() < i + 4) return;
  ST(fmt_parse(tok[i]) == m.d && fmt_parse(tok[i + 1]) == m.a && fmt_parse(tok[i + 2]) == m.b &&
         fmt_parse(tok[i + 3]) == m.c && (vec ? fmt_parse(tok[i + 4]) : F_NONE) == m.s,
     "%s: types", tail.c_str());
  ST((m.lay == L_QP884) == (m.m == 8 && m.a == F16), "%s: layout", tail.c_str());
  // Targets, as ptxas 13.5 reports them (mma_sync.cuh).
  Req want = m.pack != P_NATIVE ? SM120A : (m.a == F64 && m.m == 16) ? SM90 : is8bit(m.a) ? SM89
             : (m.a == BF16 || m.a == TF32 || m.a == F64) ? SM80 : (m.k == 16) ? SM80 : SM75;
  ST(want == m.req, "%s: target", tail.c_str());
}

// Slot bits of register `reg` (width w) at slot s.
static uint64_t slot_of(uint64_t reg, int w, int s) {
  return w >= 64 ? reg : (reg >> (w * s)) & ((1ull << w) - 1);
}
// The element value PTX expects in a slot (9.7.14.5.14 containers): decode and compare.
static bool slot_holds(const MmaDesc &m, Fmt f, uint64_t bits, uint64_t v) {
  if (m.pack == P_CONT8 && f == E2M1) return (bits & 0xc3) == 0 && (bits >> 2) == v;
  if (m.pack == P_CONT8 && (f == E3M2 || f == E2M3)) return (bits >> 6) == 0 && bits == v;
  return bits == v;
}

static void test_mma_entry(const MmaEntry &e) {
  const MmaDesc &m = e.desc;
  std::string tail = std::string(e.ptx).substr(strlen(MMA_PREFIX));
  const char *nm = tail.c_str();
  check_spelling(tail, m);
  int mats = m.lay == L_QP884 ? 4 : 1;
  int na = n_a_regs(m), nb = n_b_regs(m), ea = elems_per_reg(m, m.a), eb = elems_per_reg(m, m.b);
  ST(ea * slot_bits(m, m.a) == reg_bits(m.a) && eb * slot_bits(m, m.b) == reg_bits(m.b),
     "%s: slots fill registers", nm);
  ST(na <= 8 && nb <= 4 && n_acc_regs(m, m.c) <= 8 && n_acc_regs(m, m.d) <= 8, "%s: counts", nm);
  // Every element of A (M x K), B (K x N), C, D of every matrix exactly once, and as the PTX
  // tables say.
  std::map<std::tuple<int, int, int>, int> ca, cb, cc, cd;
  for (int lane = 0; lane < 32; lane++) {
    for (int r = 0; r < na; r++)
      for (int s = 0; s < ea; s++) {
        Pos p = frag_a(m, lane, r, s), q = ref_a(m, lane, r * ea + s);
        ST(p.mat == q.mat && p.row == q.row && p.col == q.col,
           "%s: A lane %d a%d at (%d,%d), PTX says (%d,%d)", nm, lane, r * ea + s, p.row, p.col,
           q.row, q.col);
        ca[std::make_tuple(p.mat, p.row, p.col)]++;
      }
    for (int r = 0; r < nb; r++)
      for (int s = 0; s < eb; s++) {
        Pos p = frag_b(m, lane, r, s), q = ref_b(m, lane, r * eb + s);
        ST(p.mat == q.mat && p.row == q.row && p.col == q.col,
           "%s: B lane %d b%d at (%d,%d), PTX says (%d,%d)", nm, lane, r * eb + s, p.row, p.col,
           q.row, q.col);
        cb[std::make_tuple(p.mat, p.row, p.col)]++;
      }
    for (int pass = 0; pass < 2; pass++) {
      Fmt f = pass ? m.d : m.c;
      auto &cnt = pass ? cd : cc;
      for (int r = 0; r < n_acc_regs(m, f); r++)
        for (int s = 0; s < acc_per_reg(f); s++) {
          Pos p = frag_acc(m, f, lane, r, s), q = ref_acc(m, f, lane, r * acc_per_reg(f) + s);
          ST(p.mat == q.mat && p.row == q.row && p.col == q.col, "%s: %s lane %d c%d", nm,
             pass ? "D" : "C", lane, r * acc_per_reg(f) + s);
          cnt[std::make_tuple(p.mat, p.row, p.col)]++;
        }
    }
  }
  auto cover = [&](std::map<std::tuple<int, int, int>, int> &cnt, int rows, int cols, const char *w) {
    bool ok = (int)cnt.size() == mats * rows * cols;
    for (auto &kv : cnt)
      ok = ok && kv.second == 1 && std::get<0>(kv.first) >= 0 && std::get<0>(kv.first) < mats &&
           std::get<1>(kv.first) >= 0 && std::get<1>(kv.first) < rows &&
           std::get<2>(kv.first) >= 0 && std::get<2>(kv.first) < cols;
    ST(ok, "%s: %s elements not each held exactly once", nm, w);
  };
  cover(ca, m.m, m.k, "A");
  cover(cb, m.k, m.n, "B");
  cover(cc, m.m, m.n, "C");
  cover(cd, m.m, m.n, "D");
  // D[0][0] sits where read_d00 takes it: lane 0, register 0, slot 0.
  Pos d00 = frag_acc(m, m.d, 0, 0, 0);
  ST(d00.mat == 0 && d00.row == 0 && d00.col == 0, "%s: D[0][0] is not lane 0 d0", nm);
  Regs rr{};
  rr.d[0] = 0x0123456789abcdefull;
  ST(read_d00(m, rr) == (fmt_bits(m.d) >= 64 ? rr.d[0] : rr.d[0] & ((1ull << fmt_bits(m.d)) - 1)),
     "%s: read_d00", nm);
  // Packing: a row / column / c / scales of nonzero values; every slot holds its element (PTX
  // container rule) or 0, each element once, nothing else.
  int k = m.k, wa = fmt_bits(m.a), wb = fmt_bits(m.b);
  std::vector<uint64_t> a(k), b(k);
  for (int i = 0; i < k; i++) {
    a[i] = 1 + (uint64_t(i) * 7 + 3) % ((wa >= 64 ? ~0ull : (1ull << wa)) - 1);
    b[i] = 1 + (uint64_t(i) * 5 + 1) % ((wb >= 64 ? ~0ull : (1ull << wb)) - 1);
  }
  uint64_t c = fmt_bits(m.c) >= 64 ? 0x4000000000000001ull : (1ull << (fmt_bits(m.c) - 1)) + 1;
  uint32_t sa[4] = {0x7f, 0x81, 0x42, 0x38}, sb[4] = {0x11, 0x7e, 0x39, 0x80};
  int hit_a = 0, hit_b = 0, hit_c = 0, hit_sa = 0, hit_sb = 0;
  for (int lane = 0; lane < 32; lane++) {
    Regs r;
    pack_mma(m, lane, a.data(), b.data(), c, sa, sb, r);
    for (int ri = 0; ri < 8; ri++) {
      for (int s = 0; s < ea; s++) {
        uint64_t bits = ri < na ? slot_of(r.a[ri], slot_bits(m, m.a), s) : r.a[ri];
        Pos p = ri < na ? frag_a(m, lane, ri, s) : Pos{-1, -1, -1};
        bool mine = p.mat == 0 && p.row == 0;
        ST(mine ? slot_holds(m, m.a, bits, a[p.col]) : bits == 0, "%s: A lane %d reg %d slot %d",
           nm, lane, ri, s);
        hit_a += mine;
      }
      if (ri < 4)
        for (int s = 0; s < eb; s++) {
          uint64_t bits = ri < nb ? slot_of(r.b[ri], slot_bits(m, m.b), s) : r.b[ri];
          Pos p = ri < nb ? frag_b(m, lane, ri, s) : Pos{-1, -1, -1};
          bool mine = p.mat == 0 && p.col == 0;
          ST(mine ? slot_holds(m, m.b, bits, b[p.row]) : bits == 0,
             "%s: B lane %d reg %d slot %d", nm, lane, ri, s);
          hit_b += mine;
        }
      for (int s = 0; s < acc_per_reg(m.c); s++) {
        int ri_ok = ri < n_acc_regs(m, m.c);
        uint64_t bits = ri_ok ? slot_of(r.c[ri], fmt_bits(m.c), s) : r.c[ri];
        Pos p = ri_ok ? frag_acc(m, m.c, lane, ri, s) : Pos{-1, -1, -1};
        bool mine = p.mat == 0 && p.row == 0 && p.col == 0;
        ST(mine ? bits == c : bits == 0, "%s: C lane %d reg %d slot %d", nm, lane, ri, s);
        hit_c += mine;
      }
    }
    if (m.vec) {
      int ra = scale_a_row(lane), cb2 = scale_b_col(lane);
      int qa = (lane & 3) == 0 ? lane >> 2 : (lane & 3) == 1 ? (lane >> 2) + 8 : -1;  // 9.7.14.3
      ST(ra == qa && cb2 == ((lane & 3) == 0 ? lane >> 2 : -1), "%s: scale selector lane %d", nm,
         lane);
      uint32_t wa2 = 0, wb2 = 0;
      for (int j = 0; j < m.vec; j++) wa2 |= sa[j] << (8 * j), wb2 |= sb[j] << (8 * j);
      ST(r.sa == (ra == 0 ? wa2 : 0u) && r.sb == (cb2 == 0 ? wb2 : 0u), "%s: scale data lane %d",
         nm, lane);
      hit_sa += r.sa != 0, hit_sb += r.sb != 0;
    } else {
      ST(r.sa == 0 && r.sb == 0, "%s: scale data without scaling", nm);
    }
  }
  ST(hit_a == k && hit_b == k && hit_c == 1, "%s: row 0 / column 0 / C[0][0] held %d/%d/%d times",
     nm, hit_a, hit_b, hit_c);
  if (m.vec) ST(hit_sa == 1 && hit_sb == 1, "%s: scales of row 0 / column 0 once", nm);
}

// The canonical K-major no-swizzle layout read back from a descriptor (9.7.15.5.1.2.1.3):
// ((8,m),(T,2k)):((1T,SBO),(1,LBO)) in elements, T = 16 bytes / element.
static void test_kmajor(const char *what, int rows, int k, int eb, bool tc, int cap) {
  KMajor l = kmajor(rows, k, eb);
  uint32_t addr = 0x1400;
  uint64_t d = smem_desc(addr, l, tc);
  int start = int(d & 0x3fff) << 4, lbo = int((d >> 16) & 0x3fff) << 4,
      sbo = int((d >> 32) & 0x3fff) << 4;
  ST(start == int(addr) && lbo % 16 == 0 && sbo % 16 == 0 && l.bytes <= cap, "%s: descriptor",
     what);
  ST(((d >> 14) & 3) == 0 && ((d >> 30) & 3) == 0 && ((d >> 49) & 7) == 0, "%s: reserved bits",
     what);
  if (tc)
    ST(((d >> 46) & 7) == 1 && ((d >> 52) & 1) == 0 && ((d >> 53) & 0xff) == 0 && (d >> 61) == 0,
       "%s: tcgen05 fixed bits / no swizzle", what);
  else
    ST(((d >> 46) & 7) == 0 && (d >> 62) == 0, "%s: wgmma no swizzle", what);
  int t = 16 / eb;
  std::set<int> seen;
  bool ok = true;
  for (int r = 0; r < rows; r++)
    for (int kk = 0; kk < k; kk++) {
      int off = kmajor_offset(l, eb, r, kk);
      int ref = ((r % 8) * t + (r / 8) * (sbo / eb) + (kk % t) + (kk / t) * (lbo / eb)) * eb;
      ok = ok && off == ref && off >= 0 && off + eb <= l.bytes && seen.insert(off).second;
    }
  ST(ok, "%s: shared-memory offsets differ from the descriptor's canonical layout", what);
}

static void test_wgmma() {
  for (int i = 0; i < WG_COUNT; i++) {
    const WgEntry &e = WG_TABLE[i];
    const WgDesc &w = e.desc;
    const char *nm = e.ptx;
    MmaDesc f = wg_frag_desc(w);
    int ea = elems_per_reg(f, w.a);
    ST(n_a_regs(f) == 4 && fmt_bits(w.a) * w.k == 256, "%s: 4 A registers, 32-byte rows", nm);
    std::set<std::pair<int, int>> sa, sd;
    for (int tid = 0; tid < 128; tid++) {
      for (int r = 0; r < 4; r++)
        for (int s = 0; s < ea; s++) {
          Pos p = frag_a(f, tid & 31, r, s);
          sa.insert({16 * (tid >> 5) + p.row, p.col});
        }
      for (int j = 0; j < 4; j++) {
        Pos p = wg_acc(tid, j);
        sd.insert({p.row, p.col});
      }
    }
    ST(sa.size() == size_t(64 * w.k) && sd.size() == 64 * 8, "%s: A / D fragments cover", nm);
    Pos d00 = wg_acc(0, 0);
    ST(d00.row == 0 && d00.col == 0, "%s: D[0][0] is not thread 0 d0", nm);
    test_kmajor(nm, 64, w.k, fmt_bits(w.a) / 8, false, WG_ABYTES);
    test_kmajor(nm, 8, w.k, fmt_bits(w.b) / 8, false, WG_BBYTES);
    Sel sel;
    std::string err;
    ST(resolve(e.ptx, sel, err) && sel.wg == &e, "%s: name", nm);
    ST(resolve(std::string(e.ptx).substr(strlen(WG_PREFIX)), sel, err) && sel.wg == &e,
       "%s: short name", nm);
  }
}

static void test_tcgen05() {
  for (int i = 0; i < TC_TYPE_COUNT; i++) {
    const TcTypes &t = TC_TYPES[i];
    for (int m = 64; m <= 128; m += 64)
      for (int n = 8; n <= 256; n += 8) {
        char nm[96];
        snprintf(nm, sizeof nm, "tcgen05 m%dn%dk%d.kind::%s.%s.%s.%s", m, n, TC_KIND_K[t.kind],
                 TC_KIND_NAMES[t.kind], fmt_name(t.d), fmt_name(t.a), fmt_name(t.b));
        TcParams p = tc_params(t, m, n);
        ST(p.k * p.eb == 32 && p.k == TC_KIND_K[t.kind], "%s: K", nm);
        if (n % 64 == 8 || n == 256) {  // a sample of N keeps the test fast
          test_kmajor(nm, m, p.k, p.eb, true, TC_ABYTES);
          test_kmajor(nm, n, p.k, p.eb, true, TC_BBYTES);
        }
        uint32_t d = p.idesc;
        int code_a = t.a == TF32 ? 2 : t.a == BF16 || t.a == E5M2 ? 1 : 0;  // Table 45 values
        int code_b = t.b == TF32 ? 2 : t.b == BF16 || t.b == E5M2 ? 1 : 0;
        ST((d & 0xf) == 0 && ((d >> 4) & 3) == (t.d == F32 ? 1u : 0u) && ((d >> 6) & 1) == 0 &&
               ((d >> 7) & 7) == uint32_t(code_a) && ((d >> 10) & 7) == uint32_t(code_b) &&
               ((d >> 13) & 0xf) == 0 && ((d >> 17) & 0x3f) == uint32_t(n >> 3) &&
               ((d >> 23) & 1) == 0 && ((d >> 24) & 0x1f) == uint32_t(m >> 4) && (d >> 29) == 0,
           "%s: instruction descriptor %08x", nm, d);
        ST(p.cols >= 32 && p.cols >= n && p.cols <= 512 && (p.cols & (p.cols - 1)) == 0,
           "%s: Tensor Memory columns", nm);
        // The zero-fill stores cover lanes 0..127 x columns 0..N-1 once each.
        std::set<std::pair<int, int>> cells;
        bool ok = true;
        for (int w = 0; w < 4; w++)
          for (int j = 0; j < n / 8; j++)
            for (int c = 0; c < 8; c++)
              for (int l = 0; l < 32; l++) {
                int col = tc_fill_col(j) + c;
                ok = ok && col < p.cols && cells.insert({32 * w + l, col}).second;
              }
        ST(ok && cells.size() == size_t(128 * n) && cells.rbegin()->second == n - 1,
           "%s: Tensor Memory fill", nm);
        Sel sel;
        std::string err;
        std::string nm2 = std::string(nm).substr(8);
        ST(resolve(nm2, sel, err) && sel.fam == FAM_TCGEN05 && sel.tcp.idesc == p.idesc,
           "%s: name", nm);
      }
  }
  Sel sel;
  std::string err;
  ST(resolve("tcgen05.mma.cta_group::1.m128n16k16.kind::f16.f32.bf16.bf16", sel, err) &&
         sel.tcp.m == 128 && sel.tcp.n == 16, "tcgen05 prefixed name");
  ST(!resolve("m64n8k32.kind::f8f6f4.f32.e2m1.e2m1", sel, err) &&
         err.find("only given as figures") != err.npos, "tcgen05 fp4 refused: %s", err.c_str());
  ST(!resolve("m256n8k16.kind::f16.f32.f16.f16", sel, err), "tcgen05 M=256 refused");
  ST(!resolve("m64n12k16.kind::f16.f32.f16.f16", sel, err), "tcgen05 N=12 refused");
  ST(!resolve("m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0", sel, err),
     "tcgen05 block scale refused");
}

// Case lines: good ones parse, bad ones are refused with a reason.
static std::string word_list(const char *w, int n) {
  std::string r;
  for (int i = 0; i < n; i++) r += std::string(i ? "," : "") + "\"" + w + "\"";
  return r;
}
static void test_lines() {
  Sel s1, s2, s3, s4;
  std::string err;
  ST(resolve("m16n8k16.f32.bf16.bf16.f32", s1, err), "resolve bf16");
  ST(resolve("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32."
             "e2m1.e2m1.f32.ue4m3", s2, err) && s2.block == 16 && s2.vec == 4, "resolve nvf4");
  ST(resolve("m8n8k4.row.col.f32.f16.f16.f16", s3, err), "resolve m8n8k4");
  ST(resolve("m16n8k32.kind::f8f6f4.f32.e2m1.e3m2.f32", s4, err), "resolve f8f6f4 catalog name");
  std::string good = "{\"a_format\":\"bf16\",\"b_format\":\"bf16\",\"c_format\":\"f32\",\"d_format"
                     "\":\"f32\",\"k\":16,\"a\":[\"3f80\"," + word_list("0000", 15) + "],\"b\":[" +
                     word_list("0000", 16) + "],\"c\":\"3f800000\"}";
  Case cs;
  std::string e = parse_case(good, s1, cs);
  ST(e == "" && cs.a.size() == 16 && cs.a[0] == 0x3f80 && cs.c == 0x3f800000, "good line: %s",
     e.c_str());
  std::string out = with_d(good, 0x40000000, 8);
  ST(out.find(",\"d\":\"40000000\"}") != out.npos && with_d(out, 1, 8).find("40000000") ==
     std::string::npos, "with_d");
  auto bad = [&](const std::string &line, const Sel &s, const char *want) {
    Case c2;
    std::string e2 = parse_case(line, s, c2);
    ST(e2.find(want) != std::string::npos, "bad line not refused as '%s' (got '%s')", want,
       e2.c_str());
  };
  auto sub = [&](std::string from, std::string to) { return replace_all(good, from, to); };
  e = parse_case(sub("\"3f800000\"", "\"0x3f800000\""), s1, cs);
  ST(e == "" && cs.c == 0x3f800000, "0x word: %s", e.c_str());
  bad(sub("\"3f80\"", "\"13f80\""), s1, "exactly 4 hex digits");
  bad(sub("\"3f80\"", "\"3g80\""), s1, "exactly 4 hex digits");
  bad(sub("\"3f800000\"", "\"3f80\""), s1, "exactly 8 hex digits");  // not a tiny fp32
  bad(sub("\"a_format\":\"bf16\"", "\"a_format\":\"f16\""), s1, "a_format");
  bad(sub("\"k\":16", "\"k\":32"), s1, "\"k\":32");
  bad(sub("\"c\":\"3f800000\"", "\"x\":1"), s1, "no \"c\"");
  bad(sub("\"a\":[\"3f80\",", "\"a\":["), s1, "elements");
  bad(sub("\"c_format\":\"f32\"", "\"instr\":\"m16n8k16.f32.f16.f16.f32\""), s1, "instr");
  bad(good, s2, "a_format");
  // Probe-style lines: one element per word, e2m1 in the low bits.
  std::string nv = "{\"a\":[" + word_list("00", 64) + "],\"b\":[" + word_list("00", 64) + "],\"c\":\"0000"
                   "0000\",\"scale_a\":[" + word_list("38", 4) + "],\"scale_b\":[" + word_list("38", 4) +
                   "],\"scale_block\":16}";
  e = parse_case(nv, s2, cs);
  ST(e == "" && cs.a.size() == 64 && cs.sa.size() == 4 && cs.sa[0] == 0x38, "scaled line: %s",
     e.c_str());
  bad(replace_all(nv, ",\"38\"]", "]"), s2, "scales per operand");
  bad(replace_all(nv, "\"scale_block\":16", "\"scale_block\":32"), s2, "scale_block");
  bad(replace_all(nv, "\"scale_a\"", "\"scale_x\""), s2, "no \"scale_a\"");
  bad(replace_all(nv, "\"00\",\"00\"]", "\"00\",\"10\"]"), s2, "does not fit");  // 4 bits
  // Catalog lines ("instr"): kind::mxf4nvf4 two fp4 per byte, element 2i high; kind::f8f6f4
  // fp4 in bits 5:2 and fp6 in bits 5:0 of a byte.
  std::string packed = "{\"instr\":\"" + s2.catalog + "\",\"a\":[\"d0\"," + word_list("00", 31) +
                       "],\"b\":[" + word_list("00", 31) + ",\"07\"],\"c\":\"00000000\",\"scale_a\":[" +
                       word_list("38", 4) + "],\"scale_b\":[" + word_list("38", 4) + "]}";
  e = parse_case(packed, s2, cs);
  ST(e == "" && cs.a.size() == 64 && cs.a[0] == 0xd && cs.a[1] == 0 && cs.b[62] == 0 &&
         cs.b[63] == 7, "packed fp4 line: %s", e.c_str());
  std::string bytes = "{\"instr\":\"" + s4.catalog + "\",\"a\":[\"14\"," + word_list("00", 31) +
                      "],\"b\":[\"3f\"," + word_list("00", 31) + "],\"c\":\"00000000\"}";
  e = parse_case(bytes, s4, cs);
  ST(e == "" && cs.a[0] == 5 && cs.b[0] == 0x3f, "fp4/fp6 byte line: %s", e.c_str());
  bad(replace_all(bytes, "\"14\"", "\"15\""), s4, "bits 5:2");
  bad(replace_all(bytes, "\"3f\"", "\"7f\""), s4, "bits 5:0");
  bad(replace_all(bytes, "\"instr\":\"" + s4.catalog + "\",", ""), s4, "does not fit");
  std::string r4 = word_list("0000", 4);
  bad("{\"a\":[" + r4 + "," + r4 + "],\"b\":[" + r4 + "," + r4 + "],\"c\":\"0000\"}", s3,
      "chained calls");
  bad("{\"a\":[" + r4 + "],\"b\":[" + r4 + "],\"c\":\"00000000\"}", s1, "multiple");
  bad(good, s4, "a_format");
}

static int self_test() {
  st_checks = st_fails = 0;
  std::set<std::string> names;
  for (int i = 0; i < MMA_COUNT; i++) {
    const MmaEntry &e = MMA_TABLE[i];
    test_mma_entry(e);
    std::string tail = std::string(e.ptx).substr(strlen(MMA_PREFIX));
    std::string cat = mma_catalog_name(tail, e.desc);
    ST(names.insert(e.ptx).second && names.insert(tail).second && names.insert(cat).second,
       "%s: duplicate name", e.ptx);
    Sel sel;
    std::string err;
    for (const std::string &n : {std::string(e.ptx), tail, cat})
      ST(resolve(n, sel, err) && sel.mma == &e, "%s does not resolve to its row", n.c_str());
  }
  ST(mma_catalog_name("m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1"
                      ".f32.ue4m3", MMA_TABLE[MMA_COUNT - 2].desc) ==
         "m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3", "catalog name (block16)");
  test_wgmma();
  test_tcgen05();
  test_lines();
  printf("self-test: %d mma.sync forms, %d wgmma forms, %d tcgen05 type combinations x (M, N); "
         "%d checks, %d failed\n", MMA_COUNT, WG_COUNT, TC_TYPE_COUNT, st_checks, st_fails);
  return st_fails ? 1 : 0;
}
