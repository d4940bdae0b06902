#include "cli/commands.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "bundle/address_book.h"
#include "common/text.h"
#include "common/time.h"
#include "engine/engine.h"
#include "env/env.h"
#include "sources/bundle_source.h"
#include "logs/scanner.h"
#include "rules_check/samples_check.h"

namespace aegis {

int RunDiagnose(const DiagnoseArgs& args, const Matcher& matcher) {
  Verdict v;
  DiagnoseOptions o;
  o.threads = args.threads;
  o.prometheus_url = args.prometheus;
  o.prometheus_step = args.step_s;
  o.decide.outliers.window_s = args.window_s;
  o.decide.outliers.min_sustained_s = args.min_sustained_s;
  o.decide.outliers.robust = !args.classic_outliers;
  if (Status s = DiagnoseBundle(args.bundle, matcher, o, &v); !s.ok()) {
    std::fprintf(stderr, "aegis: cannot use bundle: %s\n", s.message().c_str());
    return 2;
  }
  std::string out = args.json ? VerdictToJson(v) + "\n" : VerdictToText(v);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

namespace {

// The device a classified line names: a PCI address, a NIC or a switch port.
nlohmann::json DeviceOf(const LogEvent& ev) {
  for (const char* k : {"pci", "nic", "netdev", "port"})
    if (auto v = ev.Field(k); !v.empty()) return std::string(v);
  return nullptr;
}

nlohmann::json PeerOf(const LogEvent& ev) {
  if (auto v = ev.Field("remote_gid"); !v.empty()) return AddressBook::CleanEndpoint(v);
  if (auto v = ev.Field("peer"); !v.empty()) return AddressBook::CleanEndpoint(v);
  if (auto v = ev.Field("peer_rank"); !v.empty()) return "rank " + std::string(v);
  return nullptr;
}

void ClassifyOne(int fd, const std::string& name, bool multi, bool json, Scanner& scanner) {
  std::map<uint64_t, LogEvent> by_line;  // first line of each folded record -> event
  ScanStats stats = scanner.ScanFd(fd, [&](LogEvent&& ev) { by_line.emplace(ev.first_line, std::move(ev)); });
  if (!stats.status.ok()) std::fprintf(stderr, "aegis: %s: %s\n", name.c_str(), stats.status.message().c_str());
  auto it = by_line.begin();
  std::string out;
  size_t counts[6] = {0, 0, 0, 0, 0, 0};
  for (uint64_t line = 1; line <= stats.lines; ++line) {
    while (it != by_line.end() && it->second.last_line < line) ++it;
    const LogEvent* ev = (it != by_line.end() && it->second.first_line <= line) ? &it->second : nullptr;
    LineClass cls = ev ? ev->line_class : LineClass::kNone;
    ++counts[static_cast<int>(cls)];
    if (json) {
      nlohmann::json j;
      if (multi) j["file"] = name;
      j["line"] = line;
      j["class"] = std::string(ToString(cls));
      j["rule"] = ev && cls != LineClass::kNone ? nlohmann::json(ev->rule_id) : nlohmann::json(nullptr);
      j["component"] = ev && cls != LineClass::kNone ? nlohmann::json(ToString(ev->component)) : nlohmann::json(nullptr);
      j["xid"] = ev && ev->xid >= 0 ? nlohmann::json(ev->xid) : nlohmann::json(nullptr);
      j["device"] = ev ? DeviceOf(*ev) : nlohmann::json(nullptr);
      j["peer"] = ev ? PeerOf(*ev) : nlohmann::json(nullptr);
      if (ev && cls != LineClass::kNone && ev->fallback) j["fallback"] = true;  // only when set
      out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      out += '\n';
    } else if (ev && cls != LineClass::kNone && line == ev->line) {
      out += fmt::format("{}{:>6}  {:<8}  {:<28}  {}\n", multi ? name + ":" : "", line, ToString(cls), ev->rule_id,
                         SanitizeForOutput(ev->text, 160));
    }
    if (out.size() > (1u << 16)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (!json)
    std::printf("%s%llu lines: %zu critical, %zu dist, %zu config, %zu user, %zu hint, %zu none\n",
                multi ? (name + ": ").c_str() : "", static_cast<unsigned long long>(stats.lines), counts[1], counts[2],
                counts[3], counts[4], counts[5], counts[0]);
}

}  // namespace

int RunClassify(const ClassifyArgs& args, const Matcher& matcher) {
  ScanOptions so;
  so.year = YearOf(Env::Default()->NowEpochSeconds());
  Scanner scanner(matcher, so);
  if (args.files.empty()) {
    ClassifyOne(STDIN_FILENO, "-", false, args.json, scanner);
    return 0;
  }
  const bool multi = args.files.size() > 1;
  int rc = 0;
  for (const auto& f : args.files) {
    int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      std::fprintf(stderr, "aegis: %s: cannot open\n", f.c_str());
      rc = 1;
      continue;
    }
    ClassifyOne(fd, f, multi, args.json, scanner);
    ::close(fd);
  }
  return rc;
}

int RunRulesCheck(const Matcher& matcher) {
  auto problems = CheckRuleSamples(matcher, /*require_samples=*/true);
  for (const auto& p : problems) std::fprintf(stderr, "%s\n", p.c_str());
  std::printf("%zu rules, %zu problems\n", matcher.catalog().rules().size(), problems.size());
  return problems.empty() ? 0 : 1;
}

}  // namespace aegis
