#include "agent/sources/ccl/ccl_intake.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "sources/ccl/probe_record.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ProbeRecord;
using testing::ScratchDir;

std::vector<nlohmann::json> Flush(CclCoalescer* c, AgentCounters* counters) {
  EventOutput out(counters);
  c->Flush(&out);
  std::vector<nlohmann::json> evs;
  for (auto& s : out.events()) evs.push_back(nlohmann::json::parse(s));
  return evs;
}

TEST(CclCoalescer, ShipsTheNewestRecordPerCommAndRankOnce) {
  AgentCounters counters;
  CclCoalescer c("node-0007", &counters);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(c.Add(ProbeRecord("00000000deadbeef", 0, 1000 + i, 10 * i)));
  EXPECT_TRUE(c.Add(ProbeRecord("00000000deadbeef", 1, 1000.5, 7)));
  EXPECT_TRUE(c.Add(ProbeRecord("00000000deadbeef", 0, 1002, 999)));  // older than the newest held
  auto evs = Flush(&c, &counters);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0]["type"], "ccl");
  EXPECT_EQ(evs[0]["id"], "node-0007:ccl:00000000deadbeef:0:1004.000000");
  EXPECT_EQ(evs[0]["file"], "nodes/node-0007/ccl/node-0007-4242.jsonl");
  EXPECT_EQ(evs[0]["record"]["coll"]["AllReduce"]["launched"], 40);
  EXPECT_EQ(evs[0]["record"], nlohmann::json::parse(ProbeRecord("00000000deadbeef", 0, 1004, 40)));  // as written
  EXPECT_EQ(evs[1]["record"]["rank"], 1);
  EXPECT_TRUE(Flush(&c, &counters).empty());                       // nothing new
  EXPECT_TRUE(c.Add(ProbeRecord("00000000deadbeef", 0, 1004, 40)));     // the same record again (file and socket)
  EXPECT_TRUE(Flush(&c, &counters).empty());
  EXPECT_TRUE(c.Add(ProbeRecord("00000000deadbeef", 0, 1005, 50)));
  ASSERT_EQ(Flush(&c, &counters).size(), 1u);
}

// A clock before 1970 (a host whose clock was never set) is still the newest record of its
// key: one a coalescer takes is shipped (found by fuzz/agent_ccl_fuzz.cc).
TEST(CclCoalescer, ARecordTakenWithAnyTimeIsShipped) {
  AgentCounters counters;
  CclCoalescer c("node-0007", &counters);
  EXPECT_TRUE(c.Add(ProbeRecord("00000000deadbeef", 0, -1764497523.125, 10)));
  EXPECT_TRUE(c.Add(ProbeRecord("00000000deadbeef", 1, 0, 10)));
  auto evs = Flush(&c, &counters);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0]["record"]["ts"], -1764497523.125);
  EXPECT_TRUE(c.Add(ProbeRecord("00000000deadbeef", 0, -1764497523.125, 10)));  // shipped already
  EXPECT_TRUE(Flush(&c, &counters).empty());
}

TEST(CclCoalescer, InvalidRecordsAreCounted) {
  AgentCounters counters;
  CclCoalescer c("n", &counters);
  EXPECT_FALSE(c.Add("not json"));
  EXPECT_FALSE(c.Add("[1, 2]"));
  EXPECT_FALSE(c.Add("{\"comm\": \"x\", \"rank\": 0}"));               // no ts
  EXPECT_FALSE(c.Add("{\"comm\": 5, \"rank\": 0, \"ts\": 1}"));        // comm not text
  EXPECT_FALSE(c.Add("{\"comm\": \"x\", \"rank\": 0.5, \"ts\": 1}"));  // rank not whole
  EXPECT_FALSE(c.Add("{\"comm\": \"x\", \"rank\": 0, \"ts\": 1"));     // cut
  EXPECT_FALSE(c.Add(""));
  // Nested deeper than the controller takes: it would refuse the record's whole batch.
  EXPECT_FALSE(c.Add("{\"comm\": \"x\", \"rank\": 0, \"ts\": 1, \"x\": " + std::string(100, '[') +
                     std::string(100, ']') + "}"));
  EXPECT_EQ(counters.ccl_invalid.load(), 8u);
  EXPECT_TRUE(c.Add("{\"comm\": \"x\", \"rank\": 0, \"ts\": 1}\r\n"));
  auto evs = Flush(&c, &counters);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["file"], "nodes/n/ccl/probe.jsonl");  // no host / pid in the record
}

