// Small builders of statement text shared by the store's SQL (sql_store*.cc): numbered
// parameters and lists of them. Pure functions.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

namespace aegis::store {

// "$n"
inline std::string Placeholder(size_t n) {
  std::string s(1, '$');
  s += std::to_string(n);
  return s;
}

// "$first, $first+1, ..." for n parameters.
inline std::string Placeholders(size_t first, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += Placeholder(first + i);
  }
  return s;
}

// "($1, $2, ...), (...)" for `rows` rows of `columns` parameters.
inline std::string ValuesList(size_t rows, size_t columns) {
  std::string s;
  for (size_t r = 0; r < rows; ++r) {
    s += r ? ", (" : "(";
    s += Placeholders(r * columns + 1, columns);
    s += ')';
  }
  return s;
}

// A LIMIT as a bound integer.
inline int64_t LimitParam(size_t limit) {
  return static_cast<int64_t>(std::min<size_t>(limit, static_cast<size_t>(INT64_MAX)));
}

}  // namespace aegis::store
