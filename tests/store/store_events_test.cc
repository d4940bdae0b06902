// Events: idempotent batches, seq order, ranges by host and time, retention.
#include <atomic>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

#include "store_fixture.h"

namespace aegis::store::test {
namespace {

class EventsTest : public StoreTest {};

std::vector<Event> Batch(const std::string& prefix, int n, const std::string& node = "node-1", double t0 = 1000) {
  std::vector<Event> batch;
  for (int i = 0; i < n; ++i) batch.push_back(MakeEvent(prefix + std::to_string(i), node, t0 + i));
  return batch;
}

std::vector<Event> ReadAll(Store& store) {
  std::vector<Event> all, page;
  int64_t after = 0;
  do {
    Status st = store.EventsAfter(after, 1000, &page);
    EXPECT_TRUE(st.ok()) << st.ToString();
    for (Event& e : page) {
      after = e.seq;
      all.push_back(std::move(e));
    }
  } while (!page.empty());
  return all;
}

TEST_P(EventsTest, AppendingTheSameBatchTwiceStoresItOnce) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  const std::vector<Event> batch = Batch("e", 50);
  AppendResult r;
  ASSERT_TRUE(store->AppendEvents(batch, &r).ok());
  EXPECT_EQ(r.added, 50u);
  EXPECT_EQ(r.duplicates, 0u);
  EXPECT_TRUE(r.rejected.empty());
  ASSERT_TRUE(store->AppendEvents(batch, &r).ok());
  EXPECT_EQ(r.added, 0u);
  EXPECT_EQ(r.duplicates, 50u);

  const std::vector<Event> all = ReadAll(*store);
  ASSERT_EQ(all.size(), 50u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].id, batch[i].id);
}

TEST_P(EventsTest, AnIdRepeatedWithinABatchIsStoredOnce) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  std::vector<Event> batch{MakeEvent("a", "n", 1), MakeEvent("b", "n", 2), MakeEvent("a", "n", 3)};
  AppendResult r;
  ASSERT_TRUE(store->AppendEvents(batch, &r).ok());
  EXPECT_EQ(r.added, 2u);
  EXPECT_EQ(r.duplicates, 1u);
  const std::vector<Event> all = ReadAll(*store);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].at, 1);  // the first one of the batch is the one kept
}

TEST_P(EventsTest, EventsComeBackExactlyAsStored) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  Event known = MakeEvent("known", "node-\xC3\xA9", 1764500123.456789, wire::EventType::kCcl);
  known.received_at = 1764500124.000001;
  known.body = R"({"nested":{"a":[1,2.5,"\u00e9"]},"s":"tab\there"})";
  Event unknown = MakeEvent("unknown-time", "node-2", NAN, wire::EventType::kFacts);
  unknown.received_at = 1764500200.25;
  AppendResult r;
  ASSERT_TRUE(store->AppendEvents(std::vector<Event>{known, unknown}, &r).ok());
  ASSERT_EQ(r.added, 2u);

  const std::vector<Event> all = ReadAll(*store);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, known.id);
  EXPECT_EQ(all[0].node, known.node);
  EXPECT_EQ(all[0].type, wire::EventType::kCcl);
  EXPECT_EQ(all[0].at, known.at);
  EXPECT_EQ(all[0].received_at, known.received_at);
  EXPECT_EQ(all[0].body, known.body);
  EXPECT_GT(all[0].seq, 0);
  EXPECT_TRUE(std::isnan(all[1].at));
  EXPECT_EQ(all[1].received_at, 1764500200.25);
  EXPECT_GT(all[1].seq, all[0].seq);
}

TEST_P(EventsTest, ReceivedAtDefaultsToTheStoresClock) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  Event e = MakeEvent("e", "n", 5);
  e.received_at = NAN;
  AppendResult r;
  const auto now = [] {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  const double before = now();
  ASSERT_TRUE(store->AppendEvents(std::vector<Event>{e}, &r).ok());
  const std::vector<Event> all = ReadAll(*store);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_GE(all[0].received_at, before - 1);
  EXPECT_LE(all[0].received_at, now() + 1);
}

