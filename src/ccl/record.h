// CCL counter snapshots (docs/formats.md, "CCL snapshots") as the engine uses them: the newest record
// of each (communicator, rank), with the host folder it was found under.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace aegis {

struct CclNet {
  int peer = -1;
  bool send = true;
  uint64_t posted = 0, completed = 0, bytes = 0;
  double recent_gbps = -1;  // -1: not reported
};

struct CclRecent {
  std::string func;
  uint64_t seq = 0, bytes = 0;
  double start_ts = 0, td_us = -1;
};

struct CclRecord {
  std::string host;  // the bundle folder (nodes/HOST/ccl/...)
  std::string file;  // path relative to the bundle
  uint64_t line = 0;
  double ts = 0;
  int pid = -1;
  int gpu = -1;
  std::string comm, comm_name;
  int nranks = 0, nnodes = 0, rank = -1;
  std::map<std::string, std::pair<uint64_t, uint64_t>> coll;  // func -> (launched, completed)
  std::vector<CclNet> net;
  std::vector<CclRecent> recent;
};

}  // namespace aegis
