#include "gen/cluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace aegis::gen {

namespace {
const char* kBus[] = {"18", "2a", "3a", "5d", "9a", "ab", "ba", "db", "0f", "1f", "4a", "6b", "8a", "ca", "e1", "f2"};
const char* kWeekdays[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

struct Civil {
  int y, mo, d, h, mi, s;
  double frac;
  int wday;
};
Civil ToCivil(double t) {
  time_t secs = static_cast<time_t>(std::floor(t));
  struct tm tm;
  gmtime_r(&secs, &tm);
  return {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, t - std::floor(t),
          static_cast<int>(((secs / 86400) % 7 + 7) % 7)};
}
}  // namespace

Cluster MakeCluster(int hosts, int gpus, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Cluster c;
  c.gpus = gpus;
  c.start = 1795996800.0 + static_cast<double>(rng() % 86400);  // 2026-11-30
  c.fail = c.start + 600 + static_cast<double>(rng() % 3000);
  c.end = c.fail + 660;
  c.job_id = fmt::format("job-{}-{:04d}", 20261130, seed % 10000);
  const int pod_size = 32;
  for (int i = 0; i < hosts; ++i) {
    GenNode n;
    n.host = fmt::format("node-{:04d}", i + 1);
    n.pod_index = i / pod_size;
    n.slot = i % pod_size;
    n.pod = fmt::format("pod-{}", n.pod_index + 1);
    n.mgmt_ip = fmt::format("192.168.{}.{}", 10 + i / 250, i % 250 + 1);
    for (int g = 0; g < gpus; ++g) n.gpu_pci.push_back(fmt::format("0000:{}:00.0", kBus[g % 16]));
    for (int r = 0; r < gpus; ++r) {
      n.nic_ip.push_back(fmt::format("10.{}.{}.{}", r + 1, i / 250, i % 250 + 1));
      n.nic_switch.push_back(fmt::format("tor-p{}-r{}", n.pod_index + 1, r));
      n.nic_port.push_back(fmt::format("Ethernet{}", n.slot * 4));
    }
    n.kernel_format = static_cast<int>((static_cast<uint64_t>(i) + seed) % 4);
    n.launcher = static_cast<int>((static_cast<uint64_t>(i) * 7 + seed) % 4);
    // Most jobs write plain files; one host in six each is a Kubernetes pod or under pdsh.
    const uint64_t collector = (static_cast<uint64_t>(i) * 5 + seed * 3) % 6;
    n.collector = collector == 4 ? 1 : collector == 5 ? 2 : 0;
    n.boot = c.start - 3600.0 * static_cast<double>(1 + rng() % 200);
    c.nodes.push_back(n);
  }
  return c;
}

void Retime(Cluster& c, double start, double fail, double end, double history) {
  for (auto& n : c.nodes) n.boot += start - c.start;
  c.start = start;
  c.fail = fail;
  c.end = end;
  c.timeout = (end - fail) / 1.1;
  c.history = history;
}

size_t LogFile::Bytes() const {
  size_t b = 0;
  for (const auto& l : lines_) b += l.text.size() + 1;
  return b;
}

const std::vector<LogFile::Line>& LogFile::Sorted() {
  if (!sorted_)
    std::sort(lines_.begin(), lines_.end(), [](const Line& a, const Line& b) {
      return a.ts != b.ts ? a.ts < b.ts : a.seq < b.seq;
    });
  sorted_ = true;
  return lines_;
}

std::string LogFile::Render() {
  Sorted();
  std::string buf;
  buf.reserve(Bytes());
  for (const auto& l : lines_) {
    buf += l.text;
    buf += '\n';
  }
  return buf;
}

size_t LogFile::Write(const std::string& path) {
  const std::string buf = Render();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(buf.data(), 1, buf.size(), f);
  std::fclose(f);
  return buf.size();
}

std::string KernelLine(const GenNode& n, double ts, const std::string& msg, int format) {
  if (format < 0) format = n.kernel_format;
  const double up = ts - n.boot;
  Civil c = ToCivil(ts + n.clock_offset);
  switch (format) {
    case 0: return fmt::format("[{:12.6f}] {}", up, msg);
    case 1:
      return fmt::format("[{} {} {:2d} {:02d}:{:02d}:{:02d} {}] {}", kWeekdays[c.wday], kMonths[c.mo - 1], c.d, c.h,
                         c.mi, c.s, c.y, msg);
    case 2:
      return fmt::format("{} {:2d} {:02d}:{:02d}:{:02d} {} kernel: [{:12.6f}] {}", kMonths[c.mo - 1], c.d, c.h, c.mi,
                         c.s, n.host, up, msg);
    default:
      return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:06d}+00:00 {} kernel: {}", c.y, c.mo, c.d, c.h,
                         c.mi, c.s, static_cast<int>(c.frac * 1e6), n.host, msg);
  }
}

