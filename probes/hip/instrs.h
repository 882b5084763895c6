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

enum : unsigned { CDNA1 = 1, CDNA2 = 2, CDNA3 = 4, CDNA4 = 8 };
// The architecture groups a builtin is compiled for (kernels.h's MFMA_IF_* guards use the names).
enum Group : unsigned {
  G1234 = CDNA1 | CDNA2 | CDNA3 | CDNA4,
  G12 = CDNA1 | CDNA2,          // the original bf16 MFMAs and 32x32x8/16x16x16 i8: gone on CDNA3
  G234 = CDNA2 | CDNA3 | CDNA4, // bf16_1k and f64 MFMAs: new on CDNA2
  G34 = CDNA3 | CDNA4,          // the doubled-K i8 MFMAs of CDNA3
  G3 = CDNA3,                   // xf32 (gone on CDNA4) and the FNUZ reading of fp8/bf8
  G4 = CDNA4,                   // gfx950: doubled-K f16/bf16/i8, OCP fp8/bf8, f8f6f4
};

// One hardware MFMA = one builtin. X(ID, FN, M, N, K, BLOCKS, A, B, CD, GROUP, OPND_T, OPND_BYTES,
// ACC_T, ACC_BYTES): __builtin_amdgcn_mfma_FN computes BLOCKS independent blocks D = A B + C of
// M x K times K x N; OPND_T is the type of its A and B operands (OPND_BYTES per lane) and ACC_T
// that of C and D (ACC_BYTES per lane), from BuiltinsAMDGPU.def (f = float, V4h = 4 x half,
// V2s/V4s = 2/4 x short, d = double, V2f = 2 x float, Wi = int64, i = int: four i8, V4i/V16i/V32i
// = 4/16/32 x int). Shapes and blocks as in the
// calculator's instruction table (dict_insts) and the CDNA3 mnemonics (_2b, _4b, _16b).
// ID is the row's key (FN but for CDNA4's OCP reading of the CDNA3 fp8/bf8 builtins, *_ocp).
// CDNA4's new builtins (clang's SemaOpenCL/builtins-amdgcn-error-gfx950*.cl, feature
// gfx950-insts): mfma_f32_16x16x32_f16(half8, half8, float4, cbsz, abid, blgp),
// _32x32x16_f16 (float16 C), the bf16 forms with __bf16 x 8, mfma_i32_16x16x64_i8(int4, int4,
// int4, ...) and _i32_32x32x32_i8 (int16 C).
// The kernels static_assert that the byte counts are the types' sizes, and the self-test that
// they match M, N, K and BLOCKS.
#define MFMA_OPS(X)                                                                                               \
  X(f32_32x32x1f32, f32_32x32x1f32, 32, 32, 1, 2, F32, F32, F32, G1234, float, 4, f32x32, 128)                    \
  X(f32_16x16x1f32, f32_16x16x1f32, 16, 16, 1, 4, F32, F32, F32, G1234, float, 4, f32x16, 64)                     \
  X(f32_4x4x1f32, f32_4x4x1f32, 4, 4, 1, 16, F32, F32, F32, G1234, float, 4, f32x4, 16)                           \
  X(f32_32x32x2f32, f32_32x32x2f32, 32, 32, 2, 1, F32, F32, F32, G1234, float, 4, f32x16, 64)                     \
  X(f32_16x16x4f32, f32_16x16x4f32, 16, 16, 4, 1, F32, F32, F32, G1234, float, 4, f32x4, 16)                      \
  X(f32_32x32x4f16, f32_32x32x4f16, 32, 32, 4, 2, F16, F16, F32, G1234, f16x4, 8, f32x32, 128)                    \
  X(f32_16x16x4f16, f32_16x16x4f16, 16, 16, 4, 4, F16, F16, F32, G1234, f16x4, 8, f32x16, 64)                     \
  X(f32_4x4x4f16, f32_4x4x4f16, 4, 4, 4, 16, F16, F16, F32, G1234, f16x4, 8, f32x4, 16)                           \
  X(f32_32x32x8f16, f32_32x32x8f16, 32, 32, 8, 1, F16, F16, F32, G1234, f16x4, 8, f32x16, 64)                     \
  X(f32_16x16x16f16, f32_16x16x16f16, 16, 16, 16, 1, F16, F16, F32, G1234, f16x4, 8, f32x4, 16)                   \
  X(f32_32x32x2bf16, f32_32x32x2bf16, 32, 32, 2, 2, BF16, BF16, F32, G12, i16x2, 4, f32x32, 128)                  \
  X(f32_16x16x2bf16, f32_16x16x2bf16, 16, 16, 2, 4, BF16, BF16, F32, G12, i16x2, 4, f32x16, 64)                   \
  X(f32_4x4x2bf16, f32_4x4x2bf16, 4, 4, 2, 16, BF16, BF16, F32, G12, i16x2, 4, f32x4, 16)                         \
  X(f32_32x32x4bf16, f32_32x32x4bf16, 32, 32, 4, 1, BF16, BF16, F32, G12, i16x2, 4, f32x16, 64)                   \
  X(f32_16x16x8bf16, f32_16x16x8bf16, 16, 16, 8, 1, BF16, BF16, F32, G12, i16x2, 4, f32x4, 16)                    \
  X(f32_32x32x4bf16_1k, f32_32x32x4bf16_1k, 32, 32, 4, 2, BF16, BF16, F32, G234, i16x4, 8, f32x32, 128)           \
  X(f32_16x16x4bf16_1k, f32_16x16x4bf16_1k, 16, 16, 4, 4, BF16, BF16, F32, G234, i16x4, 8, f32x16, 64)            \
  X(f32_4x4x4bf16_1k, f32_4x4x4bf16_1k, 4, 4, 4, 16, BF16, BF16, F32, G234, i16x4, 8, f32x4, 16)                  \
  X(f32_32x32x8bf16_1k, f32_32x32x8bf16_1k, 32, 32, 8, 1, BF16, BF16, F32, G234, i16x4, 8, f32x16, 64)            \
  X(f32_16x16x16bf16_1k, f32_16x16x16bf16_1k, 16, 16, 16, 1, BF16, BF16, F32, G234, i16x4, 8, f32x4, 16)          \
  X(f64_16x16x4f64, f64_16x16x4f64, 16, 16, 4, 1, F64, F64, F64, G234, double, 8, f64x4, 32)                      \
  X(f64_4x4x4f64, f64_4x4x4f64, 4, 4, 4, 4, F64, F64, F64, G234, double, 8, double, 8)                            \
  X(f32_16x16x8_xf32, f32_16x16x8_xf32, 16, 16, 8, 1, TF32, TF32, F32, G3, f32x2, 8, f32x4, 16)                   \
  X(f32_32x32x4_xf32, f32_32x32x4_xf32, 32, 32, 4, 1, TF32, TF32, F32, G3, f32x2, 8, f32x16, 64)                  \
  X(f32_16x16x32_bf8_bf8, f32_16x16x32_bf8_bf8, 16, 16, 32, 1, E5M2FNUZ, E5M2FNUZ, F32, G3, long, 8, f32x4, 16)   \
  X(f32_16x16x32_bf8_fp8, f32_16x16x32_bf8_fp8, 16, 16, 32, 1, E5M2FNUZ, E4M3FNUZ, F32, G3, long, 8, f32x4, 16)   \
  X(f32_16x16x32_fp8_bf8, f32_16x16x32_fp8_bf8, 16, 16, 32, 1, E4M3FNUZ, E5M2FNUZ, F32, G3, long, 8, f32x4, 16)   \
  X(f32_16x16x32_fp8_fp8, f32_16x16x32_fp8_fp8, 16, 16, 32, 1, E4M3FNUZ, E4M3FNUZ, F32, G3, long, 8, f32x4, 16)   \
  X(f32_32x32x16_bf8_bf8, f32_32x32x16_bf8_bf8, 32, 32, 16, 1, E5M2FNUZ, E5M2FNUZ, F32, G3, long, 8, f32x16, 64)  \
  X(f32_32x32x16_bf8_fp8, f32_32x32x16_bf8_fp8, 32, 32, 16, 1, E5M2FNUZ, E4M3FNUZ, F32, G3, long, 8, f32x16, 64)  \
  X(f32_32x32x16_fp8_bf8, f32_32x32x16_fp8_bf8, 32, 32, 16, 1, E4M3FNUZ, E5M2FNUZ, F32, G3, long, 8, f32x16, 64)  \
  X(f32_32x32x16_fp8_fp8, f32_32x32x16_fp8_fp8, 32, 32, 16, 1, E4M3FNUZ, E4M3FNUZ, F32, G3, long, 8, f32x16, 64)  \
  X(i32_32x32x4i8, i32_32x32x4i8, 32, 32, 4, 2, S8, S8, S32, G1234, int, 4, i32x32, 128)                          \
  X(i32_16x16x4i8, i32_16x16x4i8, 16, 16, 4, 4, S8, S8, S32, G1234, int, 4, i32x16, 64)                           \
  X(i32_4x4x4i8, i32_4x4x4i8, 4, 4, 4, 16, S8, S8, S32, G1234, int, 4, i32x4, 16)                                 \
  X(i32_32x32x8i8, i32_32x32x8i8, 32, 32, 8, 1, S8, S8, S32, G12, int, 4, i32x16, 64)                             \
  X(i32_16x16x16i8, i32_16x16x16i8, 16, 16, 16, 1, S8, S8, S32, G12, int, 4, i32x4, 16)                           \
  X(i32_32x32x16_i8, i32_32x32x16_i8, 32, 32, 16, 1, S8, S8, S32, G34, long, 8, i32x16, 64)                       \
  X(i32_16x16x32_i8, i32_16x16x32_i8, 16, 16, 32, 1, S8, S8, S32, G34, long, 8, i32x4, 16)                        \
  X(f32_16x16x32_bf8_bf8_ocp, f32_16x16x32_bf8_bf8, 16, 16, 32, 1, E5M2, E5M2, F32, G4, long, 8, f32x4, 16)       \
  X(f32_16x16x32_bf8_fp8_ocp, f32_16x16x32_bf8_fp8, 16, 16, 32, 1, E5M2, E4M3, F32, G4, long, 8, f32x4, 16)       \
  X(f32_16x16x32_fp8_bf8_ocp, f32_16x16x32_fp8_bf8, 16, 16, 32, 1, E4M3, E5M2, F32, G4, long, 8, f32x4, 16)       \
  X(f32_16x16x32_fp8_fp8_ocp, f32_16x16x32_fp8_fp8, 16, 16, 32, 1, E4M3, E4M3, F32, G4, long, 8, f32x4, 16)       \
  X(f32_32x32x16_bf8_bf8_ocp, f32_32x32x16_bf8_bf8, 32, 32, 16, 1, E5M2, E5M2, F32, G4, long, 8, f32x16, 64)      \
  X(f32_32x32x16_bf8_fp8_ocp, f32_32x32x16_bf8_fp8, 32, 32, 16, 1, E5M2, E4M3, F32, G4, long, 8, f32x16, 64)      \
  X(f32_32x32x16_fp8_bf8_ocp, f32_32x32x16_fp8_bf8, 32, 32, 16, 1, E4M3, E5M2, F32, G4, long, 8, f32x16, 64)      \
  X(f32_32x32x16_fp8_fp8_ocp, f32_32x32x16_fp8_fp8, 32, 32, 16, 1, E4M3, E4M3, F32, G4, long, 8, f32x16, 64)      \
  X(f32_16x16x32_f16, f32_16x16x32_f16, 16, 16, 32, 1, F16, F16, F32, G4, f16x8, 16, f32x4, 16)                   \
  X(f32_32x32x16_f16, f32_32x32x16_f16, 32, 32, 16, 1, F16, F16, F32, G4, f16x8, 16, f32x16, 64)                  \
  X(f32_16x16x32_bf16, f32_16x16x32_bf16, 16, 16, 32, 1, BF16, BF16, F32, G4, bf16x8, 16, f32x4, 16)              \
  X(f32_32x32x16_bf16, f32_32x32x16_bf16, 32, 32, 16, 1, BF16, BF16, F32, G4, bf16x8, 16, f32x16, 64)             \
  X(i32_16x16x64_i8, i32_16x16x64_i8, 16, 16, 64, 1, S8, S8, S32, G4, i32x4, 16, i32x4, 16)                       \
  X(i32_32x32x32_i8, i32_32x32x32_i8, 32, 32, 32, 1, S8, S8, S32, G4, i32x4, 16, i32x16, 64)

