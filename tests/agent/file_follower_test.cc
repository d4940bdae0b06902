#include "agent/file_follower.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

#include "agent/log_consumer.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::AppendFile;
using testing::ScratchDir;
using testing::WriteFile;

const std::string kXid = "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.";
const std::string kPeer = "NCCL WARN socketProgress: Connection closed by remote peer node2<42830>";

// A train-log follower over a scratch directory, driven with a fake clock.
struct Harness {
  explicit Harness(const ScratchDir& d, FileStates* states = nullptr)
      : dir(d),
        lines(d / "lines-train"),
        out(&counters),
        states_(states ? states : &own_states) {
    EXPECT_TRUE(lines.Load().ok());
    LogTarget t{"node-0007", SourceKind::kTrain, "nodes/node-0007/train.log", &lines};
    FollowOptions o;
    o.idle_s = 1;
    o.rotate_wait_s = 5;
    files = std::make_unique<FollowedFiles>(std::vector<std::string>{d / "logs/*.log*"}, states_,
                                            MakeLogConsumerFactory(t, testing::BuiltinRules(), &out, &counters), o);
  }
  // Polls over `seconds` of fake time, one poll per simulated second.
  void Run(double seconds) {
    files->Expand(now);
    for (double t = 0; t <= seconds; t += 1) {
      while (files->Poll(now)) {
      }
      now += 1;
    }
  }
  std::vector<nlohmann::json> Take() {
    std::vector<nlohmann::json> evs;
    for (const auto& s : out.events()) evs.push_back(nlohmann::json::parse(s));
    out.Queued();
    for (const auto& e : evs) all.push_back(e);
    return evs;
  }
  const ScratchDir& dir;
  AgentCounters counters;
  VirtualLines lines;
  EventOutput out;
  FileStates own_states;
  FileStates* states_;
  std::unique_ptr<FollowedFiles> files;
  double now = 1000;
  std::vector<nlohmann::json> all;
};

TEST(FileFollower, AppendsAndPartialLines) {
  ScratchDir d;
  WriteFile(d / "logs/rank0.log", "step 1\n" + kXid.substr(0, 20));
  Harness h(d);
  h.Run(3);
  EXPECT_TRUE(h.Take().empty());  // a partial line waits, even after an idle flush
  AppendFile(d / "logs/rank0.log", kXid.substr(20) + "\nstep 2\n");
  h.Run(3);
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["rule"], "xid-79");
  EXPECT_EQ(evs[0]["file"], "nodes/node-0007/train.log");
  EXPECT_EQ(evs[0]["source"], "train");
  EXPECT_EQ(evs[0]["line"], 2);
  const std::string id = evs[0]["id"];
  EXPECT_EQ(id.rfind("node-0007:train:", 0), 0u) << id;
  EXPECT_EQ(id.substr(id.rfind(':')), ":2");  // the file's own line
  AppendFile(d / "logs/rank0.log", kPeer + "\n");
  h.Run(2);
  evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["class"], "dist");
  EXPECT_EQ(evs[0]["line"], 4);
}

TEST(FileFollower, RotationByRenameFinishesTheOldFileAndFollowsTheNew) {
  ScratchDir d;
  const std::string log = d / "logs/train.log";
  WriteFile(log, "a\n" + kXid + "\n");
  Harness h(d);
  h.Run(2);
  ASSERT_EQ(h.Take().size(), 1u);
  // logrotate: rename, the writer still appends to the old file for a moment, then reopens.
  std::filesystem::rename(log, d / "logs/train.log.1");
  AppendFile(d / "logs/train.log.1", kPeer + "\n");
  WriteFile(log, "b\n" + kXid + "\nc\n");
  h.Run(10);
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 2u) << testing::ReadFile(log);
  std::set<std::string> texts;
  std::set<std::string> ids;
  for (auto& e : h.all) {
    texts.insert(e["text"].get<std::string>());
    EXPECT_TRUE(ids.insert(e["id"].get<std::string>()).second) << "duplicate id " << e["id"];
  }
  EXPECT_EQ(texts.size(), 2u);  // Xid (twice, different files) and the peer line
  std::set<uint64_t> lines;
  for (auto& e : h.all) EXPECT_TRUE(lines.insert(e["line"].get<uint64_t>()).second) << "line reused";
  h.Run(10);
  EXPECT_TRUE(h.Take().empty());  // train.log.1 matches the glob too, but is not read twice
}

TEST(FileFollower, RotationByTruncationStartsAgainAtZero) {
  ScratchDir d;
  const std::string log = d / "logs/train.log";
  WriteFile(log, "x\ny\n" + kXid + "\n" + kPeer + "\n");
  Harness h(d);
  h.Run(2);
  auto first = h.Take();
  ASSERT_EQ(first.size(), 2u);
  // copytruncate: the content was copied away; the file is emptied and written again.
  ::truncate(log.c_str(), 0);
  h.Run(1);
  AppendFile(log, kXid + "\n");
  h.Run(2);
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["rule"], "xid-79");
  EXPECT_NE(evs[0]["id"], first[0]["id"]);  // a new generation: its own ids
  EXPECT_GT(evs[0]["line"].get<uint64_t>(), first[1]["line"].get<uint64_t>());
}

