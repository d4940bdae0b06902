// The registry of the agent's sources and the list its loop drives: names from a config,
// a clear error for an unknown one, and each source's runs, errors and last pass duration
// on /metrics (timed on an injected clock).
#include "agent/source_registry.h"

#include <gtest/gtest.h>

#include "env/manual_clock_env.h"
#include "exposition.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::Exposition;
using testing::ScratchDir;

// A source whose passes take `cost` seconds of the test's clock; every `fail_every`th fails.
class FakeSource : public Source {
 public:
  // Each Poll takes `cost` seconds of `clock`'s time (null: none).
  FakeSource(std::string name, ManualClockEnv* clock, double cost, int fail_every = 0)
      : Source(std::move(name)), clock_(clock), cost_(cost), fail_every_(fail_every) {}
  double due() const override { return 0; }
  SourcePass Poll(const SourceTick&) override {
    if (clock_ && cost_ > 0) clock_->Advance(cost_);
    ++polls;
    return {false, fail_every_ > 0 && polls % fail_every_ == 0};
  }
  void RenderMetrics(PromText* p) const override {
    std::string family = "fake_";
    family.append(name()).append("_things");
    p->Family(family, "gauge", "A source's own family.");
    p->Sample(family, {}, uint64_t{7});
  }
  int polls = 0;

 private:
  ManualClockEnv* clock_;
  double cost_;
  int fail_every_;
};

SourceFactory Fake() {
  return [](const SourceContext&, std::unique_ptr<Source>* out) {
    *out = std::make_unique<FakeSource>("fake", nullptr, 0);
    return Status::Ok();
  };
}

TEST(SourceRegistry, AnUnknownNameIsAClearError) {
  SourceRegistry r;
  ASSERT_TRUE(r.Register("fake", Fake()).ok());
  ASSERT_TRUE(r.Register("other", Fake()).ok());
  std::unique_ptr<Source> s;
  Status st = r.Create("kmesg", SourceContext(), &s);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_EQ(st.message(), "unknown agent source \"kmesg\" (known: fake, other)");
  EXPECT_EQ(s, nullptr);
  ASSERT_TRUE(r.Create("fake", SourceContext(), &s).ok());
  EXPECT_EQ(s->name(), "fake");
}

TEST(SourceRegistry, ANameIsRegisteredOnce) {
  SourceRegistry r;
  ASSERT_TRUE(r.Register("fake", Fake()).ok());
  EXPECT_EQ(r.Register("fake", Fake()).code(), Status::Code::kAlreadyExists);
  EXPECT_TRUE(r.Register("", Fake()).IsInvalidArgument());
}

TEST(SourceRegistry, TheConfigNamesItsSources) {
  AgentConfig c;  // the defaults: kmsg, the CCL socket, facts auto
  EXPECT_EQ(SourceNamesFor(c), (std::vector<std::string>{"kmsg", "ccl", "node_sampler", "facts"}));
  c.kernel_log = "journald";
  c.train_logs = {"/var/log/job/*.log"};
  c.ccl_socket = "none";
  c.facts = "none";
  EXPECT_EQ(SourceNamesFor(c), (std::vector<std::string>{"journald", "train_logs", "node_sampler"}));
  c.kernel_log = "/var/log/kern.log";
  c.ccl_dir = "/run/ccl";
  c.facts = "/etc/aegis/facts.json";
  EXPECT_EQ(SourceNamesFor(c),
            (std::vector<std::string>{"kernel_file", "train_logs", "ccl", "node_sampler", "facts"}));
  c.kernel_log = "none";
  c.train_logs.clear();
  c.ccl_dir.clear();
  EXPECT_EQ(SourceNamesFor(c), (std::vector<std::string>{"node_sampler", "facts"}));
}

