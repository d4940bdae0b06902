#include "probe/comm_state.h"

#include <pthread.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <new>

#include "probe/clock.h"

namespace aegis::probe {

namespace {
const char* kFuncs[kMaxFuncs] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AllToAll",
                                 "Send",      "Recv",      "SendRecv",      "Gather",    "Scatter", "Other"};
}  // namespace

const char* FuncName(int i) { return i >= 0 && i < kMaxFuncs ? kFuncs[i] : "Other"; }

int FuncIndex(const char* name) {
  if (!name) return kMaxFuncs - 1;
  for (int i = 0; i < kMaxFuncs - 1; ++i)
    if (std::strcmp(name, kFuncs[i]) == 0) return i;
  return kMaxFuncs - 1;
}

// ---- clocks ----

namespace {
uint64_t MonotonicNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

struct TickScale {
  uint64_t tick0 = 0, ns0 = 0;
  double ns_per_tick = 1.0;
  TickScale() {
#if defined(__x86_64__)
    const uint64_t n0 = MonotonicNs(), t0 = Ticks();
    uint64_t n1;
    do n1 = MonotonicNs();
    while (n1 - n0 < 5000000);
    const uint64_t t1 = Ticks();
    ns_per_tick = t1 > t0 ? static_cast<double>(n1 - n0) / static_cast<double>(t1 - t0) : 1.0;
    tick0 = t1;
    ns0 = n1;
#elif defined(__aarch64__)
    uint64_t freq;
    asm volatile("mrs %0, cntfrq_el0" : "=r"(freq));
    ns_per_tick = freq ? 1e9 / static_cast<double>(freq) : 1.0;
    ns0 = MonotonicNs();
    tick0 = Ticks();
#endif
  }
};
const TickScale& Scale() {
  static const TickScale s;
  return s;
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

void CalibrateClock() {
  Scale();
  EpochOffset();
}

uint64_t TicksToNs(uint64_t t) {
  const TickScale& s = Scale();
  const double d = static_cast<double>(static_cast<int64_t>(t - s.tick0)) * s.ns_per_tick;
  return static_cast<uint64_t>(static_cast<int64_t>(s.ns0) + static_cast<int64_t>(d));
}

uint64_t TickSpanNs(uint64_t span) { return static_cast<uint64_t>(static_cast<double>(span) * Scale().ns_per_tick); }

uint64_t NowNs() { return TicksToNs(Ticks()); }

double EpochOf(uint64_t mono_ns) { return static_cast<double>(mono_ns) * 1e-9 + EpochOffset(); }

// ---- peers ----

PeerTable::PeerTable(int nranks) : limit_(nranks > 0 ? nranks : kMaxPeers) {
  // calloc: a large directory for an unknown rank count costs address space, not memory.
  blocks_ = static_cast<PeerSlot**>(std::calloc(static_cast<size_t>((limit_ + kBlockPeers - 1) / kBlockPeers),
                                                sizeof(PeerSlot*)));
  if (!blocks_) throw std::bad_alloc();
}

PeerTable::~PeerTable() {
  const int nblocks = (limit_ + kBlockPeers - 1) / kBlockPeers;
  for (int b = 0; b < nblocks; ++b) delete[] blocks_[b];
  std::free(blocks_);
}

PeerSlot* PeerTable::NewBlock(unsigned b) {
  auto* block = new (std::nothrow) PeerSlot[kBlockPeers * 2];
  if (block) std::atomic_ref<PeerSlot*>(blocks_[b]).store(block, std::memory_order_release);
  return block;
}

void PeerTable::RestartSampling() {
  const int nblocks = (limit_ + kBlockPeers - 1) / kBlockPeers;
  for (int b = 0; b < nblocks; ++b) {
    PeerSlot* block = std::atomic_ref<PeerSlot*>(blocks_[b]).load(std::memory_order_acquire);
    if (!block) continue;
    for (int i = 0; i < kBlockPeers * 2; ++i) block[i].next_timed.store(0, std::memory_order_relaxed);
  }
}

// ---- lanes ----

Lane::Lane(CommState* c, int nranks) : comm(c), peers(nranks) {}

void Lane::CollCompleted(const RecentColl& c) {
  OwnerMax(completed_[c.func], c.seq + 1);
  Entry& e = recent_[recent_count_++ % kRecentColls];
  const uint32_t v = recent_version_.load(std::memory_order_relaxed);
  recent_version_.store(v + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  e.func.store(static_cast<uint64_t>(c.func), std::memory_order_relaxed);
  e.seq.store(c.seq, std::memory_order_relaxed);
  e.bytes.store(c.bytes, std::memory_order_relaxed);
  e.start_ns.store(c.start_ns, std::memory_order_relaxed);
  e.done_ns.store(c.done_ns, std::memory_order_relaxed);
  e.td_bits.store(std::bit_cast<uint64_t>(c.td_us), std::memory_order_relaxed);
  recent_version_.store(v + 2, std::memory_order_release);
}

void Lane::ReadRecent(std::vector<RecentColl>* out) const {
  RecentColl copy[kRecentColls];
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint32_t v0 = recent_version_.load(std::memory_order_acquire);
    if (v0 & 1) continue;
    int n = 0;
    for (const Entry& e : recent_) {
      RecentColl& r = copy[n++];
      r.func = static_cast<int>(e.func.load(std::memory_order_relaxed));
      r.seq = e.seq.load(std::memory_order_relaxed);
      r.bytes = e.bytes.load(std::memory_order_relaxed);
      r.start_ns = e.start_ns.load(std::memory_order_relaxed);
      r.done_ns = e.done_ns.load(std::memory_order_relaxed);
      r.td_us = std::bit_cast<double>(e.td_bits.load(std::memory_order_relaxed));
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    if (recent_version_.load(std::memory_order_relaxed) != v0) continue;
    for (const RecentColl& r : copy)
      if (r.done_ns && r.func >= 0 && r.func < kMaxFuncs) out->push_back(r);
    return;
  }
}

// ---- threads ----

__thread ThreadState* t_thread __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {
pthread_key_t g_exit_key;

// Runs on the thread itself. Its ops stop matching its token first: a thread that later
// has the same control block address (or this one, with new lanes) is not their owner.
void ReleaseLanes(ThreadState* t) {
  const uintptr_t token = ThreadToken();
  for (Lane* lane : t->owned) {
    lane->pool.ForEach([token](Event& e) {
      if (e.owner.load(std::memory_order_relaxed) == token) e.owner.store(0, std::memory_order_relaxed);
    });
    lane->owner.store(&kOrphanLane, std::memory_order_release);
  }
  delete t;
}

void OnThreadExit(void* state) {
  ReleaseLanes(static_cast<ThreadState*>(state));
  t_thread = nullptr;
}

ThreadState* ThisThread() {
  if (ThreadState* t = t_thread) return t;
  static const bool key_ok = pthread_key_create(&g_exit_key, OnThreadExit) == 0;
  auto* t = new (std::nothrow) ThreadState;
  if (!t) return nullptr;
  try {
    t->owned.reserve(8);
  } catch (...) {
    delete t;
    return nullptr;
  }
  if (key_ok) pthread_setspecific(g_exit_key, t);
  t_thread = t;
  return t;
}
}  // namespace

void ReleaseThreadLanes() {
  ThreadState* t = t_thread;
  if (!t) return;
  pthread_setspecific(g_exit_key, nullptr);
  t_thread = nullptr;
  ReleaseLanes(t);
}

Lane* CommState::LaneSlow() {
  ThreadState* t = ThisThread();
  if (!t) return nullptr;
  auto remember = [t, this](Lane* lane) {
    for (int i = 3; i > 0; --i) t->cache[i] = t->cache[i - 1];
    t->cache[0] = {this, lane};
    return lane;
  };
  for (int i = 1; i < 4; ++i)
    if (t->cache[i].comm == this) {
      Lane* lane = t->cache[i].lane;
      for (int j = i; j > 0; --j) t->cache[j] = t->cache[j - 1];
      t->cache[0] = {this, lane};
      return lane;
    }
  for (Lane* lane : t->owned)
    if (lane->comm == this) return remember(lane);
  try {
    t->owned.reserve(t->owned.size() + 1);
  } catch (...) {
    return nullptr;
  }
  // A lane left by a thread that exited, else a new one.
  for (Lane* lane = lanes_.load(std::memory_order_acquire); lane; lane = lane->next) {
    const void* none = &kOrphanLane;
    if (lane->owner.load(std::memory_order_relaxed) == none &&
        lane->owner.compare_exchange_strong(none, t, std::memory_order_acquire)) {
      t->owned.push_back(lane);
      return remember(lane);
    }
  }
  Lane* lane = nullptr;
  try {
    lane = new Lane(this, info_.nranks);
  } catch (...) {
    return nullptr;
  }
  lane->owner.store(t, std::memory_order_relaxed);
  Lane* head = lanes_.load(std::memory_order_relaxed);
  do lane->next = head;
  while (!lanes_.compare_exchange_weak(head, lane, std::memory_order_release, std::memory_order_relaxed));
  t->owned.push_back(lane);
  return remember(lane);
}

// ---- communicator ----

CommState::CommState(const CommInfo& info, bool known) : info_(info) {
  CalibrateClock();  // here, not on NCCL's hot path
  if (known) identity_.store(2, std::memory_order_release);
}

CommState::~CommState() {
  // Only for states that never met NCCL (tests): the plugin keeps every one to the end.
  Lane* lane = lanes_.load(std::memory_order_acquire);
  while (lane) {
    Lane* next = lane->next;
    delete lane;
    lane = next;
  }
}

void CommState::LearnIdentity(uint64_t hash, const char* name, int rank) {
  int expected = 0;
  if (!identity_.compare_exchange_strong(expected, 1, std::memory_order_acquire)) return;
  info_.comm_hash = hash;
  info_.comm_name = name ? name : "";
  info_.rank = rank;
  identity_.store(2, std::memory_order_release);
}

void CommState::RestartSampling() {
  for (Lane* lane = lanes_.load(std::memory_order_acquire); lane; lane = lane->next) lane->peers.RestartSampling();
}

uint64_t CommState::events_dropped() const {
  uint64_t n = 0;
  for (Lane* lane = lanes_.load(std::memory_order_acquire); lane; lane = lane->next) n += lane->pool.exhausted();
  return n;
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

struct Timed {
  uint64_t bytes, span, done;
};

struct PeerTotals {
  uint64_t posted = 0, completed = 0, bytes = 0, last_post = 0, last_done = 0;
  std::vector<Timed> timed;
};

// The (peer, direction) counters of one lane, consistently enough: completed is read
// before posted (so completed <= posted), the ring under its sequence lock.
void ReadSlot(const PeerSlot& s, PeerTotals* t) {
  const uint64_t completed = s.completed.load(std::memory_order_acquire);
  const uint64_t bytes = s.bytes.load(std::memory_order_acquire);
  const uint64_t posted = s.posted.load(std::memory_order_acquire);
  t->posted += posted;
  t->completed += completed;
  t->bytes += bytes;
  t->last_post = std::max(t->last_post, s.last_post.load(std::memory_order_acquire));
  t->last_done = std::max(t->last_done, s.last_done.load(std::memory_order_acquire));
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint32_t v0 = s.ring_version.load(std::memory_order_acquire);
    if (v0 & 1) continue;
    Timed ring[kRecentThroughput];
    for (int k = 0; k < kRecentThroughput; ++k)
      ring[k] = {s.ring_bytes[k].load(std::memory_order_relaxed), s.ring_span[k].load(std::memory_order_relaxed),
                 s.ring_done[k].load(std::memory_order_relaxed)};
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.ring_version.load(std::memory_order_relaxed) != v0) continue;
    for (const Timed& r : ring)
      if (r.done) t->timed.push_back(r);
    return;
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

  uint64_t launched[kMaxFuncs] = {}, completed[kMaxFuncs] = {};
  std::map<int64_t, PeerTotals> net;  // peer * 2 + dir, in output order
  std::vector<RecentColl> recent;
  for (Lane* lane = lanes_.load(std::memory_order_acquire); lane; lane = lane->next) {
    for (int f = 0; f < kMaxFuncs; ++f) {
      completed[f] = std::max(completed[f], lane->completed(f));
      launched[f] = std::max(launched[f], lane->launched(f));
    }
    lane->peers.ForEach([&](int peer, int dir, const PeerSlot& s) {
      // A lane may hold completions of requests another lane posted.
      if (s.posted.load(std::memory_order_relaxed) == 0 && s.completed.load(std::memory_order_relaxed) == 0) return;
      ReadSlot(s, &net[static_cast<int64_t>(peer) * 2 + dir]);
    });
    lane->ReadRecent(&recent);
  }

  bool first = true;
  for (int f = 0; f < kMaxFuncs; ++f) {
    if (launched[f] == 0 && completed[f] == 0) continue;
    Append(out, "%s\"%s\": {\"launched\": %llu, \"completed\": %llu}", first ? "" : ", ", kFuncs[f],
           static_cast<unsigned long long>(launched[f]), static_cast<unsigned long long>(completed[f]));
    first = false;
  }
  out += "}, \"net\": [";
  first = true;
  for (auto& [key, p] : net) {
    if (p.posted == 0) continue;
    Append(out, "%s{\"peer\": %d, \"dir\": \"%s\", \"posted\": %llu, \"completed\": %llu, \"bytes\": %llu",
           first ? "" : ", ", static_cast<int>(key / 2), key % 2 == 0 ? "send" : "recv",
           static_cast<unsigned long long>(p.posted), static_cast<unsigned long long>(p.completed),
           static_cast<unsigned long long>(p.bytes));
    // The last L timed requests over all lanes.
    std::sort(p.timed.begin(), p.timed.end(), [](const Timed& a, const Timed& b) { return a.done > b.done; });
    uint64_t rb = 0, rn = 0;
    for (size_t k = 0; k < p.timed.size() && k < static_cast<size_t>(kRecentThroughput); ++k) {
      rb += p.timed[k].bytes;
      rn += std::max<uint64_t>(TickSpanNs(p.timed[k].span), 1);
    }
    if (rn > 0) Append(out, ", \"recent_gbps\": %.3f", static_cast<double>(rb) * 8.0 / static_cast<double>(rn));
    if (p.last_post) Append(out, ", \"last_post_ts\": %.6f", EpochOf(TicksToNs(p.last_post)));
    if (p.last_done) Append(out, ", \"last_done_ts\": %.6f", EpochOf(TicksToNs(p.last_done)));
    out += "}";
    first = false;
  }
  out += "], \"recent\": [";
  std::sort(recent.begin(), recent.end(), [](const RecentColl& a, const RecentColl& b) { return a.done_ns < b.done_ns; });
  const size_t skip = recent.size() > static_cast<size_t>(kRecentColls) ? recent.size() - kRecentColls : 0;
  for (size_t i = skip; i < recent.size(); ++i) {
    const RecentColl& r = recent[i];
    Append(out, "%s{\"func\": \"%s\", \"seq\": %llu, \"bytes\": %llu, \"start_ts\": %.6f, \"td_us\": %.3f}",
           i > skip ? ", " : "", kFuncs[r.func], static_cast<unsigned long long>(r.seq),
           static_cast<unsigned long long>(r.bytes), EpochOf(r.start_ns), r.td_us);
  }
  Append(out, "], \"api\": %d}", info_.api);
  return out;
}

}  // namespace aegis::probe
