#include "agent/tracked_stream.h"

#include <cstring>

#include "agent/fs_util.h"
#include "bundle/bundle_reader.h"
#include "common/text.h"
#include "common/time.h"

namespace aegis::agent {

Status VirtualLines::Load() {
  std::string text;
  Status s = ReadSmallFile(path_, &text, 4096);
  if (s.IsNotFound()) return Status::Ok();
  if (!s.ok()) return s;
  auto v = ParseInt(Trim(text));
  if (!v || *v < 0) return Status::Corruption(path_ + ": not a line number");
  reserved_through_ = static_cast<uint64_t>(*v);
  next_ = reserved_through_ + 1;
  return Status::Ok();
}

Status VirtualLines::Persist(uint64_t through) {
  return WriteFileAtomically(path_, std::to_string(through) + "\n", /*sync=*/true);
}

uint64_t VirtualLines::Reserve(uint64_t n) {
  const uint64_t first = next_;
  next_ += n;
  if (next_ - 1 > reserved_through_) {
    // A failed write leaves the old reservation: after a crash, numbers could then repeat
    // in line references, never in event ids. Retried with the next block.
    const uint64_t through = next_ - 1 + block_;
    if (Persist(through).ok()) reserved_through_ = through;
  }
  return first;
}

Status VirtualLines::Close() {
  Status s = Persist(next_ - 1);
  if (s.ok()) reserved_through_ = next_ - 1;
  return s;
}

TrackedLogStream::TrackedLogStream(std::shared_ptr<const Rules> rules, VirtualLines* lines, Checkpoint start,
                                   bool job_output, Env* env)
    : job_output_(job_output), env_(env ? env : Env::Default()), vlines_(lines), start_(start) {
  next_line_ = start.line;
  emitted_through_ = start.emitted_through;
  line_end_ = start.pos;
  safe_ = start;
  NewStream(std::move(rules));
}

TrackedLogStream::~TrackedLogStream() = default;

void TrackedLogStream::NewStream(std::shared_ptr<const Rules> rules) {
  if (stream_) cut_lines_done_ += stream_->stats().cut_lines;
  ScanOptions o;
  const double now = env_->NowEpochSeconds();
  year_ = YearOf(now);
  o.year = year_;
  o.ref_time = now;
  o.host_labels = job_output_;
  // Small chunks: a followed file arrives in small pieces, and memory is what an agent
  // on every node must keep low.
  o.chunk_bytes = 256u << 10;
  auto stream = std::make_unique<LogStream>(rules->matcher, o);
  stream_ = std::move(stream);  // the old stream goes while its rules are still held
  rules_ = std::move(rules);
  stream_base_ = next_line_;
}

void TrackedLogStream::UseRules(std::shared_ptr<const Rules> rules) {
  if (at_idle_point_) {
    NewStream(std::move(rules));
    pending_rules_.reset();
  } else {
    pending_rules_ = std::move(rules);
  }
}

uint64_t TrackedLogStream::cut_lines() const { return cut_lines_done_ + stream_->stats().cut_lines; }

uint64_t TrackedLogStream::ToVirtual(uint64_t local) const {
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it)
    if (local >= it->local && local < it->local + it->n) return it->virt + (local - it->local);
  if (segments_.empty()) return local;
  // Older than what is remembered (a look-back reference far behind): counted back from
  // the oldest segment; only a line reference, never an id.
  const Segment& oldest = segments_.front();
  if (local >= oldest.local) return oldest.virt + (local - oldest.local);
  const uint64_t back = oldest.local - local;
  return oldest.virt > back ? oldest.virt - back : 1;
}

void TrackedLogStream::LinesCompleted(uint64_t n) {
  if (n == 0) return;
  const uint64_t v = vlines_->Reserve(n);
  if (!segments_.empty() && segments_.back().local + segments_.back().n == next_line_ &&
      segments_.back().virt + segments_.back().n == v) {
    segments_.back().n += n;
  } else {
    segments_.push_back({next_line_, v, n});
    if (segments_.size() > 256) segments_.pop_front();
  }
  next_line_ += n;
}

void TrackedLogStream::AddCandidate(const SourcePosition& pos) {
  candidates_.emplace_back(pos, next_line_);
  while (!candidates_.empty() && candidates_.front().second + kSafetyLines <= next_line_) {
    safe_.pos = candidates_.front().first;
    safe_.line = candidates_.front().second;
    candidates_.pop_front();
  }
}

