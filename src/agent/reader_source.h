// ReaderSource: the agent source (source.h) around a reader of a stream that has a
// descriptor, a period and a position of its own: the kernel log from /dev/kmsg
// (sources/kmsg) or from journalctl (sources/journald). The loop waits on the reader's
// descriptor; every poll_s the reader's periodic work runs (its idle flush, restarting
// what stopped); a flush reads what was queued since poll() returned, then idle-flushes.
// A pass fails when the reader counts a failure during it (a reader without failures()
// never fails a pass; a subclass may fail one in BeforePoll).
//
// A Reader provides: int fd() const; bool OnReadable(double now) (true: more input
// waits); void Poll(double now); void Flush(); void SaveState(); void Stop(); and
// optionally uint64_t failures() const. Lifetime and threads: those of a Source.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "agent/source.h"

namespace aegis::agent {

template <typename Reader>
class ReaderSource : public Source {
 public:
  // The reader is built in place from `args`.
  template <typename... Args>
  ReaderSource(std::string name, double poll_s, Args&&... args)
      : Source(std::move(name)), poll_s_(poll_s), reader_(std::forward<Args>(args)...) {}

  int fd() const override { return reader_.fd(); }
  SourcePass OnReadable(double now) override {
    const uint64_t before = Failures();
    const bool more = reader_.OnReadable(now);
    return {more, Failures() != before};
  }
  double due() const override { return next_poll_; }
  SourcePass Poll(const SourceTick& t) override {
    const uint64_t before = Failures();
    SourcePass r = BeforePoll(t);
    if (t.flush && reader_.fd() >= 0) r.more |= reader_.OnReadable(t.now);
    if (t.now >= next_poll_ || t.flush) {
      next_poll_ = t.now + poll_s_;
      reader_.Poll(t.now);
    }
    r.failed |= Failures() != before;
    return r;
  }
  void Flush() override { reader_.Flush(); }
  void SaveState() override { reader_.SaveState(); }
  void Stop() override { reader_.Stop(); }

 protected:
  // Runs first in every Poll (e.g. opening the reader's device when it is due).
  virtual SourcePass BeforePoll(const SourceTick& tick) {
    (void)tick;
    return {};
  }
  Reader& reader() { return reader_; }
  const Reader& reader() const { return reader_; }

 private:
  uint64_t Failures() const {
    if constexpr (requires(const Reader& r) { r.failures(); })
      return reader_.failures();
    else
      return 0;
  }

  double poll_s_;
  Reader reader_;
  double next_poll_ = 0;
};

}  // namespace aegis::agent
