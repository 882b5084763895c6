// The instruction table of the HIP harness: the hardware MFMAs (one clang builtin each:
// MFMA_OPS, OPS) and the catalog's names for them (NAMES), with the architectures each runs on.
// The builtins' operand types are those of clang/include/clang/Basic/BuiltinsAMDGPU.def.
#pragma once
#include <cstring>
#include <string>
#include "formats.h"

// ---------------------------------------------------------------------------------------------
// The instruction table
// ---------------------------------------------------------------------------------------------

enum : unsigned { CDNA1 = 1, CDNA2 = 2, CDNA3 = 4 };
// The architecture groups a builtin is compiled for (kernels.h's MFMA_IF_* guards use the names).
enum Group : unsigned {
  G123 = CDNA1 | CDNA2 | CDNA3,
  G12 = CDNA1 | CDNA2,  // the original bf16 MFMAs: gone on CDNA3
  G23 = CDNA2 | CDNA3,  // bf16_1k and f64 MFMAs: new on CDNA2
  G3 = CDNA3,           // xf32 and fp8 MFMAs
};

// One hardware MFMA = one builtin. X(FN, M, N, K, BLOCKS, A, B, CD, GROUP, OPND_T, OPND_BYTES,
// ACC_T, ACC_BYTES): __builtin_amdgcn_mfma_FN computes BLOCKS independent blocks D = A B + C of
// M x K times K x N; OPND_T is the type of its A and B operands (OPND_BYTES per lane) and ACC_T
// that of C and D (ACC_BYTES per lane), from BuiltinsAMDGPU.def (f = float, V4h = 4 x half,
// V2s/V4s = 2/4 x short, d = double, V2f = 2 x float, Wi = int64, i = int: four i8, V4i/V16i/V32i
// = 4/16/32 x int). Shapes and blocks as in the
// calculator's instruction table (dict_insts) and the CDNA3 mnemonics (_2b, _4b, _16b).
// The kernels static_assert that the byte counts are the types' sizes, and the self-test that
// they match M, N, K and BLOCKS.
#define MFMA_OPS(X)                                                                         \
  X(f32_32x32x1f32, 32, 32, 1, 2, F32, F32, F32, G123, float, 4, f32x32, 128)               \
  X(f32_16x16x1f32, 16, 16, 1, 4, F32, F32, F32, G123, float, 4, f32x16, 64)                \
  X(f32_4x4x1f32, 4, 4, 1, 16, F32, F32, F32, G123, float, 4, f32x4, 16)                    \
  X(f32_32x32x2f32, 32, 32, 2, 1, F32, F32, F32, G123, float, 4, f32x16, 64)                \
  X(f32_16x16x4f32, 16, 16, 4, 1, F32, F32, F32, G123, float, 4, f32x4, 16)                 \
  X(f32_32x32x4f16, 32, 32, 4, 2, F16, F16, F32, G123, f16x4, 8, f32x32, 128)               \
  X(f32_16x16x4f16, 16, 16, 4, 4, F16, F16, F32, G123, f16x4, 8, f32x16, 64)                \
  X(f32_4x4x4f16, 4, 4, 4, 16, F16, F16, F32, G123, f16x4, 8, f32x4, 16)                    \
  X(f32_32x32x8f16, 32, 32, 8, 1, F16, F16, F32, G123, f16x4, 8, f32x16, 64)                \
  X(f32_16x16x16f16, 16, 16, 16, 1, F16, F16, F32, G123, f16x4, 8, f32x4, 16)               \
  X(f32_32x32x2bf16, 32, 32, 2, 2, BF16, BF16, F32, G12, i16x2, 4, f32x32, 128)             \
  X(f32_16x16x2bf16, 16, 16, 2, 4, BF16, BF16, F32, G12, i16x2, 4, f32x16, 64)              \
  X(f32_4x4x2bf16, 4, 4, 2, 16, BF16, BF16, F32, G12, i16x2, 4, f32x4, 16)                  \
  X(f32_32x32x4bf16, 32, 32, 4, 1, BF16, BF16, F32, G12, i16x2, 4, f32x16, 64)              \
  X(f32_16x16x8bf16, 16, 16, 8, 1, BF16, BF16, F32, G12, i16x2, 4, f32x4, 16)               \
  X(f32_32x32x4bf16_1k, 32, 32, 4, 2, BF16, BF16, F32, G23, i16x4, 8, f32x32, 128)          \
  X(f32_16x16x4bf16_1k, 16, 16, 4, 4, BF16, BF16, F32, G23, i16x4, 8, f32x16, 64)           \
  X(f32_4x4x4bf16_1k, 4, 4, 4, 16, BF16, BF16, F32, G23, i16x4, 8, f32x4, 16)               \
  X(f32_32x32x8bf16_1k, 32, 32, 8, 1, BF16, BF16, F32, G23, i16x4, 8, f32x16, 64)           \
  X(f32_16x16x16bf16_1k, 16, 16, 16, 1, BF16, BF16, F32, G23, i16x4, 8, f32x4, 16)          \
  X(f64_16x16x4f64, 16, 16, 4, 1, F64, F64, F64, G23, double, 8, f64x4, 32)                 \
  X(f64_4x4x4f64, 4, 4, 4, 4, F64, F64, F64, G23, double, 8, double, 8)                     \
  X(f32_16x16x8_xf32, 16, 16, 8, 1, TF32, TF32, F32, G3, f32x2, 8, f32x4, 16)               \
  X(f32_32x32x4_xf32, 32, 32, 4, 1, TF32, TF32, F32, G3, f32x2, 8, f32x16, 64)              \
  X(f32_16x16x32_bf8_bf8, 16, 16, 32, 1, E5M2FNUZ, E5M2FNUZ, F32, G3, long, 8, f32x4, 16)   \
  X(f32_16x16x32_bf8_fp8, 16, 16, 32, 1, E5M2FNUZ, E4M3FNUZ, F32, G3, long, 8, f32x4, 16)   \
  X(f32_16x16x32_fp8_bf8, 16, 16, 32, 1, E4M3FNUZ, E5M2FNUZ, F32, G3, long, 8, f32x4, 16)   \
  X(f32_16x16x32_fp8_fp8, 16, 16, 32, 1, E4M3FNUZ, E4M3FNUZ, F32, G3, long, 8, f32x4, 16)   \
  X(f32_32x32x16_bf8_bf8, 32, 32, 16, 1, E5M2FNUZ, E5M2FNUZ, F32, G3, long, 8, f32x16, 64)  \
  X(f32_32x32x16_bf8_fp8, 32, 32, 16, 1, E5M2FNUZ, E4M3FNUZ, F32, G3, long, 8, f32x16, 64)  \
  X(f32_32x32x16_fp8_bf8, 32, 32, 16, 1, E4M3FNUZ, E5M2FNUZ, F32, G3, long, 8, f32x16, 64)  \
  X(f32_32x32x16_fp8_fp8, 32, 32, 16, 1, E4M3FNUZ, E4M3FNUZ, F32, G3, long, 8, f32x16, 64)  \
  X(i32_32x32x4i8, 32, 32, 4, 2, S8, S8, S32, G123, int, 4, i32x32, 128)                    \
  X(i32_16x16x4i8, 16, 16, 4, 4, S8, S8, S32, G123, int, 4, i32x16, 64)                     \
  X(i32_4x4x4i8, 4, 4, 4, 16, S8, S8, S32, G123, int, 4, i32x4, 16)                         \
  X(i32_32x32x8i8, 32, 32, 8, 1, S8, S8, S32, G12, int, 4, i32x16, 64)                      \
  X(i32_16x16x16i8, 16, 16, 16, 1, S8, S8, S32, G12, int, 4, i32x4, 16)                     \
  X(i32_32x32x16_i8, 32, 32, 16, 1, S8, S8, S32, G3, long, 8, i32x16, 64)                   \
  X(i32_16x16x32_i8, 16, 16, 32, 1, S8, S8, S32, G3, long, 8, i32x4, 16)

