#include "metrics/prometheus_client.h"

#include <httplib.h>

#include <cstdio>

#include "common/http_error.h"
#include "metrics/prom_reader.h"

namespace aegis {

std::vector<Series> FetchFromPrometheus(const std::string& base_url, const std::vector<std::string>& metrics,
                                        double start, double end, double step, Reporter* reporter) {
  std::vector<Series> out;
  auto report = [&](Status s) {
    if (reporter) reporter->Report("prometheus", s);
  };
  // Split "scheme://host:port/prefix" into the client's address and the path prefix.
  std::string origin = base_url, prefix;
  if (size_t scheme = base_url.find("://"); scheme != std::string::npos)
    if (size_t slash = base_url.find('/', scheme + 3); slash != std::string::npos) {
      origin = base_url.substr(0, slash);
      prefix = base_url.substr(slash);
    }
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  httplib::Client client(origin);
  if (!client.is_valid()) {
    report(Status::InvalidArgument("cannot use URL " + base_url));
    return out;
  }
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(60, 0);
  for (const auto& metric : metrics) {
    char range[160];
    std::snprintf(range, sizeof range, "&start=%.3f&end=%.3f&step=%.3f", start, end, step);
    const std::string path = prefix + "/api/v1/query_range?query=" + httplib::detail::encode_query_param(metric) + range;
    auto res = client.Get(path);
    if (!res) {
      if (res.error() == httplib::Error::Connection) {  // the server is not there: stop asking
        report(Status::Unavailable("cannot reach " + base_url + " (" + DescribeHttpError(res.error()) + ")"));
        break;
      }
      report(Status::Unavailable(metric + ": " + DescribeHttpError(res.error())));
      continue;
    }
    if (res->status != 200) {
      report(Status::Unavailable(metric + ": HTTP " + std::to_string(res->status)));
      continue;
    }
    PromParseResult parsed = ParseQueryRange(res->body, metric, "prometheus:" + metric);
    if (!parsed.status.ok()) report(Status::InvalidArgument(metric + ": " + parsed.status.message()));
    for (auto& s : parsed.series) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace aegis
