#include "logs/scanner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "common/time.h"
#include "learn/line_model.h"
#include "logs/event_aggregate.h"
#include "logs/line_prefix.h"
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

TEST(Scanner, FallbackRulesMarkTheirEventsAndYieldToSpecificRules) {
  // A plugin WARN no specific rule knows (aws-ofi-nccl#67) against one that a specific rule
  // decides (NCCL's own allocation failure, nccl#1235).
  auto ev = Scan(
      "10.3.35.83: WARN: Function: main Line: 66: NET/OFI OFI NCCL failure: 2\n"
      "ng30903:3063028:3066152 [3] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes\n");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].rule_id, "nccl-warn-fallback");
  EXPECT_TRUE(ev[0].fallback);
  // A learned rule: the line model reads the line (never critical), here as the controller does.
  EXPECT_EQ(ev[0].line_class, LearnedLineClass(ev[0].text, LineClass::kDist));
  EXPECT_NE(ev[0].line_class, LineClass::kCritical);
  EXPECT_TRUE(ev[0].cascade);
  EXPECT_EQ(ev[1].rule_id, "nccl-cuda-alloc-failed");
  EXPECT_FALSE(ev[1].fallback);
  EXPECT_EQ(ev[1].line_class, LineClass::kUser);
}

// The learned catch-all gathers lines that speak of trouble in any words; the line model
// decides, and a line it reads as noise (a launcher's notice, labelled none in the corpus,
// pytorch#107021) gives no event, while one it reads as a worker's exit does.
TEST(Scanner, TheLearnedCatchAllGivesAnEventOnlyWhereTheModelSeesOne) {
  const std::string notice =
      "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
      "being overloaded, please further tune the variable for optimal performance in your application as needed.";
  EXPECT_EQ(LineModel::Shipped().Guess(notice).line_class, LineClass::kNone);
  auto ev = Scan(notice + "\nmpirun noticed that process rank 3 exited on signal 9\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].line, 2u);
  EXPECT_EQ(ev[0].rule_id, "generic-unknown-line");
  EXPECT_TRUE(ev[0].fallback);
  EXPECT_EQ(ev[0].line_class, LineClass::kDist);
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

// An indented line that is a message of its own (a BMC event-log row pasted under a
// driver line, machine-shop-maintenance#76) ends the record above it: the rule that matches
// only the row (priority 60) does not take the driver's line (priority 50), and the row
// keeps its own class. A line that no rule matches alone stays folded.
TEST(Scanner, ContinuationThatIsAMessageOfItsOwnStartsItsOwnRecord) {
  std::string text =
      "[Sun Apr 14 12:48:42 2024] NVRM: GPU 0000:81:00.0: RmInitAdapter failed! (0x25:0x40:1470)\n"
      "  6a | 04/12/2024 | 03:27:29 PM CDT | Critical Interrupt | Bus Correctable error () | Asserted\n"
      "  6b | 04/12/2024 | 03:27:30 PM CDT | Event Logging Disabled | Log area reset/cleared | Asserted\n"
      "[Sun Apr 14 12:48:43 2024] NVRM: GPU 0000:81:00.0: RmInitAdapter failed! (0x25:0x40:1470)\n"
      "  while loading the GSP firmware\n";
  auto ev = Scan(text);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].rule_id, "gpu-init-failed");
  EXPECT_EQ(ev[0].line_class, LineClass::kCritical);
  EXPECT_EQ(ev[0].first_line, 1u);
  EXPECT_EQ(ev[0].last_line, 1u);
  EXPECT_EQ(ev[0].text.find("Correctable"), std::string::npos);
  EXPECT_EQ(ev[1].rule_id, "ipmi-sel-corrected");
  EXPECT_EQ(ev[1].line_class, LineClass::kHint);
  EXPECT_EQ(ev[1].first_line, 2u);  // not folded back over the line it was split from
  EXPECT_EQ(ev[1].last_line, 3u);   // the row after it continues it
  EXPECT_EQ(ev[2].rule_id, "gpu-init-failed");
  EXPECT_EQ(ev[2].first_line, 4u);
  EXPECT_EQ(ev[2].last_line, 5u);
}

