#include "logs/scanner.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace aegis {
namespace {

std::vector<LogEvent> Scan(const std::string& text, ScanOptions o = {}, ScanStats* stats = nullptr) {
  o.year = 2026;
  Scanner s(test::ShippedMatcher(), o);
  std::vector<LogEvent> out;
  ScanStats st = s.ScanText(text, [&](LogEvent&& e) { out.push_back(std::move(e)); });
  if (stats) *stats = st;
  return out;
}

TEST(Scanner, FindsEventsWithLineNumbersAmongNoise) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "NCCL INFO Channel 00/0 : 0[0] -> 1[0] via NET/IB/0\n";
  text += "[ 8421.113902] NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n";
  text += "tail\n";
  ScanStats st;
  auto ev = Scan(text, {}, &st);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].line, 1001u);
  EXPECT_EQ(ev[0].rule_id, "xid-79");
  EXPECT_EQ(ev[0].line_class, LineClass::kCritical);
  EXPECT_EQ(ev[0].Field("pci"), "0000:18:00");
  EXPECT_EQ(st.lines, 1002u);
}

TEST(Scanner, SameResultAcrossChunkSizes) {
  std::string text;
  for (int i = 0; i < 500; ++i) {
    text += "noise line " + std::to_string(i) + "\n";
    if (i % 50 == 7) text += "NCCL WARN socketProgress: Connection closed by remote peer node2<42830>\n";
  }
  auto whole = Scan(text);
  ScanOptions small;
  small.chunk_bytes = 97;
  small.max_line_bytes = 4096;
  auto chunked = Scan(text, small);
  ASSERT_EQ(whole.size(), 10u);
  ASSERT_EQ(chunked.size(), whole.size());
  for (size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(whole[i].line, chunked[i].line);
}

TEST(Scanner, FoldsIndentedKernelContinuation) {
  std::string text =
      "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
      "               NVRM: fallen off the bus and is not responding to commands.\n"
      "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).\n";
  auto ev = Scan(text);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].rule_id, "gpu-fallen-off-bus");
  EXPECT_EQ(ev[0].first_line, 1u);
  EXPECT_EQ(ev[0].last_line, 3u);
  EXPECT_EQ(ev[0].Field("pci"), "0000:b3:00.0");
  EXPECT_EQ(ev[1].rule_id, "gpu-probe-failed");
}

TEST(Scanner, AerDetailInheritsItsReportClass) {
  std::string text =
      "[1.0] pcieport 0000:00:02.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, id=0010(Transmitter ID)\n"
      "[1.1] pcieport 0000:00:02.0:    [12] Replay Timer Timeout\n"
      "[2.0] pcieport 0000:00:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer\n"
      "[2.1] pcieport 0000:00:02.0:    [ 5] Surprise Down Error    (First)\n"
      "[3.0] pcieport 0000:00:09.0:    [ 5] Surprise Down Error    (First)\n";  // no report: dropped
  auto ev = Scan(text);
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[1].line_class, LineClass::kHint);
  EXPECT_EQ(ev[3].line_class, LineClass::kCritical);
}

TEST(Scanner, TracebackFoldsToItsHeaderPerRank) {
  std::string text =
      "[rank3]:Traceback (most recent call last):\n"
      "[rank1]:step 10\n"
      "[rank3]:  File \"train.py\", line 5, in <module>\n"
      "[rank3]:    main()\n"
      "[rank3]:KeyError: 'attention_mask'\n";
  auto ev = Scan(text);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].rule_id, "python-exception");
  EXPECT_EQ(ev[0].Field("exc"), "KeyError");
  EXPECT_EQ(ev[0].rank, 3);
  EXPECT_EQ(ev[0].traceback_line, 1u);
}

TEST(Scanner, UptimeMappedToWallClockWhenTheFileTeachesBootTime) {
  std::string text =
      "Nov 30 10:00:00 n1 kernel: [ 100.000000] hello\n"
      "[ 160.500000] NVRM: Xid (PCI:0000:18:00): 48, pid=1, DBE\n";
  auto ev = Scan(text);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(ev[0].ts_exact);
  EXPECT_FALSE(ev[0].ts_zoned);  // syslog time: local, no zone
  EXPECT_NEAR(ev[0].ts - 1795996800.0, 36060.5, 1e-6);
}

TEST(Scanner, LongLinesAreCutNotFatal) {
  std::string text = std::string(3u << 20, 'A') + " NVRM: Xid (PCI:0000:18:00): 79, x\n" +
                     "NVRM: Xid (PCI:0000:2a:00): 48, after the long line\n";
  ScanOptions o;
  o.chunk_bytes = 1u << 20;
  o.max_line_bytes = 1u << 20;
  ScanStats st;
  auto ev = Scan(text, o, &st);
  EXPECT_EQ(st.cut_lines, 1u);
  ASSERT_EQ(ev.size(), 1u);  // the Xid past the cut is not seen; the next line is
  EXPECT_EQ(ev[0].line, 2u);
  EXPECT_EQ(ev[0].xid, 48);
}

TEST(Scanner, GarbageNeverCrashes) {
  std::string g;
  for (int i = 0; i < 200000; ++i) g.push_back(static_cast<char>((i * 7919) % 256));
  g += "\nNVRM: Xid (PCI:0000:18:00): 79, x \xff\xfe\n";
  auto ev = Scan(g);
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.back().xid, 79);
}

}  // namespace
}  // namespace aegis
