// Every mma.sync form of the NVIDIA catalog (110 PTX spellings), one inline-asm wrapper each.
//
// The wrappers differ only in their operand lists ("signatures" below: how many A/B/C/D
// registers of which PTX register type; 9.7.14.5.14 "Multiply-and-Accumulate Instruction: mma",
// operand order d, a, b, c [, scale-a-data, {byte-id-a, thread-id-a}, scale-b-data,
// {byte-id-b, thread-id-b}]). The table below (MMA_LIST) names each form once: its PTX
// spelling, shape, types (.dtype.atype.btype.ctype as in the spelling), layout, element packing,
// the targets ptxas 13.5 accepts it on, and its signature. Everything else (which lane holds what)
// comes from layouts.cuh.
//
// Targets (ptxas 13.5, checked by check.sh): m8n8k4.f16 and m16n8k8.f16: sm_75+ (m8n8k4.f16 is
// sm_70+ in the PTX ISA, but CUDA 13 cannot target sm_70/sm_72: its syntax is checked at sm_75);
// bf16, tf32, m8n8k4.f64: sm_80+; .e4m3/.e5m2: sm_89+; m16n8k{4,8,16}.f64: sm_90+;
// .kind::f8f6f4 and every .block_scale form: sm_120a only (ptxas rejects them on sm_100a).
#pragma once
#include "layouts.cuh"

#define R32(x) "r"((uint32_t)(x))
#define F32(x) "f"(__uint_as_float((uint32_t)(x)))
#define D64(x) "d"(__longlong_as_double((long long)(x)))
#define FOUT(i) r.d[i] = __float_as_uint(d##i)
#define DOUT(i) r.d[i] = (uint64_t)__double_as_longlong(d##i)

// --- signatures: S_<A regs><B regs>_<C>_<D>; r = 32-bit register (.b32 / .f16x2), f = .f32,
// --- d = .f64 -------------------------------------------------------------------------------
// m8n8k4 .f32.f16.f16.f32: D 8 x .f32, A 2, B 2, C 8 x .f32
#define S_A2B2_C8F_D8F(P)                                                                     \
  float d0, d1, d2, d3, d4, d5, d6, d7;                                                       \
  asm volatile(P " {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, "                            \
                 "{%12,%13,%14,%15,%16,%17,%18,%19};\n"                                        \
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3), "=f"(d4), "=f"(d5), "=f"(d6), "=f"(d7) \
               : R32(r.a[0]), R32(r.a[1]), R32(r.b[0]), R32(r.b[1]), F32(r.c[0]), F32(r.c[1]), \
                 F32(r.c[2]), F32(r.c[3]), F32(r.c[4]), F32(r.c[5]), F32(r.c[6]), F32(r.c[7])); \
  FOUT(0); FOUT(1); FOUT(2); FOUT(3); FOUT(4); FOUT(5); FOUT(6); FOUT(7);
// m8n8k4 .f32.f16.f16.f16: D 8 x .f32, C 4 x .f16x2
#define S_A2B2_C4H_D8F(P)                                                                     \
  float d0, d1, d2, d3, d4, d5, d6, d7;                                                       \
  asm volatile(P " {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15};\n"        \
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3), "=f"(d4), "=f"(d5), "=f"(d6), "=f"(d7) \
               : R32(r.a[0]), R32(r.a[1]), R32(r.b[0]), R32(r.b[1]), R32(r.c[0]), R32(r.c[1]), \
                 R32(r.c[2]), R32(r.c[3]));                                                   \
  FOUT(0); FOUT(1); FOUT(2); FOUT(3); FOUT(4); FOUT(5); FOUT(6); FOUT(7);
// m8n8k4 .f16.f16.f16.f16: D and C 4 x .f16x2
#define S_A2B2_C4H_D4H(P)                                                                     \
  uint32_t e0, e1, e2, e3;                                                                    \
  asm volatile(P " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};\n"                        \
               : "=r"(e0), "=r"(e1), "=r"(e2), "=r"(e3)                                       \
               : R32(r.a[0]), R32(r.a[1]), R32(r.b[0]), R32(r.b[1]), R32(r.c[0]), R32(r.c[1]), \
                 R32(r.c[2]), R32(r.c[3]));                                                   \
  r.d[0] = e0; r.d[1] = e1; r.d[2] = e2; r.d[3] = e3;