// A wrapper's line (below the default priority) keeps the continuation that explains it:
// C++'s terminate handler and its what() line are one record, classified by the what()
// (sglang#9151); so are lines that only match together.
TEST(Scanner, WrapperKeepsTheContinuationThatExplainsIt) {
  auto ev = Scan(
      "terminate called after throwing an instance of 'c10::AcceleratorError'\n"
      "  what():  CUDA error: uncorrectable ECC error encountered\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].rule_id, "cuda-ecc-uncorrectable");
  EXPECT_EQ(ev[0].first_line, 1u);
  EXPECT_EQ(ev[0].last_line, 2u);
}

TEST(Scanner, AerDetailInheritsItsReportClass) {
  std::string text =
      "[1.0] pcieport 0000:00:02.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, id=0010(Transmitter ID)\n"
      "[1.1] pcieport 0000:00:02.0:    [12] Replay Timer Timeout\n"
      "[2.0] pcieport 0000:00:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer\n"
      "[2.1] pcieport 0000:00:02.0:    [ 5] Surprise Down Error    (First)\n"
      "[3.0] pcieport 0000:00:09.0:    [ 5] Surprise Down Error    (First)\n";  // no report: a hint alone
  auto ev = Scan(text);
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[1].line_class, LineClass::kHint);
  EXPECT_EQ(ev[3].line_class, LineClass::kCritical);
  EXPECT_EQ(ev[4].line_class, LineClass::kHint);  // never critical without the fatal report
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

// A long line that ends inside one read is cut like one that spans reads: at the default
// 4 MiB read, a 2 MiB line and a 3 MiB one are cut to 1 MiB, in small reads too.
TEST(Scanner, LongLinesWithinOneReadAreCutToo) {
  const std::string text = "NVRM: Xid (PCI:0000:18:00): 48, before\n" + std::string(2u << 20, 'B') +
                           " NVRM: Xid (PCI:0000:19:00): 79, hidden past the cut\n" + std::string(3u << 20, 'C') +
                           "\nNVRM: Xid (PCI:0000:2a:00): 48, after the long lines\n" +
                           std::string((1u << 20) - 1, 'D') + "\nNVRM: Xid (PCI:0000:2b:00): 48, after a line at the limit\n";
  for (size_t chunk : {size_t{4} << 20, size_t{8} << 20, size_t{65536}}) {
    ScanOptions o;
    o.chunk_bytes = chunk;
    ScanStats st;
    auto ev = Scan(text, o, &st);
    EXPECT_EQ(st.cut_lines, 2u) << chunk;
    ASSERT_EQ(ev.size(), 3u) << chunk;
    EXPECT_EQ(ev[0].line, 1u);
    EXPECT_EQ(ev[1].line, 4u);  // line numbers count the cut lines once each
    EXPECT_EQ(ev[2].line, 6u);
    EXPECT_EQ(st.bytes, text.size());
  }
}

TEST(Scanner, GarbageNeverCrashes) {
  std::string g;
  for (int i = 0; i < 200000; ++i) g.push_back(static_cast<char>((i * 7919) % 256));
  g += "\nNVRM: Xid (PCI:0000:18:00): 79, x \xff\xfe\n";
  auto ev = Scan(g);
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.back().xid, 79);
}

// A log as a followed file delivers it: in pieces of any size, split anywhere.
std::vector<LogEvent> Stream(const std::string& text, const std::vector<size_t>& cuts, ScanStats* stats = nullptr) {
  ScanOptions o;
  o.year = 2026;
  LogStream stream(test::ShippedMatcher(), o);
  std::vector<LogEvent> out;
  auto sink = [&](LogEvent&& e) { out.push_back(std::move(e)); };
  size_t pos = 0;
  for (size_t cut : cuts) {
    stream.Feed(std::string_view(text).substr(pos, cut - pos), sink);
    pos = cut;
  }
  stream.Feed(std::string_view(text).substr(pos), sink);
  stream.Flush(sink);
  if (stats) *stats = stream.stats();
  return out;
}

std::string Summary(const std::vector<LogEvent>& events) {
  std::string s;
  for (const auto& e : events)
    s += std::to_string(e.first_line) + "-" + std::to_string(e.last_line) + " " + e.rule_id + " " +
         ToString(e.line_class).data() + " tb" + std::to_string(e.traceback_line) + " t" +
         (std::isnan(e.ts) ? std::string("-") : std::to_string(static_cast<long long>(e.ts))) +
         (e.ts_exact ? "e" : "i") + " " + e.text + "\n";
  return s;
}

