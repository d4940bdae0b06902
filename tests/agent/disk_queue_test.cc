#include "agent/disk_queue.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ScratchDir;

std::unique_ptr<DiskQueue> OpenQueue(const std::string& dir, DiskQueueOptions o = {}) {
  std::unique_ptr<DiskQueue> q;
  Status s = DiskQueue::Open(dir, o, &q);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return q;
}

std::vector<std::string> PeekAll(DiskQueue* q) {
  std::vector<QueuedRecord> recs;
  EXPECT_TRUE(q->Peek(1u << 30, 1u << 30, &recs).ok());
  std::vector<std::string> out;
  for (auto& r : recs) out.push_back(r.payload);
  return out;
}

std::vector<std::string> Segments(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".seg") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(DiskQueue, PeekDoesNotConsumeAckDoes) {
  ScratchDir d;
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append({"a", "b", "c"}).ok());
  EXPECT_EQ(q->stats().records, 3u);
  std::vector<QueuedRecord> recs;
  ASSERT_TRUE(q->Peek(2, 1 << 20, &recs).ok());
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].payload, "a");
  EXPECT_GT(recs[0].enqueued_ms, 0u);
  EXPECT_EQ(PeekAll(q.get()), (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_TRUE(q->Peek(2, 1 << 20, &recs).ok());
  ASSERT_TRUE(q->Ack(2).ok());
  EXPECT_EQ(q->stats().records, 1u);
  EXPECT_EQ(PeekAll(q.get()), (std::vector<std::string>{"c"}));
}

TEST(DiskQueue, PeekRespectsTheByteBudgetButReturnsOneRecordAtLeast) {
  ScratchDir d;
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append({std::string(100, 'x'), std::string(100, 'y'), "z"}).ok());
  std::vector<QueuedRecord> recs;
  ASSERT_TRUE(q->Peek(10, 150, &recs).ok());
  EXPECT_EQ(recs.size(), 1u);
  ASSERT_TRUE(q->Peek(10, 10, &recs).ok());
  EXPECT_EQ(recs.size(), 1u);  // larger than the budget, still handed out
}

TEST(DiskQueue, AcknowledgedPositionSurvivesReopen) {
  ScratchDir d;
  {
    auto q = OpenQueue(d.path());
    ASSERT_TRUE(q->Append({"1", "2", "3", "4"}).ok());
    std::vector<QueuedRecord> recs;
    ASSERT_TRUE(q->Peek(3, 1 << 20, &recs).ok());
    ASSERT_TRUE(q->Ack(3).ok());
  }
  auto q = OpenQueue(d.path());
  EXPECT_EQ(PeekAll(q.get()), (std::vector<std::string>{"4"}));
  ASSERT_TRUE(q->Append({"5"}).ok());
  EXPECT_EQ(PeekAll(q.get()), (std::vector<std::string>{"4", "5"}));
}

TEST(DiskQueue, DeliveredSegmentsAreDeleted) {
  ScratchDir d;
  DiskQueueOptions o;
  o.sync = false;
  o.max_bytes = 1 << 20;
  o.segment_bytes = 4096;
  auto q = OpenQueue(d.path(), o);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(q->Append({std::string(200, static_cast<char>('a' + i % 26))}).ok());
  EXPECT_GT(Segments(d.path()).size(), 3u);
  std::vector<QueuedRecord> recs;
  ASSERT_TRUE(q->Peek(1000, 1 << 20, &recs).ok());
  ASSERT_EQ(recs.size(), 100u);
  ASSERT_TRUE(q->Ack(recs.size()).ok());
  EXPECT_EQ(q->stats().records, 0u);
  EXPECT_EQ(Segments(d.path()).size(), 1u);  // only the one appended to
  ASSERT_TRUE(q->Append({"after"}).ok());
  EXPECT_EQ(PeekAll(q.get()), (std::vector<std::string>{"after"}));
}

TEST(DiskQueue, FullQueueDropsTheOldestAndCountsThem) {
  ScratchDir d;
  DiskQueueOptions o;
  o.sync = false;
  o.max_bytes = 64 << 10;
  o.segment_bytes = 8 << 10;
  auto q = OpenQueue(d.path(), o);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(q->Append({std::to_string(i) + std::string(200, '.')}).ok());
  const DiskQueueStats st = q->stats();
  EXPECT_GT(st.dropped_records, 0u);
  EXPECT_LE(st.bytes, o.max_bytes);
  EXPECT_EQ(st.records + st.dropped_records, 1000u);
  auto all = PeekAll(q.get());
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.back().substr(0, 3), "999");  // the newest stay
  EXPECT_EQ(all.front().substr(0, all.front().find('.')), std::to_string(st.dropped_records));
}

TEST(DiskQueue, AckAfterTheFrontWasDroppedSkipsWhatIsGone) {
  ScratchDir d;
  DiskQueueOptions o;
  o.sync = false;
  o.max_bytes = 64 << 10;
  o.segment_bytes = 8 << 10;
  auto q = OpenQueue(d.path(), o);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(q->Append({std::string(500, 'a')}).ok());
  std::vector<QueuedRecord> recs;
  ASSERT_TRUE(q->Peek(10, 1 << 20, &recs).ok());
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(q->Append({std::to_string(i) + std::string(500, 'b')}).ok());
  ASSERT_TRUE(q->Ack(10).ok());
  const DiskQueueStats st = q->stats();
  // The ten handed out were dropped before they were acknowledged: counted once, as dropped.
  EXPECT_EQ(st.records + st.dropped_records, 220u);
  EXPECT_EQ(PeekAll(q.get()).back().substr(0, 3), "199");
}

