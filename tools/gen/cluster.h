// Scenario generator, the cluster: a synthetic cluster and job (rail-optimised fabric, 8
// GPUs and 8 NICs per node, one ToR per pod and rail), its timeline, and the formatters
// that put realistic log lines into a bundle: every kernel-log format of the bundle spec,
// launcher prefixes, NCCL INFO chatter, benign hints on healthy hosts. Deterministic for a
// seed; every time is epoch seconds, so the same code writes a bundle of the past or a
// live stream of now.
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
  // How the job's output was collected: 0 a plain file, 1 Kubernetes' container log
  // ("<time> stdout|stderr F " before every line: every line then has a time), 2 pdsh
  // ("host: " before every line, as DeepSpeed's multi-node launcher runs it).
  int collector = 0;
  double boot = 0;        // epoch seconds of kernel uptime 0
  // How far the node's own clock is off (seconds): wall-clock kernel-log stamps (dmesg -T,
  // syslog, journal) show ts + clock_offset; uptimes are unaffected.
  double clock_offset = 0;
};

struct Cluster {
  std::vector<GenNode> nodes;
  int gpus = 8;
  // The job's timeline: started, the fault, the job's end (after every rank timed out).
  double start = 0, fail = 0, end = 0;
  double timeout = 600;   // the collective timeout: ranks give up this long after the fault
  double history = 1800;  // kernel-log chatter starts this long before the job
  std::string job_id;
  int Rank(int node, int gpu) const { return node * gpus + gpu; }
  // Scenario seconds (written for a 600 s collective timeout) on this timeline: a live
  // stream compresses the minutes after a fault into the seconds it runs.
  double Scaled(double seconds) const { return seconds * timeout / 600.0; }
};

Cluster MakeCluster(int hosts, int gpus, uint64_t seed);

// Moves the timeline (boot times move with the start) and scales the timeout so that
// every rank has given up by `end`.
void Retime(Cluster& c, double start, double fail, double end, double history);

// One log file being written: whole file in memory, appended in time order per source.
// A line's time only orders it in the file: untimed lines (NCCL's, tracebacks) sit where
// a process would have printed them.
class LogFile {
 public:
  struct Line {
    double ts;
    uint64_t seq;
    std::string text;
  };
  void Add(double ts, std::string line) {
    lines_.push_back({ts, seq_++, std::move(line)});
    sorted_ = false;
  }
  // Sorted by time (stable), written with '\n'. Returns bytes written.
  size_t Write(const std::string& path);
  std::string Render();  // the same bytes Write puts in the file
  size_t Bytes() const;
  // The lines in file order (sorted by time, stable).
  const std::vector<Line>& Sorted();
  bool Empty() const { return lines_.empty(); }

 private:
  std::vector<Line> lines_;
  uint64_t seq_ = 0;
  bool sorted_ = true;
};

// A kernel line in the node's format (or `format` when >= 0).
std::string KernelLine(const GenNode& n, double ts, const std::string& msg, int format = -1);
// A training-process line with the node's launcher prefix for `rank`, as the node's
// collector keeps it (a container log stamps it with `ts`).
std::string TrainLine(const GenNode& n, int rank, double ts, const std::string& msg);
// PyTorch c10 log header "[E1130 10:11:12.123456789 file.cpp:123] ".
std::string GlogHeader(char level, double ts, const char* where);
// Python logging "[2026-11-30 10:11:12,123] ".
std::string PyLogTime(double ts);
// NCCL's own header "host:pid:tid [dev] ".
std::string NcclHeader(const GenNode& n, int gpu, int pid);
std::string PciShort(const std::string& pci);  // "0000:18:00.0" -> "0000:18:00"

// Noise: benign kernel and training chatter filling ~target bytes per file.
void KernelNoise(const Cluster& c, int node, std::mt19937_64& rng, LogFile& f, size_t target_bytes, bool hints);
// Progress lines carry a time only up to `timed_until` (a job that logs its progress
// rarely); NCCL INFO chatter never does.
void TrainNoise(const Cluster& c, int node, std::mt19937_64& rng, LogFile& f, size_t target_bytes,
                double timed_until = 1e300);
// "Nov 30 10:11:12 " as syslog (and switches) print it.
std::string SyslogTime(double ts);

}  // namespace aegis::gen
