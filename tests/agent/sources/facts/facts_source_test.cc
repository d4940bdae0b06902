// The "facts" adapter (facts_source.cc) as the loop drives it, built through the registry:
// read every facts_s, shipped when they changed, a file that cannot be used a failed pass.
#include <gtest/gtest.h>

#include "sources/source_harness.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ScratchDir;
using testing::WriteFile;

TEST(FactsInput, ShipsAFactsFileWhenItChangesAndFailsOnABrokenOne) {
  ScratchDir d;
  testing::SourceHarness h(d);
  h.config.facts = d / "facts.json";
  h.config.facts_s = 60;
  h.config.nvml_library = "libnvidia-ml-absent.so.1";
  WriteFile(d / "facts.json", R"({"nccl_version": "2.21.5", "mtu": 4096})");
  auto s = h.Create("facts");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->due(), 0);  // at once
  EXPECT_FALSE(s->Poll({0, 1000, false}).failed);
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["type"], "facts");
  EXPECT_EQ(evs[0]["node"], "node-0007");
  const std::string first_id = evs[0]["id"];
  EXPECT_EQ(first_id.rfind("node-0007:facts:", 0), 0u) << first_id;
  EXPECT_EQ(s->due(), 60);

  WriteFile(d / "facts.json", R"({"nccl_version": "2.21.5", "mtu": 1500})");
  s->Poll({30, 1030, true});  // not due, even on a flush: facts have their own period
  EXPECT_TRUE(h.Take().empty());
  s->Poll({60, 1060, false});
  evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_NE(evs[0]["id"], first_id);
  s->Poll({120, 1120, false});  // unchanged: nothing shipped
  EXPECT_TRUE(h.Take().empty());

  WriteFile(d / "facts.json", "[1, 2]");
  EXPECT_TRUE(s->Poll({180, 1180, false}).failed);
  // Nested deeper than the controller takes (it would refuse the batch, which the sender
  // never drops): not shipped.
  WriteFile(d / "facts.json", R"({"x": )" + std::string(100, '[') + std::string(100, ']') + "}");
  EXPECT_TRUE(s->Poll({240, 1240, false}).failed);
  ::unlink((d / "facts.json").c_str());
  EXPECT_TRUE(s->Poll({300, 1300, false}).failed);
  EXPECT_TRUE(h.Take().empty());
}

}  // namespace
}  // namespace aegis::agent