std::string TrainLine(const GenNode& n, int rank, double ts, const std::string& msg) {
  std::string line;
  switch (n.launcher) {
    case 0: line = fmt::format("[rank{}]:{}", rank, msg); break;
    case 1: line = fmt::format("[default{}]:{}", rank, msg); break;
    case 2: line = fmt::format("{}: {}", rank, msg); break;
    default: line = msg;
  }
  switch (n.collector) {
    case 1: {
      // containerd's CRI log: RFC 3339 with nanoseconds, the stream, F for a full line.
      Civil c = ToCivil(ts);
      const bool err = msg.find("WARN") != std::string::npos || msg.find("Error") != std::string::npos ||
                       msg.find("[E") != std::string::npos || msg.find("[W") != std::string::npos;
      return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:09d}Z {} F {}", c.y, c.mo, c.d, c.h, c.mi, c.s,
                         static_cast<long long>(c.frac * 1e9), err ? "stderr" : "stdout", line);
    }
    case 2: return n.host + ": " + line;
    default: return line;
  }
}

std::string GlogHeader(char level, double ts, const char* where) {
  Civil c = ToCivil(ts);
  return fmt::format("[{}{}{:02d} {:02d}:{:02d}:{:02d}.{:09d} {}] ", level, c.mo, c.d, c.h, c.mi, c.s,
                     static_cast<long long>(c.frac * 1e9), where);
}

std::string PyLogTime(double ts) {
  Civil c = ToCivil(ts);
  return fmt::format("[{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d},{:03d}] ", c.y, c.mo, c.d, c.h, c.mi, c.s,
                     static_cast<int>(c.frac * 1e3));
}

std::string NcclHeader(const GenNode& n, int gpu, int pid) { return fmt::format("{}:{}:{} [{}] ", n.host, pid, pid + 77, gpu); }

std::string PciShort(const std::string& pci) { return pci.substr(0, pci.rfind('.')); }

void KernelNoise(const Cluster& c, int node, std::mt19937_64& rng, LogFile& f, size_t target, bool hints) {
  const GenNode& n = c.nodes[static_cast<size_t>(node)];
  static const char* kMsgs[] = {
      "IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready",
      "EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro",
      "audit: type=1400 audit(1764497523.114:421): apparmor=\"STATUS\" operation=\"profile_replace\" name=\"docker-default\"",
      "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel",
      "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15  Thu Jan 23 03:15:05 UTC 2026",
      "nvidia-nvlink: Nvlink Core is being initialized, major device number 234",
      "perf: interrupt took too long (2513 > 2500), lowering kernel.perf_event_max_sample_rate to 79500",
      "docker0: port 1(veth3f2a1b9) entered forwarding state",
      "systemd[1]: Started Session 4021 of User root.",
      "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.",
      "mlx5_core 0000:0c:00.0: mlx5_pcie_event:301:(pid 1021): PCIe slot advertised sufficient power (75W).",
      "infiniband mlx5_0: mlx5_ib_add: ib device registered",
      "NVRM: GPU at PCI:0000:18:00: GPU-1f2e3d4c-5b6a-7980-1a2b-3c4d5e6f7a8b",
      "nvidia-fabricmanager: Successfully configured all the available NVSwitches",
  };
  double t = c.start - c.history;
  size_t bytes = 0;
  for (size_t i = 0; bytes < target || i < 8; ++i) {
    // Spread what is left over the time left, so that the chatter ends with the job.
    const double line_bytes = i ? static_cast<double>(bytes) / static_cast<double>(i) : 96.0;
    const double lines_left = std::max(1.0, (static_cast<double>(target) - static_cast<double>(bytes)) / line_bytes);
    const double step = (c.end - t) / (std::max(lines_left, 8.0 - static_cast<double>(i)) + 1);
    t += step * (0.5 + static_cast<double>(rng() % 1000) / 1000.0);
    std::string msg = kMsgs[rng() % (sizeof kMsgs / sizeof *kMsgs)];
    // Mixed formats in one file: a tenth of the lines come from another collector.
    int fmt_id = rng() % 10 == 0 ? static_cast<int>(rng() % 4) : -1;
    std::string line = KernelLine(n, t, msg, fmt_id);
    bytes += line.size() + 1;
    f.Add(t, std::move(line));
  }
  if (hints) {
    // Benign hints on healthy hosts: page retirement, high single-bit rate, corrected AER.
    const std::string pci = PciShort(n.gpu_pci[rng() % n.gpu_pci.size()]);
    double th = c.start + static_cast<double>(rng() % 600) * std::min(1.0, (c.fail - c.start) / 600);
    switch (rng() % 3) {
      case 0:
        f.Add(th, KernelLine(n, th, fmt::format("NVRM: Xid (PCI:{}): 63, pid='<unknown>', name=<unknown>, Row Remapper: "
                                                "New row (0x0000000000a3c0f2) marked for remapping, reset gpu to activate.",
                                                pci)));
        break;
      case 1:
        f.Add(th, KernelLine(n, th, fmt::format("NVRM: Xid (PCI:{}): 92, pid=2214, name=python, High single-bit ECC "
                                                "error rate.",
                                                pci)));
        break;
      default:
        f.Add(th, KernelLine(n, th, "pcieport 0000:16:02.0: AER: Corrected error received: 0000:17:00.0"));
        f.Add(th, KernelLine(n, th, "pcieport 0000:16:02.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
                                    "(Receiver ID)"));
        f.Add(th, KernelLine(n, th, "pcieport 0000:16:02.0:   device [8086:352a] error status/mask=00000001/00002000"));
        f.Add(th, KernelLine(n, th, "pcieport 0000:16:02.0:    [ 0] RxErr                  (First)"));
    }
  }
}

