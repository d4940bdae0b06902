// The probe's output paths, each in a fresh process (tests/system/probe/probe_driver.cc) since
// the plugin reads its environment once per process: periodic snapshots, the opt-in
// signal (chaining the application's handler), rotation, the Unix-socket stream, an
// unwritable directory that must only cost a warning, snapshots taken while several
// proxy threads report, an old NCCL's API, and NCCL unloading the plugin.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "test_util.h"

extern char** environ;

namespace aegis {
namespace {

using nlohmann::json;

// Runs the driver with extra environment; returns its exit status, stderr into *err.
int Drive(const std::vector<std::string>& env, const std::vector<std::string>& args, std::string* err = nullptr) {
  test::TempDir tmp;
  std::vector<std::string> e;
  for (char** p = environ; *p; ++p)
    if (std::string(*p).rfind("AEGIS_CCL_", 0) != 0) e.push_back(*p);
  e.insert(e.end(), env.begin(), env.end());
  std::vector<char*> envp, argv;
  for (auto& s : e) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> a = {AEGIS_PROBE_DRIVER, AEGIS_PROBE_SO};
  a.insert(a.end(), args.begin(), args.end());
  for (auto& s : a) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  const std::string err_path = tmp.Sub("stderr");
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  if (posix_spawn(&pid, AEGIS_PROBE_DRIVER, &fa, nullptr, argv.data(), envp.data()) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  posix_spawn_file_actions_destroy(&fa);
  if (err) *err = test::ReadFile(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<json> Records(const std::string& dir, const std::string& suffix = ".jsonl") {
  std::vector<json> out;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    const std::string name = f.path().filename().string();
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    std::ifstream in(f.path());
    std::string line;
    while (std::getline(in, line)) out.push_back(json::parse(line));
  }
  return out;
}

TEST(ProbeProcess, PeriodicSnapshots) {
  test::TempDir dir;
  ASSERT_EQ(Drive({"AEGIS_CCL_DIR=" + dir.path(), "AEGIS_CCL_INTERVAL_MS=20", "AEGIS_CCL_SOCKET="}, {"10", "15", "0"}), 0);
  auto recs = Records(dir.path());
  size_t rank0 = 0;
  for (const auto& r : recs) rank0 += r["rank"] == 0;
  EXPECT_GE(rank0, 4u);  // periodic ones, then the final one
  EXPECT_EQ(recs.back()["coll"]["AllReduce"]["launched"], 10);
}

TEST(ProbeProcess, SignalSnapshotChainsTheApplicationsHandler) {
  test::TempDir dir;
  EXPECT_EQ(Drive({"AEGIS_CCL_DIR=" + dir.path(), "AEGIS_CCL_INTERVAL_MS=3600000", "AEGIS_CCL_SIGNAL=USR1",
                   "AEGIS_CCL_SOCKET="},
                  {"5", "0", "1", "0"}),
            0);  // 3 would mean the application's own handler was lost
  auto recs = Records(dir.path());
  ASSERT_EQ(recs.size(), 4u);  // one snapshot per rank, written on the signal (no finalize)
  for (const auto& r : recs) EXPECT_EQ(r["coll"]["AllReduce"]["completed"], 5);
}

TEST(ProbeProcess, FilesRotateAtTheirCap) {
  test::TempDir dir;
  ASSERT_EQ(Drive({"AEGIS_CCL_DIR=" + dir.path(), "AEGIS_CCL_INTERVAL_MS=5", "AEGIS_CCL_MAX_KB=4", "AEGIS_CCL_SOCKET="},
                  {"30", "5", "0"}),
            0);
  bool rotated = false;
  for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
    if (f.path().extension() == ".1") rotated = true;
    EXPECT_LE(std::filesystem::file_size(f.path()), 4u * 1024 + 2048) << f.path();
  }
  EXPECT_TRUE(rotated);
}

TEST(ProbeProcess, UnwritableDirectoryOnlyWarns) {
  std::string err;
  ASSERT_EQ(Drive({"AEGIS_CCL_DIR=/proc/aegis-no-such-dir", "AEGIS_CCL_INTERVAL_MS=10", "AEGIS_CCL_SOCKET="},
                  {"3", "10", "0"}, &err),
            0);
  EXPECT_NE(err.find("cannot write"), std::string::npos) << err;
  EXPECT_EQ(err.find("cannot write", err.find("cannot write") + 1), std::string::npos);  // once
}

TEST(ProbeProcess, RecordsReachTheLocalSocket) {
  test::TempDir dir;
  const std::string path = dir.Sub("ccl.sock");
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(Drive({"AEGIS_CCL_DIR=" + dir.path(), "AEGIS_CCL_INTERVAL_MS=3600000", "AEGIS_CCL_SOCKET=" + path},
                  {"2", "0", "0"}),
            0);
  int got = 0;
  char buf[65536];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) {
    json j = json::parse(std::string(buf, static_cast<size_t>(n)));
    EXPECT_EQ(j["comm"], "00000000000d71e4");
    EXPECT_EQ(j["coll"]["AllReduce"]["launched"], 2);
    ++got;
  }
  close(fd);
  EXPECT_EQ(got, 4);  // the final snapshot of each rank
}

// Snapshots every millisecond while four proxy threads report (in bursts, a millisecond
// apart): every record is consistent (completed <= posted), no counter ever goes back.
TEST(ProbeProcess, SnapshotsWhileProxyThreadsReport) {
  test::TempDir dir;
  ASSERT_EQ(Drive({"AEGIS_CCL_DIR=" + dir.path(), "AEGIS_CCL_INTERVAL_MS=1", "AEGIS_CCL_SOCKET="},
                  {"300", "1", "0", "1", "5", "4"}),
            0);
  std::map<std::string, uint64_t> last;  // (rank, peer, dir, field) -> value
  size_t records = 0;
  for (const auto& r : Records(dir.path())) {
    ++records;
    const std::string rank = std::to_string(r["rank"].get<int>());
    if (r["coll"].contains("AllReduce")) {  // none in a snapshot taken before the first one
      EXPECT_LE(r["coll"]["AllReduce"]["completed"].get<uint64_t>(), r["coll"]["AllReduce"]["launched"].get<uint64_t>());
    }
    for (const auto& n : r["net"]) {
      EXPECT_LE(n["completed"].get<uint64_t>(), n["posted"].get<uint64_t>());
      for (const char* field : {"posted", "completed", "bytes"}) {
        const std::string key = rank + "/" + std::to_string(n["peer"].get<int>()) + n["dir"].get<std::string>() + field;
        EXPECT_GE(n[field].get<uint64_t>(), last[key]) << key;
        last[key] = n[field].get<uint64_t>();
      }
    }
  }
  EXPECT_GT(records, 4u);  // periodic ones besides the 4 final ones
  EXPECT_EQ(last["0/1sendposted"], 300u * 4);
}

// NCCL 2.23 (profiler API v1) through the same process path.
TEST(ProbeProcess, OldestNcclApi) {
  test::TempDir dir;
  ASSERT_EQ(Drive({"AEGIS_CCL_DIR=" + dir.path(), "AEGIS_CCL_INTERVAL_MS=3600000", "AEGIS_CCL_SOCKET="},
                  {"7", "0", "0", "1", "1"}),
            0);
  auto recs = Records(dir.path());
  ASSERT_EQ(recs.size(), 4u);
  for (const auto& r : recs) {
    EXPECT_EQ(r["api"], 1);
    EXPECT_EQ(r["comm"], "00000000000d71e4");
    EXPECT_EQ(r["coll"]["AllReduce"]["launched"], 7);
  }
}

// NCCL dlcloses the plugin after its last communicator; the writer thread and the signal
// handler live in it, so it must stay mapped: the process lives on and exits cleanly.
TEST(ProbeProcess, NcclUnloadingThePluginIsSafe) {
  test::TempDir dir;
  EXPECT_EQ(Drive({"AEGIS_CCL_DIR=" + dir.path(), "AEGIS_CCL_INTERVAL_MS=20", "AEGIS_CCL_SOCKET="},
                  {"3", "0", "0", "1", "5", "1", "1"}),
            0);
  // The writer woke 3 times after the dlclose (a crash had it been unmapped).
  std::map<int, json> last;
  for (const auto& r : Records(dir.path())) last[r["rank"].get<int>()] = r;
  ASSERT_EQ(last.size(), 4u);
  for (const auto& [rank, r] : last) EXPECT_EQ(r["coll"]["AllReduce"]["completed"], 3) << rank;
}

}  // namespace
}  // namespace aegis