void TrackedLogStream::MarkRead(double read_at) {
  if (std::isnan(read_at)) read_at = env_->NowEpochSeconds();
  // A line begun in an earlier feed keeps that feed's time (it was read then); the lines
  // this feed begins get this one's.
  const uint64_t first_new = partial_ ? next_line_ + 1 : next_line_;
  if (!reads_.empty() && reads_.back().first == first_new) {
    reads_.back().second = read_at;  // a mark for a line not begun yet: it begins now
    return;
  }
  reads_.emplace_back(first_new, read_at);
  if (reads_.size() > 1024) reads_.pop_front();
}

double TrackedLogStream::ReadTimeOf(uint64_t local) const {
  // The last feed that began at or before this line.
  for (auto it = reads_.rbegin(); it != reads_.rend(); ++it)
    if (it->first <= local) return it->second;
  return reads_.empty() ? env_->NowEpochSeconds() : reads_.front().second;  // older than remembered: the oldest known
}

void TrackedLogStream::Emit(LogEvent&& ev, const Sink& sink) {
  auto local = [&](uint64_t l) { return l == 0 ? 0 : stream_base_ + l - 1; };
  TrackedEvent t;
  t.local_line = local(ev.line);
  if (t.local_line <= emitted_through_) return;  // handed out before a restart
  emitted_through_ = t.local_line;
  t.read_at = ReadTimeOf(ev.first_line ? local(ev.first_line) : t.local_line);
  if (!record_pos_.empty()) {
    for (auto it = record_pos_.rbegin(); it != record_pos_.rend(); ++it)
      if (it->first == t.local_line) {
        t.after = it->second;
        break;
      }
  }
  ev.line = ToVirtual(t.local_line);
  ev.first_line = ToVirtual(local(ev.first_line));
  ev.last_line = ToVirtual(local(ev.last_line));
  if (ev.traceback_line) ev.traceback_line = ToVirtual(local(ev.traceback_line));
  t.event = std::move(ev);
  sink(std::move(t));
}

void TrackedLogStream::FeedBytes(std::string_view bytes, const Sink& sink, double read_at) {
  if (bytes.empty()) return;
  MarkRead(read_at);
  const uint64_t base = start_.pos.offset + bytes_fed_;
  const uint64_t n = CountNewlines(bytes.data(), bytes.data() + bytes.size());
  bytes_fed_ += bytes.size();
  // Line numbers exist before the stream's events refer to them.
  LinesCompleted(n);
  if (n > 0) {
    const void* last = memrchr(bytes.data(), '\n', bytes.size());
    line_end_.offset = base + static_cast<uint64_t>(static_cast<const char*>(last) - bytes.data()) + 1;
  }
  partial_ = bytes.back() != '\n';
  at_idle_point_ = false;
  stream_->Feed(bytes, [&](LogEvent&& ev) { Emit(std::move(ev), sink); });
  if (n > 0) AddCandidate(line_end_);
}

void TrackedLogStream::FeedRecord(std::string_view line, const LinePrefix& prefix, const SourcePosition& after,
                                  const Sink& sink, double read_at) {
  at_idle_point_ = false;
  MarkRead(read_at);
  record_pos_.emplace_back(next_line_, after);
  if (record_pos_.size() > 4096) record_pos_.pop_front();
  LinesCompleted(1);
  line_end_ = after;
  bytes_fed_ += line.size() + 1;
  stream_->FeedRecord(line, prefix, [&](LogEvent&& ev) { Emit(std::move(ev), sink); });
  AddCandidate(line_end_);
}

void TrackedLogStream::IdleFlush(const Sink& sink) {
  stream_->Flush([&](LogEvent&& ev) { Emit(std::move(ev), sink); }, /*end_of_input=*/false);
  // Every complete line has been matched.
  safe_.pos = line_end_;
  safe_.line = next_line_;
  candidates_.clear();
  if (!partial_) {
    at_idle_point_ = true;
    if (pending_rules_) {
      NewStream(std::move(pending_rules_));
      pending_rules_.reset();
    } else if (YearOf(env_->NowEpochSeconds()) != year_) {
      NewStream(rules_);  // yearless times are read in the new year from now on
    }
  }
}

void TrackedLogStream::Finish(const Sink& sink) {
  if (partial_) {
    LinesCompleted(1);
    partial_ = false;
  }
  stream_->Flush([&](LogEvent&& ev) { Emit(std::move(ev), sink); }, /*end_of_input=*/true);
  line_end_.offset = start_.pos.offset + bytes_fed_;
  if (!record_pos_.empty()) line_end_ = record_pos_.back().second;
  safe_.pos = line_end_;
  safe_.line = next_line_;
  candidates_.clear();
}

Checkpoint TrackedLogStream::checkpoint() const {
  Checkpoint c = safe_;
  c.emitted_through = emitted_through_;
  return c;
}

}  // namespace aegis::agent
