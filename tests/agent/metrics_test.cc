// The /metrics page, parsed back as Prometheus would read it; the node counters behind it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <regex>

#include "agent/metrics_page.h"
#include "agent/node_sampler.h"
#include "agent/prom_text.h"
#include "agent/rdma_counters.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ScratchDir;
using testing::WriteFile;

// A strict reader of the text exposition format (version 0.0.4): every sample belongs to a
// family announced by HELP and TYPE lines before it; names and labels are well formed.
struct Exposition {
  std::map<std::string, std::string> type, help;
  // "name{a="x",b="y"}" (labels sorted as written) -> value
  std::map<std::string, double> samples;
  std::string error;

  static Exposition Parse(const std::string& text) {
    Exposition e;
    const std::regex name_re("[a-zA-Z_:][a-zA-Z0-9_:]*");
    std::string family;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) {
        e.error = "no newline at the end";
        return e;
      }
      std::string line = text.substr(pos, nl - pos);
      pos = nl + 1;
      if (line.rfind("# HELP ", 0) == 0) {
        const size_t sp = line.find(' ', 7);
        family = line.substr(7, sp - 7);
        e.help[family] = sp == std::string::npos ? "" : line.substr(sp + 1);
        continue;
      }
      if (line.rfind("# TYPE ", 0) == 0) {
        const size_t sp = line.find(' ', 7);
        const std::string name = line.substr(7, sp - 7), type = line.substr(sp + 1);
        if (name != family || !e.help.count(name)) e.error = "TYPE without HELP: " + name;
        if (type != "counter" && type != "gauge") e.error = "bad type " + type;
        e.type[name] = type;
        continue;
      }
      size_t i = 0;
      while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
      const std::string name = line.substr(0, i);
      if (!std::regex_match(name, name_re)) e.error = "bad name " + name;
      if (name != family || !e.type.count(name)) e.error = "sample outside its family: " + name;
      std::string key = name;
      if (i < line.size() && line[i] == '{') {
        key += '{';
        ++i;
        while (i < line.size() && line[i] != '}') {
          size_t eq = line.find('=', i);
          const std::string label = line.substr(i, eq - i);
          if (!std::regex_match(label, name_re) || eq + 1 >= line.size() || line[eq + 1] != '"') {
            e.error = "bad label in " + line;
            return e;
          }
          std::string value;
          size_t j = eq + 2;
          for (; j < line.size() && line[j] != '"'; ++j) {
            if (line[j] == '\\' && j + 1 < line.size()) {
              ++j;
              value += line[j] == 'n' ? '\n' : line[j];
            } else {
              value += line[j];
            }
          }
          key += label + "=\"" + value + "\"";
          i = j + 1;
          if (i < line.size() && line[i] == ',') {
            key += ',';
            ++i;
          }
        }
        key += '}';
        ++i;
      }
      if (i >= line.size() || line[i] != ' ') {
        e.error = "no value in " + line;
        return e;
      }
      const std::string v = line.substr(i + 1);
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0') e.error = "bad value in " + line;
      if (e.samples.count(key)) e.error = "sample twice: " + key;
      e.samples[key] = d;
    }
    return e;
  }
};

TEST(PromText, EscapesAndReadsBack) {
  PromText p;
  p.Family("x_total", "counter", "help with \\ and\nnewline");
  p.Sample("x_total", {{"path", "a\"b\\c\nd"}, {"k", "v"}}, uint64_t{18446744073709551615ull});
  p.Family("bad-name", "gauge", "h");
  p.Sample("bad-name", {}, 0.1);
  auto e = Exposition::Parse(p.str());
  ASSERT_EQ(e.error, "") << p.str();
  EXPECT_EQ(e.samples.count("x_total{path=\"a\"b\\c\nd\",k=\"v\"}"), 1u) << p.str();
  EXPECT_EQ(e.samples["bad_name"], 0.1);
  EXPECT_NE(p.str().find(" 18446744073709551615\n"), std::string::npos);  // exact, not rounded
}

