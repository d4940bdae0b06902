// The rows of a corpus file of labelled real log lines (tests/data/corpus/README.md):
// tab-separated id, category, fatal, xid, source_url, line, and in the corpus files a
// class (the label) and a reason. Read by the line model's trainer and by the tests.
// A line field written CSV-style between '"' ("" for a quote, \t for a tab) is unquoted;
// otherwise it is kept byte-exact. Rows with fewer than six fields are skipped.
#pragma once
#include <string>
#include <vector>

namespace aegis {

struct CorpusRow {
  std::string file;  // the file's name, without its directory
  std::string id, category, fatal, xid, url, line;
  std::string label;   // the class column ("" where the file has none)
  std::string reason;  // why the label, where it is a judgement
};

// Every row of the file at `path`, its header skipped; empty when it cannot be read.
std::vector<CorpusRow> ReadCorpusRows(const std::string& path);

}  // namespace aegis