TEST(DiskQueue, TornTailIsCutOffOnReopen) {
  ScratchDir d;
  {
    auto q = OpenQueue(d.path());
    ASSERT_TRUE(q->Append({"one", "two"}).ok());
  }
  auto segs = Segments(d.path());
  ASSERT_EQ(segs.size(), 1u);
  const auto size = std::filesystem::file_size(segs[0]);
  {
    // Half a record: a header promising 100 bytes and 10 of them.
    std::ofstream f(segs[0], std::ios::binary | std::ios::app);
    const char header[20] = {'A', 'E', 'Q', '1', 100, 0, 0, 0};
    f.write(header, sizeof header);
    f << "0123456789";
  }
  auto q = OpenQueue(d.path());
  EXPECT_EQ(std::filesystem::file_size(segs[0]), size);
  EXPECT_EQ(PeekAll(q.get()), (std::vector<std::string>{"one", "two"}));
  ASSERT_TRUE(q->Append({"three"}).ok());
  q.reset();
  q = OpenQueue(d.path());
  EXPECT_EQ(PeekAll(q.get()), (std::vector<std::string>{"one", "two", "three"}));
}

TEST(DiskQueue, DamagedRecordSkipsTheRestOfItsSegmentOnly) {
  ScratchDir d;
  DiskQueueOptions o;
  o.max_bytes = 1 << 20;
  o.segment_bytes = 4096;
  {
    auto q = OpenQueue(d.path(), o);
    for (int i = 0; i < 40; ++i) ASSERT_TRUE(q->Append({"record-" + std::to_string(i) + std::string(300, '-')}).ok());
  }
  auto segs = Segments(d.path());
  ASSERT_GE(segs.size(), 3u);
  {
    // Flip a payload byte of the second record of the first segment.
    std::fstream f(segs[0], std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(20 + 310 + 20 + 5);
    f.put('#');
  }
  auto q = OpenQueue(d.path(), o);
  auto all = PeekAll(q.get());
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all[0].substr(0, 9), "record-0-");
  EXPECT_EQ(all[1].substr(0, 7), "record-");
  EXPECT_NE(all[1].substr(0, 9), "record-1-");
  EXPECT_EQ(all.back().substr(0, 10), "record-39-");
  EXPECT_GT(q->stats().corrupt_records, 0u);
  EXPECT_EQ(all.size() + q->stats().corrupt_records, 40u);
}

// A child appends records one by one and reports each append that returned; it is killed
// with SIGKILL at some point, perhaps in the middle of a write. Reopened, the queue holds
// every reported record, in order and intact, and nothing else but perhaps the one being
// written.
void CrashOnce(int kill_after) {
  ScratchDir d;
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(pipefd[0]);
    std::unique_ptr<DiskQueue> q;
    DiskQueueOptions o;
    o.segment_bytes = 16 << 10;  // rolls segments while it runs
    if (!DiskQueue::Open(d.path(), o, &q).ok()) ::_exit(3);
    for (uint32_t i = 0;; ++i) {
      std::vector<std::string> batch;
      for (uint32_t k = 0; k < 3; ++k) batch.push_back("rec-" + std::to_string(i * 3 + k) + std::string(100 + (i % 50), '*'));
      if (!q->Append(batch).ok()) ::_exit(4);
      const uint32_t done = i * 3 + 3;
      if (::write(pipefd[1], &done, sizeof done) != sizeof done) ::_exit(5);
    }
  }
  ::close(pipefd[1]);
  uint32_t reported = 0, v = 0;
  for (int n = 0; n < kill_after && ::read(pipefd[0], &v, sizeof v) == sizeof v; ++n) reported = v;
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  while (::read(pipefd[0], &v, sizeof v) == sizeof v) reported = v;
  ::close(pipefd[0]);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited " << WEXITSTATUS(status);

  auto q = OpenQueue(d.path());
  auto all = PeekAll(q.get());
  ASSERT_GE(all.size(), reported);
  ASSERT_LE(all.size(), reported + 3);
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string prefix = "rec-" + std::to_string(i);
    ASSERT_EQ(all[i].substr(0, prefix.size()), prefix);
    const size_t stars = all[i].size() - all[i].find('*');
    ASSERT_EQ(stars, 100 + (i / 3) % 50) << "record " << i << " damaged";
  }
  ASSERT_TRUE(q->Append({"after"}).ok());
  EXPECT_EQ(PeekAll(q.get()).back(), "after");
}

TEST(DiskQueue, KilledMidAppendLosesNothingQueued) {
  for (int kill_after : {1, 7, 40, 150, 333}) {
    SCOPED_TRACE(kill_after);
    CrashOnce(kill_after);
  }
}

// No sleep decides the order: an append and a Wake() leave state the waiter's predicate
// reads, so whichever thread runs first the answer is the same; the waits are an hour
// long, so a notify that never came shows as a hang (ctest's timeout), never as a pass.
TEST(DiskQueue, WaitForDataWakesOnAppendAndOnWake) {
  ScratchDir d;
  auto q = OpenQueue(d.path());
  EXPECT_FALSE(q->WaitForData(std::chrono::milliseconds(0)));
  std::thread t([&] { q->Append({"x"}); });
  EXPECT_TRUE(q->WaitForData(std::chrono::hours(1)));
  t.join();
  std::vector<QueuedRecord> recs;
  q->Peek(10, 100, &recs);
  q->Ack(1);
  std::thread w([&] { q->Wake(); });
  EXPECT_FALSE(q->WaitForData(std::chrono::hours(1)));
  w.join();
}

}  // namespace
}  // namespace aegis::agent
