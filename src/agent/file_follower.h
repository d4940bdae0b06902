// Follows files as they grow: what tail -F does, with positions that survive restarts.
//
// A file is known by its identity (inode and birth time, plus a generation counted up at
// every truncation), not its path, so that a rename (logrotate's default) or a copy-and-
// truncate (copytruncate) is followed correctly: after a rename the old file is read to
// its end (the writer may still append for a moment: it is read until idle for
// `rotate_wait_s`), then finished, and the new file at the path is followed from byte 0;
// after a truncation the file starts again at 0 as a new generation. The position reached
// in every identity is kept in a FileStates map the caller persists; a file seen again
// (after a restart, or under another name matched by the same glob) resumes there.
//
// What is done with the bytes is a FollowConsumer's business (classify log lines, read CCL
// records). FollowedFiles re-expands a set of glob patterns periodically and follows every
// regular file they match. Polling, no inotify: one stat() per file per poll. Single
// thread.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agent/tracked_stream.h"
#include "env/env.h"

namespace aegis::agent {

struct FileState {
  std::string path;   // where it was last seen
  uint64_t gen = 0;   // truncations seen
  Checkpoint cp;      // of generation `gen`
  double seen = 0;    // epoch time it was last followed
};
using FileStates = std::map<std::string, FileState>;  // by identity (without generation)

class FollowConsumer {
 public:
  virtual ~FollowConsumer() = default;
  virtual void Feed(std::string_view bytes) = 0;
  virtual void Idle() = 0;    // no new bytes for a while
  virtual void Finish() = 0;  // the file ended (rotated away or truncated)
  virtual Checkpoint checkpoint() const = 0;
};
// id: "<identity>.<generation>", unique to one generation of one file.
using ConsumerFactory = std::function<std::unique_ptr<FollowConsumer>(const std::string& id, const Checkpoint& start)>;

struct FollowOptions {
  double idle_s = 1.0;         // Idle() after this long without new bytes
  double rotate_wait_s = 5.0;  // a renamed-away file is read until idle this long
  size_t read_budget = 1u << 20;  // bytes per file per poll (bounds the events of one loop turn)
  Env* env = nullptr;  // wall clock of when a file was last seen (not owned; null: Env::Default())
};

class FileFollower {
 public:
  FileFollower(std::string path, FileStates* states, std::set<std::string>* open_ids, ConsumerFactory factory,
               FollowOptions options);
  ~FileFollower();
  FileFollower(const FileFollower&) = delete;
  FileFollower& operator=(const FileFollower&) = delete;

  // Reads what is new; true when the read budget ran out (more is waiting). `now` is a
  // monotonic time in seconds.
  bool Poll(double now);
  // The path now names another file (or none): this follower only drains its file.
  bool rotated() const { return rotated_; }
  // Drained to its end and finished (or never opened and the path is gone).
  bool done() const { return done_; }
  // Writes the consumer's checkpoint into the states map.
  void SaveState();
  // Stops: an idle flush, so that the checkpoint covers every whole line read.
  void Stop();
  // An idle flush now: the record held back for continuation lines is emitted.
  void Flush();
  const std::string& path() const { return path_; }
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  bool TryOpen(double now);
  void StartGeneration(const Checkpoint& start);
  void CloseFile();

  std::string path_;
  FileStates* states_;
  std::set<std::string>* open_ids_;
  ConsumerFactory factory_;
  FollowOptions options_;
  int fd_ = -1;
  std::string identity_;
  uint64_t ino_ = 0;
  uint64_t offset_ = 0;  // of the next byte read
  std::unique_ptr<FollowConsumer> consumer_;
  double last_data_ = 0;
  bool idle_done_ = true;
  bool rotated_ = false, done_ = false;
  uint64_t bytes_read_ = 0;
  std::string buf_;
};

class FollowedFiles {
 public:
  FollowedFiles(std::vector<std::string> patterns, FileStates* states, ConsumerFactory factory,
                FollowOptions options = {});
  // Globs again; new files get a follower.
  void Expand(double now);
  // Polls every file; true when some file has more bytes waiting.
  bool Poll(double now);
  void SaveStates();
  void Stop();
  // Every file's held-back record emitted now (the controller asked for a flush).
  void Flush();
  size_t files() const { return followers_.size(); }
  uint64_t bytes_read() const;
  // Patterns that name one file (no wildcard) which did not exist at the last Expand: a
  // mistyped --kernel-log, say. A glob that matches nothing is not missing (a job's logs
  // come and go).
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  std::vector<std::string> patterns_;
  std::vector<std::string> missing_;
  FileStates* states_;
  ConsumerFactory factory_;
  FollowOptions options_;
  std::set<std::string> open_ids_;
  std::map<std::string, std::unique_ptr<FileFollower>> followers_;  // by path
  std::vector<std::unique_ptr<FileFollower>> draining_;             // rotated away
  uint64_t bytes_done_ = 0;                                          // of followers gone
};

}  // namespace aegis::agent