// A log with every kind of context a record may need from before it.
std::string Contextual() {
  std::string t;
  t += "Nov 30 10:00:00 n1 kernel: [ 100.000000] boot clock line\n";
  for (int i = 0; i < 40; ++i) t += "noise " + std::to_string(i) + " lorem ipsum dolor sit amet\n";
  t += "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n";
  t += "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n";
  t += "               NVRM: fallen off the bus and is not responding to commands.\n";
  t += "[2026-11-30 10:05:00,000] step 10\n";
  // A record that splits at its continuation line (the split holds in any piece).
  t += "[Sun Apr 14 12:48:42 2024] NVRM: GPU 0000:81:00.0: RmInitAdapter failed! (0x25:0x40:1470)\n";
  t += "  6a | 04/12/2024 | 03:27:29 PM CDT | Critical Interrupt | Bus Correctable error () | Asserted\n";
  t += "[rank1]:Traceback (most recent call last):\n[rank1]:  File \"t.py\", line 3, in <module>\n";
  t += "[rank0]:noise from another rank\n[rank1]:    main()\n[rank1]:ValueError: bad batch\n";
  t += "h:1:2 [0] NCCL WARN NET/Socket : Connection closed by remote peer node-2<48022>\n";
  t += std::string(3000, 'x') + "\n";
  t += "[ 1900.5] pcieport 0000:16:02.0: AER: Uncorrected (Fatal) error received: 0000:18:00.0\n";
  t += "[ 1900.5] nvidia 0000:18:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer\n";
  t += "[ 1900.5] nvidia 0000:18:00.0:   [ 5] SDES                   (First)\n";
  t += "last line without newline: NCCL WARN NET/IB : Got completion from peer 10.0.0.3<4000> with status=12 "
       "opcode=0 len=0 vendor err 129";
  return t;
}

TEST(LogStream, AnySplitGivesTheSameEventsAsTheWholeLog) {
  const std::string text = Contextual();
  ScanStats whole_stats;
  const std::string whole = Summary(Stream(text, {}, &whole_stats));
  EXPECT_GE(std::count(whole.begin(), whole.end(), '\n'), 5) << whole;
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    std::vector<size_t> cuts;
    std::uniform_int_distribution<size_t> at(0, text.size());
    const int pieces = round < 50 ? 1 : round < 150 ? 8 : 60;
    for (int k = 0; k < pieces; ++k) cuts.push_back(at(rng));
    std::sort(cuts.begin(), cuts.end());
    ScanStats st;
    EXPECT_EQ(Summary(Stream(text, cuts, &st)), whole) << "round " << round;
    EXPECT_EQ(st.lines, whole_stats.lines);
    EXPECT_EQ(st.bytes, text.size());
  }
  // Byte by byte, as a slow writer would deliver it.
  std::vector<size_t> every;
  for (size_t i = 1; i < text.size(); ++i) every.push_back(i);
  EXPECT_EQ(Summary(Stream(text, every)), whole);
}

TEST(LogStream, HoldsTheLastRecordUntilItIsComplete) {
  ScanOptions o;
  o.year = 2026;
  LogStream stream(test::ShippedMatcher(), o);
  std::vector<LogEvent> out;
  auto sink = [&](LogEvent&& e) { out.push_back(std::move(e)); };
  stream.Feed("[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n", sink);
  EXPECT_TRUE(out.empty());  // its continuation lines may still come
  stream.Feed("               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
              "               NVRM: fallen off the bus and is not responding to commands.\n",
              sink);
  EXPECT_TRUE(out.empty());
  stream.Feed("[ 1843.4] next message\nNCCL WARN NET/Socket : Connection closed by remote pe", sink);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first_line, 1u);
  EXPECT_EQ(out[0].last_line, 3u);
  EXPECT_EQ(out[0].line_class, LineClass::kCritical);
  // A pause: complete records go out, the half-written line stays.
  stream.Flush(sink, /*end_of_input=*/false);
  EXPECT_EQ(out.size(), 1u);
  stream.Feed("er node-2<48022>\n", sink);
  stream.Flush(sink, false);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].line, 5u);
  EXPECT_NE(out[1].text.find("node-2<48022>"), std::string::npos);
  EXPECT_EQ(stream.stats().lines, 5u);
}