// A 2, B 1, C/D 4 x .f32 (m16n8k4 tf32; m16n8k8 f16/bf16; m16n8k16 fp8)
#define S_A2B1_C4F_D4F(P)                                                                     \
  float d0, d1, d2, d3;                                                                       \
  asm volatile(P " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"                            \
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                                       \
               : R32(r.a[0]), R32(r.a[1]), R32(r.b[0]), F32(r.c[0]), F32(r.c[1]), F32(r.c[2]), \
                 F32(r.c[3]));                                                                \
  FOUT(0); FOUT(1); FOUT(2); FOUT(3);
// A 2, B 1, C/D 2 x .f16x2 (m16n8k8 f16; m16n8k16 fp8 with f16 accumulators)
#define S_A2B1_C2H_D2H(P)                                                                     \
  uint32_t e0, e1;                                                                            \
  asm volatile(P " {%0,%1}, {%2,%3}, {%4}, {%5,%6};\n"                                         \
               : "=r"(e0), "=r"(e1)                                                           \
               : R32(r.a[0]), R32(r.a[1]), R32(r.b[0]), R32(r.c[0]), R32(r.c[1]));            \
  r.d[0] = e0; r.d[1] = e1;
// A 4, B 2, C/D 4 x .f32 (m16n8k8 tf32; m16n8k16 f16/bf16; m16n8k32 8-bit)
#define S_A4B2_C4F_D4F(P)                                                                     \
  float d0, d1, d2, d3;                                                                       \
  asm volatile(P " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"                \
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                                       \
               : R32(r.a[0]), R32(r.a[1]), R32(r.a[2]), R32(r.a[3]), R32(r.b[0]), R32(r.b[1]), \
                 F32(r.c[0]), F32(r.c[1]), F32(r.c[2]), F32(r.c[3]));                         \
  FOUT(0); FOUT(1); FOUT(2); FOUT(3);
// A 4, B 2, C/D 2 x .f16x2 (m16n8k16 f16; m16n8k32 8-bit with f16 accumulators)
#define S_A4B2_C2H_D2H(P)                                                                     \
  uint32_t e0, e1;                                                                            \
  asm volatile(P " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};\n"                                \
               : "=r"(e0), "=r"(e1)                                                           \
               : R32(r.a[0]), R32(r.a[1]), R32(r.a[2]), R32(r.a[3]), R32(r.b[0]), R32(r.b[1]), \
                 R32(r.c[0]), R32(r.c[1]));                                                   \
  r.d[0] = e0; r.d[1] = e1;
// .f64: m8n8k4 (A 1, B 1, C/D 2), m16n8k4 (A 2, B 1), m16n8k8 (A 4, B 2), m16n8k16 (A 8, B 4)
#define S_F64_A1B1(P)                                                                         \
  double d0, d1;                                                                              \
  asm volatile(P " {%0,%1}, {%2}, {%3}, {%4,%5};\n"                                            \
               : "=d"(d0), "=d"(d1)                                                           \
               : D64(r.a[0]), D64(r.b[0]), D64(r.c[0]), D64(r.c[1]));                         \
  DOUT(0); DOUT(1);
#define S_F64_A2B1(P)                                                                         \
  double d0, d1, d2, d3;                                                                      \
  asm volatile(P " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"                            \
               : "=d"(d0), "=d"(d1), "=d"(d2), "=d"(d3)                                       \
               : D64(r.a[0]), D64(r.a[1]), D64(r.b[0]), D64(r.c[0]), D64(r.c[1]), D64(r.c[2]), \
                 D64(r.c[3]));                                                                \
  DOUT(0); DOUT(1); DOUT(2); DOUT(3);
#define S_F64_A4B2(P)                                                                         \
  double d0, d1, d2, d3;                                                                      \
  asm volatile(P " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"                \
               : "=d"(d0), "=d"(d1), "=d"(d2), "=d"(d3)                                       \
               : D64(r.a[0]), D64(r.a[1]), D64(r.a[2]), D64(r.a[3]), D64(r.b[0]), D64(r.b[1]), \
                 D64(r.c[0]), D64(r.c[1]), D64(r.c[2]), D64(r.c[3]));                         \
  DOUT(0); DOUT(1); DOUT(2); DOUT(3);
