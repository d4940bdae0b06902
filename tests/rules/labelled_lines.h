// Labelled real log lines for the classification tests, read from the TSV files under
// tests/data: the corpus files (columns id, category, fatal, xid, source_url, line, class,
// reason; the class column is the label) and real-log-lines.tsv (id, category, fatal, xid,
// source_url, line; the class follows from the category, see ExpectedForCategory). Lines
// are classified as `aegis classify` sees them: in the context they were posted in (one
// text per source, in file order; every line of a folded record gets the record's class)
// or alone. Header-only, for tests.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/text.h"
#include "learn/corpus_rows.h"
#include "logs/scanner.h"
#include "rules/line_class.h"

namespace aegis::test {

// A row of a corpus file (learn/corpus_rows.h reads them; the trainer of the line model too).
using LabelledLine = CorpusRow;

inline std::vector<LabelledLine> LoadLabelled(const std::string& path) { return ReadCorpusRows(path); }

// The classes a real-log-lines.tsv category allows (docs/formats.md): an incident's
// category, so a line of a fatal incident may be expected critical although it is only
// the record's detail; the tests list where they disagree.
inline std::set<LineClass> ExpectedForCategory(const LabelledLine& l) {
  const std::string& c = l.category;
  if (c == "other") return {LineClass::kNone};
  if (c == "gpu_fallen_off_bus" || c == "gpu_ecc_dbe" || c == "nic_link_down" || c == "nvlink_error" ||
      c == "cuda_error")
    return l.fatal == "unknown" ? std::set{LineClass::kCritical, LineClass::kHint} : std::set{LineClass::kCritical};
  if (c == "ib_completion_error" || c == "socket_connection_error" || c == "nccl_timeout") return {LineClass::kDist};
  if (c == "nccl_internal_or_config_error") return {LineClass::kConfig};
  if (c == "oom" || c == "user_code_error") return {LineClass::kUser};
  if (c == "pcie_aer") return l.fatal == "yes" ? std::set{LineClass::kCritical} : std::set{LineClass::kHint};
  if (c == "gpu_xid_nonfatal") {
    const int x = std::stoi(l.xid);
    if (x == 13 || x == 31 || x == 43 || x == 45) return {LineClass::kUser};
    return {LineClass::kCritical, LineClass::kHint};  // fatal "unknown": the Xid catalogue decides
  }
  if (c == "gpu_thermal_or_clock")
    return l.fatal == "no" ? std::set{LineClass::kNone, LineClass::kHint} : std::set{LineClass::kCritical};
  return {};
}

// The classes a line's label allows: its class column, else its category's.
inline std::set<LineClass> Expected(const LabelledLine& l) {
  if (!l.label.empty()) return {LineClassFromString(l.label)};
  return ExpectedForCategory(l);
}

// The class of every line of `lines`, each source's lines scanned as one text in order.
inline std::vector<LineClass> ClassifyInContext(const std::vector<LabelledLine>& lines, Scanner& scanner) {
  std::vector<std::string> urls;
  std::map<std::string, std::vector<size_t>> by_url;  // indexes into lines
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string key = lines[i].file + '\t' + lines[i].url;
    if (!by_url.count(key)) urls.push_back(key);
    by_url[key].push_back(i);
  }
  std::vector<LineClass> out(lines.size(), LineClass::kNone);
  for (const auto& key : urls) {
    const auto& idx = by_url[key];
    std::string text;
    for (size_t i : idx) text += lines[i].line + "\n";
    std::map<uint64_t, LineClass> cls;
    scanner.ScanText(text, [&](LogEvent&& e) {
      for (uint64_t n = e.first_line; n <= e.last_line; ++n) cls[n] = e.line_class;
    });
    for (size_t k = 0; k < idx.size(); ++k)
      if (auto it = cls.find(k + 1); it != cls.end()) out[idx[k]] = it->second;
  }
  return out;
}

// The class of one line scanned on its own.
inline LineClass ClassifyAlone(const std::string& line, Scanner& scanner) {
  LineClass c = LineClass::kNone;
  scanner.ScanText(line + "\n", [&](LogEvent&& e) {
    if (e.first_line <= 1 && e.last_line >= 1) c = e.line_class;
  });
  return c;
}

}  // namespace aegis::test