TEST_P(EventsTest, InvalidEventsAreRejectedAndTheRestStored) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  std::vector<Event> batch{MakeEvent("ok-1", "n", 1)};
  batch.push_back(MakeEvent("bad-body", "n", 1));
  batch.back().body = "{not json";
  batch.push_back(MakeEvent("", "n", 1));
  batch.push_back(MakeEvent("bad-node", std::string("n\xFF", 2), 1));
  batch.push_back(MakeEvent("bad-type", "n", 1, static_cast<wire::EventType>(99)));
  batch.push_back(MakeEvent("bad-time", "n", INFINITY));
  batch.push_back(MakeEvent("big", "n", 1));
  batch.back().body = "\"" + std::string(17 << 20, 'x') + "\"";
  batch.push_back(MakeEvent("ok-2", "n", 2));
  AppendResult r;
  ASSERT_TRUE(store->AppendEvents(batch, &r).ok());
  EXPECT_EQ(r.added, 2u);
  ASSERT_EQ(r.rejected.size(), 6u);
  for (size_t k = 0; k < r.rejected.size(); ++k) EXPECT_EQ(r.rejected[k].index, k + 1);
  EXPECT_TRUE(r.rejected[0].why.IsInvalidArgument());
  EXPECT_NE(r.rejected[0].why.message().find("bad-body"), std::string::npos) << r.rejected[0].why.ToString();
  EXPECT_EQ(r.rejected[5].why.code(), Status::Code::kResourceExhausted);
  const std::vector<Event> all = ReadAll(*store);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, "ok-1");
  EXPECT_EQ(all[1].id, "ok-2");
}

// A row of a type this build does not know (a newer release's, in a shared database) is
// passed over by both reads, and reading goes on past it.
TEST_P(EventsTest, RowsOfAnUnknownTypeArePassedOver) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  AppendResult r;
  std::vector<Event> batch{MakeEvent("a", "n", 100), MakeEvent("b", "n", 101), MakeEvent("c", "n", 102)};
  ASSERT_TRUE(store->AppendEvents(batch, &r).ok());
  ASSERT_TRUE(RunRawSql(url(), "UPDATE events SET type = 'gpu_trace' WHERE id = 'b'").ok());
  std::vector<Event> got;
  ASSERT_TRUE(store->EventsAfter(0, 1, &got).ok());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, "a");
  ASSERT_TRUE(store->EventsAfter(got[0].seq, 1, &got).ok());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, "c");
  EventRange range;
  ASSERT_TRUE(store->EventsInRange(range, &got).ok());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].id, "c");
}

TEST_P(EventsTest, EventsAfterResumesInAppendOrder) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  AppendResult r;
  // Event times deliberately out of order: seq follows appending, not event time.
  ASSERT_TRUE(store->AppendEvents(Batch("a", 10, "n", 500), &r).ok());
  ASSERT_TRUE(store->AppendEvents(Batch("b", 10, "n", 100), &r).ok());
  ASSERT_TRUE(store->AppendEvents(Batch("c", 10, "n", 300), &r).ok());

  std::vector<Event> first;
  ASSERT_TRUE(store->EventsAfter(0, 15, &first).ok());
  ASSERT_EQ(first.size(), 15u);
  EXPECT_EQ(first[0].id, "a0");
  EXPECT_EQ(first[14].id, "b4");
  for (size_t i = 1; i < first.size(); ++i) EXPECT_GT(first[i].seq, first[i - 1].seq);

  std::vector<Event> rest;
  ASSERT_TRUE(store->EventsAfter(first.back().seq, 100, &rest).ok());
  ASSERT_EQ(rest.size(), 15u);
  EXPECT_EQ(rest[0].id, "b5");
  EXPECT_EQ(rest.back().id, "c9");
  ASSERT_TRUE(store->EventsAfter(rest.back().seq, 100, &rest).ok());
  EXPECT_TRUE(rest.empty());
}

