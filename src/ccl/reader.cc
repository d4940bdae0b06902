#include "ccl/reader.h"

#include <simdjson.h>

#include <cstring>

namespace aegis {

namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// The DOM API (not On Demand): a record of any shape, malformed or hostile, leaves the
// parser usable.
template <typename T>
bool Get(const object& o, const char* key, T* out) {
  element v;
  if (o[key].get(v)) return false;
  if constexpr (std::is_same_v<T, std::string>) {
    std::string_view s;
    if (v.get_string().get(s)) return false;
    *out = std::string(s);
  } else if constexpr (std::is_same_v<T, double>) {
    if (v.get_double().get(*out)) return false;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    if (v.get_uint64().get(*out)) return false;
  } else {
    int64_t x;
    if (v.get_int64().get(x)) return false;
    *out = static_cast<T>(x);
  }
  return true;
}

// Full parse of one record; false when a required field is missing or mistyped.
bool ParseRecord(const object& o, CclRecord* r) {
  if (!Get(o, "comm", &r->comm) || !Get(o, "rank", &r->rank) || !Get(o, "ts", &r->ts)) return false;
  Get(o, "pid", &r->pid);
  Get(o, "comm_name", &r->comm_name);
  Get(o, "nranks", &r->nranks);
  Get(o, "nnodes", &r->nnodes);
  Get(o, "gpu", &r->gpu);  // null: stays unknown
  object colls;
  if (!o["coll"].get_object().get(colls))
    for (auto [key, value] : colls) {
      object counts;
      if (value.get_object().get(counts)) continue;
      uint64_t l = 0, d = 0;
      Get(counts, "launched", &l);
      Get(counts, "completed", &d);
      r->coll[std::string(key)] = {l, d};
    }
  simdjson::dom::array arr;
  if (!o["net"].get_array().get(arr))
    for (element item : arr) {
      object e;
      if (item.get_object().get(e)) continue;
      CclNet net;
      std::string dir;
      Get(e, "peer", &net.peer);
      Get(e, "dir", &dir);
      net.send = dir != "recv";
      Get(e, "posted", &net.posted);
      Get(e, "completed", &net.completed);
      Get(e, "bytes", &net.bytes);
      Get(e, "recent_gbps", &net.recent_gbps);
      r->net.push_back(net);
    }
  if (!o["recent"].get_array().get(arr))
    for (element item : arr) {
      object e;
      if (item.get_object().get(e)) continue;
      CclRecent c;
      Get(e, "func", &c.func);
      Get(e, "seq", &c.seq);
      Get(e, "bytes", &c.bytes);
      Get(e, "start_ts", &c.start_ts);
      Get(e, "td_us", &c.td_us);
      r->recent.push_back(c);
    }
  return true;
}

}  // namespace

namespace {
CclFileStats ReadPadded(const simdjson::padded_string& data, const std::string& rel, const std::string& host,
                        std::map<std::pair<std::string, int>, CclRecord>* newest) {
  CclFileStats stats;
  simdjson::dom::parser parser;
  // Pass 1: (comm, rank, ts) of every line; remember where the newest line of each is.
  struct Pos {
    size_t begin, len;
    uint64_t line;
    double ts;
  };
  std::map<std::pair<std::string, int>, Pos> best;
  const char* base = data.data();
  const size_t size = data.size();
  size_t begin = 0;
  uint64_t line_no = 0;
  while (begin < size) {
    const void* nl = std::memchr(base + begin, '\n', size - begin);
    const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - base) : size;
    ++line_no;
    const size_t len = end - begin;
    if (len > 0) {
      ++stats.lines;
      // The rest of the file and simdjson's padding follow the line: no copy is needed.
      object o;
      std::string comm;
      int rank = -1;
      double ts = 0;
      if (!parser.parse(base + begin, len, false).get_object().get(o) && Get(o, "comm", &comm) && Get(o, "rank", &rank) &&
          Get(o, "ts", &ts)) {
        auto key = std::make_pair(comm, rank);
        auto it = best.find(key);
        if (it == best.end() || it->second.ts <= ts) best[key] = {begin, len, line_no, ts};
      } else {
        ++stats.bad_lines;
      }
    }
    begin = end + 1;
  }
  // Pass 2: the full record of each newest line, where it beats other files' records.
  for (const auto& [key, pos] : best) {
    auto it = newest->find(key);
    if (it != newest->end() && it->second.ts > pos.ts) continue;
    CclRecord r;
    object o;
    if (parser.parse(base + pos.begin, pos.len, false).get_object().get(o) || !ParseRecord(o, &r)) {
      ++stats.bad_lines;
      continue;
    }
    r.host = host;
    r.file = rel;
    r.line = pos.line;
    (*newest)[key] = std::move(r);
  }
  return stats;
}
}  // namespace

CclFileStats ReadCclFile(const std::string& path, const std::string& rel, const std::string& host,
                         std::map<std::pair<std::string, int>, CclRecord>* newest) {
  simdjson::padded_string data;
  if (simdjson::padded_string::load(path).get(data)) {
    CclFileStats stats;
    stats.status = Status::IOError(rel + ": cannot read");
    return stats;
  }
  return ReadPadded(data, rel, host, newest);
}

CclFileStats ReadCclText(std::string_view text, const std::string& rel, const std::string& host,
                         std::map<std::pair<std::string, int>, CclRecord>* newest) {
  return ReadPadded(simdjson::padded_string(text), rel, host, newest);
}

}  // namespace aegis