#define S_F64_A8B4(P)                                                                         \
  double d0, d1, d2, d3;                                                                      \
  asm volatile(P " {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "            \
                 "{%16,%17,%18,%19};\n"                                                        \
               : "=d"(d0), "=d"(d1), "=d"(d2), "=d"(d3)                                       \
               : D64(r.a[0]), D64(r.a[1]), D64(r.a[2]), D64(r.a[3]), D64(r.a[4]), D64(r.a[5]), \
                 D64(r.a[6]), D64(r.a[7]), D64(r.b[0]), D64(r.b[1]), D64(r.b[2]), D64(r.b[3]), \
                 D64(r.c[0]), D64(r.c[1]), D64(r.c[2]), D64(r.c[3]));                         \
  DOUT(0); DOUT(1); DOUT(2); DOUT(3);
// .block_scale: A 4, B 2, C/D 4 x .f32, scale-a-data, {byte-id-a, thread-id-a}, scale-b-data,
// {byte-id-b, thread-id-b}; the selectors are all 0 (see scale_a_row / scale_b_col).
#define S_SCALED(P)                                                                           \
  float d0, d1, d2, d3;                                                                       \
  uint16_t zero16 = 0;                                                                        \
  asm volatile(P " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {%15,%16}, " \
                 "%17, {%18,%19};\n"                                                           \
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                                       \
               : R32(r.a[0]), R32(r.a[1]), R32(r.a[2]), R32(r.a[3]), R32(r.b[0]), R32(r.b[1]), \
                 F32(r.c[0]), F32(r.c[1]), F32(r.c[2]), F32(r.c[3]), "r"(r.sa), "h"(zero16),   \
                 "h"(zero16), "r"(r.sb), "h"(zero16), "h"(zero16));                           \
  FOUT(0); FOUT(1); FOUT(2); FOUT(3);

// --- the table ---------------------------------------------------------------------------------
// X(id, spelling after "mma.sync.aligned.", M, N, K, dtype, atype, btype, ctype, stype, vec,
//   layout, packing, target, signature)
#define FP8_FORMS(X, a, A, b, B)                                                                  \
  X(m16n8k16_f32_##a##_##b, "m16n8k16.row.col.f32." #a "." #b ".f32", 16, 8, 16, F32, A, B, F32, \
    F_NONE, 0, L_M16N8, P_NATIVE, SM89, S_A2B1_C4F_D4F)                                          \
  X(m16n8k16_f16_##a##_##b, "m16n8k16.row.col.f16." #a "." #b ".f16", 16, 8, 16, F16, A, B, F16, \
    F_NONE, 0, L_M16N8, P_NATIVE, SM89, S_A2B1_C2H_D2H)                                          \
  X(m16n8k32_f32_##a##_##b, "m16n8k32.row.col.f32." #a "." #b ".f32", 16, 8, 32, F32, A, B, F32, \
    F_NONE, 0, L_M16N8, P_NATIVE, SM89, S_A4B2_C4F_D4F)                                          \
  X(m16n8k32_f16_##a##_##b, "m16n8k32.row.col.f16." #a "." #b ".f16", 16, 8, 32, F16, A, B, F16, \
    F_NONE, 0, L_M16N8, P_NATIVE, SM89, S_A4B2_C2H_D2H)
#define F8F6F4_FORMS(X, a, A, b, B)                                                               \
  X(f8f6f4_f32_##a##_##b, "m16n8k32.row.col.kind::f8f6f4.f32." #a "." #b ".f32", 16, 8, 32, F32, \
    A, B, F32, F_NONE, 0, L_M16N8, P_CONT8, SM120A, S_A4B2_C4F_D4F)                              \
  X(f8f6f4_f16_##a##_##b, "m16n8k32.row.col.kind::f8f6f4.f16." #a "." #b ".f16", 16, 8, 32, F16, \
    A, B, F16, F_NONE, 0, L_M16N8, P_CONT8, SM120A, S_A4B2_C2H_D2H)                              \
  X(mxf8f6f4_##a##_##b,                                                                          \
    "m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32." #a "." #b ".f32.ue8m0", 16, \
    8, 32, F32, A, B, F32, UE8M0, 1, L_M16N8, P_CONT8, SM120A, S_SCALED)
