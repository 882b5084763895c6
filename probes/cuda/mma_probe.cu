// Runs every line of a case file on the GPU with one `mma.sync` instruction (inline PTX) and
// writes the file back with the device's "d". One dot product per line: the A row is row 0
// of A, the B column is column 0 of B, C[0][0] is "c", every other element is zero, and D[0][0]
// is the result. Each lane gathers its fragment from shared memory by the layout the PTX ISA
// documents for the instruction ("Matrix Fragments for mma.m16n8k16" and siblings).
//
//   nvcc -O2 -arch=sm_90 -o mma_probe mma_probe.cu
//   ./mma_probe m16n8k16.f32.bf16.bf16.f32 probes.jsonl measured.jsonl
//
// Instructions: m16n8k16.f32.f16.f16.f32, m16n8k16.f32.bf16.bf16.f32, m16n8k16.f16.f16.f16.f16
// (sm_80+), m16n8k8.f32.tf32.tf32.f32 (sm_80+), m16n8k32.f32.e4m3.e4m3.f32 and
// m16n8k32.f32.e5m2.e5m2.f32 (sm_89+), m8n8k4.f64.f64.f64.f64 (sm_80+). Lines longer than the
// instruction's K are run as chained calls (D of one call is C of the next), as a K loop does.
// wgmma (sm_90a) and tcgen05.mma (sm_100a) need warpgroup/tensor-memory set-up not written
// here. NOT COMPILE-CHECKED: written without a CUDA compiler at hand; check the layouts on a
// known unit first (mma eval of the same file on the catalog instruction, then mma check).
#include <cuda_runtime.h>
#include <fstream>
#include <iostream>
#include "../common.h"

enum Kind { F16_F32, BF16_F32, F16_F16, TF32_F32, E4M3_F32, E5M2_F32, F64_F64 };

struct Instr { const char *name; Kind kind; int k; int in_bytes; int out_bytes; };
static const Instr INSTRS[] = {
    {"m16n8k16.f32.f16.f16.f32", F16_F32, 16, 2, 4},
    {"m16n8k16.f32.bf16.bf16.f32", BF16_F32, 16, 2, 4},
    {"m16n8k16.f16.f16.f16.f16", F16_F16, 16, 2, 2},
    {"m16n8k8.f32.tf32.tf32.f32", TF32_F32, 8, 4, 4},
    {"m16n8k32.f32.e4m3.e4m3.f32", E4M3_F32, 32, 1, 4},
    {"m16n8k32.f32.e5m2.e5m2.f32", E5M2_F32, 32, 1, 4},
    {"m8n8k4.f64.f64.f64.f64", F64_F64, 4, 8, 8},
};

