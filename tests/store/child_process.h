// A child process for the tests that need a second controller to die for real: started
// with fork + exec (nothing of the test's own state is shared), its standard output read
// line by line through a pipe, killed with a signal and reaped. The destructor kills and
// reaps a child still running.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <string>
#include <vector>

namespace aegis::store::test {

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // argv[0] is the program's path. False (errno set) when it could not be started.
  bool Start(const std::vector<std::string>& argv);
  // The next line of its output, without the newline; false at end of output or when
  // none came within `timeout`.
  bool ReadLine(std::string* line, std::chrono::milliseconds timeout);
  void Kill(int signal = SIGKILL);
  // Waits for it to end; the raw wait status (-1 if there was no child).
  int Wait();
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string buffer_;
};

}  // namespace aegis::store::test
