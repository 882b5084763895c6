// The lane layouts of the HIP harness (in_loc, out_loc) and the register images that the kernels
// read and write.
//
// Lane layouts (which lane and which slot of the lane's operand hold each matrix element) are
// those of the AMD Matrix Instruction Calculator (github.com/ROCm/amd_matrix_instruction_calculator,
// matrix_calculator.py v1.01, class InstCalcGfx9, methods __get_input_reg_lanes and
// __get_output_reg_lanes, which cover CDNA1 and CDNA2); in_loc() and out_loc() below are that
// rule. CDNA3 runs the same MFMAs (renamed) plus xf32 and fp8 forms; the layouts of its
// 32x32x2 f32, 16x16x16 f16 and 32x32x16 fp8 forms are shown in AMD's "Matrix Core Programming on
// AMD CDNA3 and CDNA4 architecture" (ROCm blogs, 2025, sections 5.1-5.3) and agree with the rule,
// which is applied to every CDNA3 form; --layout-test settles each instruction on a device.
// CDNA4 (gfx950): the calculator version read has no gfx950 class; the rule is applied to the
// doubled-K f16/bf16/i8 forms (8 halves / 16 bytes per lane: lane i + M (k / e), slot k % e) and
// to f8f6f4 (32 elements per lane: lane i + M (k / 32), slot k % 32), an assumption for both,
// consistent with LLVM's operand sizes and with AMD's MX kernels (see the scale note below).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>
#include "instrs.h"

// ---------------------------------------------------------------------------------------------
// Lane layouts
// ---------------------------------------------------------------------------------------------

// Set only by --self-test --mutate N: breaks one rule on purpose, to show the self-test fails.
static int g_mutation = 0;

struct Loc {
  int lane, slot;
  bool operator==(const Loc &o) const { return lane == o.lane && slot == o.slot; }
};

// A[i][k] of block b (mn = M), or B[k][j] of block b (i = j, mn = N): the calculator's
// InstCalcGfx9.__get_input_reg_lanes. A lane holds e = K M B / 64 consecutive k of one row
// (slot k % e, in bits [slot w, slot w + w) of its operand); the blocks follow each other every
// M lanes, and the next e columns of every block come after all B blocks.
static Loc in_loc(int mn, int kdim, int blocks, int i, int k, int b) {
  int e = std::max(kdim * mn * blocks / 64, 1);  // (< 1 only in an inconsistent table: see --self-test)
  int slot = k % e;
  int lane = b * mn + (k / e) * mn * blocks + i;
  if (g_mutation == 1) lane = b * mn + (k / e) * mn + i;  // forgets the other blocks
  if (g_mutation == 3) slot = e - 1 - k % e;               // reverses the slots
  return {lane, slot};
}

// C[i][j] or D[i][j] of block b: the calculator's InstCalcGfx9.__get_output_reg_lanes. slot is
// the element index within the lane's C/D operand (a 32-bit register for f32, a register pair
// for f64). 32-bit results fill 4-row by N-column tiles (4 registers, N lanes), 64/N tiles side
// by side across the lanes, then the next 4 registers; 64-bit results do the same with 1-row
// tiles.
static Loc out_loc(const Op &op, int i, int j, int b) {
  const int M = op.m, N = op.n;
  const int multirows_per_register = 64 / N;
  int multirow_height = op.out_bits() == 64 ? 1 : 4;
  if (g_mutation == 4) multirow_height = 4;  // the f32 rule for f64
  const int per_reg = N * M / multirow_height;
  const int blocks_per_register = (64 + per_reg - 1) / per_reg;
  int slot = b * (M * N / 64) + (i / (multirow_height * multirows_per_register)) * multirow_height +
             i % multirow_height;
  if (g_mutation == 2) slot = b * (M * N / 64) + i % multirow_height;  // drops the tile rows
  int lane = (b % blocks_per_register) * N +
             ((i / multirow_height) % multirows_per_register) * blocks_per_register * N + j;
  return {lane, slot};
}

static Loc a_loc(const Op &op, int i, int k, int b) { return in_loc(op.m, op.k, op.blocks, i, k, b); }
static Loc b_loc(const Op &op, int k, int j, int b) { return in_loc(op.n, op.k, op.blocks, j, k, b); }

