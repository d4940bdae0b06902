// The fixture of the probe's harness tests: a fresh FakeNccl driving the plugin for each
// test, every snapshot written under one directory per process (the plugin's writer reads
// its settings once), and readers of the newest record per rank.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "probe/fake_nccl.h"
#include "test_util.h"

namespace aegis::test {

class Probe : public ::testing::Test {
 protected:
  void SetUp() override {
    // Before the plugin's first init: its writer reads these once per process, so all
    // tests of one process share the directory (each uses its own communicator hash).
    ::setenv("AEGIS_CCL_DIR", Dir().path().c_str(), 1);
    ::setenv("AEGIS_CCL_INTERVAL_MS", "3600000", 1);  // only finalize snapshots here
    ::setenv("AEGIS_CCL_SOCKET", "", 1);
    nccl_ = std::make_unique<FakeNccl>(AEGIS_PROBE_SO, Api(), ProxyThreads());
  }
  virtual int Api() const { return 5; }
  virtual int ProxyThreads() const { return 1; }

  // The newest record of each rank of communicator `hash`.
  std::map<int, nlohmann::json> Records(uint64_t hash) {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    std::ifstream in(Dir().path() + "/" + host + "-" + std::to_string(getpid()) + ".jsonl");
    char want[17];
    snprintf(want, sizeof want, "%016llx", static_cast<unsigned long long>(hash));
    std::map<int, nlohmann::json> out;
    std::string line;
    while (std::getline(in, line)) {
      nlohmann::json j = nlohmann::json::parse(line);
      if (j["comm"] != want) continue;
      const int rank = j["rank"];
      if (!out.count(rank) || out[rank]["ts"] <= j["ts"]) out[rank] = j;
    }
    return out;
  }

  static nlohmann::json Net(const nlohmann::json& rec, int peer, const char* dir) {
    for (const auto& n : rec["net"])
      if (n["peer"] == peer && n["dir"] == dir) return n;
    return nlohmann::json();
  }

  static TempDir& Dir() {
    static TempDir dir;
    return dir;
  }
  std::unique_ptr<FakeNccl> nccl_;
};

inline FakeNccl::Plan Ring(int rank, int n) {
  FakeNccl::Plan p;
  p.send_peer = (rank + 1) % n;
  p.recv_peer = (rank + n - 1) % n;
  return p;
}

}  // namespace aegis::test
