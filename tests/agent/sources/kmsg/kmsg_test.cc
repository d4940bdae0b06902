#include "agent/sources/kmsg/kmsg.h"

#include <gtest/gtest.h>

#include "logs/line_prefix.h"
#include "sources/source_harness.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ScratchDir;
using testing::WriteFile;

// data/kmsg_records.txt (beside this file): records as /dev/kmsg gives them (the first three are the
// examples of the kernel's Documentation/ABI/testing/dev-kmsg), one dictionary-carrying
// Xid pair, escapes, a continuation flag with caller id, and two broken records.
std::string Fixture() { return testing::ReadFile(std::string(AGENT_TEST_DIR) + "/sources/kmsg/data/kmsg_records.txt"); }

TEST(Kmsg, SplitsRecordsWithTheirDictionaries) {
  const std::string text = Fixture();
  auto recs = SplitKmsgRecords(text);
  ASSERT_EQ(recs.size(), 9u);
  EXPECT_EQ(recs[0].substr(0, 14), "7,160,424069,-");
  EXPECT_NE(recs[0].find(" DEVICE=+acpi:PNP0A03:00"), std::string_view::npos);
  EXPECT_EQ(recs[4].substr(0, 15), "3,1874,84211139");
}

TEST(Kmsg, ParsesHeaderAndMessage) {
  const std::string text = Fixture();
  auto recs = SplitKmsgRecords(text);
  KmsgRecord r;
  ASSERT_TRUE(ParseKmsgRecord(recs[0], &r));
  EXPECT_EQ(r.facility, 0);
  EXPECT_EQ(r.level, 7);
  EXPECT_EQ(r.seq, 160u);
  EXPECT_EQ(r.ts_usec, 424069u);
  EXPECT_EQ(r.message, "pci_root PNP0A03:00: host bridge window [io  0x0000-0x0cf7] (ignored)");  // no dictionary
  ASSERT_TRUE(ParseKmsgRecord(recs[2], &r));
  EXPECT_EQ(r.facility, 3);  // daemon: userspace wrote it to /dev/kmsg
  EXPECT_EQ(r.level, 6);
  ASSERT_TRUE(ParseKmsgRecord(recs[5], &r));
  EXPECT_EQ(r.message, "audit: type=1400 comm=\"python3\" path=\\tmp\\x");
  ASSERT_TRUE(ParseKmsgRecord(recs[6], &r));  // extra header fields after the flags
  EXPECT_EQ(r.seq, 1876u);
  EXPECT_EQ(r.message, "multi line");
  EXPECT_FALSE(ParseKmsgRecord(recs[7], &r));
  EXPECT_FALSE(ParseKmsgRecord(recs[8], &r));
  EXPECT_FALSE(ParseKmsgRecord("1,2;too few fields", &r));
  EXPECT_FALSE(ParseKmsgRecord("1,2,99999999999999999999,-;overflow", &r));
}

TEST(Kmsg, LineCarriesWallClockAndUptimeForTheScanner) {
  KmsgRecord r;
  ASSERT_TRUE(ParseKmsgRecord("4,1873,8421113902,-;NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.", &r));
  const double boot = 1764488000.25;
  const std::string line = KmsgLine(r, boot, "node-0007");
  EXPECT_EQ(line.substr(0, 33), "2025-11-30T09:53:41.363902+00:00 ");
  const LinePrefix p = ParseLinePrefix(line, 2025);
  EXPECT_TRUE(p.zoned);
  EXPECT_NEAR(p.ts, boot + 8421.113902, 1e-3);
  EXPECT_NEAR(p.uptime, 8421.113902, 1e-6);
  EXPECT_EQ(line.substr(p.message_offset), r.message);
}

struct KmsgHarness {
  explicit KmsgHarness(const ScratchDir& d, KmsgState* state) : lines(d / "lines-kernel"), out(&counters) {
    EXPECT_TRUE(lines.Load().ok());
    LogTarget t{"node-0007", SourceKind::kKernel, "nodes/node-0007/kernel.log", &lines};
    src = std::make_unique<KmsgSource>(d / "no-such-kmsg", d / "boot_id", t, testing::BuiltinRules(), &out, &counters, state);
    src->set_boot_epoch(1764488000);
  }
  std::vector<nlohmann::json> Take() {
    std::vector<nlohmann::json> evs;
    for (const auto& s : out.events()) evs.push_back(nlohmann::json::parse(s));
    out.Queued();
    return evs;
  }
  AgentCounters counters;
  VirtualLines lines;
  EventOutput out;
  std::unique_ptr<KmsgSource> src;
};

