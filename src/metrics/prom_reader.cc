#include "metrics/prom_reader.h"

#include <simdjson.h>

#include <cmath>
#include <charconv>
#include <cstdlib>

namespace aegis {

namespace {
const char* kHostLabels[] = {"host", "hostname", "Hostname", "node", "instance"};
const char* kDeviceLabels[] = {"gpu", "device"};
}  // namespace

PromParseResult ParseQueryRange(const std::string& body, const std::string& fallback_metric, const std::string& file) {
  PromParseResult out;
  // One parser per thread, kept between answers: a fresh one allocates buffers the size of
  // the answer and the kernel faults their pages in again each time (a quarter of a
  // cluster's metric analysis on a virtual machine). A buffer grown past kKeepBytes by an
  // unusually large answer is given back after it.
  constexpr size_t kKeepBytes = 64u << 20;
  thread_local simdjson::dom::parser parser;
  struct ShrinkAfter {
    simdjson::dom::parser& p;
    ~ShrinkAfter() {
      if (p.capacity() > kKeepBytes) p = simdjson::dom::parser();
    }
  } shrink_after{parser};
  simdjson::dom::element root;
  if (parser.parse(body).get(root)) {
    out.status = Status::InvalidArgument("not valid JSON");
    return out;
  }
  simdjson::dom::element data = root;
  if (root.is_object())
    if (auto d = root["data"]; !d.error()) data = d.value();  // the whole answer, or only its data
  simdjson::dom::array result;
  if (data["result"].get_array().get(result)) {
    out.status = Status::InvalidArgument("no data.result array");
    return out;
  }
  for (simdjson::dom::element item : result) {
    Series s;
    s.file = file;
    simdjson::dom::object labels;
    if (!item["metric"].get_object().get(labels)) {
      std::string_view v;
      if (!labels["__name__"].get_string().get(v)) s.metric = std::string(v);
      for (const char* k : kHostLabels)
        if (s.host.empty() && !labels[k].get_string().get(v)) s.host = std::string(v);
      for (const char* k : kDeviceLabels)
        if (s.device.empty() && !labels[k].get_string().get(v)) s.device = std::string(v);
    }
    if (s.metric.empty()) s.metric = fallback_metric;
    // "host:9100" -> "host" (but keep IPv6 literals whole).
    if (auto colon = s.host.rfind(':'); colon != std::string::npos && s.host.find(':') == colon) s.host.resize(colon);
    simdjson::dom::array values;
    if (!item["values"].get_array().get(values)) {
      s.t.reserve(values.size());
      s.v.reserve(values.size());
    }
    if (!item["values"].get_array().get(values))
      for (simdjson::dom::element pair : values) {
        simdjson::dom::array p;
        if (pair.get_array().get(p) || p.size() < 2) continue;
        double t;
        std::string_view text;
        if (p.at(0).get_double().get(t) || p.at(1).get_string().get(text)) continue;
        double v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end == text.data() || !std::isfinite(v)) continue;  // "NaN", "+Inf", junk
        s.t.push_back(t);
        s.v.push_back(v);
      }
    if (s.host.empty() || s.t.empty()) {
      ++out.skipped;
      continue;
    }
    out.series.push_back(std::move(s));
  }
  return out;
}

}  // namespace aegis
