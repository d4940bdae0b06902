#include "match/literal_cover.h"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>

namespace aegis {

std::vector<std::string> LiteralCover(std::string_view pattern, size_t min_length) {
  // RE2 drops atoms shorter than min_length (they count as "always present"), so an AND
  // over a short and a long literal keeps the long one and a cover never needs a short one.
  re2::FilteredRE2 filter(static_cast<int>(min_length));
  RE2::Options options;
  options.set_log_errors(false);
  int id = 0;
  if (filter.Add(re2::StringPiece(pattern.data(), pattern.size()), options, &id) != RE2::NoError) return {};
  std::vector<std::string> atoms;
  filter.Compile(&atoms);
  // Passes with no atom at all: RE2 found no literal every match needs.
  std::vector<int> potential;
  filter.AllPotentials({}, &potential);
  if (!potential.empty() || atoms.empty()) return {};

  // A set C covers the expression when the atoms outside C cannot satisfy its AND/OR
  // formula: then every match contains an atom of C. Start from all atoms and drop, the
  // shortest first, each one the rest still covers without.
  std::vector<int> order(atoms.size());
  for (size_t i = 0; i < atoms.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return atoms[a].size() < atoms[b].size(); });
  std::vector<bool> in_cover(atoms.size(), true);
  std::vector<int> outside;
  for (int candidate : order) {
    in_cover[candidate] = false;
    outside.clear();
    for (size_t i = 0; i < atoms.size(); ++i)
      if (!in_cover[i]) outside.push_back(static_cast<int>(i));
    potential.clear();
    filter.AllPotentials(outside, &potential);
    if (!potential.empty()) in_cover[candidate] = true;  // needed
  }
  std::vector<std::string> cover;
  for (size_t i = 0; i < atoms.size(); ++i) {
    if (!in_cover[i]) continue;
    // The scanner matches within one line: an atom spanning a line break (from a class
    // such as \s) never occurs there, and the other atoms still cover every line.
    if (atoms[i].find('\n') != std::string::npos) continue;
    if (atoms[i].size() < min_length) return {};
    cover.push_back(atoms[i]);
  }
  std::sort(cover.begin(), cover.end());
  cover.erase(std::unique(cover.begin(), cover.end()), cover.end());
  return cover;
}

}  // namespace aegis