TEST(LogStream, ResetStartsANewLog) {
  ScanOptions o;
  o.year = 2026;
  LogStream stream(test::ShippedMatcher(), o);
  std::vector<LogEvent> out;
  auto sink = [&](LogEvent&& e) { out.push_back(std::move(e)); };
  stream.Feed("a\nb\n", sink);
  stream.Reset();
  stream.Feed("[ 8421.1] NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n", sink);
  stream.Flush(sink);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].line, 1u);
  EXPECT_EQ(stream.stats().lines, 1u);
}

// A kernel record's prefix as its reader decoded it: the scanner takes it as given and
// parses nothing back. Here the line's text says other times than the record (and its
// message begins with what reads as an uptime and a tag), so any parse would show.
TEST(LogStream, FeedRecordTakesTheRecordsTimesAndMessageAsGiven) {
  ScanOptions o;
  o.year = 2026;
  LogStream stream(test::ShippedMatcher(), o);
  std::vector<LogEvent> out;
  auto sink = [&](LogEvent&& e) { out.push_back(std::move(e)); };
  const std::string head = "2026-11-30T10:00:00.000000+00:00 node-7 kernel: [  100.000000] ";
  const std::string message = "[ 5.000000] gpu: NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.";
  LinePrefix p;
  p.message_offset = head.size();
  p.ts = 1796000000.25;
  p.zoned = true;
  p.uptime = 8421.113902;
  stream.FeedRecord(head + message, p, sink);
  // The same message again a second later: a repeat, at its own times.
  LinePrefix q = p;
  q.ts += 1;
  q.uptime += 1;
  stream.FeedRecord(head + message, q, sink);
  // A record with an uptime alone is dated by the boot the first record gave.
  LinePrefix u;
  u.message_offset = head.size();
  u.uptime = 8500.113902;
  stream.FeedRecord(head + "NVRM: Xid (PCI:0000:3b:00): 48, pid=1, An uncorrectable double bit error", u, sink);
  stream.Flush(sink, /*end_of_input=*/false);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].rule_id, "xid-79");
  EXPECT_EQ(out[0].line, 1u);
  EXPECT_DOUBLE_EQ(out[0].ts, 1796000000.25);
  EXPECT_EQ(out[0].Field("pci"), "0000:18:00");
  EXPECT_EQ(out[1].line, 2u);
  EXPECT_DOUBLE_EQ(out[1].ts, 1796000001.25);
  EXPECT_EQ(out[2].Field("pci"), "0000:3b:00");
  EXPECT_NEAR(out[2].ts, 1796000000.25 + (8500.113902 - 8421.113902), 1e-6);
  // Fed as text, the same line is read from its text: another time.
  stream.Reset();
  out.clear();
  stream.Feed(head + message + "\n", sink);
  stream.Flush(sink);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].ts, 1796000000.25);
}

// A record whose line the scanner cut (longer than max_line_bytes) is still matched, its
// known prefix kept where the message survived the cut.
TEST(LogStream, FeedRecordSurvivesALineCutToTheLimit) {
  ScanOptions o;
  o.year = 2026;
  o.max_line_bytes = 256;
  LogStream stream(test::ShippedMatcher(), o);
  std::vector<LogEvent> out;
  auto sink = [&](LogEvent&& e) { out.push_back(std::move(e)); };
  LinePrefix p;
  p.ts = 1796000000;
  p.zoned = true;
  const std::string xid = "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.";
  stream.FeedRecord(xid + std::string(1000, 'x'), p, sink);
  p.message_offset = 5000;  // beyond the cut: the line is read as text
  stream.FeedRecord(xid, p, sink);
  stream.Flush(sink);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(out[0].ts, 1796000000);
  EXPECT_EQ(out[1].rule_id, "xid-79");
  EXPECT_EQ(out[1].line, 2u);
}

