#include "store/sql_connection.h"

#include <charconv>
#include <cmath>

namespace aegis::store {

SqlParam SqlParam::Int(int64_t v) {
  SqlParam p;
  p.kind_ = Kind::kInt;
  p.int_ = v;
  return p;
}

SqlParam SqlParam::Real(double v) {
  SqlParam p;
  if (std::isnan(v)) return p;
  p.kind_ = Kind::kReal;
  p.real_ = v;
  return p;
}

SqlParam SqlParam::Text(std::string_view v) {
  SqlParam p;
  p.kind_ = Kind::kText;
  p.text_ = v;
  return p;
}

SqlParam SqlParam::TextOrNull(std::string_view v) { return v.empty() ? Null() : Text(v); }

std::string SqlRows::Text(size_t row, size_t col) const {
  const Cell& c = At(row, col);
  switch (c.kind) {
    case Kind::kNull: return {};
    case Kind::kInt: return std::to_string(c.i);
    case Kind::kReal: {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, c.d);
      return std::string(buf, r.ptr);
    }
    case Kind::kText: return c.s;
  }
  return {};
}

double SqlRows::Real(size_t row, size_t col) const {
  const Cell& c = At(row, col);
  switch (c.kind) {
    case Kind::kNull: return NAN;
    case Kind::kInt: return static_cast<double>(c.i);
    case Kind::kReal: return c.d;
    case Kind::kText: {
      double v = NAN;
      auto r = std::from_chars(c.s.data(), c.s.data() + c.s.size(), v);
      return r.ec == std::errc() ? v : NAN;
    }
  }
  return NAN;
}

int64_t SqlRows::Int(size_t row, size_t col) const {
  const Cell& c = At(row, col);
  switch (c.kind) {
    case Kind::kNull: return 0;
    case Kind::kInt: return c.i;
    case Kind::kReal: return std::isfinite(c.d) && std::fabs(c.d) < 9.2e18 ? static_cast<int64_t>(c.d) : 0;
    case Kind::kText: {
      int64_t v = 0;
      std::from_chars(c.s.data(), c.s.data() + c.s.size(), v);
      return v;
    }
  }
  return 0;
}

}  // namespace aegis::store
