// A source that follows the files some glob patterns match (FollowedFiles): the patterns
// are expanded again every glob_s, the files polled every poll_s, at once again while a
// file has more bytes waiting than one poll reads, and on the controller's flush. What is
// done with the bytes is the ConsumerFactory's business (log lines: log_consumer.h; CCL
// records: sources/ccl). Adds its files to the followed_files gauge. With no pattern it
// does nothing. Loop thread only (source.h).
#pragma once
#include <mutex>
#include <string>
#include <vector>

#include "agent/file_follower.h"
#include "agent/source.h"

namespace aegis::agent {

class FileSource : public Source {
 public:
  FileSource(std::string name, const SourceContext& ctx, std::vector<std::string> patterns, FileStates* states,
             ConsumerFactory factory);
  ~FileSource() override;

  double due() const override;
  SourcePass Poll(const SourceTick& tick) override;
  void Flush() override { files_.Flush(); }
  void SaveState() override { files_.SaveStates(); }
  void Stop() override { files_.Stop(); }
  std::vector<std::string> MissingInputs() const override;

 private:
  AgentCounters* counters_;
  double glob_s_, poll_s_;
  bool any_ = false;  // some pattern
  FollowedFiles files_;
  double next_glob_ = 0, next_poll_ = 0;
  bool more_ = false;
  uint64_t counted_files_ = 0;  // what this source added to the followed_files gauge
  mutable std::mutex missing_mu_;
  std::vector<std::string> missing_;  // files_.missing() for the metrics thread, guarded by missing_mu_
};

}  // namespace aegis::agent