// Repeated lines (a storm) are recognised and read from their times alone: every record
// still gets its own line, time and text.
TEST(Scanner, RepeatedLinesEachKeepTheirOwnLineTimeAndText) {
  std::string text;
  std::vector<std::pair<uint64_t, double>> want;  // line, time
  std::vector<int> pids;
  uint64_t line = 0;
  char stamp[64];
  for (int i = 0; i < 300; ++i) {
    const double t = 1796032800.0 + i * 0.37 + (i >= 150 ? 86400 : 0);  // a new day half-way
    const long long whole = static_cast<long long>(t);
    const int micros = static_cast<int>((t - static_cast<double>(whole)) * 1e6 + 0.5);
    const long long day = whole / 86400, sec = whole % 86400;
    std::snprintf(stamp, sizeof stamp, "2026-%02lld-%02lldT%02lld:%02lld:%02lld.%06d+00:00", day == 20787 ? 11LL : 12LL,
                  day == 20787 ? 30LL : 1LL, sec / 3600, sec % 3600 / 60, sec % 60, micros);
    const int pid = 1000 + i / 50;  // the message changes every 50 lines
    text += std::string(stamp) + " node-7 kernel: NVRM: Xid (PCI:0000:18:00): 95, pid=" + std::to_string(pid) +
            ", name=python, Uncontained: FBHUB.\n";
    want.emplace_back(++line, *ParseIsoTime(stamp));
    pids.push_back(pid);
    if (i % 7 == 3) {
      text += "some chatter between them\n";
      ++line;
    }
  }
  ScanOptions small;
  small.chunk_bytes = 1000;  // many regions
  const auto ev = Scan(text, small);
  ASSERT_EQ(ev.size(), want.size());
  for (size_t i = 0; i < ev.size(); ++i) {
    EXPECT_EQ(ev[i].line, want[i].first) << i;
    EXPECT_EQ(ev[i].ts, want[i].second) << i;  // to the bit
    EXPECT_TRUE(ev[i].ts_exact);
    EXPECT_TRUE(ev[i].ts_zoned);
    EXPECT_NE(ev[i].text.find("pid=" + std::to_string(pids[i])), std::string::npos) << ev[i].text;
    EXPECT_EQ(ev[i].rule_id, "xid-95");
  }
}

// An untimed record inherits the time of the nearest earlier line that has one (within 64
// lines), else that of the last record: the same whether the search starts afresh or
// continues from the last untimed record's.
TEST(Scanner, InheritedTimesAreTheNearestEarlierOnes) {
  std::mt19937 rng(5);
  std::vector<std::string> lines;
  for (int i = 0; i < 3000; ++i) {
    const int kind = static_cast<int>(rng() % 10);
    const bool quiet = (i / 400) % 3 == 2;  // long stretches without a time
    if (kind < 3 && !quiet) {
      lines.push_back(std::string("[rank1]:[2026-11-30 10:") + std::to_string(10 + i / 100) + ":" + std::to_string(10 + i % 50) +
                      ",123] step " + std::to_string(i));
    } else if (kind < 6) {
      lines.push_back(std::string("[rank") + std::to_string(rng() % 4) + "]:node-1:41000:41077 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0]");
    } else {
      const int r = static_cast<int>(rng() % 4);
      lines.push_back(std::string("[rank") + std::to_string(r) + "]:node-1:4100" + std::to_string(r) + ":4107" + std::to_string(r) +
                      " [" + std::to_string(r) + "] NCCL INFO NCCL_IB_TIMEOUT set by environment to 22.");
    }
  }
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  // The rule, one line at a time.
  std::vector<double> want;
  double last = NAN;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("NCCL_IB_TIMEOUT") == std::string::npos) continue;
    double t = NAN;
    for (size_t j = i; j > 0 && i - j < 64; --j) {
      const LinePrefix p = ParseLinePrefix(lines[j - 1], 2026);
      if (!std::isnan(p.ts)) {
        t = p.ts;
        break;
      }
    }
    if (std::isnan(t)) t = last;
    want.push_back(t);
    if (!std::isnan(t)) last = t;
  }
  for (size_t chunk : {size_t{4u << 20}, size_t{777}}) {
    ScanOptions o;
    o.chunk_bytes = chunk;
    const auto ev = Scan(text, o);
    ASSERT_EQ(ev.size(), want.size());
    for (size_t k = 0; k < ev.size(); ++k) {
      EXPECT_FALSE(ev[k].ts_exact);
      if (std::isnan(want[k])) EXPECT_TRUE(std::isnan(ev[k].ts)) << k;
      else EXPECT_EQ(ev[k].ts, want[k]) << "record " << k << " at line " << ev[k].line;
    }
  }
}

