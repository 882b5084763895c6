// Formats, instruction descriptions and the fragment / shared-memory / descriptor layouts of the
// probe harness, as __host__ __device__ functions: the kernels place every operand through them
// and `mma_probe --self-test` checks them on the host (no GPU needed).
//
// Sources (PTX ISA 9.x, "parallel-thread-execution"; section numbers as in PTX ISA 9.1):
//   9.7.14.5.1  Matrix Fragments for mma.m8n8k4 with .f16 floating point type   (quad pairs)
//   9.7.14.5.2  Matrix Fragments for mma.m8n8k4 with .f64 floating point type
//   9.7.14.5.6  Matrix Fragments for mma.m16n8k4            (.tf32, .f64)
//   9.7.14.5.7  Matrix Fragments for mma.m16n8k8            (.f16/.bf16, .tf32, .f64)
//   9.7.14.5.8  Matrix Fragments for mma.m16n8k16 with floating point type (.f16/.bf16, .f64)
//   9.7.14.5.9  Matrix Fragments for mma.m16n8k16 with integer type (also .e4m3/.e5m2)
//   9.7.14.5.10 Matrix Fragments for mma.m16n8k32          (.e4m3/.e5m2/.e3m2/.e2m3/.e2m1)
//   9.7.14.5.11 Matrix Fragments for mma.m16n8k64          (.e2m1 packed, mxf4/mxf4nvf4)
//   9.7.14.3    Block Scaling for mma.sync                 (scale-a/b-data, byte-id, thread-id)
//   9.7.14.5.14 mma: ".kind::f8f6f4/.kind::mxf8f6f4: .e2m1 in the central 4 bits [5:2] of an
//               8-bit container, .e3m2/.e2m3 in the lower 6 bits [5:0]"
//   9.7.15.5.1  wgmma Register Fragments and Shared Memory Matrix Layouts, Matrix Descriptor Format
//   9.7.16.3.1  tcgen05 Leading Dimension Stride (relative offset mode)
//   9.7.16.4.1  tcgen05 Shared memory descriptor;  9.7.16.4.2 Instruction descriptor
//   9.7.16.10.4.1 Packing format for matrix D in Tensor Memory (16-bit D in the low half)
//   9.7.16.10.5 Data Path Layout Organization (Layout D, M=128; Layout F, M=64: row 0 = lane 0)
#pragma once
#include <cstdint>

// ---------------------------------------------------------------------------------------------
// Formats: the width of an element in a case file (its own low bits).
enum Fmt : uint8_t { F_NONE, F16, BF16, TF32, F32, F64, E4M3, E5M2, E3M2, E2M3, E2M1, UE8M0, UE4M3 };

__host__ __device__ constexpr int fmt_bits(Fmt f) {
  return f == F16 || f == BF16 ? 16 : f == TF32 || f == F32 ? 32 : f == F64 ? 64
         : f == E4M3 || f == E5M2 || f == UE8M0 || f == UE4M3 ? 8 : f == E3M2 || f == E2M3 ? 6
         : f == E2M1 ? 4 : 0;
}

// ---------------------------------------------------------------------------------------------
// Mutations for `--self-test --mutate N`: each breaks one layout rule on the host only, so that
// the self-test can be shown to fail. Device code never sees them.
#ifdef __CUDA_ARCH__
#define MUT(i) false
#else
extern int g_mutation;
#define MUT(i) (g_mutation == (i))
#endif
#define MUTATIONS 12

// ---------------------------------------------------------------------------------------------
// Where an instruction's code exists (checked by ptxas 13.5 for each target, see check.sh).
enum Req : uint8_t { SM75, SM80, SM89, SM90, SM90A, SM100A, SM120A };

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PROBE_SM90A 1
#else
#define PROBE_SM90A 0
#endif
#if defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL)
#define PROBE_SM100A 1
#else
#define PROBE_SM100A 0
#endif
#if defined(__CUDA_ARCH_FEAT_SM120_ALL) || defined(__CUDA_ARCH_FEAT_SM121_ALL)
#define PROBE_SM120A 1
#else
#define PROBE_SM120A 0
#endif

