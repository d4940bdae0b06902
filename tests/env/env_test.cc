// The Envs: the POSIX one's files and error codes, the manual clock's sleeping, and the
// faults the fault-injecting Env hands out.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "env/env.h"
#include "env/fault_injection_env.h"
#include "env/manual_clock_env.h"

namespace aegis {
namespace {

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "aegis-env-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadAll(Env* env, const std::string& path) {
  std::string out;
  Status s = ReadFileToString(env, path, 1 << 20, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

TEST(PosixEnv, WritesAtOffsetsReadsBackAndTruncates) {
  ScratchDir d;
  Env* env = Env::Default();
  std::unique_ptr<WritableFile> w;
  ASSERT_TRUE(env->NewWritableFile(d / "f", 0600, &w).ok());
  ASSERT_TRUE(w->WriteAt(0, "hello world").ok());
  ASSERT_TRUE(w->WriteAt(6, "there").ok());
  ASSERT_TRUE(w->Sync().ok());
  ASSERT_TRUE(w->Close().ok());
  EXPECT_FALSE(w->Close().ok());  // closed once
  EXPECT_EQ(ReadAll(env, d / "f"), "hello there");

  std::unique_ptr<RandomAccessFile> r;
  ASSERT_TRUE(env->NewRandomAccessFile(d / "f", &r).ok());
  char buf[16];
  size_t got = 0;
  ASSERT_TRUE(r->ReadAt(6, sizeof buf, buf, &got).ok());
  EXPECT_EQ(std::string(buf, got), "there");  // short at the end of the file

  // Reopened: the contents stay; a new writable file empties it.
  ASSERT_TRUE(env->ReopenWritableFile(d / "f", 0600, &w).ok());
  ASSERT_TRUE(w->Truncate(5).ok());
  uint64_t size = 0;
  ASSERT_TRUE(env->GetFileSize(d / "f", &size).ok());
  EXPECT_EQ(size, 5u);
  ASSERT_TRUE(env->NewWritableFile(d / "f", 0600, &w).ok());
  ASSERT_TRUE(env->GetFileSize(d / "f", &size).ok());
  EXPECT_EQ(size, 0u);
}

TEST(PosixEnv, DirectoriesRenamesAndErrorCodes) {
  ScratchDir d;
  Env* env = Env::Default();
  ASSERT_TRUE(CreateDirs(env, d / "a/b/c", 0700).ok());
  ASSERT_TRUE(CreateDirs(env, d / "a/b/c", 0700).ok());  // already there
  ASSERT_TRUE(WriteFileAtomically(env, d / "a/x", "one", /*sync=*/true).ok());
  ASSERT_TRUE(WriteFileAtomically(env, d / "a/x", "two", /*sync=*/false).ok());
  EXPECT_EQ(ReadAll(env, d / "a/x"), "two");
  std::vector<std::string> names;
  ASSERT_TRUE(env->GetChildren(d / "a", &names).ok());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"b", "x"}));  // no x.tmp left
  EXPECT_FALSE(CreateDirs(env, d / "a/x/y", 0700).ok());  // x is a file
  EXPECT_FALSE(env->CreateDir(d / "a/x", 0700).ok());
  ASSERT_TRUE(env->RenameFile(d / "a/x", d / "a/y").ok());
  ASSERT_TRUE(env->SyncDir(d / "a").ok());
  ASSERT_TRUE(env->RemoveFile(d / "a/y").ok());

  Status s = env->RemoveFile(d / "a/y");
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.message().find(d / "a/y"), std::string::npos) << s.message();
  std::unique_ptr<SequentialFile> f;
  EXPECT_TRUE(env->NewSequentialFile(d / "missing", &f).IsNotFound());
  uint64_t size = 0;
  EXPECT_TRUE(env->GetFileSize(d / "missing", &size).IsNotFound());
  EXPECT_TRUE(env->GetChildren(d / "missing", &names).IsNotFound());

  ASSERT_TRUE(WriteFileAtomically(env, d / "big", std::string(100, 'z'), false).ok());
  std::string out;
  EXPECT_EQ(ReadFileToString(env, d / "big", 99, &out).code(), Status::Code::kResourceExhausted);
}

