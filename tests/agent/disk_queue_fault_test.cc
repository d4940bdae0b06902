// The agent's queue on a disk that fails: a write, an fdatasync or a read that fails, and
// a full disk. Each time the call says what failed, nothing queued before is lost (read
// back at once and after reopening), no record is torn or doubled, and the queue carries
// on once the disk answers again. The files fail through a FaultInjectionEnv; the clock is
// a ManualClockEnv, so the records' times are known exactly and nothing sleeps.
#include <gtest/gtest.h>

#include <filesystem>

#include "agent/disk_queue.h"
#include "env/fault_injection_env.h"
#include "env/manual_clock_env.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ScratchDir;

constexpr double kStart = 1764547200;  // 2025-12-01T00:00:00Z
constexpr size_t kHeader = 20;         // bytes before each record's payload (disk_queue.h)

class DiskQueueFaultTest : public ::testing::Test {
 protected:
  DiskQueueFaultTest() : clock_(kStart, &faults_) {}

  std::unique_ptr<DiskQueue> Open() {
    DiskQueueOptions o;
    o.env = &clock_;
    std::unique_ptr<DiskQueue> q;
    Status s = DiskQueue::Open(dir_.path(), o, &q);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return q;
  }

  static std::vector<std::string> PeekAll(DiskQueue* q) {
    std::vector<QueuedRecord> recs;
    Status s = q->Peek(1000, 1u << 30, &recs);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::vector<std::string> out;
    for (auto& r : recs) out.push_back(r.payload);
    return out;
  }

  // Bytes of all segment files: exactly the records' when nothing torn is left behind.
  uint64_t SegmentBytes() const {
    uint64_t n = 0;
    for (auto& e : std::filesystem::directory_iterator(dir_.path()))
      if (e.path().extension() == ".seg") n += std::filesystem::file_size(e.path());
    return n;
  }

  static uint64_t RecordBytes(const std::vector<std::string>& payloads) {
    uint64_t n = 0;
    for (const auto& p : payloads) n += kHeader + p.size();
    return n;
  }

  ScratchDir dir_;
  FaultInjectionEnv faults_;
  ManualClockEnv clock_;
};

using Strings = std::vector<std::string>;

