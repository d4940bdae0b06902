#include "rules/yaml_keys.h"

#include <sstream>

#include "rules/catalog.h"

namespace aegis {

std::string YamlWhere(const std::string& source, const YAML::Node& n) {
  std::ostringstream o;
  o << source;
  if (n.Mark().line >= 0) o << ":" << n.Mark().line + 1;
  return o.str();
}

void RefuseUnknownKeys(const YAML::Node& n, std::initializer_list<std::string_view> known, const std::string& source,
                       std::string_view what) {
  if (!n.IsMap()) throw CatalogError(YamlWhere(source, n) + ": " + std::string(what) + " must be a mapping");
  for (const auto& kv : n) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("(not a name)");
    bool ok = false;
    for (std::string_view k : known) ok = ok || key == k;
    if (ok) continue;
    std::string list;
    for (std::string_view k : known) list.append(list.empty() ? "" : ", ").append(k);
    throw CatalogError(YamlWhere(source, kv.first) + ": unknown key '" + key + "' in " + std::string(what) +
                       " (known: " + list + ")");
  }
}

}  // namespace aegis
