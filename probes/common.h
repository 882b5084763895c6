// Case-file lines for the harnesses: just enough JSON for the lines `mma probe emit` writes
// (and catalog case files): the hex-word lists "a", "b", the hex word "c", and the line
// written back with "d" set. Not a general JSON parser: one object per line, string values
// without escapes.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// The value of "key" in a line: the text between the quotes (a word) or the brackets (a list).
static bool field(const std::string &line, const char *key, std::string &out) {
  std::string k = std::string("\"") + key + "\":";
  size_t p = line.find(k);
  if (p == std::string::npos) return false;
  p += k.size();
  while (p < line.size() && line[p] == ' ') p++;
  if (p >= line.size()) return false;
  char open = line[p], close = open == '[' ? ']' : '"';
  size_t e = line.find(close, p + 1);
  if (e == std::string::npos) return false;
  out = line.substr(p + 1, e - p - 1);
  return true;
}

// The hex words of a list field ("3c00","0000",...).
static std::vector<uint64_t> words(const std::string &list) {
  std::vector<uint64_t> v;
  size_t p = 0;
  while ((p = list.find('"', p)) != std::string::npos) {
    size_t e = list.find('"', p + 1);
    v.push_back(strtoull(list.substr(p + 1, e - p - 1).c_str(), nullptr, 16));
    p = e + 1;
  }
  return v;
}

// The line with "d" set (replacing a "d" already there), `digits` hex digits wide.
static std::string with_d(std::string line, uint64_t d, int digits) {
  size_t p = line.find("\"d\":");
  if (p != std::string::npos) {
    size_t q = line.find('"', p + 4);
    size_t e = line.find('"', q + 1);
    line.erase(p, e + 1 - p + (line[e + 1] == ',' ? 1 : 0));
    if (line[p - 1] == ',' && line[p] == '}') line.erase(p - 1, 1);
  }
  char buf[40];
  snprintf(buf, sizeof buf, ",\"d\":\"%0*llx\"}", digits, (unsigned long long)d);
  size_t close = line.rfind('}');
  return line.substr(0, close) + buf;
}