__host__ __device__ constexpr bool arch_ok(Req r) {
#ifdef __CUDA_ARCH__
  return r == SM75 ? __CUDA_ARCH__ >= 750 : r == SM80 ? __CUDA_ARCH__ >= 800
         : r == SM89 ? __CUDA_ARCH__ >= 890 : r == SM90 ? __CUDA_ARCH__ >= 900
         : r == SM90A ? PROBE_SM90A != 0 : r == SM100A ? PROBE_SM100A != 0
         : r == SM120A ? PROBE_SM120A != 0 : false;
#else
  (void)r;  // host pass: no device code
  return false;
#endif
}

// ---------------------------------------------------------------------------------------------
// One mma.sync instruction: shape, types, how elements sit in registers.
enum Layout : uint8_t {
  L_M16N8,  // every m16n8kK form and m8n8k4.f64 (M = 8): the groupID/threadID_in_group rule below
  L_QP884,  // m8n8k4 .f16: four independent 8x8x4 products on quad pairs (9.7.14.5.1)
};
enum Pack : uint8_t {
  P_NATIVE,  // element bits as they are (f16, bf16, tf32 as an fp32 word, fp8, f64)
  P_CONT8,   // .kind::f8f6f4 / .kind::mxf8f6f4: every element in an 8-bit container
  P_NIB4,    // .kind::mxf4 / .kind::mxf4nvf4: .e2m1 packed two per byte, no padding
};

struct MmaDesc {
  int m, n, k;
  Fmt d, a, b, c, s;  // s: scale format (F_NONE: no block scaling)
  int vec;            // .scale_vec::1X/2X/4X (0: none)
  Layout lay;
  Pack pack;
  Req req;
};

__host__ __device__ constexpr int reg_bits(Fmt f) { return f == F64 ? 64 : 32; }
// Bits one A/B element takes in a register.
__host__ __device__ constexpr int slot_bits(const MmaDesc &m, Fmt f) {
  return f == F64 ? 64 : m.pack == P_CONT8 ? 8 : fmt_bits(f);
}
__host__ __device__ constexpr int elems_per_reg(const MmaDesc &m, Fmt f) {
  return reg_bits(f) / slot_bits(m, f);
}
__host__ __device__ constexpr int n_a_regs(const MmaDesc &m) {
  return m.lay == L_QP884 ? 2 : m.m * m.k / 32 / elems_per_reg(m, m.a);
}
__host__ __device__ constexpr int n_b_regs(const MmaDesc &m) {
  return m.lay == L_QP884 ? 2 : m.k * m.n / 32 / elems_per_reg(m, m.b);
}
// Accumulator registers (C uses m.c, D uses m.d): f16 two per .f16x2 register.
__host__ __device__ constexpr int acc_per_reg(Fmt f) { return f == F16 ? 2 : 1; }
__host__ __device__ constexpr int n_acc_regs(const MmaDesc &m, Fmt f) {
  return (m.lay == L_QP884 ? 8 : m.m * m.n / 32) / acc_per_reg(f);
}

// An element's place in a fragment: matrix id (quad pair 0..3 for m8n8k4.f16, else 0), row, col.
struct Pos { int mat, row, col; };

