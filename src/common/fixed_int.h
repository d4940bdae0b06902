// Fixed-width little-endian integers, as the files this project writes store them (the
// agent's queue records, the scanner cache's header and plan): the same bytes whatever
// the host's byte order.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace aegis {

inline void PutU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
inline void PutU64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
inline uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
inline uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

inline void AppendU32(std::string* out, uint32_t v) {
  char b[4];
  PutU32(b, v);
  out->append(b, sizeof b);
}
inline void AppendU64(std::string* out, uint64_t v) {
  char b[8];
  PutU64(b, v);
  out->append(b, sizeof b);
}

// Takes one from the front of `in`; false (and `in` untouched) when fewer bytes are left.
inline bool ConsumeU32(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  *v = GetU32(in->data());
  in->remove_prefix(4);
  return true;
}

}  // namespace aegis
