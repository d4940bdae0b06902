#include "probe/comm_state.h"

#include <cstdio>
#include <cstring>
#include <ctime>

namespace aegis::probe {

namespace {
const char* kFuncs[kMaxFuncs] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AllToAll",
                                 "Send",      "Recv",      "SendRecv",      "Gather",    "Scatter", "Other"};

void AtomicMax(std::atomic<uint64_t>& a, uint64_t v) {
  uint64_t cur = a.load(std::memory_order_relaxed);
  while (cur < v && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

double EpochOffset() {
  static const double offset = [] {
    timespec mono, real;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    return (real.tv_sec - mono.tv_sec) + (real.tv_nsec - mono.tv_nsec) * 1e-9;
  }();
  return offset;
}
}  // namespace

const char* FuncName(int i) { return i >= 0 && i < kMaxFuncs ? kFuncs[i] : "Other"; }

int FuncIndex(const char* name) {
  if (!name) return kMaxFuncs - 1;
  for (int i = 0; i < kMaxFuncs - 1; ++i)
    if (std::strcmp(name, kFuncs[i]) == 0) return i;
  return kMaxFuncs - 1;
}

namespace {
uint64_t MonotonicNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

#if defined(__x86_64__)
// The invariant TSC costs a few cycles where clock_gettime costs ~20 ns, twice per network
// request; it is calibrated once against CLOCK_MONOTONIC (5 ms, at the first init).
struct TscClock {
  uint64_t tsc0, ns0;
  double ns_per_tick;
  TscClock() {
    const uint64_t n0 = MonotonicNs(), t0 = __builtin_ia32_rdtsc();
    uint64_t n1;
    do n1 = MonotonicNs();
    while (n1 - n0 < 5000000);
    const uint64_t t1 = __builtin_ia32_rdtsc();
    tsc0 = t1;
    ns0 = n1;
    ns_per_tick = t1 > t0 ? static_cast<double>(n1 - n0) / static_cast<double>(t1 - t0) : 0;
  }
};
const TscClock& Tsc() {
  static const TscClock c;
  return c;
}
#endif
}  // namespace

uint64_t NowNs() {
#if defined(__x86_64__)
  const TscClock& c = Tsc();
  if (c.ns_per_tick > 0) {
    const uint64_t t = __builtin_ia32_rdtsc();
    if (t >= c.tsc0) return c.ns0 + static_cast<uint64_t>(static_cast<double>(t - c.tsc0) * c.ns_per_tick);
  }
#endif
  return MonotonicNs();
}

double EpochOf(uint64_t mono_ns) { return static_cast<double>(mono_ns) * 1e-9 + EpochOffset(); }

CommState::CommState(const CommInfo& info) : info_(info) {
  const int n = info.nranks > 0 ? info.nranks : 1;
  net_.reset(new PeerNet[static_cast<size_t>(n) * 2]);
  EpochOffset();
  NowNs();  // calibrates the clock here, not on NCCL's hot path
}

void CommState::CollLaunched(int func, uint64_t seq) { AtomicMax(launched_[func], seq + 1); }

void CommState::CollCompleted(int func, uint64_t seq, uint64_t bytes, uint64_t start_ns, double td_us) {
  AtomicMax(completed_[func], seq + 1);
  std::lock_guard<std::mutex> lock(recent_mu_);
  RecentColl& r = recent_[recent_count_++ % kRecentColls];
  r.func = func;
  r.seq = seq;
  r.bytes = bytes;
  r.start_ts = EpochOf(start_ns);
  r.td_us = td_us;
}

void CommState::Posted(int peer, int dir, uint64_t now_ns) {
  if (peer < 0 || peer >= info_.nranks) return;
  PeerNet& p = net_[static_cast<size_t>(peer) * 2 + static_cast<size_t>(dir)];
  p.posted.fetch_add(1, std::memory_order_relaxed);
  p.last_post_ns.store(now_ns, std::memory_order_relaxed);
}

void CommState::Completed(int peer, int dir, uint64_t bytes, uint64_t post_ns, uint64_t now_ns) {
  if (peer < 0 || peer >= info_.nranks) return;
  PeerNet& p = net_[static_cast<size_t>(peer) * 2 + static_cast<size_t>(dir)];
  p.completed.fetch_add(1, std::memory_order_relaxed);
  p.bytes.fetch_add(bytes, std::memory_order_relaxed);
  p.last_done_ns.store(now_ns, std::memory_order_relaxed);
  const uint32_t slot = p.ring_next.fetch_add(1, std::memory_order_relaxed) % kRecentThroughput;
  p.ring_bytes[slot].store(bytes, std::memory_order_relaxed);
  p.ring_ns[slot].store(now_ns > post_ns ? now_ns - post_ns : 1, std::memory_order_relaxed);
}

namespace {
void Append(std::string& out, const char* fmt, auto... args) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, fmt, args...);
  if (n > 0) out.append(buf, static_cast<size_t>(n < static_cast<int>(sizeof buf) ? n : sizeof buf - 1));
}

// JSON string body: escapes quotes, backslashes and control bytes.
void AppendEscaped(std::string& out, const std::string& s) {
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      Append(out, "\\u%04x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
}
}  // namespace

std::string CommState::Snapshot(const std::string& host, int pid) const {
  std::string out;
  out.reserve(1024);
  Append(out, "{\"v\": 1, \"ts\": %.3f, \"host\": \"", EpochOf(NowNs()));
  AppendEscaped(out, host);
  Append(out, "\", \"pid\": %d, \"gpu\": ", pid);
  if (info_.gpu >= 0) Append(out, "%d", info_.gpu);
  else out += "null";
  Append(out, ", \"comm\": \"%016llx\", \"comm_name\": \"", static_cast<unsigned long long>(info_.comm_hash));
  AppendEscaped(out, info_.comm_name);
  Append(out, "\", \"nranks\": %d, \"nnodes\": %d, \"rank\": %d, \"coll\": {", info_.nranks, info_.nnodes, info_.rank);
  bool first = true;
  for (int f = 0; f < kMaxFuncs; ++f) {
    const uint64_t l = launched_[f].load(std::memory_order_relaxed), c = completed_[f].load(std::memory_order_relaxed);
    if (l == 0 && c == 0) continue;
    Append(out, "%s\"%s\": {\"launched\": %llu, \"completed\": %llu}", first ? "" : ", ", kFuncs[f],
           static_cast<unsigned long long>(l), static_cast<unsigned long long>(c));
    first = false;
  }
  out += "}, \"net\": [";
  first = true;
  for (int peer = 0; peer < info_.nranks; ++peer)
    for (int dir = 0; dir < 2; ++dir) {
      const PeerNet& p = net_[static_cast<size_t>(peer) * 2 + static_cast<size_t>(dir)];
      const uint64_t posted = p.posted.load(std::memory_order_relaxed);
      if (posted == 0) continue;
      uint64_t rb = 0, rn = 0;
      for (int k = 0; k < kRecentThroughput; ++k) {
        rb += p.ring_bytes[k].load(std::memory_order_relaxed);
        rn += p.ring_ns[k].load(std::memory_order_relaxed);
      }
      Append(out, "%s{\"peer\": %d, \"dir\": \"%s\", \"posted\": %llu, \"completed\": %llu, \"bytes\": %llu", first ? "" : ", ",
             peer, dir == 0 ? "send" : "recv", static_cast<unsigned long long>(posted),
             static_cast<unsigned long long>(p.completed.load(std::memory_order_relaxed)),
             static_cast<unsigned long long>(p.bytes.load(std::memory_order_relaxed)));
      if (rn > 0) Append(out, ", \"recent_gbps\": %.3f", static_cast<double>(rb) * 8.0 / static_cast<double>(rn));
      if (uint64_t t = p.last_post_ns.load(std::memory_order_relaxed)) Append(out, ", \"last_post_ts\": %.6f", EpochOf(t));
      if (uint64_t t = p.last_done_ns.load(std::memory_order_relaxed)) Append(out, ", \"last_done_ts\": %.6f", EpochOf(t));
      out += "}";
      first = false;
    }
  out += "], \"recent\": [";
  {
    std::lock_guard<std::mutex> lock(recent_mu_);
    const uint64_t n = recent_count_ < kRecentColls ? recent_count_ : kRecentColls;
    for (uint64_t i = 0; i < n; ++i) {
      const RecentColl& r = recent_[(recent_count_ - n + i) % kRecentColls];
      Append(out, "%s{\"func\": \"%s\", \"seq\": %llu, \"bytes\": %llu, \"start_ts\": %.6f, \"td_us\": %.1f}", i ? ", " : "",
             kFuncs[r.func], static_cast<unsigned long long>(r.seq), static_cast<unsigned long long>(r.bytes), r.start_ts,
             r.td_us);
    }
  }
  out += "]}";
  return out;
}

}  // namespace aegis::probe
