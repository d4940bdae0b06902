#include "learn/line_words.h"

namespace aegis {
namespace {

bool Digit(char c) { return c >= '0' && c <= '9'; }
bool Lower(char c) { return c >= 'a' && c <= 'z'; }
bool Upper(char c) { return c >= 'A' && c <= 'Z'; }
bool Letter(char c) { return Lower(c) || Upper(c); }
bool Hex(char c) { return Digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool WordChar(char c) { return Letter(c) || Digit(c) || c == '_'; }

// The end of `count` hex digits at `i`, or 0.
size_t HexRun(std::string_view s, size_t i, size_t count) {
  for (size_t k = 0; k < count; ++k)
    if (i + k >= s.size() || !Hex(s[i + k])) return 0;
  return i + count;
}

// A PCI address "dddd:bb:dd.f" at `i`: its end, or 0.
size_t PciAddress(std::string_view s, size_t i) {
  size_t j = HexRun(s, i, 4);
  if (!j || j >= s.size() || s[j] != ':') return 0;
  j = HexRun(s, j + 1, 2);
  if (!j || j >= s.size() || s[j] != ':') return 0;
  j = HexRun(s, j + 1, 2);
  if (!j || j >= s.size() || s[j] != '.') return 0;
  j = HexRun(s, j + 1, 1);
  return j && (j == s.size() || !WordChar(s[j])) ? j : 0;
}

// An IPv4 address "a.b.c.d" at `i`: its end, or 0.
size_t Ipv4Address(std::string_view s, size_t i) {
  size_t j = i;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (j >= s.size() || s[j] != '.') return 0;
      ++j;
    }
    const size_t begin = j;
    while (j < s.size() && Digit(s[j]) && j - begin < 3) ++j;
    if (j == begin) return 0;
  }
  return j < s.size() && Digit(s[j]) ? 0 : j;
}

// A path of two or more segments ("/usr/lib/x.so", "/dev/shm") at `i` (a '/'): its end, or 0.
size_t PathAt(std::string_view s, size_t i) {
  size_t j = i;
  int segments = 0;
  while (j < s.size() && s[j] == '/') {
    size_t k = j + 1;
    while (k < s.size() && (WordChar(s[k]) || s[k] == '.' || s[k] == '-')) ++k;
    if (k == j + 1) break;
    ++segments;
    j = k;
  }
  return segments >= 2 ? j : 0;
}

bool Separator(char c) {
  switch (c) {
    case ',': case '.': case ';': case ':': case '(': case ')': case '[': case ']': case '{': case '}':
    case '<': case '>': case '\'': case '"': case '`': case '=': case '|': case '-':
      return true;
    default:
      return static_cast<unsigned char>(c) <= ' ' || static_cast<unsigned char>(c) >= 0x7f;
  }
}

}  // namespace

std::string LineWords(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  auto word = [&out](std::string_view w) {
    if (!out.empty()) out += ' ';
    out.append(w);
  };
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const bool word_start = i == 0 || !WordChar(s[i - 1]);
    if (c == '\x1b') {  // a terminal colour: ESC [ parameters letter
      ++i;
      if (i < s.size() && s[i] == '[') {
        ++i;
        while (i < s.size() && !Letter(s[i])) ++i;
        if (i < s.size()) ++i;
      }
      continue;
    }
    if (word_start && Hex(c)) {
      if (size_t e = PciAddress(s, i)) {
        word("pciaddr");
        i = e;
        continue;
      }
    }
    if (word_start && c == '0' && i + 2 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X') && Hex(s[i + 2])) {
      i += 2;
      while (i < s.size() && Hex(s[i])) ++i;
      word("hex");
      continue;
    }
    if (Digit(c)) {
      if (size_t e = word_start ? Ipv4Address(s, i) : 0) {
        word("ipaddr");
        i = e;
        continue;
      }
      while (i < s.size() && Digit(s[i])) ++i;
      word("0");
      continue;
    }
    if (c == '/') {
      if (size_t e = PathAt(s, i)) {
        word("path");
        i = e;
        continue;
      }
    }
    if (Letter(c) || c == '_') {  // a word; "getRank" is two
      if (!out.empty()) out += ' ';
      for (const size_t begin = i; i < s.size() && (Letter(s[i]) || s[i] == '_'); ++i) {
        if (i > begin && Upper(s[i]) && Lower(s[i - 1])) out += ' ';
        out += Upper(s[i]) ? static_cast<char>(s[i] - 'A' + 'a') : s[i];
      }
      continue;
    }
    ++i;
    if (!Separator(c)) word(std::string_view(&c, 1));
  }
  return out;
}

}  // namespace aegis
