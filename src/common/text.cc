#include "common/text.h"

#include <nlohmann/json.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <immintrin.h>
#endif

#include <charconv>
#include <cstring>
#include <cstdlib>

namespace aegis {

std::string_view Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
  return s.substr(b, e - b);
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IStartsWith(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char a = s[i], b = prefix[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    if (a != b) return false;
  }
  return true;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t len;
  unsigned min;
  if ((c & 0xE0) == 0xC0) { len = 2; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; min = 0x10000; }
  else return 0;
  if (i + len > s.size()) return 0;
  unsigned cp = c & (0xFF >> (len + 1));
  for (size_t k = 1; k < len; ++k) {
    const auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}
}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string SanitizeForOutput(std::string_view s, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + 4);
  for (size_t i = 0; i < s.size();) {
    if (out.size() >= max_bytes) {
      out += "...";
      return out;
    }
    // A run of printable ASCII (most of any log) is copied at once, up to the limit.
    size_t j = i;
    for (const size_t stop = std::min(s.size(), i + (max_bytes - out.size())); j < stop; ++j) {
      const auto c = static_cast<unsigned char>(s[j]);
      if ((c < 0x20 && c != '\t') || c >= 0x7F) break;
    }
    if (j > i) {
      out.append(s.substr(i, j - i));
      i = j;
      continue;
    }
    size_t n = Utf8SequenceLength(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    if (n == 0 || (n == 1 && ((c < 0x20 && c != '\t') || c == 0x7F))) {
      out += "\xEF\xBF\xBD";
      i += 1;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

uint64_t HashBytes(std::string_view s, uint64_t seed) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h = (seed ^ s.size()) * kMul;
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  h = (h ^ w) * kMul;
  return h ^ (h >> 29);
}

#if defined(__x86_64__) && defined(__GNUC__)
namespace {

// 32 bytes a step, as the SSE2 loop below does 16, on CPUs that have AVX2 (as Vectorscan
// uses it, most do); the rest to the SSE2 loop.
__attribute__((target("avx2"))) uint64_t CountNewlinesAvx2(const char*& p, const char* end) {
  uint64_t n = 0;
  const __m256i newline = _mm256_set1_epi8('\n');
  while (end - p >= 32) {
    __m256i counters = _mm256_setzero_si256();
    for (int k = 0; k < 255 && end - p >= 32; ++k, p += 32) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      counters = _mm256_sub_epi8(counters, _mm256_cmpeq_epi8(bytes, newline));
    }
    const __m256i sums = _mm256_sad_epu8(counters, _mm256_setzero_si256());
    n += static_cast<uint64_t>(_mm256_extract_epi64(sums, 0)) + static_cast<uint64_t>(_mm256_extract_epi64(sums, 1)) +
         static_cast<uint64_t>(_mm256_extract_epi64(sums, 2)) + static_cast<uint64_t>(_mm256_extract_epi64(sums, 3));
  }
  return n;
}

const bool kHasAvx2 = [] {
  __builtin_cpu_init();  // it may run before the runtime's own initialisation
  return __builtin_cpu_supports("avx2") != 0;
}();

}  // namespace
#endif

uint64_t CountNewlines(const char* p, const char* end) {
  uint64_t n = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (kHasAvx2 && end - p >= 64) n += CountNewlinesAvx2(p, end);
#endif
#if defined(__SSE2__)
  // 16 bytes a step: a compare gives 0xFF (-1) per '\n' byte, subtracted into per-byte
  // counters; every 255 steps (before a counter could wrap) they are summed with psadbw.
  const __m128i newline = _mm_set1_epi8('\n');
  while (end - p >= 16) {
    __m128i counters = _mm_setzero_si128();
    for (int k = 0; k < 255 && end - p >= 16; ++k, p += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(bytes, newline));
    }
    const __m128i sums = _mm_sad_epu8(counters, _mm_setzero_si128());
    n += static_cast<uint64_t>(_mm_cvtsi128_si64(sums)) + static_cast<uint64_t>(_mm_extract_epi16(sums, 4));
  }
#else
  constexpr uint64_t kOnes = 0x0101010101010101ull, kLow7 = 0x7F7F7F7F7F7F7F7Full;
  while (end - p >= 8) {
    // Per-byte counters in one word: up to 255 words before a lane could overflow.
    uint64_t lanes = 0;
    for (int k = 0; k < 255 && end - p >= 8; ++k, p += 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      w ^= kOnes * '\n';  // '\n' bytes become zero
      // High bit set exactly in the zero bytes (no borrow between bytes).
      const uint64_t t = ~(((w & kLow7) + kLow7) | w | kLow7);
      lanes += t >> 7;
    }
    // Horizontal sum: pairs of byte lanes into 16-bit lanes (each <= 510), then those.
    const uint64_t pairs = (lanes & 0x00FF00FF00FF00FFull) + ((lanes >> 8) & 0x00FF00FF00FF00FFull);
    n += (pairs * 0x0001000100010001ull) >> 48;
  }
#endif
  for (; p < end; ++p) n += *p == '\n';
  return n;
}

std::optional<long long> ParseInt(std::string_view s) {
  s = Trim(s);
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string JsonQuoted(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace aegis
