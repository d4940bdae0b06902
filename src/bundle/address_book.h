// Resolves the names logs use for places to the topology: a peer written as an IP, a
// RoCE GID (::ffff:a.b.c.d), a host name (short or fully qualified), "host<port>",
// "[ip]:port" or a pasted markdown link; a GPU's PCI address in its short forms
// (0000:18:00, 18:00.0, any case); a rank of the job. Immutable after construction.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bundle/model.h"

namespace aegis {

struct Place {
  int node = -1;  // index into Topology::nodes
  int nic = -1;   // index into that node's nics, when the address is a NIC's
  int gpu = -1;   // GPU index, when known
  bool ok() const { return node >= 0; }
};

class AddressBook {
 public:
  AddressBook(const Topology& topology, const Job& job);

  // A peer endpoint as a log prints it; !ok() when it names nothing in the topology.
  Place ResolvePeer(std::string_view text) const;
  // GPU index of `node` with this PCI address, or -1.
  int GpuByPci(int node, std::string_view pci) const;
  // NIC index of `node` with this device name (mlx5_0), or -1.
  int NicByName(int node, std::string_view name) const;
  // Where a global rank of the job runs (job.ranks, else hosts[r / G], GPU r % G).
  Place ResolveRank(int rank) const;
  // A host name as written in a log or a folder name: exact, then ignoring case, then by
  // short name.
  int NodeByName(std::string_view host) const;

  // "[10.1.3.201](http://10.1.3.201/)" -> "10.1.3.201"; "::ffff:10.0.0.1" -> "10.0.0.1".
  static std::string CleanEndpoint(std::string_view text);

 private:
  const Topology& topo_;
  const Job& job_;
  std::unordered_map<std::string, Place> by_ip_;
  std::unordered_map<std::string, int> by_name_;  // lower-case full and short names
  // Default rank layout: job host i holds ranks [first_rank_[i], first_rank_[i + 1]).
  std::vector<int> first_rank_;
  std::vector<int> rank_node_;  // topology node of job host i (-1 when unknown)
  std::unordered_map<int, Place> explicit_ranks_;
};

}  // namespace aegis
