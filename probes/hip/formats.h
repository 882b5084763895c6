// Element formats of the HIP harness: their encodings (FMTS, named as `mma list` and the case
// files name them), and the exact decoding and small-integer encoding the layout checks use.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------

enum Fmt { F32, TF32, F16, BF16, F64, E4M3FNUZ, E5M2FNUZ, S8, S32 };
struct FmtInfo {
  const char *name;  // as `mma list` and the case files name it
  int bits;          // storage bits (case-file hex digits = bits / 4)
  int exp_bits, mant_bits, bias;
  bool fnuz;  // no Inf, no -0: the code 1000...0 is NaN
};
constexpr FmtInfo FMTS[] = {
    {"f32", 32, 8, 23, 127, false},
    // tf32 is stored as fp32 bits (8 hex digits); the xf32 MFMAs read 32-bit registers. The
    // words go to the device as they are (`mma probe emit` writes them with the low 13 bits 0).
    {"tf32", 32, 8, 23, 127, false},
    {"f16", 16, 5, 10, 15, false},
    {"bf16", 16, 8, 7, 127, false},
    {"f64", 64, 11, 52, 1023, false},
    {"e4m3fnuz", 8, 4, 3, 8, true},   // CDNA3 "fp8"
    {"e5m2fnuz", 8, 5, 2, 16, true},  // CDNA3 "bf8"
    // Two's-complement integers of the i8 MFMAs (A/B s8, C/D s32): no exponent or mantissa.
    {"s8", 8, 0, 0, 0, false},
    {"s32", 32, 0, 0, 0, false},
};

// ---------------------------------------------------------------------------------------------
// Values (for the layout checks, which use small integers that every format holds exactly)
// ---------------------------------------------------------------------------------------------

static double decode(Fmt f, uint64_t v) {
  const FmtInfo &fi = FMTS[f];
  if (f == S8) return (double)(int8_t)(uint8_t)v;
  if (f == S32) return (double)(int32_t)(uint32_t)v;
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
  if (fi.fnuz && v == 1ull << (fi.bits - 1)) return NAN;
  if (!fi.fnuz && e == (1 << fi.exp_bits) - 1) return m ? NAN : sign ? -INFINITY : INFINITY;
  double x = e ? ldexp(1.0 + ldexp((double)m, -fi.mant_bits), e - fi.bias)
               : ldexp((double)m, 1 - fi.bias - fi.mant_bits);
  return sign ? -x : x;
}

// The code of a small integer v (|v| <= 3) in format f.
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
