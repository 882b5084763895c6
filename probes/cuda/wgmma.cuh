// wgmma.mma_async (sm_90a), m64n8 forms: one dot product per warpgroup (128 threads).
//
// A (64 x K) comes from shared memory through a matrix descriptor (default) or from registers
// (--wgmma-a regs: warp w holds rows 16w..16w+15 with the m16n8kK fragment of its warp,
// 9.7.15.5.1.1); B (K x 8, "column-major" = 8 rows of K, K-major) always from shared memory; both
// K-major without swizzle (9.7.15.5.1.2, layouts.cuh: kmajor). D starts as C: every accumulator 0
// except C[0][0] (thread 0, d0) and scale-d = 1, so D = A * B + C. Order (9.7.15.5 / "Async
// Proxy"): shared-memory stores, fence.proxy.async.shared::cta, bar.sync, wgmma.fence, the mma,
// wgmma.commit_group, wgmma.wait_group 0.
//
// The catalog lists every N from 8 to 256 (384 spellings); only N = 8 is compiled here (the dot
// product reads column 0 only, and each N needs its own N/2-register spelling). Other N are
// refused by name.
#pragma once
#include "layouts.cuh"
#include "mma_sync.cuh"

struct WgDesc {
  int k;
  Fmt d, a, b;
  bool trans_imm;  // .f16/.bf16 take imm-trans-a/b; .tf32 and .e4m3/.e5m2 do not
};

// D: 4 x .f32 ("+f") or 2 x .f16x2 ("+r") for N = 8; A: 4 x .b32 registers or a descriptor.
#define WG_D4F "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
#define WG_D2H "+r"(e0), "+r"(e1)
#define WG_AREGS R32(ra[0]), R32(ra[1]), R32(ra[2]), R32(ra[3])
// scale-d is the predicate p (true: D = A * B + D); imm-scale-a/b = 1; imm-trans = 0 (K-major).
#define WG_SS_F32(P, T)                                                                        \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" P                                  \
               " {%0,%1,%2,%3}, %4, %5, p, 1, 1" T ";\n}\n"                                    \
               : WG_D4F : "l"(adesc), "l"(bdesc), "r"(1u));
#define WG_SS_F16(P, T)                                                                        \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n" P " {%0,%1}, %2, %3, p, 1, 1" T    \
               ";\n}\n"                                                                        \
               : WG_D2H : "l"(adesc), "l"(bdesc), "r"(1u));
#define WG_RS_F32(P, T)                                                                        \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n" P                                  \
               " {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p, 1, 1" T ";\n}\n"                         \
               : WG_D4F : WG_AREGS, "l"(bdesc), "r"(1u));
#define WG_RS_F16(P, T)                                                                        \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %7, 0;\n" P                                  \
               " {%0,%1}, {%2,%3,%4,%5}, %6, p, 1, 1" T ";\n}\n"                               \
               : WG_D2H : WG_AREGS, "l"(bdesc), "r"(1u));