TEST_P(EventsTest, RangesSelectHostsTimesAndTypes) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  std::vector<Event> batch;
  for (const char* node : {"node-a", "node-b", "node-c"})
    for (int t = 100; t <= 200; t += 10) batch.push_back(MakeEvent(std::string(node) + "-" + std::to_string(t), node, t));
  batch.push_back(MakeEvent("node-a-ccl-140", "node-a", 140, wire::EventType::kCcl));
  Event undated = MakeEvent("node-c-undated", "node-c", NAN);
  undated.received_at = 135;  // ranges use received_at when the event time is unknown
  batch.push_back(undated);
  AppendResult r;
  ASSERT_TRUE(store->AppendEvents(batch, &r).ok());
  ASSERT_EQ(r.added, batch.size());

  EventRange range;
  range.hosts = {"node-a", "node-c"};
  range.from = 120;
  range.to = 150;
  std::vector<Event> got;
  ASSERT_TRUE(store->EventsInRange(range, &got).ok());
  std::vector<std::string> ids;
  for (const Event& e : got) ids.push_back(e.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"node-a-120", "node-c-120", "node-a-130", "node-c-130", "node-c-undated",
                                           "node-a-140", "node-c-140", "node-a-ccl-140", "node-a-150", "node-c-150"}));

  range.types = {wire::EventType::kCcl};
  ASSERT_TRUE(store->EventsInRange(range, &got).ok());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, "node-a-ccl-140");

  EventRange everything;  // every host, unbounded times, limited
  everything.limit = 5;
  ASSERT_TRUE(store->EventsInRange(everything, &got).ok());
  ids.clear();
  for (const Event& e : got) ids.push_back(e.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"node-a-100", "node-b-100", "node-c-100", "node-a-110", "node-b-110"}));

  EventRange bad;
  bad.hosts = {std::string("x\0y", 3)};
  EXPECT_TRUE(store->EventsInRange(bad, &got).IsInvalidArgument());
}

TEST_P(EventsTest, RangesArePagedByTimeThenSeq) {
  // Many events at one time, more than a page: a cursor on (time, seq) still moves on.
  auto store = OpenStore();
  ASSERT_TRUE(store);
  std::vector<Event> batch;
  for (int i = 0; i < 7; ++i) batch.push_back(MakeEvent("same-" + std::to_string(i), "n", 100));
  for (int i = 0; i < 3; ++i) batch.push_back(MakeEvent("later-" + std::to_string(i), "n", 101 + i));
  batch.push_back(MakeEvent("other-host", "m", 100));
  AppendResult r;
  ASSERT_TRUE(store->AppendEvents(batch, &r).ok());

  EventRange range;
  range.hosts = {"n"};
  range.limit = 3;
  std::vector<std::string> ids;
  for (int pages = 0; pages < 10; ++pages) {
    std::vector<Event> page;
    ASSERT_TRUE(store->EventsInRange(range, &page).ok());
    for (const Event& e : page) ids.push_back(e.id);
    if (page.size() < range.limit) break;
    range.after_time = RangeTime(page.back());
    range.after_seq = page.back().seq;
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"same-0", "same-1", "same-2", "same-3", "same-4", "same-5", "same-6",
                                           "later-0", "later-1", "later-2"}));
  range.after_time = NAN;
  std::vector<Event> page;
  EXPECT_TRUE(store->EventsInRange(range, &page).IsInvalidArgument());
}

TEST_P(EventsTest, ConcurrentAppendsAreReadWithoutGaps) {
  // Writers on two stores (two controllers' connections) while a reader resumes by seq:
  // the reader must end up with every event exactly once, in increasing seq. An event
  // that became visible behind one already read would be missed for good.
  auto writer_a = OpenStore();
  auto writer_b = OpenStore();
  auto reader = OpenStore();
  ASSERT_TRUE(writer_a && writer_b && reader);
  constexpr int kThreads = 4, kBatches = 30, kPerBatch = 10;
  std::atomic<int> writers_left{kThreads};
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < kThreads; ++w)
    threads.emplace_back([&, w] {
      Store& store = w % 2 ? *writer_b : *writer_a;
      for (int b = 0; b < kBatches; ++b) {
        std::string prefix(1, 'w');  // "w<writer>-<batch>-"
        prefix += std::to_string(w) + "-" + std::to_string(b) + "-";
        AppendResult r;
        if (!store.AppendEvents(Batch(prefix, kPerBatch), &r).ok() || r.added != kPerBatch) failed = true;
      }
      --writers_left;
    });
  std::vector<Event> seen;
  int64_t after = 0;
  for (bool last_pass = false;;) {
    const bool done = writers_left == 0;
    std::vector<Event> page;
    ASSERT_TRUE(reader->EventsAfter(after, 50, &page).ok());
    for (Event& e : page) {
      EXPECT_GT(e.seq, after);
      after = e.seq;
      seen.push_back(std::move(e));
    }
    if (page.empty() && last_pass) break;
    last_pass = page.empty() && done;
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(failed);
  std::set<std::string> ids;
  for (const Event& e : seen) ids.insert(e.id);
  EXPECT_EQ(ids.size(), seen.size()) << "an event was read twice";
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kBatches * kPerBatch)) << "an event was skipped";
}

