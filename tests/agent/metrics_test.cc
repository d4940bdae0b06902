// The /metrics page, parsed back as Prometheus would read it (the node counters behind
// it: sources/node_sampler/node_sampler_test.cc).
#include <gtest/gtest.h>

#include "agent/metrics_page.h"
#include "agent/prom_text.h"
#include "exposition.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::Exposition;
using testing::ScratchDir;

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
