// RDMA port counters from sysfs:
//   SYS/class/infiniband/<device>/ports/<port>/counters/<name>     (IB standard counters)
//   SYS/class/infiniband/<device>/ports/<port>/hw_counters/<name>  (the driver's, e.g. mlx5's
//                                                                   np_ecn_marked_roce_packets)
// Each file holds one unsigned decimal number and a newline; values are raw and
// cumulative (port_xmit_data counts 4-byte words). hw_counters/lifespan is the driver's
// caching period, not a counter, and is skipped. A file that cannot be read or is not a
// number is skipped. Pure functions besides the file system; thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agent/fs_util.h"  // ListDir, ReadSysFile

namespace aegis::agent {

struct RdmaCounter {
  std::string device;  // "mlx5_0"
  int port = 1;
  std::string name;    // "np_ecn_marked_roce_packets"
  bool hw = false;     // from hw_counters
  uint64_t value = 0;
};

// The contents of one counter file. False unless it is a decimal number (blanks around
// it allowed) that fits in 64 bits.
bool ParseCounterValue(std::string_view text, uint64_t* value);
std::vector<RdmaCounter> ReadRdmaCounters(const std::string& sys_root);

}  // namespace aegis::agent
