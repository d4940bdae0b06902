#include "learn/corpus_rows.h"

#include <fstream>
#include <sstream>

namespace aegis {
namespace {

std::string Unquote(const std::string& field) {
  if (field.size() < 2 || field.front() != '"' || field.back() != '"') return field;
  std::string u;
  for (size_t i = 1; i + 1 < field.size(); ++i) {
    if (field[i] == '\\' && field[i + 1] == 't') {
      u += '\t';
      ++i;
      continue;
    }
    u += field[i];
    if (field[i] == '"' && field[i + 1] == '"') ++i;
  }
  return u;
}

std::vector<std::string> Fields(const std::string& row) {
  std::vector<std::string> f;
  std::istringstream in(row);
  for (std::string field; std::getline(in, field, '\t');) f.push_back(field);
  if (!row.empty() && row.back() == '\t') f.emplace_back();
  return f;
}

}  // namespace

std::vector<CorpusRow> ReadCorpusRows(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<CorpusRow> out;
  std::string row;
  std::getline(in, row);  // header
  const std::string name = path.substr(path.find_last_of('/') + 1);
  while (std::getline(in, row)) {
    const auto f = Fields(row);
    if (f.size() < 6) continue;
    CorpusRow r;
    r.file = name;
    r.id = f[0];
    r.category = f[1];
    r.fatal = f[2];
    r.xid = f[3];
    r.url = f[4];
    r.line = Unquote(f[5]);
    if (f.size() > 6) r.label = f[6];
    if (f.size() > 7) r.reason = f[7];
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace aegis
