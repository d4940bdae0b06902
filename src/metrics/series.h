// Time series as a Prometheus range query returns them (spec bundle.md, metrics/), with
// the labels the analyzer needs: the host (host / hostname / Hostname / node / instance
// label, ":port" stripped) and the device (gpu / device label).
#pragma once
#include <string>
#include <vector>

namespace aegis {

struct Series {
  std::string metric;  // __name__, or the file's name for unnamed series (rate(...) queries)
  std::string host;
  std::string device;  // "3" for gpu="3", "mlx5_2" for device="mlx5_2"; empty when none
  std::string file;    // where it came from (bundle-relative path, or the query URL)
  std::vector<double> t, v;
};

}  // namespace aegis
