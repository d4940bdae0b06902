// A verdict that rests only on lines the program-agnostic catch-alls classified
// (rules/logs/generic.yaml: "out of memory", "connection refused" in a program no rule
// knows) is held at low confidence; one that a program's own rule supports is not, and a
// catch-all's line never outranks a known one.
#include <gtest/gtest.h>

#include "engine/incident_fixture.h"

namespace aegis {
namespace {

TEST(CatchAllEvidence, AVerdictOnCatchAllLinesAloneIsLowConfidence) {
  test::IncidentFixture f(4);
  f.Train(2, "[2026-11-30 10:06:00,000] shardreader: out of memory while decoding shard 117\n");
  const Verdict v = f.Decide();
  ASSERT_EQ(v.cause, Cause::kUser) << v.summary;
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_EQ(v.evidence.front().rule, "generic-out-of-memory");
  EXPECT_EQ(v.confidence.level, Strength::kLow);
  EXPECT_LE(v.confidence.score, 0.4);
  EXPECT_NE(v.confidence.basis.find("catch-all"), std::string::npos) << v.confidence.basis;
}

TEST(CatchAllEvidence, AProgramsOwnRuleKeepsItsConfidence) {
  test::IncidentFixture f(4);
  f.Train(2, "[2026-11-30 10:06:00,000] step 9\n"
             "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a total "
             "capacity of 23.65 GiB of which 11.06 MiB is free.\n");
  const Verdict v = f.Decide();
  ASSERT_EQ(v.cause, Cause::kUser) << v.summary;
  EXPECT_NE(v.evidence.front().rule.rfind("generic-", 0), 0u) << v.evidence.front().rule;
  EXPECT_EQ(v.confidence.basis.find("catch-all"), std::string::npos) << v.confidence.basis;
  EXPECT_GT(v.confidence.score, 0.4);
}

// A catch-all's line never outranks a message someone has read, even when it came first:
// a "Permission denied" from an unknown helper script before the job's own exception.
TEST(CatchAllEvidence, ACatchAllLineThatCameFirstDoesNotOutrankAKnownOne) {
  test::IncidentFixture f(4);
  f.Train(1, "[2026-11-30 10:04:00,000] warmcache.sh: /scratch/cache/index: Permission denied\n");
  f.Train(3, "[2026-11-30 10:06:00,000] step 9\n[rank2]:KeyError: 'labels'\n");
  const Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kUserError) << v.summary;
  EXPECT_TRUE(v.repair.empty());
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_EQ(v.evidence.front().host, "node-3");
  EXPECT_NE(v.confidence.level, Strength::kLow);
}

}  // namespace
}  // namespace aegis