void FakeRdma(const ScratchDir& d) {
  const std::string port = d / "sys/class/infiniband/mlx5_0/ports/1";
  WriteFile(port + "/counters/port_xmit_data", "123456789012\n");
  WriteFile(port + "/counters/symbol_error", "0\n");
  WriteFile(port + "/counters/VL15_dropped", "3\n");
  WriteFile(port + "/hw_counters/np_ecn_marked_roce_packets", "42\n");
  WriteFile(port + "/hw_counters/out_of_sequence", "7\n");
  WriteFile(port + "/hw_counters/lifespan", "10\n");
  WriteFile(port + "/hw_counters/broken", "N/A\n");
  WriteFile(d / "sys/class/infiniband/mlx5_0/ports/2/hw_counters/rp_cnp_handled", "5\n");
}

TEST(RdmaCounters, ParsesCounterFiles) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseCounterValue("42\n", &v));
  EXPECT_EQ(v, 42u);
  EXPECT_TRUE(ParseCounterValue(" 18446744073709551615 ", &v));
  EXPECT_EQ(v, 18446744073709551615ull);
  EXPECT_FALSE(ParseCounterValue("18446744073709551616", &v));
  EXPECT_FALSE(ParseCounterValue("-1", &v));
  EXPECT_FALSE(ParseCounterValue("", &v));
  EXPECT_FALSE(ParseCounterValue("12 34", &v));
  EXPECT_FALSE(ParseCounterValue("0x10", &v));
}

TEST(RdmaCounters, ReadsCountersAndHwCounters) {
  ScratchDir d;
  FakeRdma(d);
  auto cs = ReadRdmaCounters(d / "sys");
  std::map<std::string, uint64_t> byname;
  for (auto& c : cs) byname[c.device + "/" + std::to_string(c.port) + "/" + c.name + (c.hw ? "/hw" : "")] = c.value;
  EXPECT_EQ(byname.size(), 6u);
  EXPECT_EQ(byname["mlx5_0/1/port_xmit_data"], 123456789012u);
  EXPECT_EQ(byname["mlx5_0/1/np_ecn_marked_roce_packets/hw"], 42u);
  EXPECT_EQ(byname["mlx5_0/2/rp_cnp_handled/hw"], 5u);
  EXPECT_EQ(byname.count("mlx5_0/1/lifespan/hw"), 0u);  // not a counter
  EXPECT_TRUE(ReadRdmaCounters(d / "nothing").empty());
}

class FakeGpu : public GpuReader {
 public:
  std::vector<GpuSample> Sample() override {
    ++n;
    return {{0, "DCGM_FI_DEV_GPU_TEMP", 60.0 + n, false}, {1, "DCGM_FI_DEV_SM_CLOCK", 1980, false},
            {1, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 2, true}};
  }
  GpuFacts Facts() override { return {}; }
  int n = 0;
};

