// Device code of the HIP harness: one kernel per MFMA of instrs.h (MFMA_OPS), one wave per case,
// and KERNELS, indexed like OPS. Empty in a host-only build (-DMMA_PROBE_HOST_ONLY).
#pragma once
// ---------------------------------------------------------------------------------------------
// Device code
// ---------------------------------------------------------------------------------------------
#ifndef MMA_PROBE_HOST_ONLY
#include <hip/hip_runtime.h>
#include <cstddef>
#include <cstdint>
#include "instrs.h"

// Which MFMAs the code object of this compilation target has. The host pass and any target
// outside CDNA1-3 get none (their kernels only report that).
#if defined(__gfx908__)
#define MFMA_IF_G123(yes, no) yes
#define MFMA_IF_G12(yes, no) yes
#define MFMA_IF_G23(yes, no) no
#define MFMA_IF_G3(yes, no) no
#elif defined(__gfx90a__)
#define MFMA_IF_G123(yes, no) yes
#define MFMA_IF_G12(yes, no) yes
#define MFMA_IF_G23(yes, no) yes
#define MFMA_IF_G3(yes, no) no
#elif defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define MFMA_IF_G123(yes, no) yes
#define MFMA_IF_G12(yes, no) no
#define MFMA_IF_G23(yes, no) yes
#define MFMA_IF_G3(yes, no) yes
#else
#define MFMA_IF_G123(yes, no) no
#define MFMA_IF_G12(yes, no) no
#define MFMA_IF_G23(yes, no) no
#define MFMA_IF_G3(yes, no) no
#endif

typedef float f32x2 __attribute__((ext_vector_type(2)));
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef float f32x32 __attribute__((ext_vector_type(32)));
typedef double f64x4 __attribute__((ext_vector_type(4)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef short i16x2 __attribute__((ext_vector_type(2)));
typedef short i16x4 __attribute__((ext_vector_type(4)));
typedef int i32x4 __attribute__((ext_vector_type(4)));
typedef int i32x16 __attribute__((ext_vector_type(16)));
typedef int i32x32 __attribute__((ext_vector_type(32)));

// The operand of a lane from the low bytes of its 64-bit image (element s of a vector operand
// in bits [s*w, s*w+w): little-endian, as the registers hold it).
template <typename T>
__device__ inline T from_bits(uint64_t v) {
  if constexpr (sizeof(T) == 4)
    return __builtin_bit_cast(T, (uint32_t)v);
  else
    return __builtin_bit_cast(T, v);
}

// One wave (one workgroup of 64 work-items) per case: lane t of wave w reads its A and B
// operands from a[64 w + t], b[64 w + t] and its C words from c[(64 w + t) W ...], and writes D
// the same way. Everything about which element sits where is decided on the host.
template <typename O, typename V, V (*F)(O, O, V)>
__device__ inline void mfma_wave(const uint64_t *a, const uint64_t *b, const uint32_t *c,
                                 uint32_t *d) {
  constexpr int W = sizeof(V) / 4;
  struct Words {
    uint32_t w[W];
  };
  const size_t t = (size_t)__builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  Words in;
  for (int r = 0; r < W; r++) in.w[r] = c[t * W + r];
  Words out = __builtin_bit_cast(Words, F(from_bits<O>(a[t]), from_bits<O>(b[t]), __builtin_bit_cast(V, in)));
  for (int r = 0; r < W; r++) d[t * W + r] = out.w[r];
}

// cbsz = abid = blgp = 0: no broadcast, no lane swizzle.
#define MFMA_KERNEL(FN, M, N, K, BL, A, B, CD, G, OT, OB, AT, AB)                               \
  static_assert(sizeof(OT) == (OB) && sizeof(AT) == (AB), "operand sizes of " #FN);             \
  __device__ inline AT mfma_call_##FN(OT x, OT y, AT z) {                                       \
    (void)x, (void)y;                                                                           \
    return MFMA_IF_##G(__builtin_amdgcn_mfma_##FN(x, y, z, 0, 0, 0), z);                         \
  }                                                                                             \
  __global__ void __launch_bounds__(64)                                                         \
      mfma_##FN(const uint64_t *a, const uint64_t *b, const uint32_t *c, uint32_t *d, int *bad) { \
    if (MFMA_IF_##G(false, true)) {                                                             \
      *bad = 1; /* not in this target's code object */                                         \
      return;                                                                                   \
    }                                                                                           \
    mfma_wave<OT, AT, mfma_call_##FN>(a, b, c, d);                                              \
  }
MFMA_OPS(MFMA_KERNEL)

#define MFMA_PTR(FN, ...) reinterpret_cast<const void *>(&mfma_##FN),
static const void *const KERNELS[] = {MFMA_OPS(MFMA_PTR)};
static_assert(sizeof KERNELS / sizeof KERNELS[0] == N_OPS, "one kernel per MFMA");

#endif  // MMA_PROBE_HOST_ONLY
