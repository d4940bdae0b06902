// Durability: a controller killed while appending loses nothing it was told was committed,
// and no batch is ever half there.
#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "child_process.h"
#include "store_child.h"
#include "store_fixture.h"

namespace aegis::store::test {
namespace {

class DurabilityTest : public StoreTest {};

TEST_P(DurabilityTest, AnAppenderKilledAtAnyMomentLosesNoCommittedBatch) {
  std::mt19937 rng(20261130);
  for (int round = 0; round < 3; ++round) {
    std::string prefix(1, 'r');
    prefix += std::to_string(round);
    ChildProcess child;
    ASSERT_TRUE(child.Start({ChildProgram(), "append", url(), prefix}));
    // Let it commit a few batches, then kill it a random moment later: most likely in
    // the middle of a transaction, since it spends most of its time in one.
    int last_committed = -1;
    std::string line;
    const int wanted = 3 + 5 * round;
    while (last_committed < wanted) {
      ASSERT_TRUE(child.ReadLine(&line, std::chrono::seconds(60))) << "the appender stopped: " << line;
      ASSERT_EQ(line.rfind("committed ", 0), 0u) << line;
      last_committed = std::stoi(line.substr(10));
    }
    // Real time by design: the child is killed at a random moment of its work.
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 20000)(rng)));
    child.Kill(SIGKILL);
    // Lines written before the kill are still in the pipe.
    while (child.ReadLine(&line, std::chrono::seconds(5))) {
      ASSERT_EQ(line.rfind("committed ", 0), 0u) << line;
      last_committed = std::stoi(line.substr(10));
    }
    child.Wait();

    auto store = OpenStore();  // reopened after the crash, as a restarted controller would
    ASSERT_TRUE(store);
    std::map<int, int> per_batch;
    std::vector<Event> page;
    for (int64_t after = 0;;) {
      ASSERT_TRUE(store->EventsAfter(after, 5000, &page).ok());
      if (page.empty()) break;
      for (const Event& e : page) {
        after = e.seq;
        if (e.id.rfind(prefix + "-", 0) == 0) ++per_batch[std::stoi(e.id.substr(prefix.size() + 1))];
      }
    }
    for (int b = 0; b <= last_committed; ++b) EXPECT_EQ(per_batch[b], 100) << "round " << round << " batch " << b;
    // The batch in flight at the kill is either all there (committed, not yet reported)
    // or not at all; none beyond it.
    for (const auto& [b, n] : per_batch) {
      EXPECT_LE(b, last_committed + 1) << "round " << round;
      EXPECT_EQ(n, 100) << "round " << round << " batch " << b << " is partly there";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DurabilityTest, ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         BackendName);

}  // namespace
}  // namespace aegis::store::test