#define F8F6F4_ROW(X, F, a, A)                                                                  \
  F(X, a, A, e4m3, E4M3) F(X, a, A, e5m2, E5M2) F(X, a, A, e3m2, E3M2) F(X, a, A, e2m3, E2M3)   \
  F(X, a, A, e2m1, E2M1)

#define MMA_LIST(X)                                                                               \
  X(m8n8k4_f32_f16_f16_f32, "m8n8k4.row.col.f32.f16.f16.f32", 8, 8, 4, F32, F16, F16, F32,       \
    F_NONE, 0, L_QP884, P_NATIVE, SM75, S_A2B2_C8F_D8F)                                          \
  X(m8n8k4_f32_f16_f16_f16, "m8n8k4.row.col.f32.f16.f16.f16", 8, 8, 4, F32, F16, F16, F16,       \
    F_NONE, 0, L_QP884, P_NATIVE, SM75, S_A2B2_C4H_D8F)                                          \
  X(m8n8k4_f16_f16_f16_f16, "m8n8k4.row.col.f16.f16.f16.f16", 8, 8, 4, F16, F16, F16, F16,       \
    F_NONE, 0, L_QP884, P_NATIVE, SM75, S_A2B2_C4H_D4H)                                          \
  X(m8n8k4_f64, "m8n8k4.row.col.f64.f64.f64.f64", 8, 8, 4, F64, F64, F64, F64, F_NONE, 0,        \
    L_M16N8, P_NATIVE, SM80, S_F64_A1B1)                                                         \
  X(m16n8k4_tf32, "m16n8k4.row.col.f32.tf32.tf32.f32", 16, 8, 4, F32, TF32, TF32, F32, F_NONE,   \
    0, L_M16N8, P_NATIVE, SM80, S_A2B1_C4F_D4F)                                                  \
  X(m16n8k4_f64, "m16n8k4.row.col.f64.f64.f64.f64", 16, 8, 4, F64, F64, F64, F64, F_NONE, 0,     \
    L_M16N8, P_NATIVE, SM90, S_F64_A2B1)                                                         \
  X(m16n8k8_f16_f16, "m16n8k8.row.col.f16.f16.f16.f16", 16, 8, 8, F16, F16, F16, F16, F_NONE,    \
    0, L_M16N8, P_NATIVE, SM75, S_A2B1_C2H_D2H)                                                  \
  X(m16n8k8_f32_f16, "m16n8k8.row.col.f32.f16.f16.f32", 16, 8, 8, F32, F16, F16, F32, F_NONE,    \
    0, L_M16N8, P_NATIVE, SM75, S_A2B1_C4F_D4F)                                                  \
  X(m16n8k8_f32_bf16, "m16n8k8.row.col.f32.bf16.bf16.f32", 16, 8, 8, F32, BF16, BF16, F32,       \
    F_NONE, 0, L_M16N8, P_NATIVE, SM80, S_A2B1_C4F_D4F)                                          \
  X(m16n8k8_tf32, "m16n8k8.row.col.f32.tf32.tf32.f32", 16, 8, 8, F32, TF32, TF32, F32, F_NONE,   \
    0, L_M16N8, P_NATIVE, SM80, S_A4B2_C4F_D4F)                                                  \
  X(m16n8k8_f64, "m16n8k8.row.col.f64.f64.f64.f64", 16, 8, 8, F64, F64, F64, F64, F_NONE, 0,     \
    L_M16N8, P_NATIVE, SM90, S_F64_A4B2)                                                         \
  X(m16n8k16_f16_f16, "m16n8k16.row.col.f16.f16.f16.f16", 16, 8, 16, F16, F16, F16, F16, F_NONE, \
    0, L_M16N8, P_NATIVE, SM80, S_A4B2_C2H_D2H)                                                  \
  X(m16n8k16_f32_f16, "m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16, F32, F16, F16, F32, F_NONE, \
    0, L_M16N8, P_NATIVE, SM80, S_A4B2_C4F_D4F)                                                  \
  X(m16n8k16_f32_bf16, "m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8, 16, F32, BF16, BF16, F32,    \
    F_NONE, 0, L_M16N8, P_NATIVE, SM80, S_A4B2_C4F_D4F)                                          \
  X(m16n8k16_f64, "m16n8k16.row.col.f64.f64.f64.f64", 16, 8, 16, F64, F64, F64, F64, F_NONE, 0,  \
    L_M16N8, P_NATIVE, SM90, S_F64_A8B4)                                                         \
  FP8_FORMS(X, e4m3, E4M3, e4m3, E4M3) FP8_FORMS(X, e4m3, E4M3, e5m2, E5M2)                      \
  FP8_FORMS(X, e5m2, E5M2, e4m3, E4M3) FP8_FORMS(X, e5m2, E5M2, e5m2, E5M2)                      \
  F8F6F4_ROW(X, F8F6F4_FORMS, e4m3, E4M3) F8F6F4_ROW(X, F8F6F4_FORMS, e5m2, E5M2)                \
  F8F6F4_ROW(X, F8F6F4_FORMS, e3m2, E3M2) F8F6F4_ROW(X, F8F6F4_FORMS, e2m3, E2M3)                \
  F8F6F4_ROW(X, F8F6F4_FORMS, e2m1, E2M1)                                                        \
  X(mxf4_2x, "m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0", 16, \
    8, 64, F32, E2M1, E2M1, F32, UE8M0, 2, L_M16N8, P_NIB4, SM120A, S_SCALED)                    \
  X(mxf4nvf4_2x_ue8m0,                                                                           \
    "m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0", 16, 8,  \
    64, F32, E2M1, E2M1, F32, UE8M0, 2, L_M16N8, P_NIB4, SM120A, S_SCALED)                       \
  X(mxf4nvf4_4x_ue4m3,                                                                           \
    "m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3", 16, 8,  \
    64, F32, E2M1, E2M1, F32, UE4M3, 4, L_M16N8, P_NIB4, SM120A, S_SCALED)                       \
  X(mxf4nvf4_4x_ue8m0,                                                                           \
    "m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0", 16, 8,  \
    64, F32, E2M1, E2M1, F32, UE8M0, 4, L_M16N8, P_NIB4, SM120A, S_SCALED)

