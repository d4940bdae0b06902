#include "agent/prom_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace aegis::agent {

std::string PromText::ValidName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
                    (i > 0 && c >= '0' && c <= '9');
    out += ok ? c : '_';
  }
  if (out.empty()) out.push_back('_');
  return out;
}

void PromText::Family(std::string_view name, std::string_view type, std::string_view help) {
  const std::string n = ValidName(name);
  out_.append("# HELP ").append(n).append(" ");
  for (char c : help) {  // HELP text escapes only '\' and newline
    if (c == '\\') out_ += "\\\\";
    else if (c == '\n') out_ += "\\n";
    else out_ += c;
  }
  out_.append("\n# TYPE ").append(n).append(" ").append(type).append("\n");
}

void PromText::Head(std::string_view name, const PromLabels& labels) {
  out_ += ValidName(name);
  if (labels.empty()) return;
  out_ += '{';
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out_ += ',';
    first = false;
    out_ += ValidName(k);
    out_ += "=\"";
    for (char c : v) {
      if (c == '\\') out_ += "\\\\";
      else if (c == '"') out_ += "\\\"";
      else if (c == '\n') out_ += "\\n";
      else out_ += c;
    }
    out_ += '"';
  }
  out_ += '}';
}

void PromText::Sample(std::string_view name, const PromLabels& labels, double value) {
  Head(name, labels);
  char buf[64];
  if (std::isnan(value)) std::snprintf(buf, sizeof buf, " NaN\n");
  else if (std::isinf(value)) std::snprintf(buf, sizeof buf, value > 0 ? " +Inf\n" : " -Inf\n");
  else {
    // The shortest of %.15g / %.17g that reads back as the same double.
    std::snprintf(buf, sizeof buf, " %.15g\n", value);
    if (std::strtod(buf, nullptr) != value) std::snprintf(buf, sizeof buf, " %.17g\n", value);
  }
  out_ += buf;
}

void PromText::Sample(std::string_view name, const PromLabels& labels, uint64_t value) {
  Head(name, labels);
  out_ += ' ';
  out_ += std::to_string(value);
  out_ += '\n';
}

}  // namespace aegis::agent