TEST_P(EventsTest, CallersOfOneStoreCommittedTogetherGetTheirOwnCounts) {
  // Batches appended at once through one store are committed in groups (sql_store.h);
  // each caller still learns what happened to its own batch. Every batch holds 4 events of
  // its own, 4 that every thread sends (one of them stores each, the rest count a
  // duplicate) and one invalid event.
  auto store = OpenStore();
  ASSERT_TRUE(store);
  constexpr int kThreads = 8, kBatches = 25;
  std::atomic<size_t> added{0}, duplicates{0};
  std::atomic<bool> wrong{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int b = 0; b < kBatches; ++b) {
        std::string own(1, 't');
        own += std::to_string(t) + "-" + std::to_string(b) + "-";
        std::string shared(1, 's');
        shared += std::to_string(b) + "-";
        std::vector<Event> batch = Batch(own, 4);
        for (Event& e : Batch(shared, 4)) batch.push_back(std::move(e));
        batch.insert(batch.begin() + 2, MakeEvent("", "node-1", 1000));  // no id
        AppendResult r;
        if (!store->AppendEvents(batch, &r).ok() || r.rejected.size() != 1 || r.rejected[0].index != 2 ||
            r.added + r.duplicates != 8 || r.added < 4)
          wrong = true;
        added += r.added;
        duplicates += r.duplicates;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_FALSE(wrong) << "a caller was told another batch's counts";
  EXPECT_EQ(added.load(), static_cast<size_t>(kThreads * kBatches * 4 + kBatches * 4));
  EXPECT_EQ(duplicates.load(), static_cast<size_t>((kThreads - 1) * kBatches * 4));
  EXPECT_EQ(ReadAll(*store).size(), added.load());
}

TEST_P(EventsTest, PruningDeletesOldEventsAndSeqKeepsGrowing) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  std::vector<Event> batch = Batch("old", 3);
  for (Event& e : batch) e.received_at = 100;
  std::vector<Event> newer = Batch("new", 2);
  for (Event& e : newer) e.received_at = 200;
  AppendResult r;
  ASSERT_TRUE(store->AppendEvents(batch, &r).ok());
  ASSERT_TRUE(store->AppendEvents(newer, &r).ok());
  const int64_t last_seq = ReadAll(*store).back().seq;

  size_t deleted = 0;
  const wire::EventType heartbeats[] = {wire::EventType::kHeartbeat};
  ASSERT_TRUE(store->PruneEvents(150, heartbeats, &deleted).ok());  // of one type only: none of it
  EXPECT_EQ(deleted, 0u);
  const wire::EventType logs[] = {wire::EventType::kHeartbeat, wire::EventType::kLog};
  ASSERT_TRUE(store->PruneEvents(150, logs, &deleted).ok());
  EXPECT_EQ(deleted, 3u);
  ASSERT_TRUE(store->PruneEvents(300, {}, &deleted).ok());  // now every event is gone
  EXPECT_EQ(deleted, 2u);
  EXPECT_TRUE(ReadAll(*store).empty());
  // A reader that had reached last_seq must still see what comes next.
  ASSERT_TRUE(store->AppendEvents(Batch("later", 1), &r).ok());
  std::vector<Event> page;
  ASSERT_TRUE(store->EventsAfter(last_seq, 10, &page).ok());
  ASSERT_EQ(page.size(), 1u);
  EXPECT_EQ(page[0].id, "later0");
}

INSTANTIATE_TEST_SUITE_P(Backends, EventsTest, ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

}  // namespace
}  // namespace aegis::store::test