TEST(SourceRegistry, TheBuiltinRegistryBuildsTheListOfAConfig) {
  const SourceRegistry& r = SourceRegistry::Builtin();
  EXPECT_EQ(r.names(), (std::vector<std::string>{"ccl", "facts", "journald", "kernel_file", "kmsg", "node_sampler",
                                                 "train_logs"}));
  ScratchDir d;
  AgentConfig c;
  c.node = "node-0007";
  c.kernel_log = d / "kern.log";
  c.train_logs = {d / "logs/*.log"};
  c.ccl_socket = "none";
  c.ccl_dir = d / "ccl";
  c.facts = d / "facts.json";
  c.roots = {d / "proc", d / "sys", d.path()};
  c.nvml_library = "libnvidia-ml-absent.so.1";
  AgentCounters counters;
  EventOutput out(&counters);
  AgentState state;
  VirtualLines kernel(d / "lines-kernel"), train(d / "lines-train");
  SourceContext ctx{&c, testing::BuiltinRules(), &out, &counters, &state, &kernel, &train};
  SourceList list;
  ASSERT_TRUE(list.Build(r, SourceNamesFor(c), ctx).ok());
  std::vector<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) names.push_back(list[i].name());
  EXPECT_EQ(names, SourceNamesFor(c));
  for (size_t i = 0; i < list.size(); ++i) EXPECT_EQ(list[i].fd(), -1) << list[i].name();  // nothing opened yet

  SourceList none;
  Status s = none.Build(r, {"node_sampler", "gpu_burn"}, ctx);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("\"gpu_burn\""), std::string::npos) << s.message();
  EXPECT_EQ(none.size(), 0u);  // all or nothing
}

TEST(SourceList, EachSourceReportsItsRunsErrorsAndLastPass) {
  ManualClockEnv clock(1796000000);
  SourceList list(&clock);
  list.Add(std::make_unique<FakeSource>("kmsg", &clock, 0.25, /*fail_every=*/2));
  list.Add(std::make_unique<FakeSource>("facts", &clock, 0.5));
  const SourceTick tick{1, 1, false};
  EXPECT_FALSE(list.Poll(0, tick).failed);
  EXPECT_TRUE(list.Poll(0, tick).failed);
  EXPECT_FALSE(list.Poll(0, tick).failed);
  list.OnReadable(1, 1);  // costs nothing: the fake reads nothing
  list.Poll(1, tick);
  EXPECT_EQ(list.stats(0).runs.load(), 3u);
  EXPECT_EQ(list.stats(0).errors.load(), 1u);
  EXPECT_DOUBLE_EQ(list.stats(0).last_run_s.load(), 0.25);
  EXPECT_EQ(list.stats(1).runs.load(), 2u);
  EXPECT_DOUBLE_EQ(list.stats(1).last_run_s.load(), 0.5);

  PromText p;
  list.Render(&p);
  auto e = Exposition::Parse(p.str());
  ASSERT_EQ(e.error, "") << p.str();
  EXPECT_EQ(e.type["aegis_agent_source_runs_total"], "counter");
  EXPECT_EQ(e.type["aegis_agent_source_errors_total"], "counter");
  EXPECT_EQ(e.type["aegis_agent_source_last_run_seconds"], "gauge");
  EXPECT_EQ(e.samples["aegis_agent_source_runs_total{source=\"kmsg\"}"], 3);
  EXPECT_EQ(e.samples["aegis_agent_source_errors_total{source=\"kmsg\"}"], 1);
  EXPECT_EQ(e.samples["aegis_agent_source_last_run_seconds{source=\"kmsg\"}"], 0.25);
  EXPECT_EQ(e.samples["aegis_agent_source_runs_total{source=\"facts\"}"], 2);
  EXPECT_EQ(e.samples["aegis_agent_source_errors_total{source=\"facts\"}"], 0);
  EXPECT_EQ(e.samples["aegis_agent_source_last_run_seconds{source=\"facts\"}"], 0.5);
  EXPECT_EQ(e.samples["fake_kmsg_things"], 7);  // the sources' own families follow
  EXPECT_EQ(e.samples["fake_facts_things"], 7);
}

}  // namespace
}  // namespace aegis::agent