// A (M x K, row-major): register r, slot s (low to high) of lane -> element.
// L_M16N8, with g = lane >> 2 (groupID), t = lane % 4 (threadID_in_group), E = elements per
// register: row = g + 8 * (r & 1), col = (r >> 1) * 4E + t * E + s. This one rule reproduces every
// "row = ... col = ..." table of 9.7.14.5.6-11: m16n8k4/k8 tf32 (E=1), m16n8k8/k16 f16/bf16 (E=2),
// m16n8k16/k32 8-bit and 8-bit-container types (E=4), m16n8k64 .e2m1 (E=8), and the .f64 forms
// with one element per 64-bit register (E=1; m16n8k16.f64: col = 4 * (i >> 1) + t); m8n8k4.f64
// has one A register (row = g, col = t).
__host__ __device__ inline Pos frag_a(const MmaDesc &m, int lane, int r, int s) {
  int g = lane >> 2, t = lane & 3;
  if (m.lay == L_QP884) {  // row-major A: row = lane % 4 (+4 for lanes 16..31), col = i
    int hi = lane >= 16, i = 2 * r + s;
    return {(lane >> 2) & 3, (lane & 3) + 4 * hi, i};
  }
  int e = elems_per_reg(m, m.a);
  int row = g + 8 * (r & 1);
  if (MUT(1)) row = g + 8 * ((r >> 1) & 1);
  return {0, row, (r >> 1) * 4 * e + t * e + s};
}
// B (K x N, column-major): row (k) = r * 4E + t * E + s, col = g (9.7.14.5.6-11).
__host__ __device__ inline Pos frag_b(const MmaDesc &m, int lane, int r, int s) {
  int g = lane >> 2, t = lane & 3;
  if (m.lay == L_QP884) {  // column-major B: row = i, col = lane % 4 (+4 for lanes 16..31)
    int hi = lane >= 16, i = 2 * r + s;
    return {(lane >> 2) & 3, i, (lane & 3) + 4 * hi};
  }
  int e = elems_per_reg(m, m.b);
  int krow = r * 4 * e + t * e + s;
  if (MUT(2)) krow = r * 4 * e + t * e + (e - 1 - s);
  return {0, krow, g};
}
// C/D: element i (i = reg * per_reg + slot): row = g + 8 * (i >> 1), col = 2t + (i & 1) for every
// m16n8 form (and m8n8k4.f64, i < 2). m8n8k4.f16 (9.7.14.5.1): .f16 accumulators row = lane % 4
// (+4), col = i; .f32 accumulators row = X (+4) with X = (lane & 1) + (i & 2), col = (i & 4) +
// (lane & 2) + (i & 1).
__host__ __device__ inline Pos frag_acc(const MmaDesc &m, Fmt f, int lane, int r, int s) {
  int g = lane >> 2, t = lane & 3, i = r * acc_per_reg(f) + s;
  if (m.lay == L_QP884) {
    int hi = lane >= 16, mat = (lane >> 2) & 3;
    if (f == F16) return {mat, (lane & 3) + 4 * hi, i};
    int row = (lane & 1) + (i & 2) + 4 * hi;
    if (MUT(8)) row = (lane & 1) + (i & 1) + 4 * hi;
    return {mat, row, (i & 4) + (lane & 2) + (i & 1)};
  }
  int col = 2 * t + (i & 1);
  if (MUT(3)) col = 2 * t + (i >> 1);
  return {0, g + 8 * (i >> 1), col};
}

// An element of a case file in its register slot (9.7.14.5.14: .e2m1 in bits [5:2] of the byte,
// .e3m2/.e2m3 in bits [5:0], fp8 the whole byte; .kind::mxf4*: plain nibbles).
__host__ __device__ inline uint64_t slot_value(const MmaDesc &m, Fmt f, uint64_t v) {
  if (m.pack == P_CONT8 && f == E2M1) return MUT(4) ? (v & 0xf) : (v & 0xf) << 2;
  int w = fmt_bits(f);
  return w >= 64 ? v : v & ((1ull << w) - 1);
}

// Block scaling (9.7.14.3) with byte-id = 0 and thread-id = 0 for both operands:
//   scale_A: the thread pair lane % 4 == 0 / 1 of quad g gives SF_A of rows g / g + 8;
//   scale_B: lane % 4 == 0 of quad g gives SF_B of column g;
//   byte j of the .b32 metadata is the scale of the j-th K block (1X: byte 0; 2X: bytes 0-1;
//   4X: bytes 0-3). Returns the row (A) / column (B) a lane's metadata scales, or -1.
__host__ __device__ inline int scale_a_row(int lane) {
  int q = lane & 3, g = lane >> 2;
  if (MUT(7)) return q == 1 ? g : q == 0 ? g + 8 : -1;
  return q == 0 ? g : q == 1 ? g + 8 : -1;
}
__host__ __device__ inline int scale_b_col(int lane) { return (lane & 3) == 0 ? lane >> 2 : -1; }

