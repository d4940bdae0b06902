// EventPool: owner pops and pushes, records handed back by other threads, growth by
// blocks up to the cap, what a record carries from its block, and where a step's fast
// path finds what it reads.
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

TEST(EventPool, ARecycledRecordIsNoOnesOp) {
  EventPool pool(10);
  Event* e = pool.Pop(nullptr);
  e->type.store(8);
  e->owner.store(0x1234);
  pool.PushLocal(e);
  EXPECT_EQ(e->owner.load(), 0u);
  e = pool.Pop(nullptr);
  e->owner.store(0x1234);
  std::thread([&] { pool.PushRemote(e); }).join();
  EXPECT_EQ(e->owner.load(), 0u);
}

TEST(EventPool, VisitsEveryRecordAllocated) {
  EventPool pool(EventPool::kBlock + 10);
  std::set<Event*> popped;
  for (uint32_t i = 0; i < EventPool::kBlock + 10; ++i) popped.insert(pool.Pop(nullptr));
  std::set<Event*> seen;
  pool.ForEach([&](Event& e) { seen.insert(&e); });
  EXPECT_EQ(seen, popped);
}

// What a step's start, states and stop read of its op is in the op's first cache line;
// a step is 32 bytes, two to a line, and its slot is a mask of the step number.
TEST(EventPool, AStepsFastPathReadsOneLineOfItsOp) {
  EventPool pool(10);
  Event* e = pool.Pop(nullptr);
  auto offset = [e](const void* field) { return reinterpret_cast<const char*>(field) - reinterpret_cast<const char*>(e); };
  EXPECT_EQ(reinterpret_cast<uintptr_t>(e) % 64, 0u);
  EXPECT_LT(offset(&e->owner), 64);
  EXPECT_LT(offset(&e->slot), 64);
  EXPECT_LT(offset(&e->bytes), 64);
  EXPECT_LT(offset(&e->type), 64);
  EXPECT_EQ(offset(&e->steps[0]) % 64, 0);
  EXPECT_EQ(sizeof(StepRec), 32u);
  EXPECT_EQ(offset(&e->steps[3]) - offset(&e->steps[0]), 3 * 32);
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
