// Host side: instruction names -> what to run, and case lines -> checked operands. Every problem
// with a line is an error naming the line, never a silent zero.
#pragma once
#include <string>
#include <vector>
#include "../common.h"
#include "layouts.cuh"
#include "mma_sync.cuh"
#include "tcgen05.cuh"
#include "wgmma.cuh"

static const char *const FMT_NAMES[] = {"none", "f16",  "bf16", "tf32", "f32",   "f64",  "e4m3",
                                        "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3"};
static const char *fmt_name(Fmt f) { return FMT_NAMES[f]; }
static Fmt fmt_parse(const std::string &s) {
  for (int i = 1; i < 13; i++)
    if (s == FMT_NAMES[i]) return Fmt(i);
  return F_NONE;
}
static const char *req_name(Req r) {
  static const char *n[] = {"sm_75+", "sm_80+", "sm_89+", "sm_90+", "sm_90a", "sm_100a", "sm_120a"};
  return n[r];
}

enum Family { FAM_MMA, FAM_WGMMA, FAM_TCGEN05 };
static const char *const MMA_PREFIX = "mma.sync.aligned.";
static const char *const WG_PREFIX = "wgmma.mma_async.sync.aligned.";
static const char *const TC_PREFIX = "tcgen05.mma.cta_group::1.";

static bool starts_with(const std::string &s, const std::string &p) {
  return s.compare(0, p.size(), p) == 0;
}
static std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size())
    s.replace(p, from.size(), to);
  return s;
}

// The catalog's "instruction" field for an mma.sync spelling (after "mma.sync.aligned."): no
// ".row.col"; ".block_scale.scale_vec::NX" is ".block{K/N}" (m16n8k64 ...scale_vec::4X -> block16).
static std::string mma_catalog_name(const std::string &tail, const MmaDesc &m) {
  std::string s = replace_all(tail, ".row.col", "");
  size_t p = s.find(".block_scale.scale_vec::");
  if (p != std::string::npos) {
    size_t e = s.find('.', p + 1 + std::string("block_scale.scale_vec::").size());
    s.replace(p, e - p, ".block" + std::to_string(m.k / m.vec));
  }
  return s;
}

// The selected instruction.
struct Sel {
  Family fam = FAM_MMA;
  const MmaEntry *mma = nullptr;
  const WgEntry *wg = nullptr;
  TcTypes tc{};
  TcParams tcp{};
  std::string ptx;      // full PTX spelling (tcgen05: the .kind form plus the shape)
  std::string catalog;  // the catalog's "instruction" field
  int k = 0, vec = 0, block = 0;
  Fmt a = F_NONE, b = F_NONE, c = F_NONE, d = F_NONE, s = F_NONE;
  Req req = SM75;
};