TEST(FileFollower, ResumesAfterARestartWithNoLossAndNoDuplicates) {
  ScratchDir d;
  const std::string log = d / "logs/train.log";
  FileStates states;
  WriteFile(log, "start\n" + kXid + "\n");
  {
    Harness h(d, &states);
    h.Run(3);
    ASSERT_EQ(h.Take().size(), 1u);
    h.files->Stop();
    h.files->SaveStates();
    ASSERT_TRUE(h.lines.Close().ok());
  }
  AppendFile(log, kPeer + "\nmore\n" + kXid + "\n");  // written while the agent was down
  Harness h(d, &states);
  h.Run(3);
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0]["class"], "dist");
  EXPECT_EQ(evs[1]["rule"], "xid-79");
  EXPECT_EQ(evs[1]["id"].get<std::string>().substr(evs[1]["id"].get<std::string>().rfind(':')), ":5");
}

TEST(FileFollower, CrashMidStreamReReadsButHandsOutNothingTwice) {
  ScratchDir d;
  const std::string log = d / "logs/train.log";
  std::string text;
  for (int i = 0; i < 300; ++i) text += (i % 7 == 3 ? kXid : "step " + std::to_string(i)) + "\n";
  WriteFile(log, text);
  FileStates states;
  std::set<std::string> ids;
  {
    Harness h(d, &states);
    h.files->Expand(h.now);
    while (h.files->Poll(h.now)) {
    }
    h.files->SaveStates();  // persisted mid-stream, no idle flush: then "killed"
    for (auto& e : h.Take()) ids.insert(e["id"]);
  }
  // The checkpoint lies behind what was read (lines are read again)...
  ASSERT_EQ(states.size(), 1u);
  EXPECT_LT(states.begin()->second.cp.pos.offset, text.size());
  AppendFile(log, kPeer + "\n");
  Harness h(d, &states);
  h.Run(3);
  size_t total = ids.size();
  for (auto& e : h.Take()) {
    EXPECT_TRUE(ids.insert(e["id"]).second) << "handed out twice: " << e["id"];
    ++total;
  }
  // ...but every event comes exactly once: 43 Xid lines and the peer line.
  EXPECT_EQ(total, 44u);
  EXPECT_EQ(ids.size(), 44u);
}

TEST(FileFollower, SeveralFilesShareOneLineNumbering) {
  ScratchDir d;
  WriteFile(d / "logs/rank0.log", kXid + "\n");
  WriteFile(d / "logs/rank1.log", kXid + "\n");
  Harness h(d);
  h.Run(2);
  WriteFile(d / "logs/rank2.log", kXid + "\n");  // appears later: found by the next glob
  h.Run(12);
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 3u);
  std::set<uint64_t> lines;
  std::set<std::string> ids;
  for (auto& e : evs) {
    lines.insert(e["line"].get<uint64_t>());
    ids.insert(e["id"].get<std::string>());
  }
  EXPECT_EQ(lines.size(), 3u);
  EXPECT_EQ(ids.size(), 3u);
}

TEST(TrackedLogStream, CheckpointStaysBehindTheHeldBackRecord) {
  ScratchDir d;
  VirtualLines lines(d / "lines");
  ASSERT_TRUE(lines.Load().ok());
  std::vector<TrackedEvent> got;
  TrackedLogStream s(testing::BuiltinRules()->Current(), &lines, Checkpoint());
  auto sink = [&](TrackedEvent&& t) { got.push_back(std::move(t)); };
  std::string text;
  for (int i = 0; i < 10; ++i) text += "line " + std::to_string(i) + "\n";
  s.FeedBytes(text, sink);
  EXPECT_EQ(s.checkpoint().pos.offset, 0u);  // fewer lines than the safety margin
  s.IdleFlush(sink);
  EXPECT_EQ(s.checkpoint().pos.offset, text.size());
  EXPECT_EQ(s.checkpoint().line, 11u);
  // One big piece: nothing is known matched in it before an idle flush...
  std::string more;
  for (int i = 0; i < 200; ++i) more += "more " + std::to_string(i) + "\n";
  s.FeedBytes(more, sink);
  EXPECT_EQ(s.checkpoint().line, 11u);
  // ...while lines arriving one by one move it along, the safety margin behind.
  for (int i = 0; i < 100; ++i) {
    std::string line = std::to_string(i);
    line += '\n';
    s.FeedBytes(line, sink);
  }
  const Checkpoint c = s.checkpoint();
  EXPECT_GT(c.line, 211u);
  EXPECT_EQ(c.line + TrackedLogStream::kSafetyLines, 11u + 300u);
}

TEST(TrackedLogStream, LineNumbersSurviveACrashWithoutRepeating) {
  ScratchDir d;
  uint64_t first = 0;
  {
    VirtualLines lines(d / "lines", /*block=*/100);
    ASSERT_TRUE(lines.Load().ok());
    first = lines.Reserve(10);
    lines.Reserve(5);
    // no Close(): a crash
  }
  VirtualLines lines(d / "lines", 100);
  ASSERT_TRUE(lines.Load().ok());
  EXPECT_GE(lines.Reserve(1), first + 15);
  ASSERT_TRUE(lines.Close().ok());
  VirtualLines again(d / "lines", 100);
  ASSERT_TRUE(again.Load().ok());
  const uint64_t next = again.Reserve(1);
  EXPECT_EQ(next, lines.next());  // a clean stop gives the rest of the block back
}

}  // namespace
}  // namespace aegis::agent