// Register images of one lane. 32-bit registers use the low half of a word.
struct Regs {
  uint64_t a[8], b[4], c[8], d[8];
  uint32_t sa, sb;
};

// One lane's operands for one dot product: row 0 of A = a[0..k), column 0 of B = b[0..k),
// C[0][0] = c, every other element 0; the scale metadata of row 0 / column 0 = sa[] / sb[]
// (one byte per K block), every other lane's metadata 0.
__host__ __device__ inline void pack_mma(const MmaDesc &m, int lane, const uint64_t *a,
                                         const uint64_t *b, uint64_t c, const uint32_t *sa,
                                         const uint32_t *sb, Regs &r) {
  for (int i = 0; i < 8; i++) r.a[i] = r.c[i] = r.d[i] = 0;
  for (int i = 0; i < 4; i++) r.b[i] = 0;
  int ea = elems_per_reg(m, m.a), wa = slot_bits(m, m.a);
  for (int ri = 0; ri < n_a_regs(m); ri++)
    for (int s = 0; s < ea; s++) {
      Pos p = frag_a(m, lane, ri, s);
      if (p.mat == 0 && p.row == 0) r.a[ri] |= slot_value(m, m.a, a[p.col]) << (wa * s % 64);
    }
  int eb = elems_per_reg(m, m.b), wb = slot_bits(m, m.b);
  for (int ri = 0; ri < n_b_regs(m); ri++)
    for (int s = 0; s < eb; s++) {
      Pos p = frag_b(m, lane, ri, s);
      if (p.mat == 0 && p.col == 0) r.b[ri] |= slot_value(m, m.b, b[p.row]) << (wb * s % 64);
    }
  int pc = acc_per_reg(m.c), wc = fmt_bits(m.c);
  for (int ri = 0; ri < n_acc_regs(m, m.c); ri++)
    for (int s = 0; s < pc; s++) {
      Pos p = frag_acc(m, m.c, lane, ri, s);
      if (p.mat == 0 && p.row == 0 && p.col == 0) r.c[ri] |= slot_value(m, m.c, c) << (wc * s % 64);
    }
  r.sa = r.sb = 0;
  if (m.vec) {
    if (scale_a_row(lane) == 0)
      for (int j = 0; j < m.vec; j++) r.sa |= (sa[j] & 0xffu) << (8 * j);
    if (scale_b_col(lane) == 0)
      for (int j = 0; j < m.vec; j++) r.sb |= (sb[j] & 0xffu) << (8 * j);
  }
}

// D[0][0]: lane 0, register 0, slot 0 in every layout above (the self-test checks it against
// frag_acc). Its bits, `fmt_bits(m.d)` wide.
__host__ __device__ inline uint64_t read_d00(const MmaDesc &m, const Regs &r) {
  int w = fmt_bits(m.d);
  return w >= 64 ? r.d[0] : r.d[0] & ((1ull << w) - 1);
}

// ---------------------------------------------------------------------------------------------
// wgmma (9.7.15.5.1.1): a warpgroup of 4 warps; warp w holds rows 16w..16w+15 of A (when A is in
// registers) and of D, each with the m16n8kK fragment of its warp (the "WGMMA .m64nNk16 /
// .m64nNk8 / .m64nNk32 register fragment layout" figures). D element i of a lane: row = 16w + g +
// 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2t + (i & 1).
__host__ __device__ inline Pos wg_acc(int tid, int i) {
  int w = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  int row = 16 * w + g + 8 * ((i >> 1) & 1);
  if (MUT(9)) row = 16 * (3 - w) + g + 8 * ((i >> 1) & 1);
  return {0, row, 8 * (i >> 2) + 2 * t + (i & 1)};
}

