// The rule files under rules/, compiled into the binary (see cmake/embed_rules.cmake).
#pragma once
#include <string_view>
#include <vector>

namespace aegis {
struct EmbeddedFile {
  std::string_view path;  // relative to rules/, e.g. "logs/gpu.yaml"
  std::string_view text;
};
const std::vector<EmbeddedFile>& EmbeddedRuleFiles();
}  // namespace aegis
