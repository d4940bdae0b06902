// store_test_child: a second controller for the multi-process tests, to be killed for real.
//   store_test_child lead URL           prints "leading" once it holds the leader lock,
//                                       then holds it until killed
//   store_test_child append URL PREFIX  appends batches of 100 events PREFIX-B-I, printing
//                                       "committed B" after each commit, until killed
// Exits 1 with "error ..." on a store error.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"

using aegis::Status;
using aegis::store::Event;
using aegis::store::Store;

namespace {

// Unbuffered, so that a line written before a kill is in the pipe.
void Say(const std::string& line) {
  const std::string text = line + "\n";
  if (write(STDOUT_FILENO, text.data(), text.size()) < 0) _exit(3);
}

int Fail(const Status& st) {
  Say("error " + st.ToString());
  return 1;
}

int Lead(Store& store) {
  std::unique_ptr<aegis::store::LeaderLock> lock;
  if (Status st = store.NewLeaderLock(&lock); !st.ok()) return Fail(st);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (bool held = false; !held;) {
    if (Status st = lock->TryAcquire(&held); !st.ok()) return Fail(st);
    if (!held && std::chrono::steady_clock::now() > deadline) return Fail(Status::Unavailable("never led"));
    if (!held) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling the lock, as a standby does
  }
  Say("leading");
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // holds the lock until killed
    if (!lock->IsHeld()) return Fail(Status::FailedPrecondition("lost leadership"));
  }
}

int Append(Store& store, const std::string& prefix) {
  for (int batch = 0;; ++batch) {
    std::vector<Event> events(100);
    for (int i = 0; i < 100; ++i) {
      Event& e = events[i];
      e.id = prefix + "-" + std::to_string(batch) + "-" + std::to_string(i);
      e.node = "node-" + std::to_string(i % 8);
      e.type = aegis::wire::EventType::kLog;
      e.at = 1764500000.0 + batch + i / 1000.0;
      e.body = "{\"text\":\"" + std::string(250, 'x') + "\"}";
    }
    aegis::store::AppendResult result;
    if (Status st = store.AppendEvents(events, &result); !st.ok()) return Fail(st);
    if (result.added != 100) return Fail(Status::Corruption("batch " + std::to_string(batch) + " added " +
                                                            std::to_string(result.added)));
    Say("committed " + std::to_string(batch));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: store_test_child lead|append URL [PREFIX]\n");
    return 2;
  }
  const std::string mode = argv[1];
  std::unique_ptr<Store> store;
  if (Status st = Store::Open(argv[2], &store); !st.ok()) return Fail(st);
  if (mode == "lead") return Lead(*store);
  if (mode == "append" && argc >= 4) return Append(*store, argv[3]);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