#define MMA_STRUCT(ID, P, M, N, K, D, A, B, C, S, V, L, PK, RQ, SIG)                        \
  struct mma_##ID {                                                                         \
    static constexpr MmaDesc desc = {M, N, K, D, A, B, C, S, V, L, PK, RQ};                 \
    __device__ static void run(Regs &r) { SIG("mma.sync.aligned." P) }                      \
  };
MMA_LIST(MMA_STRUCT)
#undef MMA_STRUCT

// Arguments of every kernel of the harness: line i reads a[i*k..], b[i*k..], c[i], sa[i*nsc..],
// sb[i*nsc..] (nsc scales per line and call) and writes d[i] and status[i] (1: ran; 2: this
// instruction is not compiled into the binary for the running GPU).
struct KArgs {
  const uint64_t *a, *b, *c;
  const uint32_t *sa, *sb;
  uint64_t *d;
  int *status;
  int k, nsc;
};

// One warp per line; lane L packs its registers through pack_mma, runs the instruction, and lane
// 0 returns D[0][0].
template <class I>
__global__ void __launch_bounds__(32) mma_sync_kernel(KArgs g) {
  constexpr MmaDesc m = I::desc;
  const int line = blockIdx.x, lane = threadIdx.x;
  if constexpr (arch_ok(m.req)) {
    Regs r;
    pack_mma(m, lane, g.a + (size_t)line * g.k, g.b + (size_t)line * g.k, g.c[line],
             g.sa + (size_t)line * g.nsc, g.sb + (size_t)line * g.nsc, r);
    I::run(r);
    if (lane == 0) {
      g.d[line] = read_d00(m, r);
      g.status[line] = 1;
    }
  } else {
    if (lane == 0) g.status[line] = 2;
  }
}

struct MmaEntry {
  const char *ptx;  // full PTX spelling, as `mma list --json` prints it in "ptx_isa"
  MmaDesc desc;
  void (*kernel)(KArgs);
};
#define MMA_ROW(ID, P, ...) {"mma.sync.aligned." P, mma_##ID::desc, mma_sync_kernel<mma_##ID>},
static const MmaEntry MMA_TABLE[] = {MMA_LIST(MMA_ROW)};
#undef MMA_ROW
static const int MMA_COUNT = sizeof(MMA_TABLE) / sizeof(MMA_TABLE[0]);
