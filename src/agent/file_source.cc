#include "agent/file_source.h"

#include <algorithm>
#include <limits>

namespace aegis::agent {

namespace {

FollowOptions Options(const AgentConfig& c) {
  FollowOptions fo;
  fo.idle_s = c.idle_flush_s;
  fo.rotate_wait_s = c.rotate_wait_s;
  fo.env = c.env;
  return fo;
}

}  // namespace

FileSource::FileSource(std::string name, const SourceContext& ctx, std::vector<std::string> patterns,
                       FileStates* states, ConsumerFactory factory)
    : Source(std::move(name)),
      counters_(ctx.counters),
      glob_s_(ctx.config->glob_s),
      poll_s_(ctx.config->poll_s),
      any_(!patterns.empty()),
      files_(std::move(patterns), states, std::move(factory), Options(*ctx.config)) {}

FileSource::~FileSource() { counters_->followed_files.fetch_sub(counted_files_, std::memory_order_relaxed); }

double FileSource::due() const {
  if (!any_) return std::numeric_limits<double>::infinity();
  if (more_) return -std::numeric_limits<double>::infinity();
  return std::min(next_glob_, next_poll_);
}

SourcePass FileSource::Poll(const SourceTick& t) {
  if (!any_) return {};
  if (t.now >= next_glob_) {
    next_glob_ = t.now + glob_s_;
    files_.Expand(t.now);
    std::lock_guard<std::mutex> lock(missing_mu_);
    missing_ = files_.missing();
  }
  if (t.now >= next_poll_ || more_ || t.flush) {
    next_poll_ = t.now + poll_s_;
    more_ = files_.Poll(t.now);
    const uint64_t n = files_.files();
    counters_->followed_files.fetch_add(n - counted_files_, std::memory_order_relaxed);  // modulo 2^64: a decrease too
    counted_files_ = n;
  }
  return {more_, false};
}

std::vector<std::string> FileSource::MissingInputs() const {
  std::lock_guard<std::mutex> lock(missing_mu_);
  return missing_;
}

}  // namespace aegis::agent
