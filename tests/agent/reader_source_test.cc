// ReaderSource (reader_source.h): what the loop sees of a reader with a descriptor and a
// period, on a reader that records its calls (no I/O, the ticks' times given by hand).
#include "agent/reader_source.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aegis::agent {
namespace {

struct FakeReader {
  explicit FakeReader(std::vector<std::string>* calls) : calls(calls) {}
  int fd() const { return open ? 7 : -1; }
  bool OnReadable(double now) {
    calls->push_back("read@" + std::to_string(static_cast<int>(now)));
    if (fail_reads) ++failed;
    return more;
  }
  void Poll(double now) { calls->push_back("poll@" + std::to_string(static_cast<int>(now))); }
  void Flush() { calls->push_back("flush"); }
  void SaveState() { calls->push_back("save"); }
  void Stop() { calls->push_back("stop"); }
  uint64_t failures() const { return failed; }

  std::vector<std::string>* calls;
  bool open = true, more = false, fail_reads = false;
  uint64_t failed = 0;
};

// A reader without failures(): its passes never fail on their own.
struct QuietReader {
  int fd() const { return -1; }
  bool OnReadable(double) { return false; }
  void Poll(double) {}
  void Flush() {}
  void SaveState() {}
  void Stop() {}
};

TEST(ReaderSource, PollsEveryPeriodAndOnAFlushReadsFirst) {
  std::vector<std::string> calls;
  ReaderSource<FakeReader> s("fake", 5, &calls);
  EXPECT_EQ(s.name(), "fake");
  EXPECT_EQ(s.fd(), 7);
  EXPECT_EQ(s.due(), 0);  // at once
  EXPECT_FALSE(s.Poll({0, 1000, false}).failed);
  EXPECT_EQ(s.due(), 5);
  s.Poll({3, 1003, false});  // not due: nothing
  s.Poll({5, 1005, false});
  EXPECT_EQ(s.due(), 10);
  s.Poll({6, 1006, true});  // a flush: what is queued is read, then the periodic work, whatever the period
  EXPECT_EQ(s.due(), 11);
  s.Flush();
  s.SaveState();
  s.Stop();
  EXPECT_EQ(calls, (std::vector<std::string>{"poll@0", "poll@5", "read@6", "poll@6", "flush", "save", "stop"}));
}

// Gives a test the reader it drives.
struct Exposed : ReaderSource<FakeReader> {
  using ReaderSource::ReaderSource;
  FakeReader& get() { return reader(); }
};

TEST(ReaderSource, AFailureTheReaderCountsFailsThePass) {
  std::vector<std::string> calls;
  Exposed s("fake", 1, &calls);
  FakeReader& r = s.get();
  EXPECT_FALSE(s.OnReadable(0).failed);
  r.more = true;
  r.fail_reads = true;
  const SourcePass a = s.OnReadable(1);
  EXPECT_TRUE(a.more);
  EXPECT_TRUE(a.failed);
  r.fail_reads = false;
  EXPECT_FALSE(s.OnReadable(2).failed);
  r.fail_reads = true;
  EXPECT_TRUE(s.Poll({3, 1003, true}).failed);  // the flush's read failed
  r.open = false;                                // closed: a flush does not read
  EXPECT_FALSE(s.Poll({4, 1004, true}).failed);

  ReaderSource<QuietReader> q("quiet", 1);
  EXPECT_FALSE(q.Poll({0, 1000, true}).failed);
  EXPECT_FALSE(q.OnReadable(0).failed);
}

TEST(ReaderSource, BeforePollRunsFirstAndMayFailThePass) {
  std::vector<std::string> calls;
  struct Opening : ReaderSource<FakeReader> {
    using ReaderSource::ReaderSource;
    SourcePass BeforePoll(const SourceTick& t) override {
      reader().calls->push_back("open@" + std::to_string(static_cast<int>(t.now)));
      return {true, t.now < 1};
    }
  } s("fake", 10, &calls);
  const SourcePass first = s.Poll({0, 1000, false});
  EXPECT_TRUE(first.failed);
  EXPECT_TRUE(first.more);
  EXPECT_FALSE(s.Poll({2, 1002, false}).failed);
  EXPECT_EQ(calls, (std::vector<std::string>{"open@0", "poll@0", "open@2"}));
}

}  // namespace
}  // namespace aegis::agent
