#include "cli/rules_explain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/text.h"

namespace aegis {

namespace {

std::string_view Label(XidTable t) { return t == XidTable::kSxid ? "SXid" : "Xid"; }

// The decode cases that can decide this entry, in the order they are tried.
std::vector<const XidDecode*> CasesOf(const XidCatalogs& catalogues, const XidInfo& x) {
  std::vector<const XidDecode*> cases;
  for (const auto& c : x.decode) cases.push_back(&c);
  for (const auto& c : catalogues.table(x.table).common_decode)
    if (c.AppliesTo(x.xid)) cases.push_back(&c);
  return cases;
}

std::string ClassStory(const XidCatalogs& catalogues, const XidInfo& x) {
  const auto& buckets = catalogues.table(x.table).buckets;
  auto b = buckets.find(x.bucket);
  if (b == buckets.end()) return fmt::format("{} (set by {}; no NVIDIA bucket)", ToString(x.line_class), x.where);
  if (x.deviation.empty())
    return fmt::format("{} (the mapping gives bucket {} {})", ToString(x.line_class), x.bucket,
                       ToString(b->second.line_class));
  return fmt::format("{} (deviates: the mapping gives bucket {} {}) because {}", ToString(x.line_class), x.bucket,
                     ToString(b->second.line_class), x.deviation);
}

}  // namespace

std::string ExplainText(const XidCatalogs& catalogues, const XidInfo& x) {
  std::string out = fmt::format("{} {}: {}", Label(x.table), x.xid, x.name);
  if (!x.mnemonic.empty()) out += fmt::format(" ({})", x.mnemonic);
  out += "\n";
  auto row = [&](std::string_view key, std::string_view value) {
    if (!value.empty()) out += fmt::format("  {:<12}{}\n", key, value);
  };
  row("bucket", x.bucket.empty() ? std::string("(none)") : x.bucket + " (NVIDIA's immediate action)");
  row("investigate", x.investigate);
  row("class", ClassStory(catalogues, x));
  row("component", x.component);
  row("action", catalogues.ActionOf(x));
  const auto cases = CasesOf(catalogues, x);
  if (!cases.empty()) {
    out += fmt::format("  {:<12}the message decides; first match wins, else the class above\n", "decode");
    for (size_t i = 0; i < cases.size(); ++i) {
      const XidDecode& c = *cases[i];
      const bool own = std::any_of(x.decode.begin(), x.decode.end(), [&](const XidDecode& d) { return &d == &c; });
      std::string scope;
      if (!own)
        scope = c.only.empty() ? fmt::format(" (shared by every {})", Label(x.table))
                               : fmt::format(" (shared by {} {})", Label(x.table), fmt::join(c.only, ", "));
      out += fmt::format("    {}. /{}/{} -> {}{}\n", i + 1, c.pattern, scope, ToString(c.line_class),
                         c.bucket.empty() ? std::string() : " (bucket " + c.bucket + ")");
      out += fmt::format("       {}\n", c.reason);
    }
  }
  row("source", x.source);
  row("loaded", x.where);
  return out;
}

std::string ExplainJson(const XidCatalogs& catalogues, const XidInfo& x) {
  const auto& buckets = catalogues.table(x.table).buckets;
  auto b = buckets.find(x.bucket);
  auto opt = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  nlohmann::json j;
  j["table"] = ToString(x.table);
  j["number"] = x.xid;
  j["name"] = x.name;
  j["mnemonic"] = opt(x.mnemonic);
  j["bucket"] = opt(x.bucket);
  j["bucket_class"] = b == buckets.end() ? nlohmann::json(nullptr) : nlohmann::json(ToString(b->second.line_class));
  j["class"] = ToString(x.line_class);
  j["deviation"] = opt(x.deviation);
  j["component"] = x.component;
  j["investigate"] = opt(x.investigate);
  j["action"] = opt(std::string(catalogues.ActionOf(x)));
  j["source"] = x.source;
  j["loaded_from"] = x.where;
  j["decode"] = nlohmann::json::array();
  for (const XidDecode* c : CasesOf(catalogues, x)) {
    nlohmann::json d;
    d["pattern"] = c->pattern;
    d["class"] = ToString(c->line_class);
    d["bucket"] = opt(c->bucket);
    d["reason"] = c->reason;
    d["shared"] = std::none_of(x.decode.begin(), x.decode.end(), [&](const XidDecode& e) { return &e == c; });
    d["samples"] = c->samples;
    j["decode"].push_back(std::move(d));
  }
  return j.dump();
}

int RunRulesExplain(const ExplainArgs& args, const Catalog& catalog) {
  XidTable table = args.table == "xid" ? XidTable::kXid : args.table == "sxid" ? XidTable::kSxid : XidTable::kNone;
  if (table == XidTable::kNone) {
    std::fprintf(stderr, "aegis: rules explain: unknown table '%s' (xid or sxid)\n",
                 SanitizeForOutput(args.table, 64).c_str());
    return 2;
  }
  auto number = ParseInt(args.number);
  const XidCatalogs& catalogues = catalog.xid_catalogs();
  const XidInfo* x = number ? catalogues.Find(table, static_cast<int>(*number)) : nullptr;
  if (!x || *number != x->xid) {
    std::fprintf(stderr, "aegis: rules explain: no %s '%s' in the catalogue\n", Label(table).data(),
                 SanitizeForOutput(args.number, 64).c_str());
    return 2;
  }
  std::string out = args.json ? ExplainJson(catalogues, *x) + "\n" : ExplainText(catalogues, *x);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace aegis