static bool resolve(const std::string &name, Sel &sel, std::string &err) {
  // mma.sync: the full spelling, the part after "mma.sync.aligned.", or the catalog name.
  std::string t = starts_with(name, MMA_PREFIX) ? name.substr(strlen(MMA_PREFIX)) : name;
  for (int i = 0; i < MMA_COUNT; i++) {
    const MmaEntry &e = MMA_TABLE[i];
    std::string tail = std::string(e.ptx).substr(strlen(MMA_PREFIX));
    std::string cat = mma_catalog_name(tail, e.desc);
    if (t == tail || (!starts_with(name, MMA_PREFIX) && name == cat)) {
      const MmaDesc &m = e.desc;
      sel.fam = FAM_MMA;
      sel.mma = &e;
      sel.ptx = e.ptx;
      sel.catalog = cat;
      sel.k = m.k, sel.vec = m.vec, sel.block = m.vec ? m.k / m.vec : 0;
      sel.a = m.a, sel.b = m.b, sel.c = m.c, sel.d = m.d, sel.s = m.s, sel.req = m.req;
      return true;
    }
  }
  // wgmma: the full spelling or the part after "wgmma.mma_async.sync.aligned." (= catalog name).
  t = starts_with(name, WG_PREFIX) ? name.substr(strlen(WG_PREFIX)) : name;
  for (int i = 0; i < WG_COUNT; i++) {
    const WgEntry &e = WG_TABLE[i];
    std::string tail = std::string(e.ptx).substr(strlen(WG_PREFIX));
    if (t == tail) {
      sel.fam = FAM_WGMMA;
      sel.wg = &e;
      sel.ptx = e.ptx;
      sel.catalog = tail;
      sel.k = e.desc.k;
      sel.a = e.desc.a, sel.b = e.desc.b, sel.c = sel.d = e.desc.d, sel.req = SM90A;
      return true;
    }
  }
  if (starts_with(t, "m64n") && t.find("kind::") == std::string::npos) {
    err = "wgmma spelling '" + name + "': only the m64n8 forms are compiled (see --list)";
    return false;
  }
  // tcgen05: the catalog name m{M}n{N}k{K}.kind::{kind}.{d}.{a}.{b}, optionally prefixed by
  // "tcgen05.mma.cta_group::1.".
  t = starts_with(name, TC_PREFIX) ? name.substr(strlen(TC_PREFIX)) : name;
  int m = 0, n = 0, k = 0, used = 0;
  char kind[16] = {0}, rest[64] = {0};
  if (sscanf(t.c_str(), "m%dn%dk%d.kind::%15[^.].%63s%n", &m, &n, &k, kind, rest, &used) == 5 &&
      size_t(used) == t.size()) {
    std::string r = rest, ks = kind;
    if (ks == "mxf8f6f4" || ks == "mxf4" || ks == "mxf4nvf4" || ks == "i8") {
      err = "tcgen05 .kind::" + ks + " is not supported by this harness (block-scale factors in "
            "Tensor Memory; see tcgen05.cuh)";
      return false;
    }
    size_t p1 = r.find('.'), p2 = r.find('.', p1 + 1);
    if (p1 == std::string::npos || p2 == std::string::npos || r.find('.', p2 + 1) != r.npos) {
      err = "tcgen05 name '" + name + "': expected m{M}n{N}k{K}.kind::{kind}.{d}.{a}.{b}";
      return false;
    }
    Fmt d = fmt_parse(r.substr(0, p1)), a = fmt_parse(r.substr(p1 + 1, p2 - p1 - 1)),
        b = fmt_parse(r.substr(p2 + 1));
    for (int i = 0; i < TC_TYPE_COUNT; i++) {
      const TcTypes &tt = TC_TYPES[i];
      if (ks != TC_KIND_NAMES[tt.kind] || tt.d != d || tt.a != a || tt.b != b) continue;
      if (k != TC_KIND_K[tt.kind] || !tc_shape_ok(m, n)) {
        err = "tcgen05 shape m" + std::to_string(m) + "n" + std::to_string(n) + "k" +
              std::to_string(k) + " is not valid for .kind::" + ks +
              " (M = 64 or 128, N = 8..256 in steps of 8, K = " +
              std::to_string(TC_KIND_K[tt.kind]) + ")";
        return false;
      }
      sel.fam = FAM_TCGEN05;
      sel.tc = tt;
      sel.tcp = tc_params(tt, m, n);
      sel.ptx = std::string(TC_PREFIX) + "kind::" + ks + " (m" + std::to_string(m) + "n" +
                std::to_string(n) + "k" + std::to_string(k) + ")";
      sel.catalog = t;
      sel.k = k;
      sel.a = a, sel.b = b, sel.c = sel.d = d, sel.req = SM100A;
      return true;
    }
    if (ks == "f8f6f4" && (a == E3M2 || a == E2M3 || a == E2M1 || b == E3M2 || b == E2M3 ||
                           b == E2M1)) {
      err = "tcgen05 .kind::f8f6f4 with 6- or 4-bit operands is not supported: their padded "
            "shared-memory packing (PTX ISA 9.7.16.10.4.4) is only given as figures";
      return false;
    }
    err = "tcgen05 types '" + r + "' are not a covered .kind::" + ks + " combination";
    return false;
  }
  err = "unknown instruction '" + name + "' (mma_probe --list shows the spellings)";
  return false;
}

// One case line, checked. Elements are kept one per entry, in their format's low bits.
struct Case {
  size_t line;  // index into the file's lines
  std::vector<uint64_t> a, b;
  uint64_t c;
  std::vector<uint32_t> sa, sb;
};

