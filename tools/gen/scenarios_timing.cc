// Faults whose difficulty is when their lines say they happened: a kernel log's history
// from before the job holds a critical line of a healthy host; cascade lines that carry no
// time of their own follow a progress line from long before the fault.
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <set>

#include "gen/faults.h"
#include "gen/families.h"

namespace aegis::gen {

namespace {

// "[2026-11-30 10:11:12]" as Megatron-LM prints before its progress lines.
std::string BracketTime(double ts) {
  const time_t secs = static_cast<time_t>(ts);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "[%Y-%m-%d %H:%M:%S]", &tm);
  return buf;
}

}  // namespace

// The real fault (another host's GPU falling off the bus, a user exception or a
// configuration drift, by seed) plus, on one healthy host, ONE critical Xid line dated 1 to
// 7 days before the job started: kernel logs keep what happened since boot. Every second
// group of three seeds writes that host's kernel log as `dmesg -T` (local time, no zone)
// with the host's clock a few minutes off.
void InjectHistoryBeforeJob(Scene& s) {
  std::string real;
  switch (s.seed % 3) {
    case 0:
      InjectXid79(s);
      real = "another host's GPU fell off the bus";
      break;
    case 1:
      InjectUserException(s);
      real = "user exception";
      break;
    default:
      InjectConfigMismatch(s);
      real = "configuration drift";
  }
  std::set<int> touched(s.keep);
  for (const char* list : {"isolate", "repair"})
    for (const auto& e : s.b.expected[list])
      for (int n = 0; n < s.Hosts(); ++n)
        if (s.N(n).host == e["host"]) touched.insert(n);
  const int h = s.Pick(1, touched).front();
  s.keep.insert(h);

  static const int kXids[] = {79, 48, 74, 95};
  const int xid = kXids[s.seed % 4];
  const double days = 1 + s.Jitter(6);
  const double ts = s.b.c.start - days * 86400;
  GenNode& node = s.b.c.nodes[static_cast<size_t>(h)];
  // The host booted before that line, so its uptime is positive.
  node.boot = std::min(node.boot, ts - 3600.0 * (1 + s.Rand(72)));
  std::string how = "its own kernel-log format";
  if ((s.seed / 3) % 2 == 1) {
    node.kernel_format = 1;
    const double sign = s.Coin() ? 1 : -1;
    node.clock_offset = sign * (20 + s.Jitter(220));
    how = fmt::format("dmesg -T, clock {:+.0f} s", node.clock_offset);
  }
  const int gpu = s.Rand(s.Gpus()), pid = 2214 + s.Rand(30000), link = s.Rand(18);
  s.Kernel(h, ts, CriticalXidLine(node, gpu, xid, pid, link));
  s.Variant(fmt::format("{}; Xid {} on healthy {} {:.1f} days before the job ({})", real, xid, node.host, days, how));
}

// A user exception on one rank; every other rank then prints NCCL warnings behind srun's
// "N: " label that carry no time of their own, and the last line with a time before them
// in each file is a progress line from about 22 minutes earlier (the job logs progress
// rarely). Inherited times only bound an untimed line from below: the exception stays first.
void InjectUntimedAfterStale(Scene& s) {
  Cluster& c = s.b.c;
  for (auto& n : c.nodes) {
    n.launcher = 2;
    n.collector = 0;  // a container log would give every line a time
  }
  const double stale = c.fail - c.Scaled(1320 + s.Jitter(60));
  // The job ran a while before that progress line.
  if (stale - c.start < c.Scaled(300)) {
    const double earlier = stale - c.Scaled(300 + s.Jitter(600));
    for (auto& n : c.nodes) n.boot -= c.start - earlier;
    c.start = earlier;
  }
  const int v = s.Rand(s.Hosts()), g = s.Rand(s.Gpus());
  for (int n = 0; n < s.Hosts(); ++n) {
    s.b.Node(n).timed_noise_until = stale;
    const double ts = stale - s.Jitter(30);
    const int iteration = 1200 + s.Rand(100);
    const double ms = 2100 + s.Jitter(50), loss = 1.9 + s.Jitter(0.2);
    s.Train(n, 0, ts,
            BracketTime(ts) + fmt::format(" iteration {:8d}/  500000 | consumed samples: {:12d} | elapsed time per "
                                          "iteration (ms): {:.1f} | learning rate: 1.500000E-04 | lm loss: {:.6E} |",
                                          iteration, iteration * 256, ms, loss));
  }
  PythonTraceback(s, v, g, s.At(0),
                  s.Coin() ? "ValueError: Expected input batch_size (8) to match target batch_size (16)."
                           : "IndexError: index 4096 is out of bounds for dimension 0 with size 4096");
  s.keep.insert(v);
  for (int n = 0; n < s.Hosts(); ++n)
    for (int gpu = 0; gpu < s.Gpus(); ++gpu) {
      if (n == v && gpu == g) continue;
      const double ts = s.At(0.5 + s.Jitter(3));
      s.NcclWarn(n, gpu, ts,
                 fmt::format("misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer {}<{}>",
                             s.N(v).mgmt_ip, 40000 + s.Rand(20000)));
      s.NcclWarn(n, gpu, ts,
                 "proxy.cc:1523 NCCL WARN [Service thread] Error encountered progressing operation=Connect, res=6, "
                 "closing connection");
    }
  WatchdogTimeouts(s, {v});
  s.Expect("none", "user", "user_error");
}

}  // namespace aegis::gen
