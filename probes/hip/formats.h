// Element formats of the HIP harness: their encodings (FMTS, named as `mma list` and the case
// files name them), and the exact decoding and small-integer encoding the layout checks use.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------

enum Fmt { F32, TF32, F16, BF16, F64, E4M3FNUZ, E5M2FNUZ, S8, S32, E4M3, E5M2, E2M3, E3M2, E2M1, UE8M0 };
// What the top exponent code and the sign-only code mean.
enum Specials {
  IEEE,     // top exponent: Inf (mantissa 0) or NaN
  FNUZ,     // no Inf, no -0: the code 1000...0 is NaN
  NAN_ONES, // OCP e4m3 ("fn"): no Inf, only S.1111.111 is NaN, the rest of the top binade finite
  FINITE,   // OCP fp6/fp4: no Inf, no NaN
};
struct FmtInfo {
  const char *name;  // as `mma list` and the case files name it
  int bits;          // element bits in the registers (fp6 6, fp4 4: packed densely there)
  int store_bits;    // bits in a case file (hex digits = store_bits / 4): fp6/fp4 one per byte
  int exp_bits, mant_bits, bias;
  Specials specials;
};
constexpr FmtInfo FMTS[] = {
    {"f32", 32, 32, 8, 23, 127, IEEE},
    // tf32 is stored as fp32 bits (8 hex digits); the xf32 MFMAs read 32-bit registers. The
    // words go to the device as they are (`mma probe emit` writes them with the low 13 bits 0).
    {"tf32", 32, 32, 8, 23, 127, IEEE},
    {"f16", 16, 16, 5, 10, 15, IEEE},
    {"bf16", 16, 16, 8, 7, 127, IEEE},
    {"f64", 64, 64, 11, 52, 1023, IEEE},
    {"e4m3fnuz", 8, 8, 4, 3, 8, FNUZ},   // CDNA3 "fp8"
    {"e5m2fnuz", 8, 8, 5, 2, 16, FNUZ},  // CDNA3 "bf8"
    // Two's-complement integers of the i8 MFMAs (A/B s8, C/D s32): no exponent or mantissa.
    {"s8", 8, 8, 0, 0, 0, IEEE},
    {"s32", 32, 32, 0, 0, 0, IEEE},
    // CDNA4 (gfx950) reads the OCP formats: "fp8" e4m3, "bf8" e5m2, "fp6" e2m3, "bf6" e3m2,
    // "fp4" e2m1 (mma-core's format.rs; the cbsz/blgp codes 0..4 in instrs.h). Case files hold
    // fp6/fp4 one element per byte (the catalog's `byte` layout, 2 hex digits, code in the low
    // bits); the registers hold them densely (layouts.h).
    {"e4m3", 8, 8, 4, 3, 7, NAN_ONES},
    {"e5m2", 8, 8, 5, 2, 15, IEEE},
    {"e2m3", 6, 8, 2, 3, 1, FINITE},
    {"e3m2", 6, 8, 3, 2, 3, FINITE},
    {"e2m1", 4, 8, 2, 1, 1, FINITE},
    // The block scale of v_mfma_scale_*: 2^(code - 127), 0xff NaN, no sign, no zero.
    {"ue8m0", 8, 8, 8, 0, 127, IEEE},
};

// ---------------------------------------------------------------------------------------------
// Values (for the layout checks, which use small integers that every format holds exactly)
// ---------------------------------------------------------------------------------------------

static double decode(Fmt f, uint64_t v) {
  const FmtInfo &fi = FMTS[f];
  if (f == S8) return (double)(int8_t)(uint8_t)v;
  if (f == S32) return (double)(int32_t)(uint32_t)v;
  if (f == UE8M0) return (v & 0xff) == 0xff ? NAN : ldexp(1.0, (int)(v & 0xff) - 127);
  if (f == F32 || f == TF32) {
    uint32_t u = (uint32_t)v;
    float x;
    memcpy(&x, &u, 4);
    return x;
  }
  if (f == F64) {
    double x;
    memcpy(&x, &v, 8);
    return x;
  }
  int sign = (int)(v >> (fi.bits - 1)) & 1;
  int e = (int)(v >> fi.mant_bits) & ((1 << fi.exp_bits) - 1);
  uint64_t m = v & ((1ull << fi.mant_bits) - 1);
  if (fi.specials == FNUZ && v == 1ull << (fi.bits - 1)) return NAN;
  if (fi.specials == NAN_ONES && e == (1 << fi.exp_bits) - 1 && m == (1ull << fi.mant_bits) - 1) return NAN;
  if (fi.specials == IEEE && e == (1 << fi.exp_bits) - 1) return m ? NAN : sign ? -INFINITY : INFINITY;
  double x = e ? ldexp(1.0 + ldexp((double)m, -fi.mant_bits), e - fi.bias)
               : ldexp((double)m, 1 - fi.bias - fi.mant_bits);
  return sign ? -x : x;
}

// The code of a small integer v (|v| <= 3) in format f (every A/B format holds them: e2m1's
// largest is 6).
static uint64_t encode_small(Fmt f, int v) {
  const FmtInfo &fi = FMTS[f];
  if (f == S8) return (uint8_t)(int8_t)v;
  if (f == S32) return (uint32_t)(int32_t)v;
  if (v == 0) return 0;
  int a = v < 0 ? -v : v;
  uint64_t code = (uint64_t)(fi.bias + (a >= 2 ? 1 : 0)) << fi.mant_bits;
  if (a == 3) code |= 1ull << (fi.mant_bits - 1);
  if (v < 0) code |= 1ull << (fi.bits - 1);
  return code;
}

// The code of an integer-valued double in the C/D format (f32, f64 or s32).
static uint64_t encode_out(Fmt f, double x) {
  if (f == S32) return (uint32_t)(int32_t)x;
  if (f == F64) {
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
  }
  float y = (float)x;
  uint32_t u;
  memcpy(&u, &y, 4);
  return u;
}
