// CommState: the snapshot line keeps format v1 byte for byte (docs/formats.md; the engine
// reads it), lanes of several threads add up, a lane left by an exited thread is taken
// over (and its ops no longer name that thread as their owner), a communicator whose rank
// count NCCL does not give takes any peer, and every slot times its next request after a
// snapshot.
#include "probe/comm_state.h"

#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <thread>
#include <vector>

#include "probe/clock.h"

namespace aegis::probe {
namespace {

class CommStateTest : public ::testing::Test {
 protected:
  CommState& Make(int nranks, bool known = true) {
    CommInfo info;
    info.comm_hash = 0xab;
    info.comm_name = "dp \"x\"";
    info.nranks = nranks;
    info.nnodes = 2;
    info.rank = 1;
    info.api = 5;
    state_ = std::make_unique<CommState>(info, known);
    return *state_;
  }
  // The thread's lane cache must not outlive the state (the plugin never frees one).
  void TearDown() override {
    ReleaseThreadLanes();
    state_.reset();
  }
  std::unique_ptr<CommState> state_;
};

TEST_F(CommStateTest, SnapshotKeepsFormatV1) {
  CommState& c = Make(4);
  Lane* lane = c.LaneHere();
  ASSERT_NE(lane, nullptr);
  lane->CollLaunched(FuncIndex("AllReduce"), 2);
  RecentColl r;
  r.func = FuncIndex("AllReduce");
  r.seq = 1;
  r.bytes = 10;
  r.start_ns = NowNs();
  r.done_ns = r.start_ns + 5000;
  r.td_us = 5.0;
  lane->CollCompleted(r);
  PeerSlot* s = lane->peers.Get(2, 0);
  ASSERT_NE(s, nullptr);
  OwnerAdd(s->posted, 5);
  OwnerAdd(s->completed, 4);
  OwnerAdd(s->bytes, 400);
  const std::string line = c.Snapshot("node\"1", 123);
  const std::regex format(
      R"re(\{"v": 1, "ts": \d+\.\d{3}, "host": "node\\"1", "pid": 123, "gpu": null, "comm": "00000000000000ab", )re"
      R"re("comm_name": "dp \\"x\\"", "nranks": 4, "nnodes": 2, "rank": 1, )re"
      R"re("coll": \{"AllReduce": \{"launched": 3, "completed": 2\}\}, )re"
      R"re("net": \[\{"peer": 2, "dir": "send", "posted": 5, "completed": 4, "bytes": 400\}\], )re"
      R"re("recent": \[\{"func": "AllReduce", "seq": 1, "bytes": 10, "start_ts": \d+\.\d{6}, "td_us": 5\.000\}\], "api": 5\})re");
  EXPECT_TRUE(std::regex_match(line, format)) << line;
}

TEST_F(CommStateTest, TimedRequestsGiveThroughputAndTimes) {
  CommState& c = Make(4);
  PeerSlot* s = c.LaneHere()->peers.Get(3, 1);
  OwnerAdd(s->posted, 1);
  OwnerAdd(s->completed, 1);
  OwnerAdd(s->bytes, 1000000);
  const uint64_t t = Ticks();
  s->last_post.store(t - 1);
  s->last_done.store(t);
  s->ring_bytes[0].store(1000000);
  s->ring_span[0].store(1);  // one tick: a huge rate, but a rate
  s->ring_done[0].store(t);
  const std::string line = c.Snapshot("h", 1);
  const std::regex net(
      R"re(.*"net": \[\{"peer": 3, "dir": "recv", "posted": 1, "completed": 1, "bytes": 1000000, )re"
      R"re("recent_gbps": \d+\.\d{3}, "last_post_ts": \d+\.\d{6}, "last_done_ts": \d+\.\d{6}\}\].*)re");
  EXPECT_TRUE(std::regex_match(line, net)) << line;
}

TEST_F(CommStateTest, LanesOfSeveralThreadsAddUp) {
  CommState& c = Make(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Lane* lane = c.LaneHere();
      EXPECT_EQ(c.LaneHere(), lane);  // cached
      lane->CollLaunched(0, static_cast<uint64_t>(t));
      PeerSlot* s = lane->peers.Get(5, 0);
      for (int i = 0; i < 1000; ++i) {
        OwnerAdd(s->posted, 1);
        OwnerAdd(s->completed, 1);
        OwnerAdd(s->bytes, 3);
      }
    });
  for (auto& t : threads) t.join();
  const std::string line = c.Snapshot("h", 1);
  EXPECT_NE(line.find(R"("AllReduce": {"launched": 4, "completed": 0})"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("peer": 5, "dir": "send", "posted": 4000, "completed": 4000, "bytes": 12000)"), std::string::npos)
      << line;
}

TEST_F(CommStateTest, LiveThreadsGetLanesOfTheirOwn) {
  CommState& c = Make(8);
  Lane* mine = c.LaneHere();
  Lane* other = nullptr;
  std::thread([&] { other = c.LaneHere(); }).join();
  EXPECT_NE(other, mine);  // this thread still holds its lane
  Lane* third = nullptr;
  std::thread([&] { third = c.LaneHere(); }).join();
  EXPECT_EQ(third, other);  // the exited thread's lane was taken over
}

// A thread that gives its lanes up (at exit) clears its token from the ops it started: a
// later thread with the same control block address must not count into them directly.
TEST_F(CommStateTest, GivingLanesUpDisownsTheThreadsOps) {
  CommState& c = Make(8);
  Event* live = nullptr;
  Event* other = nullptr;
  std::thread([&] {
    Lane* lane = c.LaneHere();
    live = lane->pool.Pop(lane);
    other = lane->pool.Pop(lane);
    ASSERT_NE(live, nullptr);
    live->owner.store(ThreadToken());
    other->owner.store(ThreadToken() + 64);  // not this thread's: left alone
    EXPECT_EQ(live->owner.load(), ThreadToken());
  }).join();
  EXPECT_EQ(live->owner.load(), 0u);
  EXPECT_NE(other->owner.load(), 0u);

  Lane* lane = c.LaneHere();
  Event* mine = lane->pool.Pop(lane);
  mine->owner.store(ThreadToken());
  ReleaseThreadLanes();  // the same thread, as at its exit
  EXPECT_EQ(mine->owner.load(), 0u);
}

TEST_F(CommStateTest, EverySlotTimesItsNextRequestAfterASnapshot) {
  CommState& c = Make(200);
  Lane* lane = c.LaneHere();
  PeerSlot* near = lane->peers.Get(1, 0);
  PeerSlot* far = lane->peers.Get(150, 1);  // another block
  near->next_timed.store(kTimeEvery);
  far->next_timed.store(5 * kTimeEvery);
  std::thread([&] { c.LaneHere()->peers.Get(2, 0)->next_timed.store(kTimeEvery); }).join();  // another lane
  c.RestartSampling();
  EXPECT_EQ(near->next_timed.load(), 0u);
  EXPECT_EQ(far->next_timed.load(), 0u);
  std::thread([&] { EXPECT_EQ(c.LaneHere()->peers.Get(2, 0)->next_timed.load(), 0u); }).join();
}

TEST_F(CommStateTest, UnknownRankCountTakesAnyPeer) {
  CommState& c = Make(0, false);
  EXPECT_FALSE(c.identity_known());
  c.LearnIdentity(0x77, "tp", 3);
  c.LearnIdentity(0x88, "other", 4);  // the first descriptor wins
  EXPECT_TRUE(c.identity_known());
  EXPECT_EQ(c.info().comm_hash, 0x77u);
  EXPECT_EQ(c.info().rank, 3);
  Lane* lane = c.LaneHere();
  EXPECT_NE(lane->peers.Get(100000, 1), nullptr);
  EXPECT_EQ(lane->peers.Get(kMaxPeers, 0), nullptr);
  EXPECT_EQ(lane->peers.Get(-1, 0), nullptr);
  OwnerAdd(lane->peers.Get(100000, 1)->posted, 1);
  EXPECT_NE(c.Snapshot("h", 1).find(R"("peer": 100000, "dir": "recv", "posted": 1)"), std::string::npos);
}

TEST_F(CommStateTest, KnownRankCountBoundsPeers) {
  CommState& c = Make(16);
  EXPECT_NE(c.LaneHere()->peers.Get(15, 0), nullptr);
  EXPECT_EQ(c.LaneHere()->peers.Get(16, 0), nullptr);
}

}  // namespace
}  // namespace aegis::probe