TEST(ManualClockEnv, ClocksMoveOnlyWhenTold) {
  ManualClockEnv clock(1000.0);
  EXPECT_EQ(clock.NowEpochSeconds(), 1000.0);
  EXPECT_EQ(clock.NowMonotonicSeconds(), 0.0);
  clock.Advance(2.5);
  EXPECT_EQ(clock.NowEpochSeconds(), 1002.5);
  EXPECT_EQ(clock.NowMonotonicSeconds(), 2.5);
  clock.SetEpochSeconds(900.0);  // set back: the monotonic clock does not follow
  EXPECT_EQ(clock.NowEpochSeconds(), 900.0);
  EXPECT_EQ(clock.NowMonotonicSeconds(), 2.5);
  clock.Advance(-1);  // ignored: time never goes back
  EXPECT_EQ(clock.NowMonotonicSeconds(), 2.5);
  clock.SleepFor(0);  // returns at once
  clock.SleepFor(-3);
}

TEST(ManualClockEnv, SleepEndsWhenTheClockPassesTheDeadline) {
  ManualClockEnv clock(0);
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    clock.SleepFor(10);
    woke = true;
  });
  clock.WaitForSleepers(1);
  clock.Advance(9.5);
  // Not yet: the sleeper is still counted (it leaves SleepFor only past its deadline).
  EXPECT_EQ(clock.sleepers(), 1u);
  EXPECT_FALSE(woke);
  clock.Advance(0.5);
  sleeper.join();
  EXPECT_TRUE(woke);
  EXPECT_EQ(clock.sleepers(), 0u);
}

TEST(ManualClockEnv, FilesAreThoseOfTheWrappedEnv) {
  ScratchDir d;
  FaultInjectionEnv faults;
  ManualClockEnv clock(0, &faults);
  faults.FailWrites(1);
  std::unique_ptr<WritableFile> w;
  ASSERT_TRUE(clock.NewWritableFile(d / "f", 0600, &w).ok());
  EXPECT_FALSE(w->WriteAt(0, "x").ok());
  EXPECT_EQ(faults.injected().writes, 1u);
}

TEST(FaultInjectionEnv, FailsTheArmedNumberOfCallsThenPassesThrough) {
  ScratchDir d;
  FaultInjectionEnv env;
  std::unique_ptr<WritableFile> w;
  ASSERT_TRUE(env.NewWritableFile(d / "f", 0600, &w).ok());
  env.FailWrites(2);
  EXPECT_EQ(w->WriteAt(0, "a").code(), Status::Code::kIOError);
  EXPECT_EQ(w->WriteAt(0, "a").code(), Status::Code::kIOError);
  ASSERT_TRUE(w->WriteAt(0, "abc").ok());
  env.FailSyncs(1);
  Status s = w->Sync();
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_NE(s.message().find("(injected)"), std::string::npos) << s.message();
  EXPECT_TRUE(w->Sync().ok());

  env.FailReads(2);
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_TRUE(env.NewRandomAccessFile(d / "f", &r).ok());
  char buf[8];
  size_t got = 99;
  EXPECT_EQ(r->ReadAt(0, 3, buf, &got).code(), Status::Code::kIOError);
  EXPECT_EQ(got, 0u);
  std::string out;
  EXPECT_EQ(ReadFileToString(&env, d / "f", 100, &out).code(), Status::Code::kIOError);
  EXPECT_EQ(ReadAll(&env, d / "f"), "abc");
  ASSERT_TRUE(r->ReadAt(0, 3, buf, &got).ok());
  EXPECT_EQ(std::string(buf, got), "abc");

  const auto n = env.injected();
  EXPECT_EQ(n.writes, 2u);
  EXPECT_EQ(n.syncs, 1u);
  EXPECT_EQ(n.reads, 2u);
  EXPECT_EQ(n.disk_full, 0u);
}

TEST(FaultInjectionEnv, FullDiskWritesWhatFitsThenFailsWithNoSpace) {
  ScratchDir d;
  FaultInjectionEnv env;
  std::unique_ptr<WritableFile> w;
  ASSERT_TRUE(env.NewWritableFile(d / "f", 0600, &w).ok());
  env.SetSpaceLeft(8);
  ASSERT_TRUE(w->WriteAt(0, "12345").ok());
  Status s = w->WriteAt(5, "67890");
  EXPECT_EQ(s.code(), Status::Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.message();
  EXPECT_EQ(ReadAll(&env, d / "f"), "12345678");
  EXPECT_EQ(w->WriteAt(8, "9").code(), Status::Code::kResourceExhausted);
  env.FailWrites(5);
  env.ClearFaults();
  ASSERT_TRUE(w->WriteAt(8, "90").ok());
  EXPECT_EQ(ReadAll(&env, d / "f"), "1234567890");
  EXPECT_EQ(env.injected().disk_full, 2u);
  EXPECT_EQ(env.injected().writes, 0u);
}

}  // namespace
}  // namespace aegis
