// Leadership: one holder at a time; a released or dead holder is replaced within seconds.
#include <chrono>
#include <thread>

#include "child_process.h"
#include "store_child.h"
#include "store_fixture.h"

namespace aegis::store::test {
namespace {

class LeadershipTest : public StoreTest {};

std::unique_ptr<LeaderLock> NewLock(Store& store) {
  std::unique_ptr<LeaderLock> lock;
  Status st = store.NewLeaderLock(&lock);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return lock;
}

bool Acquire(LeaderLock& lock) {
  bool held = false;
  Status st = lock.TryAcquire(&held);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return held;
}

// Tries every 50 ms until it holds the lock or `limit` passed; returns the time it took.
std::chrono::milliseconds AcquireWithin(LeaderLock& lock, std::chrono::seconds limit, bool* held) {
  const auto start = std::chrono::steady_clock::now();
  *held = false;
  while (!*held && std::chrono::steady_clock::now() - start < limit) {
    *held = Acquire(lock);
    if (!*held) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // polling the lock, as a standby does
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

TEST_P(LeadershipTest, OneLeadsTheOtherWaitsAndTakesOverOnRelease) {
  auto first_store = OpenStore();
  auto second_store = OpenStore();
  ASSERT_TRUE(first_store && second_store);
  auto first = NewLock(*first_store);
  auto second = NewLock(*second_store);
  ASSERT_TRUE(first && second);
  EXPECT_FALSE(first->IsHeld());
  ASSERT_TRUE(Acquire(*first));
  EXPECT_TRUE(Acquire(*first));  // again: still held
  EXPECT_TRUE(first->IsHeld());
  EXPECT_FALSE(Acquire(*second));
  EXPECT_FALSE(second->IsHeld());

  first->Release();
  EXPECT_FALSE(first->IsHeld());
  EXPECT_TRUE(Acquire(*second));
  EXPECT_TRUE(second->IsHeld());
  EXPECT_FALSE(Acquire(*first));

  second.reset();  // destroying a lock releases it
  EXPECT_TRUE(Acquire(*first));
}

TEST_P(LeadershipTest, AKilledLeaderIsReplacedWithinSeconds) {
  ChildProcess leader;
  ASSERT_TRUE(leader.Start({ChildProgram(), "lead", url()}));
  std::string line;
  ASSERT_TRUE(leader.ReadLine(&line, std::chrono::seconds(60)));
  ASSERT_EQ(line, "leading");

  auto store = OpenStore();
  ASSERT_TRUE(store);
  auto standby = NewLock(*store);
  ASSERT_TRUE(standby);
  EXPECT_FALSE(Acquire(*standby));

  leader.Kill(SIGKILL);
  leader.Wait();
  bool held = false;
  const auto took = AcquireWithin(*standby, std::chrono::seconds(10), &held);
  ASSERT_TRUE(held) << "the standby never took over";
  EXPECT_LT(took.count(), 5000);
  RecordProperty("takeover_ms", static_cast<int>(took.count()));
}

INSTANTIATE_TEST_SUITE_P(Backends, LeadershipTest, ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         BackendName);

// PostgreSQL only: the server ending the leader's session (as it does for a client whose
// machine stopped answering keepalives) takes leadership away from it.
class PgLeadershipTest : public StoreFixture {
 protected:
  void SetUp() override { Prepare(Backend::kPostgres); }
};

TEST_F(PgLeadershipTest, ALeaderWhoseSessionEndsKnowsItLostTheLead) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  auto leader = NewLock(*store);
  auto standby = NewLock(*store);
  ASSERT_TRUE(leader && standby);
  ASSERT_TRUE(Acquire(*leader));
  ASSERT_FALSE(Acquire(*standby));
  Status st = pg_server()->Admin(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'aegis-leader' "
      "AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)");
  ASSERT_TRUE(st.ok()) << st.ToString();
  bool held = false;
  AcquireWithin(*standby, std::chrono::seconds(10), &held);
  ASSERT_TRUE(held);
  EXPECT_FALSE(leader->IsHeld());
  EXPECT_FALSE(Acquire(*leader));  // reconnects, and finds the lead taken
  standby->Release();
  EXPECT_TRUE(Acquire(*leader));
}

}  // namespace
}  // namespace aegis::store::test
