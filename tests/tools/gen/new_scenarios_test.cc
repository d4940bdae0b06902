// The scenarios added from what independent data showed (issue 9): each holds the trap it
// is about, and its expected verdict is the real fault's. Checked on the generator's own
// in-memory bundle and on the text of its lines, not through the engine.
#include <gtest/gtest.h>

#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "gen/scenarios.h"

namespace aegis {
namespace {

using nlohmann::json;

gen::GenOptions Options(const std::string& scenario, uint64_t seed, int hosts) {
  gen::GenOptions o;
  o.scenario = scenario;
  o.seed = seed;
  o.hosts = hosts;
  o.kernel_bytes = 3000;
  o.train_bytes = 8000;
  return o;
}

std::set<std::string> NamedHosts(const json& expected) {
  std::set<std::string> out;
  for (const char* list : {"isolate", "repair"})
    for (const auto& e : expected[list]) out.insert(e["host"].get<std::string>());
  return out;
}

// "[2026-11-30 10:11:12" at the start of `text` as epoch seconds (UTC), or NaN.
double BracketTime(const std::string& text) {
  static const std::regex re(R"(^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d))");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return NAN;
  struct tm tm = {};
  tm.tm_year = std::stoi(m[1]) - 1900;
  tm.tm_mon = std::stoi(m[2]) - 1;
  tm.tm_mday = std::stoi(m[3]);
  tm.tm_hour = std::stoi(m[4]);
  tm.tm_min = std::stoi(m[5]);
  tm.tm_sec = std::stoi(m[6]);
  return static_cast<double>(timegm(&tm));
}

TEST(HistoryBeforeJob, OneOldCriticalLineOnAHealthyHostAndTheRealFaultsVerdict) {
  std::set<int> xids;
  std::set<std::string> stages;
  bool saw_dmesg_t = false;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    gen::Bundle b = gen::BuildBundle(Options("history_before_job", seed, 8));
    stages.insert(b.expected["stage"].get<std::string>());
    const std::set<std::string> named = NamedHosts(b.expected);
    int found = 0;
    for (int h = 0; h < b.Hosts(); ++h)
      for (const auto& line : b.Node(h).kernel.Sorted()) {
        if (line.ts >= b.c.start - 3600) continue;
        ++found;
        const gen::GenNode& n = b.N(h);
        EXPECT_FALSE(named.count(n.host)) << "the old line is on a host the verdict names";
        const double age = b.c.start - line.ts;
        EXPECT_GE(age, 86400);
        EXPECT_LE(age, 7 * 86400);
        EXPECT_GT(line.ts, n.boot) << "uptime must stay positive";
        std::smatch m;
        ASSERT_TRUE(std::regex_search(line.text, m, std::regex(R"(NVRM: Xid \(PCI:[0-9a-f:]+\): (\d+),)"))) << line.text;
        xids.insert(std::stoi(m[1]));
        if ((seed / 3) % 2 == 1) {
          saw_dmesg_t = true;
          EXPECT_EQ(n.kernel_format, 1);
          EXPECT_TRUE(std::regex_search(line.text, std::regex(R"(^\[(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\] )")))
              << line.text;
          EXPECT_GT(std::abs(n.clock_offset), 0);
          EXPECT_LE(std::abs(n.clock_offset), 300);
        }
      }
    EXPECT_EQ(found, 1);
  }
  EXPECT_EQ(xids, (std::set<int>{48, 74, 79, 95}));
  EXPECT_EQ(stages, (std::set<std::string>{"critical_error", "user_error", "config_check"}));
  EXPECT_TRUE(saw_dmesg_t);
}

TEST(UntimedAfterStale, CascadeLinesHaveNoTimeAndFollowAStaleProgressLine) {
  const std::regex label(R"(^(\d+): (.*)$)");
  const std::regex nccl_header(R"(^node-\d{4}:\d+:\d+ \[\d+\] )");
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    gen::Bundle b = gen::BuildBundle(Options("untimed_after_stale", seed, 8));
    EXPECT_EQ(b.expected["action"], "none");
    EXPECT_EQ(b.expected["cause"], "user");
    EXPECT_EQ(b.expected["stage"], "user_error");
    // The exception's time, from its own timestamped line.
    double fault = NAN;
    int culprit = -1;
    for (int h = 0; h < b.Hosts(); ++h)
      for (const auto& line : b.Node(h).train.Sorted()) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(line.text, m, label)) << "every line is behind srun's label: " << line.text;
        if (line.text.find("[ERROR] [train.py") != std::string::npos) {
          fault = BracketTime(m[2]);
          culprit = h;
        }
      }
    ASSERT_GE(culprit, 0);
    ASSERT_FALSE(std::isnan(fault));
    int warns = 0;
    for (int h = 0; h < b.Hosts(); ++h) {
      double last_timed = NAN;
      bool first_warn = true;
      for (const auto& line : b.Node(h).train.Sorted()) {
        std::smatch m;
        std::regex_match(line.text, m, label);
        const std::string body = m[2];
        if (line.text.find("NCCL WARN socketProgress") != std::string::npos) {
          ++warns;
          EXPECT_TRUE(std::regex_search(body, nccl_header)) << "no time of its own: " << line.text;
          if (first_warn && h != culprit) {
            const double gap = fault - last_timed;
            EXPECT_GE(gap, 20 * 60) << "the last timed line before the cascade is stale";
            EXPECT_LE(gap, 25 * 60);
          }
          first_warn = false;
        }
        const double t = BracketTime(body);
        if (!std::isnan(t)) last_timed = t;
      }
    }
    EXPECT_EQ(warns, b.Hosts() * b.c.gpus - 1) << "every other rank cascades";
  }
}

