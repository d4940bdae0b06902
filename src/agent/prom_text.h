// Writes the Prometheus text exposition format (version 0.0.4): per family one
// "# HELP name text" and "# TYPE name counter|gauge" line, then its samples
// "name{label="value",...} value". Label values are escaped (\\, \", \n); names are
// made valid ([a-zA-Z_:][a-zA-Z0-9_:]*, anything else becomes '_'). Thread-compatible.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aegis::agent {

using PromLabels = std::vector<std::pair<std::string, std::string>>;

class PromText {
 public:
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, const PromLabels& labels, double value);
  void Sample(std::string_view name, const PromLabels& labels, uint64_t value);
  const std::string& str() const { return out_; }

  static std::string ValidName(std::string_view name);

 private:
  void Head(std::string_view name, const PromLabels& labels);
  std::string out_;
};

}  // namespace aegis::agent