// Hex words as the project's case files spell them (README "Case files"; crates/mma-io): exactly
// the storage width's digits (f64 16, f32/tf32 8, f16/bf16 4, 8-bit and smaller 2), optionally
// after "0x": "3f80" is not an fp32 word.
static int hex_digits(Fmt f) {
  int b = fmt_bits(f);
  return b >= 64 ? 16 : b >= 32 ? 8 : b >= 16 ? 4 : 2;
}
static bool hex_list(const std::string &s, int digits, std::vector<uint64_t> &out,
                     std::string &err) {
  size_t p = 0;
  auto skip = [&] { while (p < s.size() && (s[p] == ' ' || s[p] == '\t')) p++; };
  skip();
  while (p < s.size()) {
    if (s[p] != '"') return err = "expected a quoted hex word", false;
    size_t e = s.find('"', p + 1);
    if (e == std::string::npos) return err = "unterminated word", false;
    std::string w = s.substr(p + 1, e - p - 1), h = w.compare(0, 2, "0x") ? w : w.substr(2);
    if (h.size() != size_t(digits) || h.find_first_not_of("0123456789abcdefABCDEF") != h.npos)
      return err = "'" + w + "' is not a word of exactly " + std::to_string(digits) +
                   " hex digits", false;
    out.push_back(strtoull(h.c_str(), nullptr, 16));
    p = e + 1;
    skip();
    if (p < s.size()) {
      if (s[p] != ',') return err = "expected ','", false;
      p++;
      skip();
    }
  }
  return true;
}
// A numeric field ("k":32): common.h's field() reads quoted and bracketed values only.
static bool num_field(const std::string &line, const char *key, std::string &out) {
  std::string kq = std::string("\"") + key + "\":";
  size_t p = line.find(kq);
  if (p == std::string::npos) return false;
  p += kq.size();
  while (p < line.size() && line[p] == ' ') p++;
  size_t e = p;
  while (e < line.size() && line[e] >= '0' && line[e] <= '9') e++;
  out = line.substr(p, e - p);
  return true;
}
static bool fits(uint64_t v, int bits) { return bits >= 64 || v < (1ull << bits); }

// How the A and B words of a line are packed. Lines naming the instruction ("instr", catalog
// case files such as vectors/mmasim) use the catalog's layout: .kind::f8f6f4/.kind::mxf8f6f4
// one element per byte, fp6 in bits 5:0 and fp4 in bits 5:2; .kind::mxf4/.kind::mxf4nvf4 two
// fp4 per byte, element 2i in the high nibble (K/2 words). Other lines (`mma probe emit`, unit
// files) hold one element per word in its low bits. This is how `mma eval`/`mma check` read
// them (crates/mma-io/src/cases.rs).
enum Words { W_PLAIN, W_BYTE, W_PACKED4 };
static Words words_of(const Sel &sel, bool catalog_line) {
  if (!catalog_line || sel.fam != FAM_MMA) return W_PLAIN;
  return sel.mma->desc.pack == P_CONT8 ? W_BYTE : sel.mma->desc.pack == P_NIB4 ? W_PACKED4
                                                                                : W_PLAIN;
}
// Reads "a" or "b" into one element per entry; "" or the problem.
static std::string read_operand(const std::string &line, const char *key, Fmt f, Words w,
                                std::vector<uint64_t> &out) {
  std::string s, err;
  std::vector<uint64_t> raw;
  if (!field(line, key, s)) return std::string("no \"") + key + "\" list";
  if (!hex_list(s, w == W_PLAIN ? hex_digits(f) : 2, raw, err))
    return std::string("\"") + key + "\": " + err;
  int bits = fmt_bits(f);
  for (size_t i = 0; i < raw.size(); i++) {
    uint64_t v = raw[i];
    std::string at = std::string(key) + "[" + std::to_string(i) + "]";
    if (w == W_PACKED4) {
      out.push_back(v >> 4), out.push_back(v & 0xf);
    } else if (w == W_BYTE && bits == 4) {
      if (v & ~0x3cull) return at + ": an fp4 element in a byte sits in bits 5:2, the rest 0";
      out.push_back(v >> 2);
    } else if (w == W_BYTE && bits == 6) {
      if (v >> 6) return at + ": an fp6 element in a byte sits in bits 5:0, bits 7:6 0";
      out.push_back(v);
    } else {
      if (!fits(v, bits) && !MUT(12))
        return at + " does not fit " + fmt_name(f) + " (" + std::to_string(bits) + " bits)";
      out.push_back(v);
    }
  }
  return "";
}

