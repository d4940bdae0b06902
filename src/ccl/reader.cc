#include "ccl/reader.h"

#include <simdjson.h>

#include <cstring>

namespace aegis {

namespace {

using simdjson::ondemand::object;

template <typename T>
bool Get(object& o, const char* key, T* out) {
  auto v = o.find_field_unordered(key);
  if (v.error()) return false;
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
bool ParseRecord(simdjson::ondemand::parser& parser, const simdjson::padded_string_view& line, CclRecord* r) {
  simdjson::ondemand::document doc;
  if (parser.iterate(line).get(doc)) return false;
  object o;
  if (doc.get_object().get(o)) return false;
  if (!Get(o, "comm", &r->comm) || !Get(o, "rank", &r->rank) || !Get(o, "ts", &r->ts)) return false;
  Get(o, "pid", &r->pid);
  Get(o, "comm_name", &r->comm_name);
  Get(o, "nranks", &r->nranks);
  Get(o, "nnodes", &r->nnodes);
  if (auto g = o.find_field_unordered("gpu"); !g.error()) {
    int64_t x;
    if (!g.get_int64().get(x)) r->gpu = static_cast<int>(x);
  }
  if (auto c = o.find_field_unordered("coll"); !c.error()) {
    object colls;
    if (!c.get_object().get(colls))
      for (auto field : colls) {
        std::string_view key;
        if (field.unescaped_key().get(key)) continue;
        object counts;
        if (field.value().get_object().get(counts)) continue;
        uint64_t l = 0, d = 0;
        Get(counts, "launched", &l);
        Get(counts, "completed", &d);
        r->coll[std::string(key)] = {l, d};
      }
  }
  if (auto n = o.find_field_unordered("net"); !n.error()) {
    simdjson::ondemand::array arr;
    if (!n.get_array().get(arr))
      for (auto item : arr) {
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
  }
  if (auto rc = o.find_field_unordered("recent"); !rc.error()) {
    simdjson::ondemand::array arr;
    if (!rc.get_array().get(arr))
      for (auto item : arr) {
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
  }
  return true;
}

}  // namespace

CclFileStats ReadCclFile(const std::string& path, const std::string& rel, const std::string& host,
                         std::map<std::pair<std::string, int>, CclRecord>* newest) {
  CclFileStats stats;
  simdjson::padded_string data;
  if (simdjson::padded_string::load(path).get(data)) {
    stats.error = "cannot read";
    return stats;
  }
  simdjson::ondemand::parser parser;
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
      // The rest of the file and simdjson's padding follow the line: readable bytes.
      simdjson::padded_string_view view(base + begin, len, size - begin + simdjson::SIMDJSON_PADDING);
      simdjson::ondemand::document doc;
      object o;
      std::string comm;
      int rank = -1;
      double ts = 0;
      if (!parser.iterate(view).get(doc) && !doc.get_object().get(o) && Get(o, "comm", &comm) && Get(o, "rank", &rank) &&
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
    simdjson::padded_string_view view(base + pos.begin, pos.len, size - pos.begin + simdjson::SIMDJSON_PADDING);
    if (!ParseRecord(parser, view, &r)) {
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

}  // namespace aegis
