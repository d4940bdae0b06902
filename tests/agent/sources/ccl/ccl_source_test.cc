// The "ccl" adapter (ccl_source.cc) as the loop drives it, built through the registry:
// snapshot files and the probe's socket feed one coalescer, shipped by EmitHeld().
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "sources/ccl/probe_record.h"
#include "sources/source_harness.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ProbeRecord;
using testing::ScratchDir;
using testing::WriteFile;

TEST(CclInput, FilesAndSocketFeedOneCoalescerShippedWhenHeldRecordsAreEmitted) {
  ScratchDir d;
  testing::SourceHarness h(d);
  h.config.ccl_dir = d / "ccl";
  h.config.ccl_socket = d / "ccl.sock";
  WriteFile(d / "ccl/node-0007-4242.jsonl", ProbeRecord("c1", 0, 10, 1) + "\n" + ProbeRecord("c1", 0, 11, 2) + "\n");
  auto s = h.Create("ccl");
  ASSERT_TRUE(s);
  ASSERT_GE(s->fd(), 0);  // the socket is bound
  s->Poll({0, 1000, false});
  EXPECT_TRUE(h.Take().empty()) << "coalesced until EmitHeld";
  s->EmitHeld();
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);  // the newest record of (c1, rank 0)
  EXPECT_EQ(evs[0]["type"], "ccl");
  EXPECT_EQ(evs[0]["record"]["ts"], 11.0);

  // A datagram from the probe: read when the socket is readable.
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un to{};
  to.sun_family = AF_UNIX;
  std::strncpy(to.sun_path, (d / "ccl.sock").c_str(), sizeof to.sun_path - 1);
  const std::string rec = ProbeRecord("c1", 1, 12, 3);
  ASSERT_EQ(::sendto(fd, rec.data(), rec.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
            static_cast<ssize_t>(rec.size()));
  ::close(fd);
  EXPECT_FALSE(s->OnReadable(1).failed);
  s->EmitHeld();
  evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["record"]["rank"], 1);
  s->SaveState();
  EXPECT_EQ(h.state.ccl_files.size(), 1u);  // the file's position, for the next start
}

}  // namespace
}  // namespace aegis::agent
