// EventPool: owner pops and pushes, records handed back by other threads, growth by
// blocks up to the cap, and what a record carries from its block.
#include "probe/event_pool.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

namespace aegis::probe {
namespace {

TEST(EventPool, OwnerReusesWhatItPushed) {
  EventPool pool(1000);
  Event* a = pool.Pop(nullptr);
  ASSERT_NE(a, nullptr);
  const uint32_t gen = a->generation.load();
  a->type.store(8);
  pool.PushLocal(a);
  EXPECT_EQ(a->type.load(), 0);               // free
  EXPECT_EQ(a->generation.load(), gen + 1);   // a stale parent handle no longer matches
  EXPECT_EQ(pool.Pop(nullptr), a);            // last in, first out: warm in cache
  EXPECT_EQ(pool.allocated(), EventPool::kBlock);
}

TEST(EventPool, RecordsFromOtherThreadsComeBack) {
  EventPool pool(EventPool::kBlock);
  std::vector<Event*> all;
  for (uint32_t i = 0; i < EventPool::kBlock; ++i) all.push_back(pool.Pop(nullptr));
  EXPECT_EQ(pool.Pop(nullptr), nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t); i < all.size(); i += 4) pool.PushRemote(all[i]);
    });
  for (auto& t : threads) t.join();
  std::set<Event*> again;
  while (Event* e = pool.Pop(nullptr)) again.insert(e);
  EXPECT_EQ(again, std::set<Event*>(all.begin(), all.end()));
}

TEST(EventPool, GrowsByBlocksUpToItsCap) {
  EventPool pool(600);
  int n = 0;
  while (pool.Pop(nullptr)) ++n;
  EXPECT_EQ(n, 600);
  EXPECT_EQ(pool.allocated(), 600u);
  EXPECT_EQ(pool.exhausted(), 1u);
  EXPECT_EQ(pool.Pop(nullptr), nullptr);
  EXPECT_EQ(pool.exhausted(), 2u);
}

TEST(EventPool, RecordsKnowTheirLaneAndStepsTheirOp) {
  EventPool pool(10);
  auto* lane = reinterpret_cast<Lane*>(0x1000);  // only stored, never followed here
  Event* e = pool.Pop(lane);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->lane, lane);
  for (const StepRec& s : e->steps) {
    EXPECT_EQ(s.op, e);
    EXPECT_EQ(s.type.load(), 0);
  }
}

}  // namespace
}  // namespace aegis::probe
