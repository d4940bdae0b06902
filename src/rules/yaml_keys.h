// What the rule files' loaders (catalog.cc, xid_catalog.cc) share about reading YAML:
// where a node is, for messages, and the refusal of keys nobody reads: a misspelled key
// (`rule:` for `rules:`, `patern:` in a rule) would otherwise be ignored without a word
// and the file would load as if it said nothing. Throws CatalogError. Pure functions.
#pragma once
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace aegis {

// "SOURCE:LINE" of the node (its line 1-based), or SOURCE alone when it has none.
std::string YamlWhere(const std::string& source, const YAML::Node& n);

// `n` must be a mapping whose every key is one of `known`; else CatalogError
// "SOURCE:LINE: unknown key 'k' in WHAT (known: a, b, ...)" at the key's own line.
void RefuseUnknownKeys(const YAML::Node& n, std::initializer_list<std::string_view> known, const std::string& source,
                       std::string_view what);

}  // namespace aegis