// CDNA4's f8f6f4 MFMAs, one kernel per shape, A/B format pair and scaling (100 rows, as the
// catalog's names): X(ID, FN, M, K, A, B, CBSZ, BLGP, SCALED, ACC_T, ACC_BYTES). M = N, one
// block; A and B are `int8` (8 x int, 32 bytes) operands of which fp6 uses the low 6 dwords and
// fp4 the low 4 (LLVM's IR verifier: "operand must be 4, 6 or 8 element i32 vector", by format);
// CBSZ/BLGP are A's/B's format code (0 fp8 e4m3, 1 bf8 e5m2, 2 fp6 e2m3, 3 bf6 e3m2, 4 fp4 e2m1:
// LLVM's llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.ll codegen test, which prints cbsz:/blgp:).
// Every row calls clang's only f8f6f4 builtin, __builtin_amdgcn_mfma_scale_f32_<shape>_f8f6f4(
// int8 a, int8 b, C, cbsz, blgp, opsel_a, scale_a, opsel_b, scale_b) (clang's
// SemaOpenCL/builtins-amdgcn-error-gfx950-param.cl; there is no unscaled f8f6f4 builtin): the
// unscaled rows with both scales 127 (ue8m0 2^0) and opsel 0, the scaled rows with the case's
// scales (kernels.h).
#define F8F6F4_OPS(X)                                                                                         \
  X(f32_16x16x128_f8f6f4_fp8_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E4M3, 0, 0, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp8_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E5M2, 0, 1, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp8_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E2M3, 0, 2, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp8_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E3M2, 0, 3, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp8_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E2M1, 0, 4, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf8_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E4M3, 1, 0, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf8_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E5M2, 1, 1, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf8_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E2M3, 1, 2, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf8_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E3M2, 1, 3, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf8_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E2M1, 1, 4, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp6_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E4M3, 2, 0, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp6_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E5M2, 2, 1, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp6_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E2M3, 2, 2, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp6_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E3M2, 2, 3, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp6_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E2M1, 2, 4, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf6_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E4M3, 3, 0, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf6_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E5M2, 3, 1, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf6_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E2M3, 3, 2, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf6_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E3M2, 3, 3, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_bf6_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E2M1, 3, 4, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp4_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E4M3, 4, 0, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp4_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E5M2, 4, 1, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp4_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E2M3, 4, 2, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp4_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E3M2, 4, 3, 0, f32x4, 16)        \
  X(f32_16x16x128_f8f6f4_fp4_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E2M1, 4, 4, 0, f32x4, 16)        \
  X(f32_32x32x64_f8f6f4_fp8_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E4M3, 0, 0, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp8_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E5M2, 0, 1, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp8_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E2M3, 0, 2, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp8_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E3M2, 0, 3, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp8_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E2M1, 0, 4, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf8_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E4M3, 1, 0, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf8_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E5M2, 1, 1, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf8_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E2M3, 1, 2, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf8_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E3M2, 1, 3, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf8_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E2M1, 1, 4, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp6_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E4M3, 2, 0, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp6_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E5M2, 2, 1, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp6_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E2M3, 2, 2, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp6_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E3M2, 2, 3, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp6_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E2M1, 2, 4, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf6_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E4M3, 3, 0, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf6_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E5M2, 3, 1, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf6_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E2M3, 3, 2, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf6_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E3M2, 3, 3, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_bf6_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E2M1, 3, 4, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp4_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E4M3, 4, 0, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp4_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E5M2, 4, 1, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp4_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E2M3, 4, 2, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp4_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E3M2, 4, 3, 0, f32x16, 64)          \
  X(f32_32x32x64_f8f6f4_fp4_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E2M1, 4, 4, 0, f32x16, 64)          \
  X(scale_f32_16x16x128_f8f6f4_fp8_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E4M3, 0, 0, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp8_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E5M2, 0, 1, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp8_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E2M3, 0, 2, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp8_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E3M2, 0, 3, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp8_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E4M3, E2M1, 0, 4, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf8_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E4M3, 1, 0, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf8_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E5M2, 1, 1, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf8_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E2M3, 1, 2, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf8_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E3M2, 1, 3, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf8_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E5M2, E2M1, 1, 4, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp6_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E4M3, 2, 0, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp6_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E5M2, 2, 1, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp6_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E2M3, 2, 2, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp6_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E3M2, 2, 3, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp6_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E2M3, E2M1, 2, 4, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf6_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E4M3, 3, 0, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf6_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E5M2, 3, 1, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf6_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E2M3, 3, 2, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf6_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E3M2, 3, 3, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_bf6_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E3M2, E2M1, 3, 4, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp4_fp8, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E4M3, 4, 0, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp4_bf8, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E5M2, 4, 1, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp4_fp6, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E2M3, 4, 2, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp4_bf6, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E3M2, 4, 3, 1, f32x4, 16)  \
  X(scale_f32_16x16x128_f8f6f4_fp4_fp4, scale_f32_16x16x128_f8f6f4, 16, 128, E2M1, E2M1, 4, 4, 1, f32x4, 16)  \
  X(scale_f32_32x32x64_f8f6f4_fp8_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E4M3, 0, 0, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp8_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E5M2, 0, 1, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp8_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E2M3, 0, 2, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp8_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E3M2, 0, 3, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp8_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E4M3, E2M1, 0, 4, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf8_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E4M3, 1, 0, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf8_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E5M2, 1, 1, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf8_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E2M3, 1, 2, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf8_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E3M2, 1, 3, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf8_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E5M2, E2M1, 1, 4, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp6_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E4M3, 2, 0, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp6_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E5M2, 2, 1, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp6_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E2M3, 2, 2, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp6_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E3M2, 2, 3, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp6_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E2M3, E2M1, 2, 4, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf6_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E4M3, 3, 0, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf6_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E5M2, 3, 1, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf6_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E2M3, 3, 2, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf6_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E3M2, 3, 3, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_bf6_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E3M2, E2M1, 3, 4, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp4_fp8, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E4M3, 4, 0, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp4_bf8, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E5M2, 4, 1, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp4_fp6, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E2M3, 4, 2, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp4_bf6, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E3M2, 4, 3, 1, f32x16, 64)    \
  X(scale_f32_32x32x64_f8f6f4_fp4_fp4, scale_f32_32x32x64_f8f6f4, 32, 64, E2M1, E2M1, 4, 4, 1, f32x16, 64)