TEST(IncidentalEdges, AFewEdgesShareOneHealthyHostWhileTheRepairIsElsewhere) {
  const std::regex peer(R"(Got completion from peer ([0-9.]+)<)");
  std::set<std::string> components;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    gen::Bundle b = gen::BuildBundle(Options("incidental_edges", seed, 8));
    ASSERT_EQ(b.expected["action"], "repair");
    ASSERT_EQ(b.expected["repair"].size(), 1u);
    components.insert(b.expected["repair"][0]["component"].get<std::string>());
    const std::string repaired = b.expected["repair"][0]["host"];
    EXPECT_TRUE(b.expected["isolate"].empty());
    std::map<std::string, std::string> host_of_ip;
    for (const auto& n : b.c.nodes)
      for (const auto& ip : n.nic_ip) host_of_ip[ip] = n.host;
    std::vector<std::pair<std::string, std::string>> edges;
    int timeouts = 0;
    for (int h = 0; h < b.Hosts(); ++h)
      for (const auto& line : b.Node(h).train.Sorted()) {
        std::smatch m;
        if (std::regex_search(line.text, m, peer)) edges.push_back({b.N(h).host, host_of_ip.at(m[1])});
        if (line.text.find("ProcessGroupNCCL.cpp:632") != std::string::npos) ++timeouts;
      }
    EXPECT_EQ(timeouts, b.Hosts() * b.c.gpus) << "every rank times out";
    ASSERT_GE(edges.size(), 2u);
    ASSERT_LE(edges.size(), 3u);
    std::map<std::string, int> degree;
    for (const auto& [a, c] : edges) {
      ++degree[a];
      ++degree[c];
      EXPECT_NE(a, repaired);
      EXPECT_NE(c, repaired);
    }
    int common = 0;
    for (const auto& [host, d] : degree) common += d == static_cast<int>(edges.size());
    EXPECT_GE(common, 1) << "one host is on every edge";
  }
  EXPECT_EQ(components, (std::set<std::string>{"config", "switch_port", "link"}));
}

TEST(NoisyStraggler, ShortInTpAndAtTheMeanPlusNoiseInAHealthyDpRing) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    gen::Bundle b = gen::BuildBundle(Options("noisy_straggler", seed, 8));
    ASSERT_EQ(b.expected["isolate"].size(), 1u);
    const std::string host = b.expected["isolate"][0]["host"], device = b.expected["isolate"][0]["device"];
    // Mean collective duration per (communicator, host, gpu).
    std::map<std::string, std::map<std::pair<std::string, int>, double>> mean;
    std::map<std::string, std::string> name_of;  // communicator -> "tp" / "dp"
    for (int h = 0; h < b.Hosts(); ++h)
      for (auto& [gpu, f] : b.Node(h).ccl)
        for (const auto& line : f.Sorted()) {
          const json r = json::parse(line.text);
          double sum = 0;
          for (const auto& c : r["recent"]) sum += c["td_us"].get<double>();
          mean[r["comm"].get<std::string>()][{r["host"], r["gpu"]}] = sum / static_cast<double>(r["recent"].size());
          name_of[r["comm"].get<std::string>()] = r["comm_name"];
        }
    const std::pair<std::string, int> straggler{host, std::stoi(device.substr(3))};
    int comms = 0;
    for (const auto& [comm, members] : mean) {
      if (!members.count(straggler)) continue;
      ++comms;
      double others = 0;
      for (const auto& [who, td] : members)
        if (who != straggler) others += td / static_cast<double>(members.size() - 1);
      const double ratio = members.at(straggler) / others;
      if (name_of[comm] == "tp") {
        EXPECT_LT(ratio, 0.8) << "TP: the straggler arrives late, so waits least";
      } else {
        EXPECT_GT(ratio, 0.99) << "DP: at the mean plus noise";
        EXPECT_LT(ratio, 1.04) << "DP: not clearly waiting";
        for (const auto& [who, td] : members) EXPECT_NEAR(td / others, 1.0, 0.05) << "the DP ring is healthy";
      }
    }
    EXPECT_EQ(comms, 2);
  }
}

}  // namespace
}  // namespace aegis
