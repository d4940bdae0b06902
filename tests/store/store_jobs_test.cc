// Jobs (the newest update wins, whatever order updates arrive in) and the topology.
#include "store_fixture.h"

namespace aegis::store::test {
namespace {

class JobsTest : public StoreTest {};

JobRecord MakeJob(const std::string& id, JobState state, double updated_at) {
  JobRecord j;
  j.id = id;
  j.state = state;
  j.body = R"({"job":")" + id + R"(","hosts":["node-1","node-2"]})";
  j.started_at = 100;
  j.updated_at = updated_at;
  return j;
}

TEST_P(JobsTest, TheNewestUpdateOfAJobWins) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  bool applied = false;
  ASSERT_TRUE(store->PutJob(MakeJob("job-1", JobState::kRunning, 10), &applied).ok());
  EXPECT_TRUE(applied);
  JobRecord failed = MakeJob("job-1", JobState::kFailed, 20);
  failed.ended_at = 19.5;
  ASSERT_TRUE(store->PutJob(failed, &applied).ok());
  EXPECT_TRUE(applied);
  // A late, older update (a resent batch) changes nothing.
  ASSERT_TRUE(store->PutJob(MakeJob("job-1", JobState::kRunning, 15), &applied).ok());
  EXPECT_FALSE(applied);

  JobRecord got;
  ASSERT_TRUE(store->GetJob("job-1", &got).ok());
  EXPECT_EQ(got.state, JobState::kFailed);
  EXPECT_EQ(got.body, failed.body);
  EXPECT_EQ(got.started_at, 100);
  EXPECT_EQ(got.ended_at, 19.5);
  EXPECT_EQ(got.updated_at, 20);
  EXPECT_TRUE(store->GetJob("job-2", &got).IsNotFound());
}

TEST_P(JobsTest, JobsAreListedByState) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  bool applied = false;
  ASSERT_TRUE(store->PutJob(MakeJob("b", JobState::kRunning, 1), &applied).ok());
  ASSERT_TRUE(store->PutJob(MakeJob("a", JobState::kRunning, 1), &applied).ok());
  ASSERT_TRUE(store->PutJob(MakeJob("c", JobState::kHung, 1), &applied).ok());
  std::vector<JobRecord> jobs;
  ASSERT_TRUE(store->ListJobs(JobState::kRunning, &jobs).ok());
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "a");
  EXPECT_EQ(jobs[1].id, "b");
  ASSERT_TRUE(store->ListJobs(std::nullopt, &jobs).ok());
  EXPECT_EQ(jobs.size(), 3u);
}

TEST_P(JobsTest, InvalidJobsAreRefused) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  bool applied = true;
  JobRecord j = MakeJob("j", JobState::kRunning, 1);
  j.body = "not json";
  EXPECT_TRUE(store->PutJob(j, &applied).IsInvalidArgument());
  EXPECT_FALSE(applied);
  j = MakeJob("j", JobState::kRunning, NAN);  // the update time orders updates: required
  EXPECT_TRUE(store->PutJob(j, &applied).IsInvalidArgument());
  JobRecord got;
  EXPECT_TRUE(store->GetJob("j", &got).IsNotFound());
}

TEST_P(JobsTest, TheTopologyIsOneDocument) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  std::string json;
  double at = 0;
  EXPECT_TRUE(store->GetTopology(&json, &at).IsNotFound());
  ASSERT_TRUE(store->PutTopology(R"({"nodes":[{"host":"node-1"}]})", 10).ok());
  ASSERT_TRUE(store->PutTopology(R"({"nodes":[{"host":"node-1"},{"host":"node-2"}]})", 20).ok());
  ASSERT_TRUE(store->GetTopology(&json, &at).ok());
  EXPECT_EQ(json, R"({"nodes":[{"host":"node-1"},{"host":"node-2"}]})");
  EXPECT_EQ(at, 20);
  EXPECT_TRUE(store->PutTopology("{", 30).IsInvalidArgument());
  ASSERT_TRUE(store->GetTopology(&json, &at).ok());
  EXPECT_EQ(at, 20);
}

INSTANTIATE_TEST_SUITE_P(Backends, JobsTest, ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

}  // namespace
}  // namespace aegis::store::test