// Parses and checks one case line for `sel`; returns "" or the problem.
static std::string parse_case(const std::string &line, const Sel &sel, Case &cs) {
  std::string s, e;
  cs.a.clear(), cs.b.clear(), cs.sa.clear(), cs.sb.clear();
  // The instruction a line names, and the formats, must be the one run.
  bool catalog_line = field(line, "instr", s);
  if (catalog_line && s != sel.catalog && s != sel.ptx)
    return "\"instr\":\"" + s + "\" is not " + sel.catalog;
  const char *keys[] = {"a_format", "b_format", "c_format", "d_format", "scale_format"};
  Fmt want[] = {sel.a, sel.b, sel.c, sel.d, sel.s};
  for (int i = 0; i < 5; i++)
    if (field(line, keys[i], s) && fmt_parse(s) != want[i])
      return std::string("\"") + keys[i] + "\":\"" + s + "\" but " + sel.catalog + " takes " +
             fmt_name(want[i]);
  Words w = words_of(sel, catalog_line);
  if (!(e = read_operand(line, "a", sel.a, w, cs.a)).empty() ||
      !(e = read_operand(line, "b", sel.b, w, cs.b)).empty())
    return e;
  std::vector<uint64_t> one;
  if (!field(line, "c", s)) return "no \"c\"";
  if (!hex_list("\"" + s + "\"", hex_digits(sel.c), one, e) || one.size() != 1)
    return "\"c\": " + e;
  cs.c = one[0];
  size_t k = cs.a.size();
  if (k == 0 || cs.b.size() != k)
    return "\"a\" has " + std::to_string(k) + " elements, \"b\" " + std::to_string(cs.b.size());
  if (k % sel.k)
    return "K = " + std::to_string(k) + " is not a multiple of the instruction's K = " +
           std::to_string(sel.k);
  if (num_field(line, "k", s) && s != std::to_string(k))
    return "\"k\":" + s + " but \"a\" has " + std::to_string(k) + " elements";
  if (!fits(cs.c, fmt_bits(sel.c))) return std::string("c does not fit ") + fmt_name(sel.c);
  if (k > size_t(sel.k) && sel.c != sel.d)
    return "K = " + std::to_string(k) + " needs chained calls, which feed D (" + fmt_name(sel.d) +
           ") back as C (" + fmt_name(sel.c) + "): only K = " + std::to_string(sel.k) + " works";
  // Block scales: one byte word per block of `block` elements (a ue4m3 byte goes to the GPU as
  // it is, bit 7 included).
  std::vector<uint64_t> sa, sb;
  if (sel.vec) {
    for (int i = 0; i < 2; i++) {
      const char *key = i ? "scale_b" : "scale_a";
      if (!field(line, key, s)) return std::string("no \"") + key + "\" list";
      if (!hex_list(s, 2, i ? sb : sa, e)) return std::string("\"") + key + "\": " + e;
    }
    if (num_field(line, "scale_block", s) && s != std::to_string(sel.block))
      return "\"scale_block\":" + s + " but the instruction scales blocks of " +
             std::to_string(sel.block);
    if (sa.size() != k / sel.block || sb.size() != k / sel.block)
      return "K = " + std::to_string(k) + " needs " + std::to_string(k / sel.block) +
             " scales per operand, got " + std::to_string(sa.size()) + " and " +
             std::to_string(sb.size());
  } else if (field(line, "scale_a", s) || field(line, "scale_b", s)) {
    return "the line has block scales but " + sel.catalog + " takes none";
  }
  cs.sa.assign(sa.begin(), sa.end());
  cs.sb.assign(sb.begin(), sb.end());
  return "";
}