TEST(KmsgSource, ClassifiesRecordsAndResumesAfterTheLastSequenceNumber) {
  ScratchDir d;
  WriteFile(d / "boot_id", "5f2c9d1e-0b7a-4c1e-9a51-3f1f2d6c8e10\n");
  const std::string text = Fixture();
  KmsgState state;
  {
    KmsgHarness h(d, &state);
    EXPECT_FALSE(h.src->Open().ok());  // the device path does not exist here
    for (auto rec : SplitKmsgRecords(text)) h.src->FeedRecord(rec, 10);
    h.src->Poll(12);  // idle: the held-back record goes out
    auto evs = h.Take();
    ASSERT_EQ(evs.size(), 2u);  // the Xid and the fallen-off-the-bus line
    EXPECT_EQ(evs[0]["rule"], "xid-79");
    EXPECT_EQ(evs[0]["id"], "node-0007:kernel:kmsg-5f2c9d1e0b7a4c1e:1873");
    EXPECT_EQ(evs[0]["file"], "nodes/node-0007/kernel.log");
    EXPECT_NEAR(evs[0]["ts"].get<double>(), 1764488000 + 8421.113902, 1e-3);
    EXPECT_EQ(evs[1]["id"], "node-0007:kernel:kmsg-5f2c9d1e0b7a4c1e:1874");
    EXPECT_EQ(h.counters.lines_read[0].load(), 7u);
    EXPECT_EQ(h.counters.kmsg_lost.load(), (339u - 161) + (1873 - 341));  // gaps in the sequence numbers
    h.src->Stop();
    EXPECT_EQ(state.cp.pos.offset, 1877u);
  }
  {
    // The same boot: the ring buffer is read from its start again; only new records count.
    KmsgHarness h(d, &state);
    for (auto rec : SplitKmsgRecords(text)) h.src->FeedRecord(rec, 20);
    h.src->FeedRecord("3,1877,8500000000,-;NVRM: Xid (PCI:0000:3b:00): 48, pid=9, An uncorrectable double bit error", 20);
    h.src->Poll(22);
    auto evs = h.Take();
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0]["xid"], 48);
    EXPECT_EQ(h.counters.kmsg_lost.load(), 0u);
    h.src->Stop();
  }
  {
    // Another boot: sequence numbers start again, so everything is new.
    WriteFile(d / "boot_id", "0a0a0a0a-1111-2222-3333-444444444444\n");
    KmsgHarness h(d, &state);
    for (auto rec : SplitKmsgRecords(text)) h.src->FeedRecord(rec, 30);
    h.src->Poll(32);
    auto evs = h.Take();
    ASSERT_EQ(evs.size(), 2u);
    EXPECT_EQ(evs[0]["id"], "node-0007:kernel:kmsg-0a0a0a0a11112222:1873");
  }
}

// The scanner is handed the record's times (LogStream::FeedRecord): one whose message begins
// with a time and a tag of its own (a driver quoting its firmware's log) is dated by the
// kernel's uptime on this boot's clock, to the microsecond its bundle line shows.
TEST(KmsgSource, TheRecordsOwnTimesDateItsEvent) {
  ScratchDir d;
  WriteFile(d / "boot_id", "5f2c9d1e-0b7a-4c1e-9a51-3f1f2d6c8e10\n");
  KmsgState state;
  KmsgHarness h(d, &state);
  h.src->FeedRecord(
      "3,5,8421113902,-;Jan  1 00:00:00 fw-host fw: NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.",
      10);
  h.src->Poll(12);
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["rule"], "xid-79");
  EXPECT_NEAR(evs[0]["ts"].get<double>(), 1764488000 + 8421.113902, 1e-6);
}

// The adapter the loop drives (kmsg_source.cc), built through the registry.
TEST(KmsgInput, AnUnopenableDeviceFailsOnePassAMinuteAndIdleFlushesMeanwhile) {
  ScratchDir d;
  testing::SourceHarness h(d);
  h.config.kmsg_path = d / "no-such-kmsg";
  h.config.boot_id_path = d / "boot_id";
  h.config.poll_s = 1;
  auto s = h.Create("kmsg");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->fd(), -1);
  EXPECT_EQ(s->due(), 0);
  EXPECT_TRUE(s->Poll({0, 1000, false}).failed);
  EXPECT_EQ(s->due(), 1);  // the reader's idle flush comes before the next try
  EXPECT_FALSE(s->Poll({1, 1001, false}).failed);
  EXPECT_FALSE(s->Poll({59.5, 1059.5, true}).failed);  // a flush does not try again either
  EXPECT_TRUE(s->Poll({60, 1060, false}).failed);
}

TEST(KmsgInput, OpensReadsAndEmitsOnAFlush) {
  ScratchDir d;
  WriteFile(d / "boot_id", "5f2c9d1e-0b7a-4c1e-9a51-3f1f2d6c8e10\n");
  // One record: a regular file gives it whole in one read, as the device gives one record.
  WriteFile(d / "kmsg", "4,1873,8421113902,-;NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.");
  testing::SourceHarness h(d);
  h.config.kmsg_path = d / "kmsg";
  h.config.boot_id_path = d / "boot_id";
  auto s = h.Create("kmsg");
  ASSERT_TRUE(s);
  const SourcePass opened = s->Poll({0, 1000, false});
  EXPECT_FALSE(opened.failed);
  EXPECT_TRUE(opened.more);  // read at once
  ASSERT_GE(s->fd(), 0);
  EXPECT_FALSE(s->OnReadable(0).more);  // the whole file, then nothing
  EXPECT_TRUE(h.Take().empty()) << "held back for continuation lines";
  s->Poll({0.5, 1000.5, true});
  s->Flush();
  const auto evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["rule"], "xid-79");
  EXPECT_EQ(evs[0]["id"], "node-0007:kernel:kmsg-5f2c9d1e0b7a4c1e:1873");
  s->SaveState();
  EXPECT_EQ(h.state.kmsg.cp.pos.offset, 1874u);  // resumes after the record's sequence number
}

}  // namespace
}  // namespace aegis::agent