// Register images: A and B IW 64-bit words per lane (the largest operand, f8f6f4's 32 bytes; the
// kernel reads the operand's size from the start), element `slot` of a lane's operand in bits
// [slot w, slot w + w), w the element's register width (fp6 elements straddle 64-bit words);
// C and D acc_words() 32-bit words per lane (an f64 element in two words, low first). A place
// outside the lane's operand is never touched; it is counted in g_out_of_range instead (the
// self-test requires 0). The dense packing of fp6 (6 bits) and fp4 (4 bits) from bit 0 up,
// element 0 lowest, is an assumption (the f8f6f4 operand sizes, 6 and 4 dwords for 32 elements,
// are LLVM's; the order within them is not stated in any source read); --layout-test settles it.
constexpr int IW = MAX_OPND_BYTES / 8;
static long g_out_of_range = 0;
static bool in_range(const Op &op, Loc l, bool input, bool is_b = false) {
  int bits = input ? op.bits(is_b) : op.out_bits();
  int slots = input ? op.reg_bytes(is_b) * 8 / bits : op.acc_bytes * 8 / bits;
  bool ok = l.lane >= 0 && l.lane < 64 && l.slot >= 0 && l.slot < slots;
  if (!ok) g_out_of_range++;
  return ok;
}
static void put_in(const Op &op, bool is_b, std::vector<uint64_t> &img, size_t c, Loc l, uint64_t v) {
  if (!in_range(op, l, true, is_b)) return;
  int bits = op.bits(is_b);
  if (g_mutation == 7 && bits < 8) bits = 8;  // fp6/fp4 one per byte, as in the case files
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  size_t at = (c * 64 + l.lane) * IW;
  int p = l.slot * bits;
  img[at + p / 64] |= (v & mask) << (p % 64);
  if (p % 64 + bits > 64) img[at + p / 64 + 1] |= (v & mask) >> (64 - p % 64);
}
static uint64_t get_in(const Op &op, bool is_b, const std::vector<uint64_t> &img, size_t c, Loc l) {
  if (!in_range(op, l, true, is_b)) return 0;
  int bits = op.bits(is_b);
  if (g_mutation == 7 && bits < 8) bits = 8;
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  size_t at = (c * 64 + l.lane) * IW;
  int p = l.slot * bits;
  uint64_t v = img[at + p / 64] >> (p % 64);
  if (p % 64 + bits > 64) v |= img[at + p / 64 + 1] << (64 - p % 64);
  return v & mask;
}
static void put_out(const Op &op, std::vector<uint32_t> &img, size_t c, Loc l, uint64_t v) {
  if (!in_range(op, l, false)) return;
  size_t w = (c * 64 + l.lane) * op.acc_words();
  if (op.out_bits() == 64) {
    img[w + 2 * l.slot] = (uint32_t)v;
    img[w + 2 * l.slot + 1] = (uint32_t)(v >> 32);
  } else {
    img[w + l.slot] = (uint32_t)v;
  }
}
static uint64_t get_out(const Op &op, const std::vector<uint32_t> &img, size_t c, Loc l) {
  if (!in_range(op, l, false)) return 0;
  size_t w = (c * 64 + l.lane) * op.acc_words();
  if (op.out_bits() == 64) return img[w + 2 * l.slot] | (uint64_t)img[w + 2 * l.slot + 1] << 32;
  return img[w + l.slot];
}

// Block scales (v_mfma_scale_*_f8f6f4): two 32-bit words per lane, the lane's scale_a and
// scale_b operands; with opsel 0 byte 0 is the ue8m0 scale of the 32 consecutive k that the lane
// holds of A (and of B). That each lane's scale applies to the elements the lane itself holds
// (lane t: A row t % M, k block t / M) is how AMD's kernels lay them out (composable_kernel's
// MX scale preshuffle, scale[row lane % 16][k block lane / 16] for 16x16x128); not stated by the
// ISA text read here: an assumption, which --layout-test checks with random scales.
constexpr uint32_t SCALE_ONE = 127;  // ue8m0 2^0
static int scale_lane(const Op &op, bool is_b, int ij, int k) {
  if (g_mutation == 6) k = 0;  // one scale lane per row: forgets the k blocks
  return (is_b ? b_loc(op, k, ij, 0) : a_loc(op, ij, k, 0)).lane;
}
