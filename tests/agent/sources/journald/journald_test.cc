#include "agent/sources/journald/journald.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "logs/line_prefix.h"
#include "sources/source_harness.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ScratchDir;
using testing::WriteFile;

TEST(Journald, ParsesEntriesOfJournalctlJson) {
  JournalEntry e;
  ASSERT_TRUE(ParseJournalJson(
      R"({"__CURSOR":"s=ab;i=1f;b=cd;m=7d6;t=5f;x=1","__REALTIME_TIMESTAMP":"1764497523100000","_SOURCE_MONOTONIC_TIMESTAMP":"8421113902","MESSAGE":"NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.","_HOSTNAME":"node-0007"})",
      &e));
  EXPECT_EQ(e.cursor, "s=ab;i=1f;b=cd;m=7d6;t=5f;x=1");
  EXPECT_DOUBLE_EQ(e.realtime, 1764497523.1);
  EXPECT_DOUBLE_EQ(e.monotonic, 8421.113902);
  const std::string line = JournalLine(e, "node-0007");
  const LinePrefix p = ParseLinePrefix(line, 2025);
  EXPECT_NEAR(p.ts, 1764497523.1, 1e-3);
  EXPECT_NEAR(p.uptime, 8421.113902, 1e-6);
  EXPECT_EQ(line.substr(p.message_offset), e.message);

  // MESSAGE as bytes (not UTF-8), and null.
  ASSERT_TRUE(ParseJournalJson(R"({"__CURSOR":"c","__REALTIME_TIMESTAMP":"1","MESSAGE":[104,105,10,255]})", &e));
  EXPECT_EQ(e.message, std::string("hi \xff"));
  EXPECT_EQ(e.monotonic, -1);
  ASSERT_TRUE(ParseJournalJson(R"({"__CURSOR":"c","__REALTIME_TIMESTAMP":"1","MESSAGE":null})", &e));
  EXPECT_EQ(e.message, "");
  EXPECT_FALSE(ParseJournalJson(R"({"__REALTIME_TIMESTAMP":"1","MESSAGE":"x"})", &e));
  EXPECT_FALSE(ParseJournalJson(R"({"__CURSOR":"c","__REALTIME_TIMESTAMP":"soon","MESSAGE":"x"})", &e));
  EXPECT_FALSE(ParseJournalJson(R"({"__CURSOR":"c","__REALTIME_TIMESTAMP":"1","MESSAGE":{}})", &e));
  EXPECT_FALSE(ParseJournalJson("not json", &e));
  EXPECT_FALSE(ParseJournalJson("[1,2]", &e));
}

// A stand-in for journalctl: records its arguments and prints entries after the cursor it
// was given, says it has printed them all (the file "printed"), then stays (as
// `journalctl -f` does).
void WriteFakeJournalctl(const ScratchDir& d) {
  WriteFile(d / "journalctl", R"(#!/bin/sh
echo "$@" >> ")" + d.path() + R"(/args"
after=""
for a in "$@"; do case "$a" in --after-cursor=*) after="${a#--after-cursor=}";; esac; done
emit=0
[ -z "$after" ] && emit=1
while read -r cursor json; do
  if [ "$emit" = 1 ]; then printf "%s\n" "$json"; fi
  [ "$cursor" = "$after" ] && emit=1
done < ")" + d.path() + R"(/entries"
: > ")" + d.path() + R"(/printed"
exec sleep 30
)");
  ::chmod((d / "journalctl").c_str(), 0755);
}

std::string Entry(int i, const std::string& message) {
  const std::string cursor = "s=1;i=" + std::to_string(i);
  return cursor + " " +
         nlohmann::json{{"__CURSOR", cursor}, {"__REALTIME_TIMESTAMP", std::to_string(1764497523000000ll + i)},
                        {"MESSAGE", message}}
             .dump() +
         "\n";
}