// Shared memory, K-major, no swizzle (9.7.15.5.1.2 "Canonical Layouts": K-major, no-swizzling:
// ((8,m),(T,2k)):((1T,SBO),(1,LBO)), T = 128 / element bits). The matrix (R rows of K elements:
// A is M x K, B is N x K as "column-major K x N") is cut into core matrices of 8 rows x 16 bytes,
// each 128 contiguous bytes (row r % 8 at 16 * (r % 8)); core matrices along K are LBO = 128
// bytes apart, along M/N SBO = (K * elem_bytes / 16) * 128 bytes apart.
struct KMajor { int lbo, sbo, bytes; };
__host__ __device__ inline KMajor kmajor(int rows, int k, int elem_bytes) {
  int sbo = k * elem_bytes / 16 * 128;
  return {128, sbo, rows / 8 * sbo};
}
__host__ __device__ inline int kmajor_offset(const KMajor &l, int elem_bytes, int r, int k) {
  int t = 16 / elem_bytes;
  int sbo = MUT(5) ? l.lbo : l.sbo, lbo = MUT(5) ? l.sbo : l.lbo;
  return (r >> 3) * sbo + (k / t) * lbo + (r & 7) * 16 + (k % t) * elem_bytes;
}
// matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4. wgmma (9.7.15.5.1.2.2): start address bits
// 0-13, LBO bits 16-29, SBO bits 32-45, base offset 49-51 (0), swizzle 62-63 (0: none).
// tcgen05 (9.7.16.4.1): the same fields, bits 46-48 the fixed constant 0b001, base offset 49-51
// (0), bit 52 0 (relative LBO), bits 53-60 0, swizzle 61-63 (0: none).
__host__ __device__ inline uint64_t smem_desc(uint32_t addr, const KMajor &l, bool tcgen05) {
  auto enc = [](uint64_t x) { return (x & 0x3ffff) >> 4; };
  int lbo_shift = MUT(6) ? 32 : 16, sbo_shift = MUT(6) ? 16 : 32;
  uint64_t d = enc(addr) | enc(l.lbo) << lbo_shift | enc(l.sbo) << sbo_shift;
  if (tcgen05) d |= 1ull << 46;
  return d;
}

// tcgen05 instruction descriptor for .kind::tf32/.kind::f16/.kind::f8f6f4 (9.7.16.4.2, Table
// "Instruction descriptor format for .kind::tf32, .kind::f16, .kind::f8f6f4 and .kind::i8"):
// bits 4-5 dtype (F16 0, F32 1), 7-9 atype, 10-12 btype (tf32: TF32 2; f16: F16 0, BF16 1;
// f8f6f4: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5), 13/14 negate A/B (0), 15/16 transpose A/B (0:
// K-major), 17-22 N >> 3, 24-28 M >> 4; dense, no saturate, no shift.
__host__ __device__ inline int tc_type_code(Fmt f) {
  return f == TF32 ? 2 : f == F16 ? 0 : f == BF16 ? 1 : f == E4M3 ? 0 : f == E5M2 ? 1
         : f == E2M3 ? 3 : f == E3M2 ? 4 : f == E2M1 ? 5 : -1;
}
__host__ __device__ inline uint32_t tc_idesc(Fmt d, Fmt a, Fmt b, int m, int n) {
  uint32_t desc = (d == F32 ? 1u : 0u) << 4 | uint32_t(tc_type_code(a)) << 7 |
                  uint32_t(tc_type_code(b)) << 10 | uint32_t(n >> 3) << 17;
  return desc | uint32_t(m >> 4) << (MUT(10) ? 23 : 24);
}
// Tensor Memory columns to allocate: a power of 2, at least 32 (tcgen05.alloc), at least N (one
// 32-bit column per D element; a 16-bit D sits in the low half, 9.7.16.10.4.1).
__host__ __device__ inline int tc_cols(int n) {
  int c = 32;
  while (c < n) c *= 2;
  return c;
}
