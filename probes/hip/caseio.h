// Case files of the HIP harness: every line read and checked against the instruction before
// anything runs (each problem an error naming the file and the line), and the file written back
// with the device's "d".
#pragma once
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "../common.h"
#include "formats.h"
#include "instrs.h"

// ---------------------------------------------------------------------------------------------
// Case files
// ---------------------------------------------------------------------------------------------

// One case line, parsed; d is set by running it.
struct Case {
  size_t line;  // 0-based index into the file's lines
  std::vector<uint64_t> a, b;
  std::vector<uint64_t> sa, sb;  // scaled MFMAs: ue8m0 scale_a/scale_b, one per 32 elements
  uint64_t c = 0, d = 0;
};

static std::string trim(const std::string &s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The text of a list field ("a":[...]) between the brackets.
static bool list_field(const std::string &line, const char *key, std::string &out, std::string &err) {
  std::string k = std::string("\"") + key + "\":";
  size_t p = line.find(k);
  if (p == std::string::npos) {
    err = std::string("no \"") + key + "\" list";
    return false;
  }
  p += k.size();
  while (p < line.size() && line[p] == ' ') p++;
  size_t e = line.find(']', p);
  if (p >= line.size() || line[p] != '[' || e == std::string::npos) {
    err = std::string("\"") + key + "\" is not a list [\"...\", ...]";
    return false;
  }
  out = line.substr(p + 1, e - p - 1);
  return true;
}

// One hex word of exactly bits/4 digits (optionally after 0x), as case files write them.
static bool hex_word(const std::string &w, int bits, uint64_t &v) {
  std::string s = w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') ? w.substr(2) : w;
  if ((int)s.size() != bits / 4) return false;
  v = 0;
  for (char ch : s) {
    int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
            : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
    if (d < 0) return false;
    v = v << 4 | (uint64_t)d;
  }
  return true;
}

// The words of a list: "3c00","0000",... strictly.
static bool word_list(const std::string &list, const char *key, Fmt f, std::vector<uint64_t> &out,
                      std::string &err) {
  size_t p = 0;
  out.clear();
  while (true) {
    while (p < list.size() && list[p] == ' ') p++;
    if (p >= list.size()) break;
    size_t e = list[p] == '"' ? list.find('"', p + 1) : std::string::npos;
    if (e == std::string::npos) {
      err = std::string(key) + "[" + std::to_string(out.size()) + "]: not a quoted hex word";
      return false;
    }
    std::string w = list.substr(p + 1, e - p - 1);
    uint64_t v;
    if (!hex_word(w, FMTS[f].store_bits, v)) {
      err = std::string(key) + "[" + std::to_string(out.size()) + "]: \"" + w + "\" is not a " +
            std::to_string(FMTS[f].store_bits / 4) + "-digit hex word (" + FMTS[f].name + ")";
      return false;
    }
    if (FMTS[f].bits < 64 && v >> FMTS[f].bits) {  // fp6/fp4: the code in the byte's low bits
      err = std::string(key) + "[" + std::to_string(out.size()) + "]: \"" + w + "\" does not fit " +
            FMTS[f].name + " (" + std::to_string(FMTS[f].bits) + " bits)";
      return false;
    }
    out.push_back(v);
    p = e + 1;
    while (p < list.size() && list[p] == ' ') p++;
    if (p < list.size()) {
      if (list[p] != ',') {
        err = std::string(key) + ": expected ',' after element " + std::to_string(out.size() - 1);
        return false;
      }
      p++;
    }
  }
  return true;
}

// A number field ("k":16).
static bool num_field(const std::string &line, const char *key, long &v) {
  std::string k = std::string("\"") + key + "\":";
  size_t p = line.find(k);
  if (p == std::string::npos) return false;
  p += k.size();
  while (p < line.size() && line[p] == ' ') p++;
  char *end;
  v = strtol(line.c_str() + p, &end, 10);
  return end != line.c_str() + p;
}

static std::string lower(std::string s) {
  for (char &c : s) c = (char)tolower((unsigned char)c);
  return s;
}

// One case line, checked against the instruction. Returns false with err set on a bad line.
static bool parse_case(const std::string &line, const Name &nm, const Op &op, Case &cs, std::string &err) {
  if (line.front() != '{' || line.back() != '}') {
    err = "not a JSON object on one line ({...})";
    return false;
  }
  std::string s;
  if (!list_field(line, "a", s, err) || !word_list(s, "a", op.a, cs.a, err)) return false;
  if (!list_field(line, "b", s, err) || !word_list(s, "b", op.b, cs.b, err)) return false;
  if (cs.a.size() != cs.b.size()) {
    err = "a has " + std::to_string(cs.a.size()) + " elements, b " + std::to_string(cs.b.size());
    return false;
  }
  if (cs.a.empty() || cs.a.size() % op.k) {
    err = std::to_string(cs.a.size()) + " elements: " + nm.name + " needs a multiple of K = " +
          std::to_string(op.k) + " (more than K run as chained calls)";
    return false;
  }
  if (!field(line, "c", s) || !hex_word(s, op.out_bits(), cs.c)) {
    err = std::string("\"c\" must be one ") + std::to_string(op.out_bits() / 4) + "-digit hex word (" +
          FMTS[op.cd].name + ")";
    return false;
  }
  const char *fkeys[] = {"a_format", "b_format", "c_format", "d_format"};
  const Fmt fwant[] = {op.a, op.b, op.cd, op.cd};
  for (int i = 0; i < 4; i++)
    if (field(line, fkeys[i], s) && s != FMTS[fwant[i]].name) {
      err = std::string(fkeys[i]) + " is " + s + ", but " + nm.name + " takes " + FMTS[fwant[i]].name;
      return false;
    }
  long k;
  if (num_field(line, "k", k) && (size_t)k != cs.a.size()) {
    err = "\"k\" is " + std::to_string(k) + " but a has " + std::to_string(cs.a.size()) + " elements";
    return false;
  }
  if (field(line, "instr", s) && lower(s) != nm.name && lower(s) != std::string("v_mfma_") + nm.name) {
    err = "\"instr\" is " + s + ", but this run is " + nm.name;
    return false;
  }
  // Block scales (v_mfma_scale_*): ue8m0 words, one per 32 elements of "a" and of "b".
  if (op.scaled()) {
    if (field(line, "scale_format", s) && s != FMTS[UE8M0].name) {
      err = "scale_format is " + s + ", but " + nm.name + " takes ue8m0";
      return false;
    }
    if (num_field(line, "scale_block", k) && k != 32) {
      err = "\"scale_block\" is " + std::to_string(k) + ", but " + nm.name + " scales blocks of 32";
      return false;
    }
    if (!list_field(line, "scale_a", s, err) || !word_list(s, "scale_a", UE8M0, cs.sa, err)) return false;
    if (!list_field(line, "scale_b", s, err) || !word_list(s, "scale_b", UE8M0, cs.sb, err)) return false;
    if (cs.sa.size() != cs.a.size() / 32 || cs.sb.size() != cs.a.size() / 32) {
      err = std::to_string(cs.a.size()) + " elements need " + std::to_string(cs.a.size() / 32) +
            " scales each in scale_a and scale_b, got " + std::to_string(cs.sa.size()) + " and " +
            std::to_string(cs.sb.size());
      return false;
    }
  } else if (field(line, "scale_a", s) || field(line, "scale_b", s)) {
    err = std::string("the line has block scales, but ") + nm.name + " takes none";
    return false;
  }
  return true;
}

// Reads a case file: every line kept (to write back), the case lines parsed. Comments (#) and
// blank lines pass through. Errors name the file and the 1-based line.
static bool read_cases(const char *path, const Name &nm, const Op &op, std::vector<std::string> &lines,
                       std::vector<Case> &cases) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "error: cannot read " << path << "\n";
    return false;
  }
  std::string line;
  size_t errors = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lines.empty() && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    lines.push_back(line);
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    Case cs;
    cs.line = lines.size() - 1;
    std::string err;
    if (!parse_case(t, nm, op, cs, err)) {
      if (errors++ < 20) std::cerr << "error: " << path << ":" << lines.size() << ": " << err << "\n";
      continue;
    }
    cases.push_back(cs);
  }
  if (errors) {
    std::cerr << "error: " << path << ": " << errors << " bad line(s)" << (errors > 20 ? " (first 20 shown)" : "")
              << "; nothing run\n";
    return false;
  }
  if (cases.empty()) {
    std::cerr << "error: " << path << ": no case lines\n";
    return false;
  }
  return true;
}

// Writes the file back: every line as it was read, each case line (trimmed) with its "d",
// `digits` hex digits wide. Errors name the file. (Unused in a host-only build.)
[[maybe_unused]] static bool write_cases(const std::string &path, const std::vector<std::string> &lines,
                                         const std::vector<Case> &cases, int digits) {
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    std::cerr << "error: cannot write " << path << "\n";
    return false;
  }
  size_t next = 0;
  for (size_t i = 0; i < lines.size(); i++) {
    if (next < cases.size() && cases[next].line == i)
      out << with_d(trim(lines[i]), cases[next++].d, digits) << "\n";
    else
      out << lines[i] << "\n";
  }
  out.close();
  if (!out) {
    std::cerr << "error: writing " << path << " failed\n";
    return false;
  }
  return true;
}
