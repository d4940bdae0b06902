// Scenario generator, part 1: a synthetic cluster and job (rail-optimised fabric, 8 GPUs
// and 8 NICs per node, one ToR per pod and rail) and the writers that put realistic log
// lines into a bundle: every kernel-log format of spec/bundle.md, launcher prefixes,
// NCCL INFO chatter, benign hints on healthy hosts. Deterministic for a seed.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace aegis::gen {

struct GenNode {
  std::string host, pod, mgmt_ip;
  int pod_index = 0, slot = 0;  // position inside the pod (the ToR port index)
  std::vector<std::string> gpu_pci;   // "0000:18:00.0"
  std::vector<std::string> nic_ip;    // per rail
  std::vector<std::string> nic_switch, nic_port;
  int kernel_format = 0;  // 0 dmesg, 1 dmesg -T, 2 syslog, 3 journalctl short-iso
  int launcher = 0;       // 0 [rankN]:, 1 [defaultN]:, 2 srun "N: ", 3 bare
  double boot = 0;        // epoch seconds of kernel uptime 0
};

struct Cluster {
  std::vector<GenNode> nodes;
  int gpus = 8;
  double start = 0, fail = 0, end = 0;
  std::string job_id;
  int Rank(int node, int gpu) const { return node * gpus + gpu; }
};

Cluster MakeCluster(int hosts, int gpus, uint64_t seed);

// One log file being written: whole file in memory, appended in time order per source.
class LogFile {
 public:
  void Add(double ts, std::string line) { lines_.push_back({ts, seq_++, std::move(line)}); }
  // Sorted by time (stable), written with '\n'. Returns bytes written.
  size_t Write(const std::string& path);
  std::string Render();  // the same bytes Write puts in the file
  size_t Bytes() const;

 private:
  struct Line {
    double ts;
    uint64_t seq;
    std::string text;
  };
  std::vector<Line> lines_;
  uint64_t seq_ = 0;
};

// A kernel line in the node's format (or `format` when >= 0).
std::string KernelLine(const GenNode& n, double ts, const std::string& msg, int format = -1);
// A training-process line with the node's launcher prefix for `rank`.
std::string TrainLine(const GenNode& n, int rank, const std::string& msg);
// PyTorch c10 log header "[E1130 10:11:12.123456789 file.cpp:123] ".
std::string GlogHeader(char level, double ts, const char* where);
// Python logging "[2026-11-30 10:11:12,123] ".
std::string PyLogTime(double ts);
// NCCL's own header "host:pid:tid [dev] ".
std::string NcclHeader(const GenNode& n, int gpu, int pid);
std::string PciShort(const std::string& pci);  // "0000:18:00.0" -> "0000:18:00"

// Noise: benign kernel and training chatter filling ~target bytes per file.
void KernelNoise(const Cluster& c, int node, std::mt19937_64& rng, LogFile& f, size_t target_bytes, bool hints);
void TrainNoise(const Cluster& c, int node, std::mt19937_64& rng, LogFile& f, size_t target_bytes);

}  // namespace aegis::gen