// One dot product per block of 32 threads: a[K], b[K] (raw words), c; writes d.
template <Kind KIND>
__global__ void run(const uint64_t *a, const uint64_t *b, const uint64_t *c, uint64_t *d,
                    int k) {
  const uint64_t *ar = a + (size_t)blockIdx.x * k, *br = b + (size_t)blockIdx.x * k;
  int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  // Element (row, col) of A (row 0 holds the A row) and (row k, col 0) of B.
  auto A = [&](int row, int col) -> uint64_t { return row == 0 && col < k ? ar[col] : 0; };
  auto B = [&](int krow, int col) -> uint64_t { return col == 0 && krow < k ? br[krow] : 0; };
  uint64_t acc = c[blockIdx.x];
  if constexpr (KIND == F16_F32 || KIND == BF16_F32 || KIND == F16_F16) {
    uint32_t ra[4], rb[2];
    for (int i = 0; i < 4; i++) {  // a0..a7 as four pairs
      int row = g + ((i & 1) ? 8 : 0), col = t * 2 + ((i & 2) ? 8 : 0);
      ra[i] = (uint32_t)A(row, col) | ((uint32_t)A(row, col + 1) << 16);
    }
    for (int i = 0; i < 2; i++) {  // b0..b3 as two pairs
      int krow = t * 2 + (i ? 8 : 0);
      rb[i] = (uint32_t)B(krow, g) | ((uint32_t)B(krow + 1, g) << 16);
    }
    if constexpr (KIND == F16_F16) {
      // C/D: c0,c1 (row g) and c2,c3 (row g + 8), two f16 per register; D[0][0] is lane 0's c0.
      uint32_t rc[2] = {lane == 0 ? (uint32_t)acc : 0u, 0u}, rd[2];
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
          "{%8,%9};\n"
          : "=r"(rd[0]), "=r"(rd[1])
          : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]),
            "r"(rc[1]));
      if (lane == 0) d[blockIdx.x] = rd[0] & 0xffff;
    } else {
      float rc[4] = {0, 0, 0, 0}, rd[4];
      if (lane == 0) rc[0] = __uint_as_float((uint32_t)acc);
      if constexpr (KIND == F16_F32)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%10,%11,%12,%13};\n"
            : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
            : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
              "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
      else
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%10,%11,%12,%13};\n"
            : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
            : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
              "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
      if (lane == 0) d[blockIdx.x] = __float_as_uint(rd[0]);
    }
  } else if constexpr (KIND == TF32_F32) {
    uint32_t ra[4], rb[2];
    for (int i = 0; i < 4; i++) ra[i] = (uint32_t)A(g + ((i & 1) ? 8 : 0), t + ((i & 2) ? 4 : 0));
    for (int i = 0; i < 2; i++) rb[i] = (uint32_t)B(t + (i ? 4 : 0), g);
    float rc[4] = {0, 0, 0, 0}, rd[4];
    if (lane == 0) rc[0] = __uint_as_float((uint32_t)acc);
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(rc[0]),
          "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    if (lane == 0) d[blockIdx.x] = __float_as_uint(rd[0]);
  } else if constexpr (KIND == E4M3_F32 || KIND == E5M2_F32) {
#if __CUDA_ARCH__ >= 890
    uint32_t ra[4] = {0, 0, 0, 0}, rb[2] = {0, 0};
    for (int i = 0; i < 16; i++) {  // a0..a15: four bytes per register
      int row = g + ((i & 4) ? 8 : 0), col = t * 4 + (i & 3) + ((i & 8) ? 16 : 0);
      ra[i / 4] |= (uint32_t)(A(row, col) & 0xff) << (8 * (i & 3));
    }
    for (int i = 0; i < 8; i++) {  // b0..b7
      int krow = t * 4 + (i & 3) + ((i & 4) ? 16 : 0);
      rb[i / 4] |= (uint32_t)(B(krow, g) & 0xff) << (8 * (i & 3));
    }
    float rc[4] = {0, 0, 0, 0}, rd[4];
    if (lane == 0) rc[0] = __uint_as_float((uint32_t)acc);
    if constexpr (KIND == E4M3_F32)
      asm volatile(
          "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
          "{%8,%9}, {%10,%11,%12,%13};\n"
          : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
          : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(rc[0]),
            "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    else
      asm volatile(
          "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
          "{%8,%9}, {%10,%11,%12,%13};\n"
          : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
          : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(rc[0]),
            "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    if (lane == 0) d[blockIdx.x] = __float_as_uint(rd[0]);
#endif
  } else {  // F64_F64, m8n8k4: a0 = A[g][t], b0 = B[t][g], c0,c1 = C[g][2t], C[g][2t+1]
    double ra = __longlong_as_double(A(g, t)), rb = __longlong_as_double(B(t, g));
    double rc0 = lane == 0 ? __longlong_as_double(acc) : 0.0, rc1 = 0.0, rd0, rd1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};\n"
                 : "=d"(rd0), "=d"(rd1)
                 : "d"(ra), "d"(rb), "d"(rc0), "d"(rc1));
    if (lane == 0) d[blockIdx.x] = __double_as_longlong(rd0);
  }
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
      std::cerr << "line " << lines.size() << ": not a case of K = a multiple of " << ins->k
                << " (all lines of one K)\n";
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
    uint64_t *da, *db, *dc, *dd;
    int k = ins->k;
    std::vector<uint64_t> ka(n * k), kb(n * k);
    cudaMalloc(&da, n * k * 8);
    cudaMalloc(&db, n * k * 8);
    cudaMalloc(&dc, n * 8);
    cudaMalloc(&dd, n * 8);
    // Chained calls over K: slice j of every line, with the previous D as C.
    for (size_t j = 0; j < k_line / k; j++) {
      for (size_t r = 0; r < n; r++)
        for (int e = 0; e < k; e++) {
          ka[r * k + e] = a[r * k_line + j * k + e];
          kb[r * k + e] = b[r * k_line + j * k + e];
        }
      cudaMemcpy(da, ka.data(), n * k * 8, cudaMemcpyHostToDevice);
      cudaMemcpy(db, kb.data(), n * k * 8, cudaMemcpyHostToDevice);
      cudaMemcpy(dc, d.data(), n * 8, cudaMemcpyHostToDevice);
      switch (ins->kind) {
        case F16_F32: run<F16_F32><<<n, 32>>>(da, db, dc, dd, k); break;
        case BF16_F32: run<BF16_F32><<<n, 32>>>(da, db, dc, dd, k); break;
        case F16_F16: run<F16_F16><<<n, 32>>>(da, db, dc, dd, k); break;
        case TF32_F32: run<TF32_F32><<<n, 32>>>(da, db, dc, dd, k); break;
        case E4M3_F32: run<E4M3_F32><<<n, 32>>>(da, db, dc, dd, k); break;
        case E5M2_F32: run<E5M2_F32><<<n, 32>>>(da, db, dc, dd, k); break;
        case F64_F64: run<F64_F64><<<n, 32>>>(da, db, dc, dd, k); break;
      }
      cudaError_t err = cudaDeviceSynchronize();
      if (err != cudaSuccess) {
        std::cerr << "CUDA: " << cudaGetErrorString(err) << "\n";
        return 1;
      }
      cudaMemcpy(d.data(), dd, n * 8, cudaMemcpyDeviceToHost);
    }
  }
  size_t next = 0;
  for (size_t i = 0; i < lines.size(); i++) {
    if (next < n && idx[next] == i)
      out << with_d(lines[i], d[next++], ins->out_bytes * 2) << "\n";
    else
      out << lines[i] << "\n";
  }
  int dev;
  cudaDeviceProp p;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&p, dev);
  std::cerr << n << " lines run on " << p.name << " (sm_" << p.major << p.minor << ")\n";
  return 0;
}
