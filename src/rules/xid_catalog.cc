#include "rules/xid_catalog.h"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "rules/catalog.h"
#include "rules/yaml_keys.h"

namespace aegis {

std::string_view ToString(XidTable t) {
  switch (t) {
    case XidTable::kXid: return "xid";
    case XidTable::kSxid: return "sxid";
    case XidTable::kNone: break;
  }
  return "none";
}

bool XidDecode::AppliesTo(int number) const {
  return only.empty() || std::find(only.begin(), only.end(), number) != only.end();
}

namespace {

std::string Str(const YAML::Node& n, const char* key) { return n[key] ? n[key].as<std::string>() : std::string(); }

LineClass ClassOrThrow(const std::string& name, const std::string& where) {
  try {
    return LineClassFromString(name);
  } catch (const std::invalid_argument& e) {
    throw CatalogError(where + ": " + e.what());
  }
}

// The table a file's `buckets` and `common_decode` belong to: the one its entries are in.
XidTable TableOfFile(const YAML::Node& root, const std::string& file, const char* key) {
  const bool x = static_cast<bool>(root["xids"]), s = static_cast<bool>(root["sxids"]);
  if (x == s)
    throw CatalogError(file + ": '" + key + "' belongs to the file's table: give exactly one of 'xids' or 'sxids' beside it");
  return x ? XidTable::kXid : XidTable::kSxid;
}

const char* NumberKey(XidTable t) { return t == XidTable::kSxid ? "sxid" : "xid"; }

}  // namespace

void XidCatalogs::AddFile(const YAML::Node& root, const std::string& file, bool from_operator) {
  if (const auto& s = root["sources"]) {
    if (!s.IsMap()) throw CatalogError(YamlWhere(file, s) + ": 'sources' must map short names to citations");
    for (const auto& kv : s) sources_[kv.first.as<std::string>()] = kv.second.as<std::string>();
  }
  if (const auto& b = root["buckets"]) {
    XidTable t = TableOfFile(root, file, "buckets");
    if (!b.IsMap()) throw CatalogError(YamlWhere(file, b) + ": 'buckets' must map bucket names to classes");
    for (const auto& kv : b) {
      const std::string name = kv.first.as<std::string>();
      const std::string where = YamlWhere(file, kv.second) + " (bucket " + name + ")";
      XidBucket bucket;
      bucket.where = where;
      if (kv.second.IsScalar()) {
        bucket.line_class = ClassOrThrow(kv.second.as<std::string>(), where);
      } else {
        if (!kv.second["class"]) throw CatalogError(where + ": bucket without class");
        bucket.line_class = ClassOrThrow(Str(kv.second, "class"), where);
        bucket.action = Str(kv.second, "action");
      }
      Mutable(t).buckets[name] = std::move(bucket);
    }
  }
  if (const auto& d = root["common_decode"]) {
    XidTable t = TableOfFile(root, file, "common_decode");
    for (const auto& n : d) pending_decode_.push_back({t, {std::make_shared<YAML::Node>(n), file, from_operator}});
  }
  for (XidTable t : {XidTable::kXid, XidTable::kSxid}) {
    const auto& list = root[t == XidTable::kXid ? "xids" : "sxids"];
    if (!list) continue;
    if (!list.IsSequence()) throw CatalogError(YamlWhere(file, list) + ": '" + std::string(ToString(t)) + "s' must be a list");
    for (const auto& n : list) pending_.push_back({t, {std::make_shared<YAML::Node>(n), file, from_operator}});
  }
}

namespace {

XidDecode ParseDecode(const YAML::Node& n, const std::string& file, const XidTableData& table, bool common) {
  XidDecode d;
  d.where = YamlWhere(file, n);
  if (!n.IsMap()) throw CatalogError(d.where + ": a decode case must be a mapping");
  RefuseUnknownKeys(n, {"pattern", "bucket", "class", "reason", "samples", "only"}, file, "a decode case");
  d.pattern = Str(n, "pattern");
  const std::string where = d.where + " (decode '" + d.pattern + "')";
  if (d.pattern.empty()) throw CatalogError(d.where + ": decode case without pattern");
  auto re = std::make_shared<RE2>(d.pattern, RE2::Quiet);
  if (!re->ok()) throw CatalogError(where + ": bad pattern: " + re->error());
  d.re = std::move(re);
  d.bucket = Str(n, "bucket");
  if (!d.bucket.empty() && !table.buckets.count(d.bucket))
    throw CatalogError(where + ": unknown bucket '" + d.bucket + "'");
  if (n["class"]) d.line_class = ClassOrThrow(Str(n, "class"), where);
  else if (!d.bucket.empty()) d.line_class = table.buckets.at(d.bucket).line_class;
  else throw CatalogError(where + ": decode case needs a class or a bucket");
  d.reason = Str(n, "reason");
  if (d.reason.empty()) throw CatalogError(where + ": decode case without reason");
  if (n["samples"])
    for (const auto& s : n["samples"]) d.samples.push_back(s.as<std::string>());
  if (n["only"]) {
    if (!common) throw CatalogError(where + ": 'only' belongs to common_decode cases");
    for (const auto& x : n["only"]) d.only.push_back(x.as<int>());
  }
  return d;
}

}  // namespace

void XidCatalogs::ApplyEntry(XidTable t, const Pending& p) {
  const YAML::Node& n = *p.node;
  XidTableData& table = Mutable(t);
  const char* key = NumberKey(t);
  if (!n.IsMap() || !n[key])
    throw CatalogError(YamlWhere(p.file, n) + ": " + std::string(ToString(t)) + " entry without '" + key + "'");
  RefuseUnknownKeys(n,
                    {key, "name", "mnemonic", "source", "bucket", "class", "component", "action", "decode", "deviation",
                     "investigate"},
                    p.file, t == XidTable::kXid ? "an xid entry" : "an sxid entry");
  const int number = n[key].as<int>();
  const std::string where = YamlWhere(p.file, n) + " (" + key + " " + std::to_string(number) + ")";
  auto existing = table.entries.find(number);
  const bool is_new = existing == table.entries.end();
  if (!is_new && !p.from_operator && !existing->second.from_operator)
    throw CatalogError(where + ": duplicate entry (first at " + existing->second.where + ")");

  XidInfo x = is_new ? XidInfo{} : existing->second;
  x.xid = number;
  x.table = t;
  x.where = where;
  x.from_operator = p.from_operator;
  if (is_new) x.component = t == XidTable::kSxid ? "nvlink" : "gpu";
  for (auto [field, target] : {std::pair{"name", &x.name}, {"mnemonic", &x.mnemonic}, {"investigate", &x.investigate},
                               {"action", &x.action}, {"component", &x.component}})
    if (n[field]) *target = n[field].as<std::string>();
  if (!IsKnownComponent(x.component)) throw CatalogError(where + ": unknown component '" + x.component + "'");
  if (n["source"]) {
    const std::string s = n["source"].as<std::string>();
    auto it = sources_.find(s);
    x.source = it == sources_.end() ? s : it->second;
  } else if (is_new) {
    if (!p.from_operator) throw CatalogError(where + ": entry without source");
    x.source = "operator rules " + p.file;
  }
  if (is_new && x.name.empty() && !p.from_operator) throw CatalogError(where + ": entry without name");

  const bool bucket_given = static_cast<bool>(n["bucket"]);
  if (bucket_given) x.bucket = n["bucket"].as<std::string>();
  const XidBucket* bucket = nullptr;
  if (!x.bucket.empty()) {
    auto b = table.buckets.find(x.bucket);
    if (b == table.buckets.end()) throw CatalogError(where + ": unknown bucket '" + x.bucket + "'");
    bucket = &b->second;
  }
  const std::string deviation = n["deviation"] ? n["deviation"].as<std::string>() : std::string();
  if (n["class"]) {
    const LineClass cls = ClassOrThrow(n["class"].as<std::string>(), where);
    if (!bucket) {
      x.line_class = cls;
      x.deviation = deviation;
    } else if (cls == bucket->line_class) {
      // Only deviations are written: a class equal to the bucket's hides nothing but risks
      // drifting from the mapping, so built-in data must not carry it.
      if (!p.from_operator)
        throw CatalogError(where + ": class '" + std::string(ToString(cls)) + "' is what bucket " + x.bucket +
                           " gives; write class only to deviate");
      x.line_class = cls;
      x.deviation.clear();
    } else {
      if (deviation.empty() && !p.from_operator)
        throw CatalogError(where + ": class '" + std::string(ToString(cls)) + "' deviates from bucket " + x.bucket +
                           " (" + std::string(ToString(bucket->line_class)) + ") without a 'deviation'");
      x.line_class = cls;
      x.deviation = deviation.empty() ? "operator override in " + p.file : deviation;
    }
  } else {
    if (!deviation.empty()) throw CatalogError(where + ": 'deviation' without a class to deviate");
    if (!bucket) throw CatalogError(where + ": entry needs a bucket (an operator's new entry may give a class instead)");
    if (is_new || bucket_given) {
      x.line_class = bucket->line_class;
      x.deviation.clear();
    }
  }
  if (n["decode"]) {
    x.decode.clear();
    for (const auto& d : n["decode"]) x.decode.push_back(ParseDecode(d, p.file, table, false));
  }
  table.entries[number] = std::move(x);
}

void XidCatalogs::Finish() {
  // An operator's common cases go before the built-in ones (first match wins), in file order.
  std::map<XidTable, std::vector<XidDecode>> operator_cases, builtin_cases;
  for (const auto& [t, p] : pending_decode_) {
    try {
      (p.from_operator ? operator_cases : builtin_cases)[t].push_back(ParseDecode(*p.node, p.file, table(t), true));
    } catch (const YAML::Exception& e) {
      throw CatalogError(YamlWhere(p.file, *p.node) + ": " + e.what());
    }
  }
  for (XidTable t : {XidTable::kXid, XidTable::kSxid}) {
    auto& list = Mutable(t).common_decode;
    list = std::move(operator_cases[t]);
    for (auto& c : builtin_cases[t]) list.push_back(std::move(c));
  }
  for (const auto& [t, p] : pending_) {
    try {
      ApplyEntry(t, p);
    } catch (const YAML::Exception& e) {
      throw CatalogError(YamlWhere(p.file, *p.node) + ": " + e.what());
    }
  }
  pending_.clear();
  pending_decode_.clear();
}

std::string_view XidCatalogs::ActionOf(const XidInfo& x) const {
  if (!x.action.empty()) return x.action;
  const auto& buckets = table(x.table).buckets;
  auto it = buckets.find(x.bucket);
  return it == buckets.end() ? std::string_view() : std::string_view(it->second.action);
}

const XidInfo* XidCatalogs::Find(XidTable t, int number) const {
  if (t == XidTable::kNone) return nullptr;
  const auto& entries = table(t).entries;
  auto it = entries.find(number);
  return it == entries.end() ? nullptr : &it->second;
}

XidDecision XidCatalogs::Classify(XidTable t, int number, std::string_view message, LineClass fallback,
                                    std::string_view fallback_component) const {
  XidDecision d;
  d.line_class = fallback;
  d.component = std::string(fallback_component);
  if (t == XidTable::kNone) return d;
  const re2::StringPiece text(message.data(), message.size());
  if (const XidInfo* x = Find(t, number)) {
    d.info = x;
    d.line_class = x->line_class;
    d.component = x->component;
    for (const XidDecode& c : x->decode)
      if (RE2::PartialMatch(text, *c.re)) {
        d.line_class = c.line_class;
        d.decode = &c;
        return d;
      }
  }
  for (const XidDecode& c : table(t).common_decode)
    if (c.AppliesTo(number) && RE2::PartialMatch(text, *c.re)) {
      d.line_class = c.line_class;
      d.decode = &c;
      return d;
    }
  return d;
}

}  // namespace aegis
