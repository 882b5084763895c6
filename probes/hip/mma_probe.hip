// Runs every line of a case file on an AMD GPU with one MFMA instruction
// (__builtin_amdgcn_mfma_*) and writes the file back with the device's "d". One dot product
// per line: the A row is row 0 of A, the B column is column 0 of B, C[0][0] is "c", every
// other element is zero, and D[0][0] is the result. Lane layouts of the 16x16 MFMA shapes
// (AMD matrix instruction calculator): A element [i][k] in lane i + 16*(k / n) slot k % n,
// B element [k][j] in lane j + 16*(k / n) slot k % n (n elements per lane), D element [i][j]
// in lane j + 16*(i / 4) slot i % 4.
//
//   hipcc -O2 --offload-arch=gfx942 -o mma_probe mma_probe.hip
//   ./mma_probe f32_16x16x16_f16 probes.jsonl measured.jsonl
//
// Instructions: f32_16x16x16_f16 (CDNA1+), f32_16x16x16_bf16_1k (CDNA2+), f32_16x16x4_f32
// (CDNA1+), f32_16x16x32_fp8_fp8 (CDNA3). Lines longer than K run as chained calls.
// NOT COMPILE-CHECKED: written without a HIP compiler at hand; check on a known unit first.
#include <hip/hip_runtime.h>
#include <fstream>
#include <iostream>
#include "../common.h"

enum Kind { F16, BF16, F32, FP8 };
struct Instr { const char *name; Kind kind; int k; };
static const Instr INSTRS[] = {
    {"f32_16x16x16_f16", F16, 16},
    {"f32_16x16x16_bf16_1k", BF16, 16},
    {"f32_16x16x4_f32", F32, 4},
    {"f32_16x16x32_fp8_fp8", FP8, 32},
};

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef short short4_ __attribute__((ext_vector_type(4)));
typedef float float4_ __attribute__((ext_vector_type(4)));

template <Kind KIND>
__global__ void run(const uint64_t *a, const uint64_t *b, const uint64_t *c, uint64_t *d, int k) {
  const uint64_t *ar = a + (size_t)blockIdx.x * k, *br = b + (size_t)blockIdx.x * k;
  int lane = threadIdx.x, col = lane % 16, kq = lane / 16;
  // This lane holds A[col][...] (row = col index) and B[...][col]; only row/column 0 is set.
  auto A = [&](int kk) -> uint64_t { return col == 0 && kk < k ? ar[kk] : 0; };
  auto B = [&](int kk) -> uint64_t { return col == 0 && kk < k ? br[kk] : 0; };
  float4_ acc = {0, 0, 0, 0};
  if (lane == 0) acc[0] = __uint_as_float((uint32_t)c[blockIdx.x]);
  float4_ r;
  if constexpr (KIND == F16 || KIND == BF16) {
    short4_ va, vb;
    for (int i = 0; i < 4; i++) {
      va[i] = (short)A(4 * kq + i);
      vb[i] = (short)B(4 * kq + i);
    }
    if constexpr (KIND == F16)
      r = __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(half4, va),
                                                __builtin_bit_cast(half4, vb), acc, 0, 0, 0);
    else
      r = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(va, vb, acc, 0, 0, 0);
  } else if constexpr (KIND == F32) {
    r = __builtin_amdgcn_mfma_f32_16x16x4f32(__uint_as_float((uint32_t)A(kq)),
                                             __uint_as_float((uint32_t)B(kq)), acc, 0, 0, 0);
  } else {
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
    long va = 0, vb = 0;
    for (int i = 0; i < 8; i++) {
      va |= (long)(A(8 * kq + i) & 0xff) << (8 * i);
      vb |= (long)(B(8 * kq + i) & 0xff) << (8 * i);
    }
    r = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(va, vb, acc, 0, 0, 0);
#else
    r = acc;
#endif
  }
  if (lane == 0) d[blockIdx.x] = __float_as_uint(r[0]);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::cerr << "usage: mma_probe INSTRUCTION IN.jsonl OUT.jsonl\n";
    return 2;
  }
  const Instr *ins = nullptr;
  for (const Instr &i : INSTRS)
    if (std::string(argv[1]) == i.name) ins = &i;
  if (!ins) {
    std::cerr << "unknown instruction " << argv[1] << "\n";
    return 2;
  }
  std::ifstream in(argv[2]);
  std::ofstream out(argv[3]);
  std::vector<std::string> lines;
  std::vector<uint64_t> a, b, c;
  std::vector<size_t> idx;
  std::string line, s;
  size_t k_line = 0;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (line.empty() || line[0] == '#' || !field(line, "a", s)) continue;
    std::vector<uint64_t> ra = words(s), rb;
    if (field(line, "b", s)) rb = words(s);
    std::string cs;
    if (!field(line, "c", cs) || ra.size() != rb.size() || ra.size() % ins->k != 0 ||
        (k_line && ra.size() != k_line)) {
      std::cerr << "line " << lines.size() << ": not a case of K = a multiple of " << ins->k << "\n";
      return 1;
    }
    k_line = ra.size();
    a.insert(a.end(), ra.begin(), ra.end());
    b.insert(b.end(), rb.begin(), rb.end());
    c.push_back(strtoull(cs.c_str(), nullptr, 16));
    idx.push_back(lines.size() - 1);
  }
  size_t n = c.size();
  std::vector<uint64_t> d(c);
  if (n) {
    int k = ins->k;
    uint64_t *da, *db, *dc, *dd;
    std::vector<uint64_t> ka(n * k), kb(n * k);
    hipMalloc(&da, n * k * 8);
    hipMalloc(&db, n * k * 8);
    hipMalloc(&dc, n * 8);
    hipMalloc(&dd, n * 8);
    for (size_t j = 0; j < k_line / k; j++) {
      for (size_t r = 0; r < n; r++)
        for (int e = 0; e < k; e++) {
          ka[r * k + e] = a[r * k_line + j * k + e];
          kb[r * k + e] = b[r * k_line + j * k + e];
        }
      hipMemcpy(da, ka.data(), n * k * 8, hipMemcpyHostToDevice);
      hipMemcpy(db, kb.data(), n * k * 8, hipMemcpyHostToDevice);
      hipMemcpy(dc, d.data(), n * 8, hipMemcpyHostToDevice);
      switch (ins->kind) {
        case F16: run<F16><<<n, 64>>>(da, db, dc, dd, k); break;
        case BF16: run<BF16><<<n, 64>>>(da, db, dc, dd, k); break;
        case F32: run<F32><<<n, 64>>>(da, db, dc, dd, k); break;
        case FP8: run<FP8><<<n, 64>>>(da, db, dc, dd, k); break;
      }
      if (hipDeviceSynchronize() != hipSuccess) {
        std::cerr << "HIP error\n";
        return 1;
      }
      hipMemcpy(d.data(), dd, n * 8, hipMemcpyDeviceToHost);
    }
  }
  size_t next = 0;
  for (size_t i = 0; i < lines.size(); i++) {
    if (next < n && idx[next] == i)
      out << with_d(lines[i], d[next++], 8) << "\n";
    else
      out << lines[i] << "\n";
  }
  std::cerr << n << " lines run\n";
  return 0;
}
