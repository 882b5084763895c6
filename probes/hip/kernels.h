// Device code of the HIP harness: one kernel per row of instrs.h (MFMA_OPS, then F8F6F4_OPS), one wave per case,
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
#include "layouts.h"

// Which MFMAs the code object of this compilation target has (instrs.h's groups: G1234 all,
// G12 CDNA1-2, G234 CDNA2-4, G34 CDNA3-4, G3 CDNA3 only, G4 CDNA4 only). The host pass and any
// target outside CDNA1-4 get none (their kernels only report that). Every gfx950-only builtin
// is behind the __gfx950__ branch, so gfx908/gfx90a/gfx942 code objects never name one.
#if defined(__gfx908__)
#define MFMA_IF_G1234(yes, no) yes
#define MFMA_IF_G12(yes, no) yes
#define MFMA_IF_G234(yes, no) no
#define MFMA_IF_G34(yes, no) no
#define MFMA_IF_G3(yes, no) no
#define MFMA_IF_G4(yes, no) no
#elif defined(__gfx90a__)
#define MFMA_IF_G1234(yes, no) yes
#define MFMA_IF_G12(yes, no) yes
#define MFMA_IF_G234(yes, no) yes
#define MFMA_IF_G34(yes, no) no
#define MFMA_IF_G3(yes, no) no
#define MFMA_IF_G4(yes, no) no
#elif defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define MFMA_IF_G1234(yes, no) yes
#define MFMA_IF_G12(yes, no) no
#define MFMA_IF_G234(yes, no) yes
#define MFMA_IF_G34(yes, no) yes
#define MFMA_IF_G3(yes, no) yes
#define MFMA_IF_G4(yes, no) no
#elif defined(__gfx950__)
#define MFMA_IF_G1234(yes, no) yes
#define MFMA_IF_G12(yes, no) no
#define MFMA_IF_G234(yes, no) yes
#define MFMA_IF_G34(yes, no) yes
#define MFMA_IF_G3(yes, no) no
#define MFMA_IF_G4(yes, no) yes
#else
#define MFMA_IF_G1234(yes, no) no
#define MFMA_IF_G12(yes, no) no
#define MFMA_IF_G234(yes, no) no
#define MFMA_IF_G34(yes, no) no
#define MFMA_IF_G3(yes, no) no
#define MFMA_IF_G4(yes, no) no
#endif

typedef float f32x2 __attribute__((ext_vector_type(2)));
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef float f32x32 __attribute__((ext_vector_type(32)));
typedef double f64x4 __attribute__((ext_vector_type(4)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef _Float16 f16x8 __attribute__((ext_vector_type(8)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef int i32x8 __attribute__((ext_vector_type(8)));
typedef short i16x2 __attribute__((ext_vector_type(2)));
typedef short i16x4 __attribute__((ext_vector_type(4)));
typedef int i32x4 __attribute__((ext_vector_type(4)));
typedef int i32x16 __attribute__((ext_vector_type(16)));
typedef int i32x32 __attribute__((ext_vector_type(32)));

// The operand of a lane from the start of its IW-word image (element s of a vector operand in
// bits [s*w, s*w+w): little-endian, as the registers hold it).
template <typename T>
__device__ inline T from_image(const uint64_t *p) {
  static_assert(sizeof(T) <= IW * 8, "operand larger than the image");
  T v;
  __builtin_memcpy(&v, p, sizeof(T));
  return v;
}

// One wave (one workgroup of 64 work-items) per case: lane t of wave w reads its A and B
// operands from a[(64 w + t) IW ...], b[...], its C words from c[(64 w + t) W ...] and its scale
// words from s[(64 w + t) 2], s[... + 1] (read only by the scaled MFMAs), and writes D like C.
// Everything about which element sits where is decided on the host.
template <typename O, typename V, V (*F)(O, O, V, int, int)>
__device__ inline void mfma_wave(const uint64_t *a, const uint64_t *b, const uint32_t *c, const uint32_t *s,
                                 uint32_t *d) {
  constexpr int W = sizeof(V) / 4;
  struct Words {
    uint32_t w[W];
  };
  const size_t t = (size_t)__builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  Words in;
  for (int r = 0; r < W; r++) in.w[r] = c[t * W + r];
  Words out = __builtin_bit_cast(Words, F(from_image<O>(a + t * IW), from_image<O>(b + t * IW),
                                          __builtin_bit_cast(V, in), (int)s[2 * t], (int)s[2 * t + 1]));
  for (int r = 0; r < W; r++) d[t * W + r] = out.w[r];
}

#define MFMA_GLOBAL(ID, G, OT, AT)                                                                   \
  __global__ void __launch_bounds__(64) mfma_##ID(const uint64_t *a, const uint64_t *b, const uint32_t *c, \
                                                  const uint32_t *s, uint32_t *d, int *bad) {          \
    if (MFMA_IF_##G(false, true)) {                                                                  \
      *bad = 1; /* not in this target's code object */                                              \
      return;                                                                                        \
    }                                                                                                \
    mfma_wave<OT, AT, mfma_call_##ID>(a, b, c, s, d);                                                \
  }

// cbsz = abid = blgp = 0: no broadcast, no lane swizzle.
#define MFMA_KERNEL(ID, FN, M, N, K, BL, A, B, CD, G, OT, OB, AT, AB)                           \
  static_assert(sizeof(OT) == (OB) && sizeof(AT) == (AB), "operand sizes of " #ID);             \
  __device__ inline AT mfma_call_##ID(OT x, OT y, AT z, int, int) {                             \
    (void)x, (void)y;                                                                           \
    return MFMA_IF_##G(__builtin_amdgcn_mfma_##FN(x, y, z, 0, 0, 0), z);                         \
  }                                                                                             \
  MFMA_GLOBAL(ID, G, OT, AT)

// f8f6f4 (gfx950 only): the scale builtin with the row's format codes (cbsz = A's, blgp = B's),
// opsel 0 (byte 0 of each scale word); the unscaled rows with scales 127 (2^0) on both sides.
#define F8F6F4_KERNEL(ID, FN, M, K, A, B, CBSZ, BLGP, SC, AT, AB)                               \
  static_assert(sizeof(AT) == (AB), "operand sizes of " #ID);                                   \
  __device__ inline AT mfma_call_##ID(i32x8 x, i32x8 y, AT z, int sa, int sb) {                 \
    (void)x, (void)y, (void)sa, (void)sb;                                                       \
    return MFMA_IF_G4(__builtin_amdgcn_mfma_##FN(x, y, z, CBSZ, BLGP, 0, (SC) ? sa : 127, 0,     \
                                                 (SC) ? sb : 127),                              \
                      z);                                                                       \
  }                                                                                             \
  MFMA_GLOBAL(ID, G4, i32x8, AT)
MFMA_OPS(MFMA_KERNEL)
F8F6F4_OPS(F8F6F4_KERNEL)

#define MFMA_PTR(ID, ...) reinterpret_cast<const void *>(&mfma_##ID),
static const void *const KERNELS[] = {MFMA_OPS(MFMA_PTR) F8F6F4_OPS(MFMA_PTR)};
static_assert(sizeof KERNELS / sizeof KERNELS[0] == N_OPS, "one kernel per MFMA");

#endif  // MMA_PROBE_HOST_ONLY
