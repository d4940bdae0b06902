#include "rules/catalog.h"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/parallel.h"
#include "rules/embedded.h"
#include "rules/yaml_keys.h"

namespace aegis {

std::string_view ToString(LineClass c) {
  switch (c) {
    case LineClass::kCritical: return "critical";
    case LineClass::kDist: return "dist";
    case LineClass::kConfig: return "config";
    case LineClass::kUser: return "user";
    case LineClass::kHint: return "hint";
    case LineClass::kNone: break;
  }
  return "none";
}

LineClass LineClassFromString(std::string_view s) {
  if (s == "critical") return LineClass::kCritical;
  if (s == "dist") return LineClass::kDist;
  if (s == "config") return LineClass::kConfig;
  if (s == "user") return LineClass::kUser;
  if (s == "hint") return LineClass::kHint;
  if (s == "none") return LineClass::kNone;
  throw std::invalid_argument("unknown class '" + std::string(s) + "'");
}

bool IsKnownComponent(std::string_view c) {
  static const std::set<std::string_view> kComponents = {
      "gpu", "nvlink", "pcie", "nic", "link", "cpu", "memory", "power", "host", "config", "switch_port", "job"};
  return kComponents.count(c) > 0;
}

namespace {

std::string Str(const YAML::Node& n, const char* key, const std::string& fallback = "") {
  return n[key] ? n[key].as<std::string>() : fallback;
}

// A rule's `unless`: one pattern, or a list of them (a YAML alias to a shared one beside a
// rule's own), joined as alternatives. Empty or not RE2: refused.
std::string ParseUnless(const YAML::Node& n, const std::string& where) {
  std::vector<std::string> parts;
  if (n.IsSequence())
    for (const auto& p : n) parts.push_back(p.IsScalar() ? p.as<std::string>() : std::string());
  else
    parts.push_back(n.IsScalar() ? n.as<std::string>() : std::string());
  std::string joined;
  for (const auto& p : parts) {
    RE2 re(p, RE2::Quiet);
    if (p.empty() || !re.ok())
      throw CatalogError(where + ": bad unless: " + (p.empty() ? std::string("empty") : re.error()));
    if (parts.size() == 1) return p;
    joined.append(joined.empty() ? "(?:" : "|(?:").append(p).append(")");
  }
  if (joined.empty()) throw CatalogError(where + ": bad unless: empty");
  return joined;
}

Rule ParseRule(const YAML::Node& n, const std::string& source) {
  Rule r;
  r.source = source;
  RefuseUnknownKeys(n,
                    {"id", "class", "component", "pattern", "prefilter", "priority", "cascade", "fold", "inherit",
                     "yields_to_user", "fallback", "learned", "unless", "key", "reason", "samples"},
                    source, "a rule");
  r.id = Str(n, "id");
  const std::string where = YamlWhere(source, n) + " (rule '" + r.id + "')";
  if (r.id.empty()) throw CatalogError(where + ": rule without id");
  const std::string cls = Str(n, "class");
  if (cls == "xid" || cls == "sxid") {
    r.xid_table = cls == "xid" ? Rule::XidTable::kXid : Rule::XidTable::kSxid;
    r.line_class = LineClass::kHint;
  } else {
    try {
      r.line_class = LineClassFromString(cls);
    } catch (const std::invalid_argument& e) {
      throw CatalogError(where + ": " + e.what());
    }
  }
  r.component = Str(n, "component", "host");
  if (!IsKnownComponent(r.component)) throw CatalogError(where + ": unknown component '" + r.component + "'");
  r.pattern = Str(n, "pattern");
  if (r.pattern.empty()) throw CatalogError(where + ": rule without pattern");
  RE2 re(r.pattern, RE2::Quiet);
  if (!re.ok()) throw CatalogError(where + ": bad pattern: " + re.error());
  r.prefilter = Str(n, "prefilter");
  if (n["unless"]) r.unless = ParseUnless(n["unless"], where);
  r.priority = n["priority"] ? n["priority"].as<int>() : 50;
  r.reason = Str(n, "reason");
  r.config_key = Str(n, "key");
  r.cascade = n["cascade"] && n["cascade"].as<bool>();
  r.inherit = n["inherit"] && n["inherit"].as<bool>();
  r.yields_to_user = n["yields_to_user"] && n["yields_to_user"].as<bool>();
  if (n["fallback"]) {
    if (!n["fallback"].IsScalar() || !YAML::convert<bool>::decode(n["fallback"], r.fallback))
      throw CatalogError(where + ": fallback must be true or false");
    if (r.fallback && r.line_class == LineClass::kCritical)
      throw CatalogError(where + ": a fallback rule cannot be critical (it must never isolate a node alone)");
    if (r.fallback && r.priority > kMaxFallbackPriority)
      throw CatalogError(where + ": a fallback rule needs priority " + std::to_string(kMaxFallbackPriority) +
                         " or less, so that every specific rule wins");
  }
  if (n["learned"]) {
    if (!n["learned"].IsScalar() || !YAML::convert<bool>::decode(n["learned"], r.learned))
      throw CatalogError(where + ": learned must be true or false");
    if (r.learned && (!r.fallback || r.xid_table != Rule::XidTable::kNone))
      throw CatalogError(where + ": a learned rule must be a fallback (the model's guess is never certain)");
  }
  r.fold_traceback = Str(n, "fold") == "traceback";
  if (n["fold"] && !r.fold_traceback) throw CatalogError(where + ": unknown fold '" + Str(n, "fold") + "'");
  if (n["samples"])
    for (const auto& s : n["samples"]) r.samples.push_back(s.as<std::string>());
  return r;
}

ConfigCheck ParseCheck(const YAML::Node& n, const std::string& source) {
  RefuseUnknownKeys(n, {"id", "key", "kind", "one_of", "min", "reason"}, source, "a check");
  ConfigCheck c;
  c.id = Str(n, "id");
  c.key = Str(n, "key");
  c.kind = Str(n, "kind", "agree");
  c.reason = Str(n, "reason");
  const std::string where = YamlWhere(source, n) + " (check '" + c.id + "')";
  if (c.id.empty() || c.key.empty()) throw CatalogError(where + ": check needs id and key");
  if (c.kind != "agree" && c.kind != "expect") throw CatalogError(where + ": kind must be agree or expect");
  if (n["one_of"])
    for (const auto& v : n["one_of"]) c.one_of.push_back(v.as<std::string>());
  if (n["min"]) c.min = n["min"].as<double>();
  if (c.kind == "expect" && c.one_of.empty() && std::isnan(c.min))
    throw CatalogError(where + ": expect needs one_of or min");
  return c;
}

MetricSpec ParseMetric(const YAML::Node& n, const std::string& source) {
  RefuseUnknownKeys(n, {"name", "kind", "bad", "component", "min_delta", "reason"}, source, "a metric");
  MetricSpec m;
  m.name = Str(n, "name");
  const std::string where = YamlWhere(source, n) + " (metric '" + m.name + "')";
  if (m.name.empty()) throw CatalogError(where + ": metric without name");
  const std::string kind = Str(n, "kind", "gauge"), bad = Str(n, "bad");
  if (kind != "counter" && kind != "gauge") throw CatalogError(where + ": kind must be counter or gauge");
  if (bad != "high" && bad != "low") throw CatalogError(where + ": bad must be high or low");
  m.counter = kind == "counter";
  m.high_is_bad = bad == "high";
  m.component = Str(n, "component", "host");
  if (!IsKnownComponent(m.component)) throw CatalogError(where + ": unknown component '" + m.component + "'");
  m.min_delta = n["min_delta"] ? n["min_delta"].as<double>() : 0;
  m.reason = Str(n, "reason");
  return m;
}

template <typename T>
void Upsert(std::vector<T>& list, T item) {
  auto it = std::find_if(list.begin(), list.end(), [&](const T& x) { return x.id == item.id; });
  if (it != list.end()) *it = std::move(item);
  else list.push_back(std::move(item));
}

}  // namespace

Catalog Catalog::FromSources(const std::vector<std::pair<std::string, std::string>>& sources,
                             size_t first_operator_source) {
  Catalog cat;
  // Parsing the YAML is most of a start-up (a quarter of a megabyte): the files are parsed
  // on every core, largest first, then merged in their order.
  std::vector<YAML::Node> roots(sources.size());
  std::vector<std::string> errors(sources.size());
  std::vector<size_t> by_size(sources.size());
  for (size_t i = 0; i < by_size.size(); ++i) by_size[i] = i;
  std::sort(by_size.begin(), by_size.end(),
            [&](size_t a, size_t b) { return sources[a].second.size() > sources[b].second.size(); });
  ParallelFor(sources.size(), 0, [&] {
    return [&](size_t k) {
      const size_t i = by_size[k];
      try {
        roots[i] = YAML::Load(sources[i].second);
      } catch (const YAML::Exception& e) {
        errors[i] = e.what();
      }
    };
  });
  for (size_t si = 0; si < sources.size(); ++si) {
    const std::string& name = sources[si].first;
    if (!errors[si].empty()) throw CatalogError(name + ": " + errors[si]);
    const YAML::Node& root = roots[si];
    if (!root || root.IsNull()) continue;
    if (!root.IsMap()) throw CatalogError(name + ": expected a mapping with rules, xids, sxids, checks or metrics");
    try {
      RefuseUnknownKeys(root, {"rules", "xids", "sxids", "checks", "metrics", "sources", "buckets", "common_decode"},
                        name, "a rule file");
      std::set<std::string> ids_here;
      if (root["rules"])
        for (const auto& n : root["rules"]) {
          Rule r = ParseRule(n, name);
          r.from_operator = si >= first_operator_source;
          if (!ids_here.insert(r.id).second) throw CatalogError(name + ": duplicate rule id '" + r.id + "'");
          Upsert(cat.rules_, std::move(r));
        }
      cat.xids_.AddFile(root, name, si >= first_operator_source);
      if (root["checks"])
        for (const auto& n : root["checks"]) Upsert(cat.checks_, ParseCheck(n, name));
      if (root["metrics"])
        for (const auto& n : root["metrics"]) {
          MetricSpec m = ParseMetric(n, name);
          auto it = std::find_if(cat.metrics_.begin(), cat.metrics_.end(), [&](auto& x) { return x.name == m.name; });
          if (it != cat.metrics_.end()) *it = m;
          else cat.metrics_.push_back(m);
        }
    } catch (const YAML::Exception& e) {
      throw CatalogError(name + ": " + e.what());
    }
  }
  cat.xids_.Finish();
  if (cat.rules_.empty()) throw CatalogError("no rules loaded");
  for (size_t i = 0; i < cat.rules_.size(); ++i) cat.rule_index_.emplace(cat.rules_[i].id, i);
  return cat;
}

Catalog Catalog::Load(const std::vector<std::string>& operator_dirs) {
  std::vector<std::pair<std::string, std::string>> sources;
  for (const auto& f : EmbeddedRuleFiles()) sources.emplace_back("rules/" + std::string(f.path), std::string(f.text));
  const size_t builtin = sources.size();
  namespace fs = std::filesystem;
  for (const auto& dir : operator_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw CatalogError(dir + ": not a directory");
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file() && (it->path().extension() == ".yaml" || it->path().extension() == ".yml"))
        files.push_back(it->path());
    if (ec) throw CatalogError(dir + ": " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      if (!in && !in.eof()) throw CatalogError(f.string() + ": cannot read");
      sources.emplace_back(f.string(), ss.str());
    }
  }
  return FromSources(sources, builtin);
}

const Rule* Catalog::FindRule(std::string_view id) const {
  auto it = rule_index_.find(id);
  return it == rule_index_.end() ? nullptr : &rules_[it->second];
}

const MetricSpec* Catalog::FindMetric(std::string_view name) const {
  for (const auto& m : metrics_)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace aegis