struct Op {
  const char *id;       // this table's key (= the builtin's name, but for the *_ocp and f8f6f4 rows)
  const char *builtin;  // __builtin_amdgcn_mfma_<builtin>
  int m, n, k, blocks;
  Fmt a, b, cd;
  unsigned archs;
  int opnd_bytes, acc_bytes;  // the builtin's A/B and C/D operand sizes per lane
  int f8f6f4 = 0;             // 0 no; 1 v_mfma_f32_*_f8f6f4 (unit scales); 2 v_mfma_scale_*_f8f6f4
  int cbsz = 0, blgp = 0;     // f8f6f4: A's and B's format codes
  bool scaled() const { return f8f6f4 == 2; }
  int a_bits() const { return FMTS[a].bits; }
  int b_bits() const { return FMTS[b].bits; }
  int out_bits() const { return FMTS[cd].bits; }
  int acc_words() const { return acc_bytes / 4; }  // 32-bit words of C/D per lane
  // The bytes of the A (B) operand that hold data: the operand's size, but for f8f6f4, whose
  // fp6 uses 6 of the 8 dwords and fp4 4 (LLVM's verifier; written out here, not from the width).
  int reg_bytes(bool is_b) const {
    if (!f8f6f4) return opnd_bytes;
    Fmt f = is_b ? b : a;
    return (f == E2M3 || f == E3M2 ? 6 : f == E2M1 ? 4 : 8) * 4;
  }
  int bits(bool is_b) const { return is_b ? b_bits() : a_bits(); }
};
// The f8f6f4 format codes (cbsz/blgp) and the formats they select, written apart from the
// F8F6F4_OPS table so that the self-test can check each row against them.
constexpr Fmt F8F6F4_CODE[] = {E4M3, E5M2, E2M3, E3M2, E2M1};
#define MFMA_ROW(ID, FN, M, N, K, BL, A, B, CD, G, OT, OB, AT, AB) {#ID, #FN, M, N, K, BL, A, B, CD, G, OB, AB},
#define F8F6F4_ROW(ID, FN, M, K, A, B, CBSZ, BLGP, SC, AT, AB) \
  {#ID, #FN, M, M, K, 1, A, B, F32, G4, 32, AB, 1 + SC, CBSZ, BLGP},
constexpr Op OPS[] = {MFMA_OPS(MFMA_ROW) F8F6F4_OPS(F8F6F4_ROW)};
constexpr int N_OPS = sizeof OPS / sizeof OPS[0];
constexpr int MAX_OPND_BYTES = 32;  // the A/B image of a lane (layouts.h): the largest operand

// The catalog's MFMA names (`mma list --vendor amd`, its v_mfma rows: CDNA1-CDNA4, 215 rows,
// 165 distinct names; its v_smfmac rows are not here) and the MFMA (OPS id) each one runs. A
// name may appear twice, for disjoint architectures with different MFMAs (CDNA3's and CDNA4's
// fp8/bf8 names: FNUZ and OCP). K is the catalog's K (one block's K).
struct Name {
  const char *name;
  const char *op;  // OPS id
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
    {"f64_16x16x4_f64", "f64_16x16x4f64", CDNA3 | CDNA4, 4},
    {"f64_4x4x4_4b_f64", "f64_4x4x4f64", CDNA3 | CDNA4, 4},
    {"f32_32x32x1_2b_f32", "f32_32x32x1f32", CDNA3 | CDNA4, 1},
    {"f32_16x16x1_4b_f32", "f32_16x16x1f32", CDNA3 | CDNA4, 1},
    {"f32_4x4x1_16b_f32", "f32_4x4x1f32", CDNA3 | CDNA4, 1},
    {"f32_32x32x2_f32", "f32_32x32x2f32", CDNA3 | CDNA4, 2},
    {"f32_16x16x4_f32", "f32_16x16x4f32", CDNA3 | CDNA4, 4},
    {"f32_16x16x8_xf32", "f32_16x16x8_xf32", CDNA3, 8},
    {"f32_32x32x4_xf32", "f32_32x32x4_xf32", CDNA3, 4},
    {"f32_32x32x4_2b_f16", "f32_32x32x4f16", CDNA3 | CDNA4, 4},
    {"f32_16x16x4_4b_f16", "f32_16x16x4f16", CDNA3 | CDNA4, 4},
    {"f32_4x4x4_16b_f16", "f32_4x4x4f16", CDNA3 | CDNA4, 4},
    {"f32_32x32x8_f16", "f32_32x32x8f16", CDNA3 | CDNA4, 8},
    {"f32_16x16x16_f16", "f32_16x16x16f16", CDNA3 | CDNA4, 16},
    {"f32_32x32x4_2b_bf16", "f32_32x32x4bf16_1k", CDNA3 | CDNA4, 4},
    {"f32_16x16x4_4b_bf16", "f32_16x16x4bf16_1k", CDNA3 | CDNA4, 4},
    {"f32_4x4x4_16b_bf16", "f32_4x4x4bf16_1k", CDNA3 | CDNA4, 4},
    {"f32_32x32x8_bf16", "f32_32x32x8bf16_1k", CDNA3 | CDNA4, 8},
    {"f32_16x16x16_bf16", "f32_16x16x16bf16_1k", CDNA3 | CDNA4, 16},
    {"f32_16x16x32_bf8_bf8", "f32_16x16x32_bf8_bf8", CDNA3, 32},
    {"f32_16x16x32_bf8_fp8", "f32_16x16x32_bf8_fp8", CDNA3, 32},
    {"f32_16x16x32_fp8_bf8", "f32_16x16x32_fp8_bf8", CDNA3, 32},
    {"f32_16x16x32_fp8_fp8", "f32_16x16x32_fp8_fp8", CDNA3, 32},
    {"f32_32x32x16_bf8_bf8", "f32_32x32x16_bf8_bf8", CDNA3, 16},
    {"f32_32x32x16_bf8_fp8", "f32_32x32x16_bf8_fp8", CDNA3, 16},
    {"f32_32x32x16_fp8_bf8", "f32_32x32x16_fp8_bf8", CDNA3, 16},
    {"f32_32x32x16_fp8_fp8", "f32_32x32x16_fp8_fp8", CDNA3, 16},
    {"i32_32x32x4_2b_i8", "i32_32x32x4i8", CDNA3 | CDNA4, 4},
    {"i32_16x16x4_4b_i8", "i32_16x16x4i8", CDNA3 | CDNA4, 4},
    {"i32_4x4x4_16b_i8", "i32_4x4x4i8", CDNA3 | CDNA4, 4},
    {"i32_32x32x16_i8", "i32_32x32x16_i8", CDNA3 | CDNA4, 16},
    {"i32_16x16x32_i8", "i32_16x16x32_i8", CDNA3 | CDNA4, 32},
    // CDNA4 (gfx950) only: the names above marked CDNA4 run the same MFMA there; the fp8/bf8
    // names read OCP e4m3/e5m2 on CDNA4 (their own rows, *_ocp); then the doubled-K MFMAs and
    // the f8f6f4 MFMAs, one name per A/B format pair (catalog.rs, f8f6f4()).
    {"f32_32x32x16_f16", "f32_32x32x16_f16", CDNA4, 16},
    {"f32_16x16x32_f16", "f32_16x16x32_f16", CDNA4, 32},
    {"f32_32x32x16_bf16", "f32_32x32x16_bf16", CDNA4, 16},
    {"f32_16x16x32_bf16", "f32_16x16x32_bf16", CDNA4, 32},
    {"f32_16x16x32_bf8_bf8", "f32_16x16x32_bf8_bf8_ocp", CDNA4, 32},
    {"f32_16x16x32_bf8_fp8", "f32_16x16x32_bf8_fp8_ocp", CDNA4, 32},
    {"f32_16x16x32_fp8_bf8", "f32_16x16x32_fp8_bf8_ocp", CDNA4, 32},
    {"f32_16x16x32_fp8_fp8", "f32_16x16x32_fp8_fp8_ocp", CDNA4, 32},
    {"f32_32x32x16_bf8_bf8", "f32_32x32x16_bf8_bf8_ocp", CDNA4, 16},
    {"f32_32x32x16_bf8_fp8", "f32_32x32x16_bf8_fp8_ocp", CDNA4, 16},
    {"f32_32x32x16_fp8_bf8", "f32_32x32x16_fp8_bf8_ocp", CDNA4, 16},
    {"f32_32x32x16_fp8_fp8", "f32_32x32x16_fp8_fp8_ocp", CDNA4, 16},
    {"i32_32x32x32_i8", "i32_32x32x32_i8", CDNA4, 32},
    {"i32_16x16x64_i8", "i32_16x16x64_i8", CDNA4, 64},
    {"f32_16x16x128_f8f6f4_fp8_fp8", "f32_16x16x128_f8f6f4_fp8_fp8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp8_bf8", "f32_16x16x128_f8f6f4_fp8_bf8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp8_fp6", "f32_16x16x128_f8f6f4_fp8_fp6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp8_bf6", "f32_16x16x128_f8f6f4_fp8_bf6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp8_fp4", "f32_16x16x128_f8f6f4_fp8_fp4", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf8_fp8", "f32_16x16x128_f8f6f4_bf8_fp8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf8_bf8", "f32_16x16x128_f8f6f4_bf8_bf8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf8_fp6", "f32_16x16x128_f8f6f4_bf8_fp6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf8_bf6", "f32_16x16x128_f8f6f4_bf8_bf6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf8_fp4", "f32_16x16x128_f8f6f4_bf8_fp4", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp6_fp8", "f32_16x16x128_f8f6f4_fp6_fp8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp6_bf8", "f32_16x16x128_f8f6f4_fp6_bf8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp6_fp6", "f32_16x16x128_f8f6f4_fp6_fp6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp6_bf6", "f32_16x16x128_f8f6f4_fp6_bf6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp6_fp4", "f32_16x16x128_f8f6f4_fp6_fp4", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf6_fp8", "f32_16x16x128_f8f6f4_bf6_fp8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf6_bf8", "f32_16x16x128_f8f6f4_bf6_bf8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf6_fp6", "f32_16x16x128_f8f6f4_bf6_fp6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf6_bf6", "f32_16x16x128_f8f6f4_bf6_bf6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_bf6_fp4", "f32_16x16x128_f8f6f4_bf6_fp4", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp4_fp8", "f32_16x16x128_f8f6f4_fp4_fp8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp4_bf8", "f32_16x16x128_f8f6f4_fp4_bf8", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp4_fp6", "f32_16x16x128_f8f6f4_fp4_fp6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp4_bf6", "f32_16x16x128_f8f6f4_fp4_bf6", CDNA4, 128},
    {"f32_16x16x128_f8f6f4_fp4_fp4", "f32_16x16x128_f8f6f4_fp4_fp4", CDNA4, 128},
    {"f32_32x32x64_f8f6f4_fp8_fp8", "f32_32x32x64_f8f6f4_fp8_fp8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp8_bf8", "f32_32x32x64_f8f6f4_fp8_bf8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp8_fp6", "f32_32x32x64_f8f6f4_fp8_fp6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp8_bf6", "f32_32x32x64_f8f6f4_fp8_bf6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp8_fp4", "f32_32x32x64_f8f6f4_fp8_fp4", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf8_fp8", "f32_32x32x64_f8f6f4_bf8_fp8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf8_bf8", "f32_32x32x64_f8f6f4_bf8_bf8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf8_fp6", "f32_32x32x64_f8f6f4_bf8_fp6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf8_bf6", "f32_32x32x64_f8f6f4_bf8_bf6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf8_fp4", "f32_32x32x64_f8f6f4_bf8_fp4", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp6_fp8", "f32_32x32x64_f8f6f4_fp6_fp8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp6_bf8", "f32_32x32x64_f8f6f4_fp6_bf8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp6_fp6", "f32_32x32x64_f8f6f4_fp6_fp6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp6_bf6", "f32_32x32x64_f8f6f4_fp6_bf6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp6_fp4", "f32_32x32x64_f8f6f4_fp6_fp4", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf6_fp8", "f32_32x32x64_f8f6f4_bf6_fp8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf6_bf8", "f32_32x32x64_f8f6f4_bf6_bf8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf6_fp6", "f32_32x32x64_f8f6f4_bf6_fp6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf6_bf6", "f32_32x32x64_f8f6f4_bf6_bf6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_bf6_fp4", "f32_32x32x64_f8f6f4_bf6_fp4", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp4_fp8", "f32_32x32x64_f8f6f4_fp4_fp8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp4_bf8", "f32_32x32x64_f8f6f4_fp4_bf8", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp4_fp6", "f32_32x32x64_f8f6f4_fp4_fp6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp4_bf6", "f32_32x32x64_f8f6f4_fp4_bf6", CDNA4, 64},
    {"f32_32x32x64_f8f6f4_fp4_fp4", "f32_32x32x64_f8f6f4_fp4_fp4", CDNA4, 64},
    {"scale_f32_16x16x128_f8f6f4_fp8_fp8", "scale_f32_16x16x128_f8f6f4_fp8_fp8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp8_bf8", "scale_f32_16x16x128_f8f6f4_fp8_bf8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp8_fp6", "scale_f32_16x16x128_f8f6f4_fp8_fp6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp8_bf6", "scale_f32_16x16x128_f8f6f4_fp8_bf6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp8_fp4", "scale_f32_16x16x128_f8f6f4_fp8_fp4", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf8_fp8", "scale_f32_16x16x128_f8f6f4_bf8_fp8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf8_bf8", "scale_f32_16x16x128_f8f6f4_bf8_bf8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf8_fp6", "scale_f32_16x16x128_f8f6f4_bf8_fp6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf8_bf6", "scale_f32_16x16x128_f8f6f4_bf8_bf6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf8_fp4", "scale_f32_16x16x128_f8f6f4_bf8_fp4", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp6_fp8", "scale_f32_16x16x128_f8f6f4_fp6_fp8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp6_bf8", "scale_f32_16x16x128_f8f6f4_fp6_bf8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp6_fp6", "scale_f32_16x16x128_f8f6f4_fp6_fp6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp6_bf6", "scale_f32_16x16x128_f8f6f4_fp6_bf6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp6_fp4", "scale_f32_16x16x128_f8f6f4_fp6_fp4", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf6_fp8", "scale_f32_16x16x128_f8f6f4_bf6_fp8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf6_bf8", "scale_f32_16x16x128_f8f6f4_bf6_bf8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf6_fp6", "scale_f32_16x16x128_f8f6f4_bf6_fp6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf6_bf6", "scale_f32_16x16x128_f8f6f4_bf6_bf6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_bf6_fp4", "scale_f32_16x16x128_f8f6f4_bf6_fp4", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp4_fp8", "scale_f32_16x16x128_f8f6f4_fp4_fp8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp4_bf8", "scale_f32_16x16x128_f8f6f4_fp4_bf8", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp4_fp6", "scale_f32_16x16x128_f8f6f4_fp4_fp6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp4_bf6", "scale_f32_16x16x128_f8f6f4_fp4_bf6", CDNA4, 128},
    {"scale_f32_16x16x128_f8f6f4_fp4_fp4", "scale_f32_16x16x128_f8f6f4_fp4_fp4", CDNA4, 128},
    {"scale_f32_32x32x64_f8f6f4_fp8_fp8", "scale_f32_32x32x64_f8f6f4_fp8_fp8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp8_bf8", "scale_f32_32x32x64_f8f6f4_fp8_bf8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp8_fp6", "scale_f32_32x32x64_f8f6f4_fp8_fp6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp8_bf6", "scale_f32_32x32x64_f8f6f4_fp8_bf6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp8_fp4", "scale_f32_32x32x64_f8f6f4_fp8_fp4", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf8_fp8", "scale_f32_32x32x64_f8f6f4_bf8_fp8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf8_bf8", "scale_f32_32x32x64_f8f6f4_bf8_bf8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf8_fp6", "scale_f32_32x32x64_f8f6f4_bf8_fp6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf8_bf6", "scale_f32_32x32x64_f8f6f4_bf8_bf6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf8_fp4", "scale_f32_32x32x64_f8f6f4_bf8_fp4", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp6_fp8", "scale_f32_32x32x64_f8f6f4_fp6_fp8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp6_bf8", "scale_f32_32x32x64_f8f6f4_fp6_bf8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp6_fp6", "scale_f32_32x32x64_f8f6f4_fp6_fp6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp6_bf6", "scale_f32_32x32x64_f8f6f4_fp6_bf6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp6_fp4", "scale_f32_32x32x64_f8f6f4_fp6_fp4", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf6_fp8", "scale_f32_32x32x64_f8f6f4_bf6_fp8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf6_bf8", "scale_f32_32x32x64_f8f6f4_bf6_bf8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf6_fp6", "scale_f32_32x32x64_f8f6f4_bf6_fp6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf6_bf6", "scale_f32_32x32x64_f8f6f4_bf6_bf6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_bf6_fp4", "scale_f32_32x32x64_f8f6f4_bf6_fp4", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp4_fp8", "scale_f32_32x32x64_f8f6f4_fp4_fp8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp4_bf8", "scale_f32_32x32x64_f8f6f4_fp4_bf8", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp4_fp6", "scale_f32_32x32x64_f8f6f4_fp4_fp6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp4_bf6", "scale_f32_32x32x64_f8f6f4_fp4_bf6", CDNA4, 64},
    {"scale_f32_32x32x64_f8f6f4_fp4_fp4", "scale_f32_32x32x64_f8f6f4_fp4_fp4", CDNA4, 64},
};
constexpr int N_NAMES = sizeof NAMES / sizeof NAMES[0];

static int op_index(const char *id) {
  for (int i = 0; i < N_OPS; i++)
    if (!strcmp(OPS[i].id, id)) return i;
  return -1;
}

static std::string arch_list(unsigned archs) {
  std::string s;
  const char *names[] = {"CDNA1", "CDNA2", "CDNA3", "CDNA4"};
  for (int i = 0; i < 4; i++)
    if (archs & (1u << i)) s += std::string(s.empty() ? "" : ",") + names[i];
  return s;
}

static std::string gfx_list(unsigned archs) {
  std::string s;
  if (archs & CDNA1) s += "gfx908";
  if (archs & CDNA2) s += std::string(s.empty() ? "" : ",") + "gfx90a";
  if (archs & CDNA3) s += std::string(s.empty() ? "" : ",") + "gfx940,gfx941,gfx942";
  if (archs & CDNA4) s += std::string(s.empty() ? "" : ",") + "gfx950";
  return s;
}