TEST_F(DiskQueueFaultTest, FailedWriteIsAnIOErrorAndLosesNothingQueuedBefore) {
  auto q = Open();
  ASSERT_TRUE(q->Append({"a", "b"}).ok());
  faults_.FailWrites(1);
  Status s = q->Append({"c"});
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.ToString();
  EXPECT_NE(s.message().find("cannot append 1 events"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("cannot write"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Input/output error"), std::string::npos) << s.message();
  EXPECT_EQ(faults_.injected().writes, 1u);

  EXPECT_EQ(PeekAll(q.get()), (Strings{"a", "b"}));
  EXPECT_EQ(q->stats().records, 2u);
  // The fault has passed (it was armed for one write): the queue carries on.
  ASSERT_TRUE(q->Append({"c"}).ok());
  EXPECT_EQ(PeekAll(q.get()), (Strings{"a", "b", "c"}));
  q.reset();
  q = Open();
  EXPECT_EQ(PeekAll(q.get()), (Strings{"a", "b", "c"}));
  EXPECT_EQ(SegmentBytes(), RecordBytes({"a", "b", "c"}));
  EXPECT_EQ(q->stats().corrupt_records, 0u);
}

TEST_F(DiskQueueFaultTest, FailedFdatasyncUndoesTheWrittenBatchSoARetryIsNotDoubled) {
  auto q = Open();
  ASSERT_TRUE(q->Append({"first"}).ok());
  faults_.FailSyncs(1);
  Status s = q->Append({"second", "third"});
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.ToString();
  EXPECT_NE(s.message().find("fdatasync"), std::string::npos) << s.message();
  EXPECT_EQ(faults_.injected().syncs, 1u);
  // The batch reached the file before the sync failed; it was cut off again, so that the
  // caller's retry stores it once.
  EXPECT_EQ(SegmentBytes(), RecordBytes({"first"}));
  EXPECT_EQ(PeekAll(q.get()), (Strings{"first"}));

  ASSERT_TRUE(q->Append({"second", "third"}).ok());
  EXPECT_EQ(PeekAll(q.get()), (Strings{"first", "second", "third"}));
  q.reset();
  q = Open();
  EXPECT_EQ(PeekAll(q.get()), (Strings{"first", "second", "third"}));
  EXPECT_EQ(q->stats().corrupt_records, 0u);
}

TEST_F(DiskQueueFaultTest, FullDiskIsResourceExhaustedAndLeavesNoTornRecord) {
  auto q = Open();
  ASSERT_TRUE(q->Append({"kept-1", "kept-2"}).ok());
  // Room for part of the next batch: the write stores what fits and then fails, as a real
  // full disk does.
  faults_.SetSpaceLeft(30);
  const Strings batch = {std::string(100, 'x'), "small"};
  Status s = q->Append(batch);
  EXPECT_EQ(s.code(), Status::Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.message();
  EXPECT_EQ(SegmentBytes(), RecordBytes({"kept-1", "kept-2"}));  // the 30 bytes were cut off
  // Still full: still refused, still nothing torn.
  s = q->Append({"tiny"});
  EXPECT_EQ(s.code(), Status::Code::kResourceExhausted) << s.ToString();
  EXPECT_EQ(faults_.injected().disk_full, 2u);
  EXPECT_EQ(PeekAll(q.get()), (Strings{"kept-1", "kept-2"}));

  faults_.ClearFaults();  // space freed
  ASSERT_TRUE(q->Append(batch).ok());
  const Strings all = {"kept-1", "kept-2", batch[0], batch[1]};
  EXPECT_EQ(PeekAll(q.get()), all);
  q.reset();
  q = Open();
  EXPECT_EQ(PeekAll(q.get()), all);
  EXPECT_EQ(SegmentBytes(), RecordBytes(all));
  EXPECT_EQ(q->stats().corrupt_records, 0u);
}

// The disk filled while the controller was away. Once the controller takes what was
// queued, the delivered events leave the disk at once, so the next event (an Xid written
// later) is queued: the queue never stays stuck on a disk full of what it delivered.
TEST_F(DiskQueueFaultTest, AFullDiskClearsItselfOnceWhatFilledItIsDelivered) {
  auto q = Open();
  const Strings waiting = {std::string(4000, 'a'), std::string(4000, 'b')};
  ASSERT_TRUE(q->Append(waiting).ok());
  faults_.SetSpaceLeft(0);
  EXPECT_EQ(q->Append({"refused"}).code(), Status::Code::kResourceExhausted);
  EXPECT_EQ(PeekAll(q.get()), waiting);  // the controller is back: delivered
  ASSERT_TRUE(q->Ack(2).ok());
  EXPECT_EQ(SegmentBytes(), 0u) << "what was delivered still takes the disk";
  const std::string xid = "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.";
  ASSERT_TRUE(q->Append({xid}).ok());
  EXPECT_EQ(PeekAll(q.get()), Strings{xid});
  q.reset();
  q = Open();
  EXPECT_EQ(PeekAll(q.get()), Strings{xid}) << "nothing lost, nothing resent, across a restart";
}

// Everything was delivered before the disk filled (the segment was small, so kept for the
// next events): the append that finds the disk full makes the room itself and succeeds.
TEST_F(DiskQueueFaultTest, AnAppendThatFindsTheDiskFullRemovesWhatWasDeliveredAndRetries) {
  auto q = Open();
  ASSERT_TRUE(q->Append({std::string(3000, 'a')}).ok());
  ASSERT_EQ(PeekAll(q.get()).size(), 1u);
  ASSERT_TRUE(q->Ack(1).ok());
  EXPECT_GT(SegmentBytes(), 0u);  // below reclaim_bytes: kept
  faults_.SetSpaceLeft(0);
  ASSERT_TRUE(q->Append({"after"}).ok());
  EXPECT_EQ(PeekAll(q.get()), Strings{"after"});
  EXPECT_EQ(SegmentBytes(), RecordBytes({"after"}));
  // Full again with nothing delivered to remove ("after" waits): refused, nothing lost.
  faults_.SetSpaceLeft(0);
  EXPECT_EQ(q->Append({"more"}).code(), Status::Code::kResourceExhausted);
  EXPECT_EQ(PeekAll(q.get()), Strings{"after"});
}

// Restarted on a disk full of delivered events: the queue opens (its ack file needs room)
// and takes new events.
TEST_F(DiskQueueFaultTest, OpensOnADiskFullOfDeliveredEvents) {
  {
    auto q = Open();
    ASSERT_TRUE(q->Append({std::string(3000, 'a'), std::string(3000, 'b')}).ok());
    ASSERT_EQ(PeekAll(q.get()).size(), 2u);
    ASSERT_TRUE(q->Ack(2).ok());
  }
  faults_.SetSpaceLeft(0);
  auto q = Open();
  ASSERT_TRUE(q);
  EXPECT_EQ(SegmentBytes(), 0u);
  ASSERT_TRUE(q->Append({"new"}).ok());
  EXPECT_EQ(PeekAll(q.get()), Strings{"new"});
}

TEST_F(DiskQueueFaultTest, FailedReadInPeekIsAnErrorNotDamage) {
  auto q = Open();
  ASSERT_TRUE(q->Append({"a", "b", "c"}).ok());
  faults_.FailReads(1);
  std::vector<QueuedRecord> recs;
  Status s = q->Peek(10, 1 << 20, &recs);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.ToString();
  EXPECT_NE(s.message().find("cannot read segment"), std::string::npos) << s.message();
  EXPECT_TRUE(recs.empty());
  EXPECT_EQ(faults_.injected().reads, 1u);
  // Nothing was handed out, so nothing is acknowledged; nothing was taken for damage.
  ASSERT_TRUE(q->Ack(2).ok());
  EXPECT_EQ(q->stats().records, 3u);
  EXPECT_EQ(q->stats().corrupt_records, 0u);
  EXPECT_EQ(PeekAll(q.get()), (Strings{"a", "b", "c"}));
  ASSERT_TRUE(q->Append({"d"}).ok());
  EXPECT_EQ(PeekAll(q.get()), (Strings{"a", "b", "c", "d"}));
}

TEST_F(DiskQueueFaultTest, FailedReadWhileOpeningFailsTheOpenAndCutsNothing) {
  {
    auto q = Open();
    ASSERT_TRUE(q->Append({"a", "b", "c"}).ok());
  }
  // Without the ack file the first read of the open is the scan of the segment.
  std::filesystem::remove(dir_.path() + "/ack");
  faults_.FailReads(1);
  DiskQueueOptions o;
  o.env = &clock_;
  std::unique_ptr<DiskQueue> q;
  Status s = DiskQueue::Open(dir_.path(), o, &q);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.ToString();
  EXPECT_EQ(faults_.injected().reads, 1u);
  EXPECT_EQ(SegmentBytes(), RecordBytes({"a", "b", "c"}));  // not taken for a torn tail
  q = Open();
  EXPECT_EQ(PeekAll(q.get()), (Strings{"a", "b", "c"}));
}

TEST_F(DiskQueueFaultTest, RecordsAreStampedWithTheEnvClock) {
  auto q = Open();
  ASSERT_TRUE(q->Append({"then"}).ok());
  clock_.Advance(90.5);
  ASSERT_TRUE(q->Append({"later"}).ok());
  std::vector<QueuedRecord> recs;
  ASSERT_TRUE(q->Peek(10, 1 << 20, &recs).ok());
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].enqueued_ms, static_cast<uint64_t>(kStart) * 1000);
  EXPECT_EQ(recs[1].enqueued_ms, static_cast<uint64_t>(kStart) * 1000 + 90500);
  EXPECT_EQ(q->stats().oldest_enqueued_ms, static_cast<uint64_t>(kStart) * 1000);
}

}  // namespace
}  // namespace aegis::agent