// Folding repeats in the scanner gives the aggregates that aggregating every record does.
TEST(Scanner, FoldedRepeatsAreTheAggregatesOfEveryRecord) {
  std::mt19937 rng(9);
  std::string text;
  for (int i = 0; i < 4000; ++i) {
    const double t = 1796032800.0 - 120 + i * 0.05;  // the job starts 2 minutes in
    char stamp[64];
    const long long whole = static_cast<long long>(t);
    std::snprintf(stamp, sizeof stamp, "2026-11-30T%02lld:%02lld:%02lld.%03d+00:00", whole % 86400 / 3600,
                  whole % 3600 / 60, whole % 60, static_cast<int>((t - static_cast<double>(whole)) * 1000 + 0.5));
    switch (rng() % 8) {
      case 0:
      case 1:
        text += std::string(stamp) + " n kernel: NVRM: Xid (PCI:0000:18:00): 95, pid=7, name=python, Uncontained\n";
        break;
      case 2:
        text += std::string(stamp) + " n kernel: NVRM: Xid (PCI:0000:3a:00): 79, pid=7, GPU has fallen off the bus.\n";
        break;
      case 3:
        text += std::string(stamp) + " n kernel: pcieport 0000:00:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
                                     "type=Transaction Layer\n";
        text += std::string(stamp) + " n kernel: pcieport 0000:00:02.0:    [ 5] Surprise Down Error    (First)\n";
        break;
      case 4: {
        const int r = static_cast<int>(rng() % 3);
        text += std::string("[rank") + std::to_string(r) + "]:node-1:4100" + std::to_string(r) + ":4107" + std::to_string(r) + " [" +
                std::to_string(r) + "] NCCL INFO NCCL_IB_TIMEOUT set by environment to 22.\n";
        break;
      }
      case 5:
        text += std::string("[") + std::to_string(100 + i) + ".250000] NVRM: Xid (PCI:0000:18:00): 95, pid=7, name=python, Uncontained\n";
        break;
      default:
        text += std::string("chatter ") + std::to_string(rng() % 5) + "\n";
    }
  }
  const double started = 1796032800.0, ended = started + 60;  // the job: a minute from 2 minutes in
  auto side = [&](double ts, bool exact, bool zoned) {
    if (std::isnan(ts)) return 0;
    const double slack = zoned ? 0.0 : 50400;
    if (exact && ts + slack < started) return -1;
    if (ts - slack > ended) return 1;
    return 0;
  };
  auto same_time = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  auto aggregate = [&](bool fold, size_t chunk) {
    ScanOptions o;
    o.year = 2026;
    o.chunk_bytes = chunk;
    o.fold_repeats = fold;
    o.window_side = side;
    Scanner s(test::ShippedMatcher(), o);
    LogAggregator agg([&](const LogEvent& e) { return side(e.ts, e.ts_exact, e.ts_zoned); });
    size_t handed = 0;
    s.ScanText(text, [&](LogEvent&& e) {
      ++handed;
      agg.Add(std::move(e));
    });
    auto entries = agg.Take();
    std::sort(entries.begin(), entries.end(), [](const LogEvent& a, const LogEvent& b) { return a.line < b.line; });
    return std::make_pair(entries, handed);
  };
  const auto [every, records] = aggregate(false, 4u << 20);
  ASSERT_GT(every.size(), 8u);
  for (size_t chunk : {size_t{4u << 20}, size_t{1500}}) {
    const auto [folded, handed] = aggregate(true, chunk);
    EXPECT_LT(handed, records / 20) << "the scanner folds most repeats itself";
    ASSERT_EQ(folded.size(), every.size());
    for (size_t i = 0; i < every.size(); ++i) {
      const LogEvent& a = every[i];
      const LogEvent& b = folded[i];
      EXPECT_EQ(a.rule_id, b.rule_id) << i;
      EXPECT_EQ(a.line_class, b.line_class) << i;
      EXPECT_EQ(a.line, b.line) << i;
      EXPECT_EQ(a.count, b.count) << a.rule_id << " at " << a.line;
      EXPECT_EQ(a.LatestLine(), b.LatestLine()) << i;
      EXPECT_TRUE(same_time(a.ts, b.ts)) << i;
      EXPECT_TRUE(same_time(a.LatestTs(), b.LatestTs())) << i;
      EXPECT_EQ(a.samples, b.samples) << i;
      EXPECT_EQ(a.text, b.text) << i;
      EXPECT_EQ(a.fields, b.fields) << i;
      EXPECT_EQ(a.rank, b.rank) << i;
      EXPECT_EQ(a.nccl_device, b.nccl_device) << i;
    }
  }
}

}  // namespace
}  // namespace aegis