// X(id, spelling after "wgmma.mma_async.sync.aligned.", K, dtype, atype, btype, f16-style
//   imm-trans operands, D signature)
#define WG_FP8(X, a, A, b, B)                                                                    \
  X(f32_##a##_##b, "m64n8k32.f32." #a "." #b, 32, F32, A, B, false, F32)                          \
  X(f16_##a##_##b, "m64n8k32.f16." #a "." #b, 32, F16, A, B, false, F16)
#define WG_LIST(X)                                                                               \
  X(f32_f16, "m64n8k16.f32.f16.f16", 16, F32, F16, F16, true, F32)                               \
  X(f16_f16, "m64n8k16.f16.f16.f16", 16, F16, F16, F16, true, F16)                               \
  X(f32_bf16, "m64n8k16.f32.bf16.bf16", 16, F32, BF16, BF16, true, F32)                          \
  X(f32_tf32, "m64n8k8.f32.tf32.tf32", 8, F32, TF32, TF32, false, F32)                           \
  WG_FP8(X, e4m3, E4M3, e4m3, E4M3) WG_FP8(X, e4m3, E4M3, e5m2, E5M2)                            \
  WG_FP8(X, e5m2, E5M2, e4m3, E4M3) WG_FP8(X, e5m2, E5M2, e5m2, E5M2)

#define WG_T_SS_true ", 0, 0"  // imm-trans-a, imm-trans-b
#define WG_T_SS_false ""
#define WG_T_RS_true ", 0"     // imm-trans-b
#define WG_T_RS_false ""
#define WG_STRUCT(ID, P, K, D, A, B, TR, DS)                                                  \
  struct wg_##ID {                                                                            \
    static constexpr WgDesc desc = {K, D, A, B, TR};                                          \
    __device__ static void ss(uint64_t adesc, uint64_t bdesc, uint32_t *acc) {                \
      WG_SS_##DS("wgmma.mma_async.sync.aligned." P, WG_T_SS_##TR)                             \
    }                                                                                         \
    __device__ static void rs(const uint32_t *ra, uint64_t bdesc, uint32_t *acc) {            \
      WG_RS_##DS("wgmma.mma_async.sync.aligned." P, WG_T_RS_##TR)                             \
    }                                                                                         \
  };
// The accumulator registers as .f32 (d0..d3) or .f16x2 (e0, e1) views of acc[].
#define WG_ACC_F32                                                                            \
  float d0 = __uint_as_float(acc[0]), d1 = __uint_as_float(acc[1]),                           \
        d2 = __uint_as_float(acc[2]), d3 = __uint_as_float(acc[3]);
#define WG_ACC_F32_OUT                                                                        \
  acc[0] = __float_as_uint(d0); acc[1] = __float_as_uint(d1); acc[2] = __float_as_uint(d2);    \
  acc[3] = __float_as_uint(d3);
#define WG_ACC_F16 uint32_t e0 = acc[0], e1 = acc[1];
#define WG_ACC_F16_OUT acc[0] = e0; acc[1] = e1;
#define WG_SS_F32W(P, T) WG_ACC_F32 WG_SS_F32(P, T) WG_ACC_F32_OUT
#define WG_SS_F16W(P, T) WG_ACC_F16 WG_SS_F16(P, T) WG_ACC_F16_OUT
#define WG_RS_F32W(P, T) WG_ACC_F32 WG_RS_F32(P, T) WG_ACC_F32_OUT
#define WG_RS_F16W(P, T) WG_ACC_F16 WG_RS_F16(P, T) WG_ACC_F16_OUT
#define WG_STRUCT_W(ID, P, K, D, A, B, TR, DS) WG_STRUCT(ID, P, K, D, A, B, TR, DS##W)
WG_LIST(WG_STRUCT_W)
#undef WG_STRUCT_W
#undef WG_STRUCT

// An MmaDesc for the m16n8kK fragment one warp of the warpgroup uses for A in registers.
__host__ __device__ constexpr MmaDesc wg_frag_desc(const WgDesc &w) {
  return {16, 8, w.k, w.d, w.a, w.b, w.d, F_NONE, 0, L_M16N8, P_NATIVE, SM90A};
}
// Writes element value v (elem_bytes wide, little-endian) at byte offset off of a buffer.
__host__ __device__ inline void put_elem(uint8_t *buf, int off, int elem_bytes, uint64_t v) {
  for (int i = 0; i < elem_bytes; i++) buf[off + i] = uint8_t(v >> (8 * i));
}

#define WG_ABYTES 2048  // 64 rows x 32 bytes (K * element bytes = 32 for every m64n8 form)
#define WG_BBYTES 256   // 8 rows x 32 bytes

template <class W, bool A_REGS>
__global__ void __launch_bounds__(128) wgmma_kernel(KArgs g) {
  constexpr WgDesc w = W::desc;
  const int line = blockIdx.x, tid = threadIdx.x;
  if constexpr (arch_ok(SM90A)) {
    __shared__ alignas(128) uint8_t sa[WG_ABYTES];
    __shared__ alignas(128) uint8_t sb[WG_BBYTES];
    constexpr int eb = fmt_bits(w.a) / 8;
    const KMajor la = kmajor(64, w.k, eb), lb = kmajor(8, w.k, eb);
    const uint64_t *a = g.a + (size_t)line * g.k, *b = g.b + (size_t)line * g.k;
    for (int i = tid; i < WG_ABYTES; i += 128) sa[i] = 0;
    for (int i = tid; i < WG_BBYTES; i += 128) sb[i] = 0;
    __syncthreads();
    if (tid == 0)
      for (int k = 0; k < w.k; k++) {
        if (!A_REGS) put_elem(sa, kmajor_offset(la, eb, 0, k), eb, a[k]);
        put_elem(sb, kmajor_offset(lb, eb, 0, k), eb, b[k]);
      }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    uint32_t acc[4] = {0, 0, 0, 0};
    if (tid == 0) acc[0] = uint32_t(g.c[line]);  // C[0][0]: thread 0, d0 (wg_acc)
    uint32_t ra[4] = {0, 0, 0, 0};
    if (A_REGS && tid < 32) {  // rows 0..15 belong to warp 0; the other warps' A rows are 0
      Regs r;
      pack_mma(wg_frag_desc(w), tid, a, b, 0, nullptr, nullptr, r);
      for (int i = 0; i < 4; i++) ra[i] = uint32_t(r.a[i]);
    }
    const uint64_t adesc = smem_desc(uint32_t(__cvta_generic_to_shared(sa)), la, false);
    const uint64_t bdesc = smem_desc(uint32_t(__cvta_generic_to_shared(sb)), lb, false);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    if constexpr (A_REGS)
      W::rs(ra, bdesc, acc);
    else
      W::ss(adesc, bdesc, acc);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    if (tid == 0) {
      g.d[line] = w.d == F16 ? (acc[0] & 0xffffu) : acc[0];
      g.status[line] = 1;
    }
  } else {
    if (tid == 0) g.status[line] = 2;
  }
}

struct WgEntry {
  const char *ptx;
  WgDesc desc;
  void (*ss)(KArgs), (*rs)(KArgs);
};
#define WG_ROW(ID, P, ...)                                                                     \
  {"wgmma.mma_async.sync.aligned." P, wg_##ID::desc, wgmma_kernel<wg_##ID, false>,             \
   wgmma_kernel<wg_##ID, true>},
static const WgEntry WG_TABLE[] = {WG_LIST(WG_ROW)};
#undef WG_ROW
static const int WG_COUNT = sizeof(WG_TABLE) / sizeof(WG_TABLE[0]);
