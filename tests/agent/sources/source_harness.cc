#include "sources/source_harness.h"

#include <gtest/gtest.h>

#include "agent/source_registry.h"

namespace aegis::agent::testing {

SourceHarness::SourceHarness(const ScratchDir& dir)
    : kernel_lines(dir / "lines-kernel"), train_lines(dir / "lines-train") {
  config.node = "node-0007";
  EXPECT_TRUE(kernel_lines.Load().ok());
  EXPECT_TRUE(train_lines.Load().ok());
}

std::unique_ptr<Source> SourceHarness::Create(const std::string& name) {
  const SourceContext ctx{&config, BuiltinRules(), &out, &counters, &state, &kernel_lines, &train_lines};
  std::unique_ptr<Source> s;
  const Status st = SourceRegistry::Builtin().Create(name, ctx, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

std::vector<nlohmann::json> SourceHarness::Take() {
  std::vector<nlohmann::json> evs;
  for (const auto& e : out.events()) evs.push_back(nlohmann::json::parse(e));
  out.Queued();
  return evs;
}

}  // namespace aegis::agent::testing
