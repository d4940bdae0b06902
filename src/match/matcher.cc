#include "match/matcher.h"

#include "common/parallel.h"
#include "match/database_cache.h"
#include "match/scan_plan.h"

#include <hs/hs.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstring>

namespace aegis {

struct Matcher::Compiled {
  std::unique_ptr<RE2> re;
  std::unique_ptr<RE2> unless;  // null when the rule has none
  std::vector<std::string> group_names;  // by group index (1-based); "" for unnamed
};

std::string_view RuleMatch::Field(std::string_view name) const {
  for (const auto& [k, v] : fields)
    if (k == name) return v;
  return {};
}

Matcher::Matcher(const Catalog& catalog) : catalog_(catalog) {
  const auto& rules = catalog.rules();
  // Compiled on every core: RE2 programs for ~140 rules are a tenth of a process's start.
  compiled_.resize(rules.size());
  ParallelFor(rules.size(), 0, [&] {
    return [&](size_t i) {
      auto c = std::make_unique<Compiled>();
      c->re = std::make_unique<RE2>(rules[i].pattern, RE2::Quiet);
      if (!rules[i].unless.empty()) c->unless = std::make_unique<RE2>(rules[i].unless, RE2::Quiet);
      if (c->re->ok()) {
        c->group_names.assign(static_cast<size_t>(c->re->NumberOfCapturingGroups()) + 1, "");
        // "port2", "port3": alternatives of one rule that capture the same field.
        for (const auto& [name, idx] : c->re->NamedCapturingGroups()) {
          std::string canonical = name;
          while (canonical.size() > 1 && canonical.back() >= '0' && canonical.back() <= '9') canonical.pop_back();
          c->group_names[static_cast<size_t>(idx)] = canonical;
        }
      }
      compiled_[i] = std::move(c);
    };
  });
  for (size_t i = 0; i < rules.size(); ++i) {
    const std::string where = rules[i].source + " (rule '" + rules[i].id + "'): ";
    if (!compiled_[i]->re->ok()) throw CatalogError(where + compiled_[i]->re->error());
    if (compiled_[i]->unless && !compiled_[i]->unless->ok())
      throw CatalogError(where + "unless: " + compiled_[i]->unless->error());
  }
  // A rule set planned and compiled before (by this or another process) is loaded instead.
  const std::string key = DatabaseKey(PlanKeyParts(rules));
  CachedDatabase cached = LoadCachedDatabase(key);
  std::optional<ScanPlan> plan;
  if (cached.db) {
    plan = ScanPlan::Parse(cached.extra, rules.size());
    if (plan) db_ = cached.db;
    else hs_free_database(cached.db);
  }
  if (!db_) {
    plan = PlanScan(rules);
    std::vector<const char*> ptrs;
    std::vector<unsigned> flags, ids;
    for (size_t e = 0; e < plan->expressions.size(); ++e) {
      ptrs.push_back(plan->expressions[e].pattern.c_str());
      flags.push_back(plan->expressions[e].flags);
      ids.push_back(static_cast<unsigned>(e));
    }
    hs_compile_error_t* err = nullptr;
    if (hs_compile_multi(ptrs.data(), flags.data(), ids.data(), static_cast<unsigned>(ptrs.size()), HS_MODE_BLOCK,
                         nullptr, &db_, &err) != HS_SUCCESS) {
      std::string msg = err && err->message ? err->message : "unknown error";
      std::string where = "scanner";
      if (err && err->expression >= 0 && static_cast<size_t>(err->expression) < plan->expressions.size()) {
        const Rule& r = rules[plan->expressions[static_cast<size_t>(err->expression)].rules.front()];
        where = r.source + " (rule '" + r.id + "')";
      }
      hs_free_compile_error(err);
      throw CatalogError(where + ": " + msg);
    }
    StoreCachedDatabase(key, db_, plan->Serialize());
  }
  for (auto& e : plan->expressions) expression_rules_.push_back(std::move(e.rules));
  if (hs_alloc_scratch(db_, &proto_scratch_) != HS_SUCCESS) throw CatalogError("scanner: cannot allocate scratch");
}

Matcher::~Matcher() {
  hs_free_scratch(proto_scratch_);
  hs_free_database(db_);
}

Matcher::Scratch::~Scratch() {
  if (s_) hs_free_scratch(s_);
}
Matcher::Scratch::Scratch(Scratch&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }

Matcher::Scratch Matcher::NewScratch() const {
  hs_scratch_t* s = nullptr;
  if (hs_clone_scratch(proto_scratch_, &s) != HS_SUCCESS) throw std::bad_alloc();
  return Scratch(s);
}

namespace {
struct ScanContext {
  std::string_view text;
  std::vector<CandidateLine>* out;
  size_t first;  // index of the first candidate this scan appended
  const std::vector<std::vector<uint32_t>>* expression_rules;
};

void AddRules(CandidateRules& to, const std::vector<uint32_t>& rules) {
  for (uint32_t r : rules)
    if (std::find(to.begin(), to.end(), r) == to.end()) to.push_back(r);
}

int OnMatch(unsigned id, unsigned long long /*from*/, unsigned long long to, unsigned /*flags*/, void* ctx_ptr) {
  auto* ctx = static_cast<ScanContext*>(ctx_ptr);
  // An id the plan does not know can only come from a cache file that lies about itself.
  if (to == 0 || id >= ctx->expression_rules->size()) return 0;
  const std::vector<uint32_t>& rules = (*ctx->expression_rules)[id];
  const size_t last = static_cast<size_t>(to) - 1;  // last byte of the match
  auto& out = *ctx->out;
  // Matches arrive in order of end offset, so a repeat on the current line is O(1).
  if (out.size() > ctx->first && last >= out.back().begin && last < out.back().end + (ctx->text[last] == '\n')) {
    AddRules(out.back().rules, rules);
    return 0;
  }
  const char* base = ctx->text.data();
  size_t probe = ctx->text[last] == '\n' && last > 0 ? last - 1 : last;
  if (ctx->text[probe] == '\n') return 0;  // empty line
  const void* nl_before = probe ? memrchr(base, '\n', probe) : nullptr;
  size_t begin = nl_before ? static_cast<size_t>(static_cast<const char*>(nl_before) - base) + 1 : 0;
  const void* nl_after = memchr(base + probe, '\n', ctx->text.size() - probe);
  size_t end = nl_after ? static_cast<size_t>(static_cast<const char*>(nl_after) - base) : ctx->text.size();
  // Out-of-order report for an earlier line: find it among recent candidates.
  for (size_t i = out.size(); i > ctx->first; --i) {
    auto& c = out[i - 1];
    if (c.begin == begin) {
      AddRules(c.rules, rules);
      return 0;
    }
    if (c.begin < begin) break;
  }
  CandidateLine c;
  c.begin = static_cast<uint32_t>(begin);
  c.end = static_cast<uint32_t>(end);
  for (uint32_t r : rules) c.rules.push_back(r);  // the plan lists each rule of an expression once
  out.push_back(std::move(c));
  return 0;
}
}  // namespace

void Matcher::Scan(std::string_view text, Scratch& scratch, std::vector<CandidateLine>& out) const {
  if (text.empty()) return;
  ScanContext ctx{text, &out, out.size(), &expression_rules_};
  hs_scan(db_, text.data(), static_cast<unsigned>(text.size()), 0, scratch.s_, OnMatch, &ctx);
  // Matches come in order of their end, so the lines almost always are in order already.
  auto by_begin = [](const CandidateLine& a, const CandidateLine& b) { return a.begin < b.begin; };
  const auto first = out.begin() + static_cast<std::ptrdiff_t>(ctx.first);
  if (!std::is_sorted(first, out.end(), by_begin)) std::sort(first, out.end(), by_begin);
}

bool Matcher::Confirm(std::string_view message, const std::vector<uint32_t>& candidates, RuleMatch* out) const {
  const auto& rules = catalog_.rules();
  std::vector<uint32_t> order(candidates);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (rules[a].priority != rules[b].priority) return rules[a].priority > rules[b].priority;
    if (rules[a].from_operator != rules[b].from_operator) return rules[a].from_operator;
    return a < b;
  });
  std::vector<re2::StringPiece> groups;
  for (uint32_t id : order) {
    const Compiled& c = *compiled_[id];
    groups.assign(c.group_names.size(), re2::StringPiece());
    if (!c.re->Match(re2::StringPiece(message.data(), message.size()), 0, message.size(), RE2::UNANCHORED,
                     groups.data(), static_cast<int>(groups.size())))
      continue;
    if (c.unless && RE2::PartialMatch(re2::StringPiece(message.data(), message.size()), *c.unless)) continue;
    out->rule = id;
    out->fields.clear();
    for (size_t g = 1; g < groups.size(); ++g)
      if (!c.group_names[g].empty() && groups[g].data() != nullptr && !out->Field(c.group_names[g]).size())
        out->fields.emplace_back(c.group_names[g], std::string(groups[g].data(), groups[g].size()));
    return true;
  }
  return false;
}

bool Matcher::MatchMessage(std::string_view message, Scratch& scratch, RuleMatch* out) const {
  std::vector<CandidateLine> lines;
  // The scanner sees the message as one line; newlines inside it would split it.
  Scan(message, scratch, lines);
  std::vector<uint32_t> all;
  for (const auto& l : lines)
    for (uint32_t r : l.rules)
      if (std::find(all.begin(), all.end(), r) == all.end()) all.push_back(r);
  return !all.empty() && Confirm(message, all, out);
}

}  // namespace aegis
