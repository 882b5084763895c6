// Runs every line of a case file on the GPU with one tensor-core instruction (inline PTX) and
// writes the file back with the device's "d". One dot product per line: the A row is row 0 of A,
// the B column is column 0 of B, C[0][0] is "c", every other element (and every other block
// scale) is zero, and D[0][0] is the result. Lines longer than the instruction's K run as chained
// calls (D of one call is C of the next), as a K loop does.
//
//   mma_probe INSTRUCTION IN.jsonl OUT.jsonl [--wgmma-a smem|regs]
//   mma_probe --list                 the instructions and their spellings
//   mma_probe --self-test [--mutate N]   host-only checks of every layout (no GPU needed)
//   mma_probe --expect-ptx sm_XX     the PTX spellings this binary must contain for a target
//
// INSTRUCTION is a PTX spelling as `mma list --json` prints it ("ptx_isa"), the same without
// "mma.sync.aligned." / "wgmma.mma_async.sync.aligned.", or the catalog's "instruction" field
// (for tcgen05 the only form: m64n8k16.kind::f16.f32.bf16.bf16, optionally prefixed by
// "tcgen05.mma.cta_group::1."). Families: mma_sync.cuh (all 110 mma.sync spellings of the
// catalog), wgmma.cuh (m64n8, sm_90a), tcgen05.cuh (kind::f16/tf32/f8f6f4-fp8, sm_100a);
// layouts: layouts.cuh; checks of the case lines: caseio.cuh; --self-test: selftest.cuh.
// Case words follow the project's case files: exactly the storage width's hex digits; lines that
// name the instruction ("instr") in the catalog's byte layouts (fp4 in bits 5:2, two fp4 per byte
// for kind::mxf4*), other lines (`mma probe emit`) one element per word in its low bits.
// Build and check: probes/cuda/check.sh. NOT RUN ON A GPU YET (see README.md).
#include <cuda_runtime.h>
#include <fstream>
#include <iostream>
#include <sstream>
int g_mutation = 0;
#include "caseio.cuh"
#include "selftest.cuh"

#define CU(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::cerr << "CUDA error in " #x ": " << cudaGetErrorString(e_) << "\n";             \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

// Whether a target (sm_89, sm_90a, ...) gets the code of `r` in this harness.
static bool target_has(Req r, int sm, bool arch_specific) {
  switch (r) {
    case SM75: return sm >= 75;
    case SM80: return sm >= 80;
    case SM89: return sm >= 89;
    case SM90: return sm >= 90;
    case SM90A: return arch_specific && sm == 90;
    case SM100A: return arch_specific && (sm == 100 || sm == 103);
    case SM120A: return arch_specific && (sm == 120 || sm == 121);
  }
  return false;
}

static void list() {
  printf("# family   PTX spelling   [catalog name]   K   formats d<-a*b+c [scale, block]   target\n");
  for (int i = 0; i < MMA_COUNT; i++) {
    const MmaEntry &e = MMA_TABLE[i];
    const MmaDesc &m = e.desc;
    std::string tail = std::string(e.ptx).substr(strlen(MMA_PREFIX));
    printf("mma.sync  %s  [%s]  k=%d  %s<-%s*%s+%s", e.ptx, mma_catalog_name(tail, m).c_str(), m.k,
           fmt_name(m.d), fmt_name(m.a), fmt_name(m.b), fmt_name(m.c));
    if (m.vec) printf(" scale %s block %d", fmt_name(m.s), m.k / m.vec);
    printf("  %s\n", req_name(m.req));
  }
  for (int i = 0; i < WG_COUNT; i++) {
    const WgDesc &w = WG_TABLE[i].desc;
    printf("wgmma     %s  [%s]  k=%d  %s<-%s*%s+%s  sm_90a  (A: smem, or --wgmma-a regs)\n",
           WG_TABLE[i].ptx, WG_TABLE[i].ptx + strlen(WG_PREFIX), w.k, fmt_name(w.d),
           fmt_name(w.a), fmt_name(w.b), fmt_name(w.d));
  }
  for (int i = 0; i < TC_TYPE_COUNT; i++) {
    const TcTypes &t = TC_TYPES[i];
    printf("tcgen05   %skind::%s  [m{64,128}n{8,16,..,256}k%d.kind::%s.%s.%s.%s]  k=%d  "
           "%s<-%s*%s+%s  sm_100a\n",
           TC_PREFIX, TC_KIND_NAMES[t.kind], TC_KIND_K[t.kind], TC_KIND_NAMES[t.kind],
           fmt_name(t.d), fmt_name(t.a), fmt_name(t.b), TC_KIND_K[t.kind], fmt_name(t.d),
           fmt_name(t.a), fmt_name(t.b), fmt_name(t.d));
  }
  printf("# %d mma.sync spellings (every one of the catalog); %d wgmma spellings (m64n8 only; the "
         "catalog's other N are not compiled); %d tcgen05 type combinations x M {64,128} x N "
         "{8..256} (not: kind::f8f6f4 with 6/4-bit types, block-scaled kinds)\n",
         MMA_COUNT, WG_COUNT, TC_TYPE_COUNT);
}