struct Op {
  const char *builtin;  // __builtin_amdgcn_mfma_<builtin>
  int m, n, k, blocks;
  Fmt a, b, cd;
  unsigned archs;
  int opnd_bytes, acc_bytes;
  int in_bits() const { return FMTS[a].bits; }  // A and B have the same width in every MFMA
  int out_bits() const { return FMTS[cd].bits; }
  int acc_words() const { return acc_bytes / 4; }  // 32-bit words of C/D per lane
};
#define MFMA_ROW(FN, M, N, K, BL, A, B, CD, G, OT, OB, AT, AB) {#FN, M, N, K, BL, A, B, CD, G, OB, AB},
constexpr Op OPS[] = {MFMA_OPS(MFMA_ROW)};
constexpr int N_OPS = sizeof OPS / sizeof OPS[0];

// The catalog's names of CDNA1-CDNA3 (`mma list --vendor amd`: 79 rows, 59 distinct names; CDNA4
// is not here yet, README "gfx950: what is missing") and the builtin
// each one runs. K is the catalog's K (one block's K).
struct Name {
  const char *name;
  const char *builtin;
  unsigned archs;
  int k;
};
constexpr Name NAMES[] = {
    // CDNA1 (gfx908) and CDNA2 (gfx90a)
    {"f32_32x32x2f32", "f32_32x32x2f32", G12, 2},
    {"f32_32x32x1f32", "f32_32x32x1f32", G12, 1},
    {"f32_16x16x4f32", "f32_16x16x4f32", G12, 4},
    {"f32_16x16x1f32", "f32_16x16x1f32", G12, 1},
    {"f32_4x4x1f32", "f32_4x4x1f32", G12, 1},
    {"f32_32x32x8f16", "f32_32x32x8f16", G12, 8},
    {"f32_32x32x4f16", "f32_32x32x4f16", G12, 4},
    {"f32_16x16x16f16", "f32_16x16x16f16", G12, 16},
    {"f32_16x16x4f16", "f32_16x16x4f16", G12, 4},
    {"f32_4x4x4f16", "f32_4x4x4f16", G12, 4},
    {"f32_32x32x4bf16", "f32_32x32x4bf16", G12, 4},
    {"f32_32x32x2bf16", "f32_32x32x2bf16", G12, 2},
    {"f32_16x16x8bf16", "f32_16x16x8bf16", G12, 8},
    {"f32_16x16x2bf16", "f32_16x16x2bf16", G12, 2},
    {"f32_4x4x2bf16", "f32_4x4x2bf16", G12, 2},
    {"i32_32x32x4i8", "i32_32x32x4i8", G12, 4},
    {"i32_16x16x4i8", "i32_16x16x4i8", G12, 4},
    {"i32_4x4x4i8", "i32_4x4x4i8", G12, 4},
    {"i32_32x32x8i8", "i32_32x32x8i8", G12, 8},
    {"i32_16x16x16i8", "i32_16x16x16i8", G12, 16},
    // CDNA2 only
    {"f64_16x16x4f64", "f64_16x16x4f64", CDNA2, 4},
    {"f64_4x4x4f64", "f64_4x4x4f64", CDNA2, 4},
    {"f32_32x32x8bf16_1k", "f32_32x32x8bf16_1k", CDNA2, 8},
    {"f32_32x32x4bf16_1k", "f32_32x32x4bf16_1k", CDNA2, 4},
    {"f32_16x16x16bf16_1k", "f32_16x16x16bf16_1k", CDNA2, 16},
    {"f32_16x16x4bf16_1k", "f32_16x16x4bf16_1k", CDNA2, 4},
    {"f32_4x4x4bf16_1k", "f32_4x4x4bf16_1k", CDNA2, 4},
    // CDNA3 (gfx940, gfx941, gfx942): the gfx940 mnemonics
    {"f64_16x16x4_f64", "f64_16x16x4f64", CDNA3, 4},
    {"f64_4x4x4_4b_f64", "f64_4x4x4f64", CDNA3, 4},
    {"f32_32x32x1_2b_f32", "f32_32x32x1f32", CDNA3, 1},
    {"f32_16x16x1_4b_f32", "f32_16x16x1f32", CDNA3, 1},
    {"f32_4x4x1_16b_f32", "f32_4x4x1f32", CDNA3, 1},
    {"f32_32x32x2_f32", "f32_32x32x2f32", CDNA3, 2},
    {"f32_16x16x4_f32", "f32_16x16x4f32", CDNA3, 4},
    {"f32_16x16x8_xf32", "f32_16x16x8_xf32", CDNA3, 8},
    {"f32_32x32x4_xf32", "f32_32x32x4_xf32", CDNA3, 4},
    {"f32_32x32x4_2b_f16", "f32_32x32x4f16", CDNA3, 4},
    {"f32_16x16x4_4b_f16", "f32_16x16x4f16", CDNA3, 4},
    {"f32_4x4x4_16b_f16", "f32_4x4x4f16", CDNA3, 4},
    {"f32_32x32x8_f16", "f32_32x32x8f16", CDNA3, 8},
    {"f32_16x16x16_f16", "f32_16x16x16f16", CDNA3, 16},
    {"f32_32x32x4_2b_bf16", "f32_32x32x4bf16_1k", CDNA3, 4},
    {"f32_16x16x4_4b_bf16", "f32_16x16x4bf16_1k", CDNA3, 4},
    {"f32_4x4x4_16b_bf16", "f32_4x4x4bf16_1k", CDNA3, 4},
    {"f32_32x32x8_bf16", "f32_32x32x8bf16_1k", CDNA3, 8},
    {"f32_16x16x16_bf16", "f32_16x16x16bf16_1k", CDNA3, 16},
    {"f32_16x16x32_bf8_bf8", "f32_16x16x32_bf8_bf8", CDNA3, 32},
    {"f32_16x16x32_bf8_fp8", "f32_16x16x32_bf8_fp8", CDNA3, 32},
    {"f32_16x16x32_fp8_bf8", "f32_16x16x32_fp8_bf8", CDNA3, 32},
    {"f32_16x16x32_fp8_fp8", "f32_16x16x32_fp8_fp8", CDNA3, 32},
    {"f32_32x32x16_bf8_bf8", "f32_32x32x16_bf8_bf8", CDNA3, 16},
    {"f32_32x32x16_bf8_fp8", "f32_32x32x16_bf8_fp8", CDNA3, 16},
    {"f32_32x32x16_fp8_bf8", "f32_32x32x16_fp8_bf8", CDNA3, 16},
    {"f32_32x32x16_fp8_fp8", "f32_32x32x16_fp8_fp8", CDNA3, 16},
    {"i32_32x32x4_2b_i8", "i32_32x32x4i8", CDNA3, 4},
    {"i32_16x16x4_4b_i8", "i32_16x16x4i8", CDNA3, 4},
    {"i32_4x4x4_16b_i8", "i32_4x4x4i8", CDNA3, 4},
    {"i32_32x32x16_i8", "i32_32x32x16_i8", CDNA3, 16},
    {"i32_16x16x32_i8", "i32_16x16x32_i8", CDNA3, 32},
};
constexpr int N_NAMES = sizeof NAMES / sizeof NAMES[0];

static int op_index(const char *builtin) {
  for (int i = 0; i < N_OPS; i++)
    if (!strcmp(OPS[i].builtin, builtin)) return i;
  return -1;
}

static std::string arch_list(unsigned archs) {
  std::string s;
  const char *names[] = {"CDNA1", "CDNA2", "CDNA3"};
  for (int i = 0; i < 3; i++)
    if (archs & (1u << i)) s += std::string(s.empty() ? "" : ",") + names[i];
  return s;
}

static std::string gfx_list(unsigned archs) {
  std::string s;
  if (archs & CDNA1) s += "gfx908";
  if (archs & CDNA2) s += std::string(s.empty() ? "" : ",") + "gfx90a";
  if (archs & CDNA3) s += std::string(s.empty() ? "" : ",") + "gfx940,gfx941,gfx942";
  return s;
}