// Reads what the child prints until it has printed everything (its "printed" file exists,
// so all it wrote is in the pipe) and the pipe is drained; at least `want` events must
// have come by then. The source's clock (`now`) is the test's.
std::vector<nlohmann::json> Drive(const ScratchDir& d, JournaldSource* src, EventOutput* out, size_t want) {
  std::vector<nlohmann::json> evs;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);  // a hung child
  double now = 100;
  src->Poll(now);
  while (std::chrono::steady_clock::now() < give_up) {
    const bool printed = ::access((d / "printed").c_str(), F_OK) == 0;  // before the read below
    src->OnReadable(now);
    now += 0.5;
    src->Poll(now);
    for (const auto& s : out->events()) evs.push_back(nlohmann::json::parse(s));
    out->Queued();
    pollfd p{src->fd(), POLLIN, 0};
    if (printed && evs.size() >= want && (p.fd < 0 || ::poll(&p, 1, 0) == 0)) break;
    // The child's output comes from a real process: wait for it (or 20 ms, to look for
    // its "printed" file again).
    ::poll(&p, p.fd >= 0 ? 1 : 0, 20);
  }
  return evs;
}

TEST(JournaldSource, FollowsJournalctlAndResumesAfterItsCursor) {
  ScratchDir d;
  WriteFakeJournalctl(d);
  WriteFile(d / "entries", Entry(1, "boot noise") + Entry(2, "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.") +
                               Entry(3, "more noise"));
  AgentCounters counters;
  VirtualLines lines(d / "lines-kernel");
  ASSERT_TRUE(lines.Load().ok());
  EventOutput out(&counters);
  LogTarget t{"node-0007", SourceKind::kKernel, "nodes/node-0007/kernel.log", &lines};
  Checkpoint state;
  {
    JournaldSource src(d / "journalctl", t, testing::BuiltinRules(), &out, &counters, &state);
    auto evs = Drive(d, &src, &out, 1);
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0]["rule"], "xid-79");
    EXPECT_EQ(evs[0]["id"].get<std::string>().rfind("node-0007:kernel:journal:", 0), 0u);
    src.Stop();
  }
  EXPECT_EQ(state.pos.cursor, "s=1;i=3");
  testing::AppendFile(d / "entries", Entry(4, "NVRM: Xid (PCI:0000:3b:00): 48, pid=2, An uncorrectable double bit error"));
  ::unlink((d / "printed").c_str());  // the next child says it again
  {
    JournaldSource src(d / "journalctl", t, testing::BuiltinRules(), &out, &counters, &state);
    auto evs = Drive(d, &src, &out, 1);
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0]["xid"], 48);
    src.Stop();
  }
  const std::string args = testing::ReadFile(d / "args");
  EXPECT_NE(args.find("-k -f --no-tail -o json"), std::string::npos) << args;
  EXPECT_NE(args.find("--after-cursor=s=1;i=3"), std::string::npos) << args;
}

TEST(JournaldSource, MissingJournalctlIsSaidAndRetriedLater) {
  ScratchDir d;
  AgentCounters counters;
  VirtualLines lines(d / "lines-kernel");
  EventOutput out(&counters);
  LogTarget t{"n", SourceKind::kKernel, "nodes/n/kernel.log", &lines};
  Checkpoint state;
  JournaldSource src(d / "no-journalctl", t, testing::BuiltinRules(), &out, &counters, &state);
  src.Poll(1);
  EXPECT_EQ(src.fd(), -1);
  src.Poll(2);
  EXPECT_EQ(src.fd(), -1);
}

// The adapter the loop drives (journald_source.cc), built through the registry: a start
// that fails is a failed pass, tried again a minute later (the idle flush meanwhile runs
// every poll_s).
TEST(JournaldInput, AJournalctlThatCannotStartFailsItsPasses) {
  ScratchDir d;
  testing::SourceHarness h(d);
  h.config.journalctl = d / "no-journalctl";
  h.config.poll_s = 2;
  auto s = h.Create("journald");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->Poll({0, 1000, false}).failed);
  EXPECT_EQ(s->fd(), -1);
  EXPECT_EQ(s->due(), 2);
  EXPECT_FALSE(s->Poll({2, 1002, false}).failed);
  EXPECT_FALSE(s->Poll({30, 1030, true}).failed);
  EXPECT_TRUE(s->Poll({60, 1060, false}).failed);
}

}  // namespace
}  // namespace aegis::agent