// The instruction spellings the PTX for `target` must contain (check.sh greps them).
static int expect_ptx(const std::string &target) {
  int sm = 0;
  char suffix = 0;
  if (sscanf(target.c_str(), "sm_%d%c", &sm, &suffix) < 1 && sscanf(target.c_str(), "compute_%d%c",
                                                                     &sm, &suffix) < 1) {
    std::cerr << "not a target: " << target << "\n";
    return 2;
  }
  bool a = suffix == 'a';
  for (int i = 0; i < MMA_COUNT; i++)
    if (target_has(MMA_TABLE[i].desc.req, sm, a)) printf("%s\n", MMA_TABLE[i].ptx);
  if (target_has(SM90A, sm, a))
    for (int i = 0; i < WG_COUNT; i++) printf("%s\n", WG_TABLE[i].ptx);
  if (target_has(SM100A, sm, a))
    for (int i = 0; i < 3; i++) printf("%skind::%s\n", "tcgen05.mma.cta_group::1.", TC_KIND_NAMES[i]);
  return 0;
}

static int run(const Sel &sel, bool a_regs, const std::string &in_path,
               const std::string &out_path) {
  std::ifstream in(in_path);
  if (!in) {
    std::cerr << in_path << ": cannot read\n";
    return 2;
  }
  std::vector<std::string> lines;
  std::vector<Case> cases;
  std::string line;
  int bad = 0;
  while (std::getline(in, line)) {
    lines.push_back(line);
    size_t f = line.find_first_not_of(" \t\r");
    if (f == std::string::npos || line[f] == '#') continue;
    Case cs;
    cs.line = lines.size() - 1;
    std::string err = parse_case(line, sel, cs);
    if (!err.empty()) {
      if (bad++ < 20) std::cerr << in_path << ":" << lines.size() << ": " << err << "\n";
      continue;
    }
    cases.push_back(std::move(cs));
  }
  if (bad) {
    std::cerr << bad << " bad line(s); nothing run\n";
    return 2;
  }
  int dev = 0, sm = 0;
  cudaDeviceProp prop{};
  if (!cases.empty()) {
    CU(cudaGetDevice(&dev));
    CU(cudaGetDeviceProperties(&prop, dev));
    sm = prop.major * 10 + prop.minor;
  }
  if (!cases.empty() && !target_has(sel.req, sm, true)) {
    std::cerr << sel.ptx << " needs " << req_name(sel.req) << "; this GPU (" << prop.name
              << ") is sm_" << sm << "\n";
    return 1;
  }
  const size_t n = cases.size(), K = sel.k, nsc = sel.vec;
  std::vector<uint64_t> d(n);
  for (size_t i = 0; i < n; i++) d[i] = cases[i].c;
  size_t chunks = 0;
  for (const Case &c : cases) chunks = std::max(chunks, c.a.size() / K);
  uint64_t *da = nullptr, *db = nullptr, *dc = nullptr, *dd = nullptr;
  uint32_t *dsa = nullptr, *dsb = nullptr;
  int *dst = nullptr;
  if (n) {
    CU(cudaMalloc(&da, n * K * 8));
    CU(cudaMalloc(&db, n * K * 8));
    CU(cudaMalloc(&dc, n * 8));
    CU(cudaMalloc(&dd, n * 8));
    CU(cudaMalloc(&dsa, n * std::max<size_t>(nsc, 1) * 4));
    CU(cudaMalloc(&dsb, n * std::max<size_t>(nsc, 1) * 4));
    CU(cudaMalloc(&dst, n * 4));
  }
  // Call j of every line still running: its K elements, its scales, the previous D as C.
  for (size_t j = 0; j < chunks; j++) {
    std::vector<size_t> act;
    for (size_t i = 0; i < n; i++)
      if (cases[i].a.size() / K > j) act.push_back(i);
    size_t na = act.size();
    std::vector<uint64_t> ha(na * K), hb(na * K), hc(na), hd(na);
    std::vector<uint32_t> hsa(na * std::max<size_t>(nsc, 1)), hsb(hsa.size());
    std::vector<int> hst(na, 0);
    for (size_t r = 0; r < na; r++) {
      const Case &c = cases[act[r]];
      for (size_t e = 0; e < K; e++) ha[r * K + e] = c.a[j * K + e], hb[r * K + e] = c.b[j * K + e];
      for (size_t e = 0; e < nsc; e++)
        hsa[r * nsc + e] = c.sa[j * nsc + e], hsb[r * nsc + e] = c.sb[j * nsc + e];
      hc[r] = d[act[r]];
    }
    CU(cudaMemcpy(da, ha.data(), na * K * 8, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(db, hb.data(), na * K * 8, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dc, hc.data(), na * 8, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dsa, hsa.data(), hsa.size() * 4, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dsb, hsb.data(), hsb.size() * 4, cudaMemcpyHostToDevice));
    CU(cudaMemset(dst, 0, na * 4));
    KArgs g{da, db, dc, dsa, dsb, dd, dst, int(K), int(nsc)};
    if (sel.fam == FAM_MMA)
      sel.mma->kernel<<<unsigned(na), 32>>>(g);
    else if (sel.fam == FAM_WGMMA)
      (a_regs ? sel.wg->rs : sel.wg->ss)<<<unsigned(na), 128>>>(g);
    else
      TC_KERNELS[sel.tc.kind]<<<unsigned(na), 128>>>(g, sel.tcp);
    CU(cudaGetLastError());
    CU(cudaDeviceSynchronize());
    CU(cudaMemcpy(hd.data(), dd, na * 8, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(hst.data(), dst, na * 4, cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < na; r++) {
      if (hst[r] != 1) {
        std::cerr << in_path << ":" << cases[act[r]].line + 1 << ": "
                  << (hst[r] == 2 ? "the instruction is not compiled into this binary for sm_" +
                                        std::to_string(sm)
                                  : std::string("the kernel did not run"))
                  << "\n";
        return 1;
      }
      d[act[r]] = hd[r];
    }
  }
  if (n) {
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd), cudaFree(dsa), cudaFree(dsb);
    cudaFree(dst);
  }
  std::ofstream out(out_path);
  size_t next = 0;
  int digits = fmt_bits(sel.d) / 4;
  for (size_t i = 0; i < lines.size(); i++) {
    if (next < n && cases[next].line == i)
      out << with_d(lines[i], d[next++], digits) << "\n";
    else
      out << lines[i] << "\n";
  }
  if (!out) {
    std::cerr << out_path << ": cannot write\n";
    return 1;
  }
  std::cerr << n << " lines run on " << prop.name << " (sm_" << sm << ") with " << sel.ptx
            << (sel.fam == FAM_WGMMA ? (a_regs ? ", A in registers" : ", A in shared memory") : "")
            << "\n";
  return 0;
}

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  (void)words;  // common.h's lenient list reader; caseio.cuh reads the lists strictly
  if (args.size() == 1 && args[0] == "--list") return list(), 0;
  if (args.size() == 2 && args[0] == "--expect-ptx") return expect_ptx(args[1]);
  if (!args.empty() && args[0] == "--self-test") {
    if (args.size() == 3 && args[1] == "--mutate") {
      g_mutation = atoi(args[2].c_str());
      if (g_mutation < 1 || g_mutation > MUTATIONS) {
        std::cerr << "--mutate takes 1.." << MUTATIONS << "\n";
        return 2;
      }
    } else if (args.size() != 1) {
      std::cerr << "usage: mma_probe --self-test [--mutate N]\n";
      return 2;
    }
    return self_test();
  }
  bool a_regs = false;
  if (args.size() == 5 && args[3] == "--wgmma-a" && (args[4] == "regs" || args[4] == "smem")) {
    a_regs = args[4] == "regs";
    args.resize(3);
  }
  if (args.size() != 3) {
    std::cerr << "usage: mma_probe INSTRUCTION IN.jsonl OUT.jsonl [--wgmma-a smem|regs]\n"
                 "       mma_probe --list | --self-test [--mutate N] | --expect-ptx sm_XX\n";
    return 2;
  }
  Sel sel;
  std::string err;
  if (!resolve(args[0], sel, err)) {
    std::cerr << err << "\n";
    return 2;
  }
  if (a_regs && sel.fam != FAM_WGMMA) {
    std::cerr << "--wgmma-a applies to wgmma instructions only\n";
    return 2;
  }
  return run(sel, a_regs, args[1], args[2]);
}