TEST(NodeSampler, ShipsCataloguedSeriesAndExposesEverything) {
  ScratchDir d;
  FakeRdma(d);
  FakeGpu gpu;
  AgentCounters counters;
  auto rules = testing::BuiltinRules()->Current();
  NodeSampler s("node-0007", d / "sys", &gpu,
                [&](std::string_view m) { return rules->catalog.FindMetric(m) != nullptr; }, &counters);
  s.Sample(1000);
  WriteFile(d / "sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets", "50\n");
  s.Sample(1015);
  EventOutput out(&counters);
  s.Flush(&out);
  std::map<std::string, nlohmann::json> by;
  for (auto& e : out.events()) {
    auto j = nlohmann::json::parse(e);
    by[j["metric"].get<std::string>() + "@" + j["device"].get<std::string>()] = j;
  }
  ASSERT_TRUE(by.count("np_ecn_marked_roce_packets@mlx5_0"));
  auto ecn = by["np_ecn_marked_roce_packets@mlx5_0"];
  EXPECT_EQ(ecn["type"], "metric");
  EXPECT_EQ(ecn["node"], "node-0007");
  EXPECT_EQ(ecn["id"], "node-0007:metric:np_ecn_marked_roce_packets:mlx5_0:1000.000");
  EXPECT_EQ(ecn["t"], nlohmann::json({1000.0, 1015.0}));
  EXPECT_EQ(ecn["v"], nlohmann::json({42.0, 50.0}));
  EXPECT_TRUE(by.count("rp_cnp_handled@mlx5_0/2"));
  EXPECT_TRUE(by.count("port_xmit_data@mlx5_0"));
  EXPECT_TRUE(by.count("DCGM_FI_DEV_GPU_TEMP@0"));
  EXPECT_TRUE(by.count("DCGM_FI_DEV_SM_CLOCK@1"));
  EXPECT_FALSE(by.count("VL15_dropped@mlx5_0"));  // not read by the analyzer: /metrics only
  out.Queued();
  s.Flush(&out);
  EXPECT_EQ(out.pending(), 0u);  // shipped once

  PromText p;
  s.Render(&p);
  auto e = Exposition::Parse(p.str());
  ASSERT_EQ(e.error, "") << p.str();
  EXPECT_EQ(e.samples["aegis_node_rdma_np_ecn_marked_roce_packets_total{device=\"mlx5_0\",port=\"1\"}"], 50);
  EXPECT_EQ(e.samples["aegis_node_rdma_VL15_dropped_total{device=\"mlx5_0\",port=\"1\"}"], 3);
  EXPECT_EQ(e.samples["aegis_node_rdma_rp_cnp_handled_total{device=\"mlx5_0\",port=\"2\"}"], 5);
  EXPECT_EQ(e.samples["aegis_node_gpu_temperature_celsius{gpu=\"0\"}"], 62);
  EXPECT_EQ(e.samples["aegis_node_gpu_sm_clock_hertz{gpu=\"1\"}"], 1.98e9);
  EXPECT_EQ(e.type["aegis_node_gpu_pcie_replays_total"], "counter");
}

TEST(MetricsPage, AgentHealthAndProcessMetricsReadBack) {
  ScratchDir d;
  std::unique_ptr<DiskQueue> q;
  ASSERT_TRUE(DiskQueue::Open(d / "q", {}, &q).ok());
  ASSERT_TRUE(q->Append({"{\"id\":\"a\"}", "{\"id\":\"b\"}"}).ok());
  AgentCounters c;
  c.Add(c.lines_read[static_cast<int>(InputKind::kTrain)], 12);
  c.Add(c.events_queued[static_cast<int>(EventType::kLog)], 2);
  c.Add(c.send_errors[static_cast<int>(SendError::kConnect)], 4);
  c.last_send_ok = 1764497523.5;
  MetricsContext m;
  m.counters = &c;
  m.queue = q.get();
  m.queue_limit_bytes = 1 << 30;
  m.node_name = "node-0007";
  m.instance = "abc";
  m.version = "0.1.0";
  m.started_at = 1764497000;
  const std::string text = RenderMetrics(m);
  auto e = Exposition::Parse(text);
  ASSERT_EQ(e.error, "") << text;
  EXPECT_EQ(e.samples["aegis_agent_info{version=\"0.1.0\",node=\"node-0007\",instance=\"abc\"}"], 1);
  EXPECT_EQ(e.samples["aegis_agent_lines_read_total{source=\"train\"}"], 12);
  EXPECT_EQ(e.samples["aegis_agent_events_queued_total{type=\"log\"}"], 2);
  EXPECT_EQ(e.samples["aegis_agent_queue_events"], 2);
  EXPECT_GT(e.samples["aegis_agent_queue_bytes"], 0);
  EXPECT_EQ(e.samples["aegis_agent_queue_limit_bytes"], 1 << 30);
  EXPECT_EQ(e.samples["aegis_agent_send_errors_total{reason=\"connect\"}"], 4);
  EXPECT_EQ(e.samples["aegis_agent_last_successful_send_timestamp_seconds"], 1764497523.5);
  EXPECT_EQ(e.samples.count("aegis_agent_events_dropped_total{reason=\"queue_full\"}"), 1u);
  EXPECT_GT(e.samples["process_resident_memory_bytes"], 0);
  EXPECT_GE(e.samples["process_cpu_seconds_total"], 0);
  for (const auto& [name, type] : e.type) {
    if (type == "counter") {
      EXPECT_EQ(name.substr(name.size() - 6), "_total") << name;
    }
  }
}

}  // namespace
}  // namespace aegis::agent