TEST(CclSocket, ReceivesDatagramsAndCoalesces) {
  ScratchDir d;
  const std::string path = d / "run/aegis/ccl.sock";
  AgentCounters counters;
  CclCoalescer c("node-0007", &counters);
  CclSocket sock;
  ASSERT_TRUE(sock.Bind(path).ok());
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u);  // any training process may send

  // The probe's side: an unbound datagram socket sending to the path.
  int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  // As the probe sends: never blocking. A full socket queue (net.unix.max_dgram_qlen,
  // 10 by default) is drained by the receiver, here in turn.
  auto send = [&](const std::string& s) {
    for (int tries = 0; tries < 100; ++tries) {
      if (::sendto(fd, s.data(), s.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&addr), sizeof addr) ==
          static_cast<ssize_t>(s.size()))
        return;
      ASSERT_EQ(errno, EAGAIN);
      sock.OnReadable(&c, &counters);
    }
    FAIL() << "the socket never took the datagram";
  };
  for (int i = 0; i < 20; ++i) send(ProbeRecord("00000000000000aa", i % 4, 2000 + i, i));
  send("garbage");
  sock.OnReadable(&c, &counters);
  auto evs = Flush(&c, &counters);
  ASSERT_EQ(evs.size(), 4u);  // one per rank, the newest
  for (auto& e : evs) EXPECT_GE(e["record"]["ts"].get<double>(), 2016);
  EXPECT_EQ(counters.ccl_datagrams.load(), 21u);
  EXPECT_EQ(counters.ccl_invalid.load(), 1u);
  ::close(fd);

  // A second agent on the same path is refused while this one receives.
  CclSocket again;
  EXPECT_FALSE(again.Bind(path).ok());
}

TEST(CclSocket, StaleSocketFileIsReplaced) {
  ScratchDir d;
  const std::string path = d / "ccl.sock";
  {
    // Bound and then abandoned without unlink (a crash): the file stays.
    int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::close(fd);
  }
  CclSocket sock;
  EXPECT_TRUE(sock.Bind(path).ok());
}

TEST(CclFiles, SnapshotFilesAreFollowedLineByLine) {
  ScratchDir d;
  AgentCounters counters;
  CclCoalescer c("node-0007", &counters);
  FileStates states;
  FollowedFiles files({d / "ccl/*.jsonl"}, &states, MakeCclConsumerFactory(&c, &counters));
  testing::WriteFile(d / "ccl/node-0007-4242.jsonl",
                     ProbeRecord("c1", 0, 10, 1) + "\n" + ProbeRecord("c1", 0, 11, 2) + "\n" + ProbeRecord("c1", 1, 11, 2).substr(0, 30));
  files.Expand(1);
  files.Poll(1);
  auto evs = Flush(&c, &counters);
  ASSERT_EQ(evs.size(), 1u);  // rank 1's line is not complete yet
  EXPECT_EQ(evs[0]["record"]["ts"], 11.0);
  testing::AppendFile(d / "ccl/node-0007-4242.jsonl", ProbeRecord("c1", 1, 11, 2).substr(30) + "\n");
  files.Poll(2);
  evs = Flush(&c, &counters);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["record"]["rank"], 1);
  files.SaveStates();
  EXPECT_EQ(states.begin()->second.cp.pos.offset, testing::ReadFile(d / "ccl/node-0007-4242.jsonl").size());
}

}  // namespace
}  // namespace aegis::agent