std::string SyslogTime(double ts) {
  Civil c = ToCivil(ts);
  return fmt::format("{} {:2d} {:02d}:{:02d}:{:02d} ", kMonths[c.mo - 1], c.d, c.h, c.mi, c.s);
}

void TrainNoise(const Cluster& c, int node, std::mt19937_64& rng, LogFile& f, size_t target, double timed_until) {
  const GenNode& n = c.nodes[static_cast<size_t>(node)];
  static const char* kNccl[] = {
      "NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA",
      "NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
      "NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE [3]mlx5_3:1/RoCE ; OOB eth0:192.168.10.7<0>",
      "NCCL INFO comm 0x5581d2a0 rank 3 nRanks 64 nNodes 8 localRanks 8 localRank 3 MNNVL 0",
      "NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
      "NCCL INFO Using network IB",
      "NCCL INFO ncclCommInitRank comm 0x5581d2a0 rank 3 nranks 64 cudaDev 3 nvmlDev 3 busId 5d000 commId 0x9f3c2a1b5d6e7f80 - Init COMPLETE",
      "NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.",
  };
  double t = c.start;
  const size_t n_lines = std::max<size_t>(8, target / 110);
  const double step = (c.fail - c.start) / static_cast<double>(n_lines);
  size_t bytes = 0;
  int step_no = 0;
  for (size_t i = 0; bytes < target || i < 8; ++i) {
    t += step * (0.5 + static_cast<double>(rng() % 1000) / 1000.0);
    if (t >= c.fail - 1) t = c.fail - 1 - static_cast<double>(rng() % 1000) / 1000.0;
    const int gpu = static_cast<int>(rng() % static_cast<uint64_t>(c.gpus));
    const int rank = c.Rank(node, gpu);
    std::string line;
    if (rng() % 4 == 0 && t < timed_until) {
      line = TrainLine(n, rank, t,
                       PyLogTime(t) + fmt::format("[INFO] [logging.py:96:log_dist] [Rank {}] step={}, skipped=0, "
                                                  "lr=[0.00015], loss={:.4f}, grad_norm={:.3f}, tflops={:.1f}",
                                                  rank, ++step_no, 2.0 + static_cast<double>(rng() % 1000) / 1000,
                                                  0.5 + static_cast<double>(rng() % 500) / 1000,
                                                  380.0 + static_cast<double>(rng() % 200) / 10));
    } else {
      line = TrainLine(n, rank, t, NcclHeader(n, gpu, 41000 + gpu) + kNccl[rng() % (sizeof kNccl / sizeof *kNccl)]);
    }
    bytes += line.size() + 1;
    f.Add(t, std::move(line));
  }
}

}  // namespace aegis::gen
