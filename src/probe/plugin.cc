// libnccl-profiler-aegis.so: the NCCL profiler plugin (NCCL_PROFILER_PLUGIN=aegis).
// Exports ncclProfiler_v1 (NCCL 2.23) to ncclProfiler_v5 (NCCL 2.28) side by side; NCCL
// picks the newest it knows. Each version's entry points translate its descriptors and
// feed one event engine (this file) and one CommState per communicator.
//
// NCCL calls from its application thread (collective start / stop) and its proxy thread
// (proxy ops, steps, kernel channels) at once. Every path is lock-free and never waits;
// the per-request path (a proxy step's start, states, stop) writes only what the calling
// thread owns: the step's slot in its op's record and the counters of its own lane of the
// communicator, with plain stores, and reads the clock for one request in kTimeEvery
// (comm_state.h, docs/probe.md).
#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <type_traits>

#include "probe/clock.h"
#include "probe/comm_state.h"
#include "probe/event_pool.h"
#include "probe/nccl_profiler_abi.h"
#include "probe/writer.h"

namespace aegis::probe {
namespace {

// What we need, set once: NCCL keeps one activation mask for all communicators.
constexpr int kActivationMask = abi::kColl | abi::kP2p | abi::kProxyOp | abi::kProxyStep | abi::kKernelCh;

struct Context {
  CommState state;
  pid_t pid;  // PXN: a proxy op of another process names a parent we cannot read
  Context(const CommInfo& info, bool known) : state(info, known), pid(::getpid()) {}
};

// NCCL before 2.28 starts collectives only under a non-null group handle; groups carry
// nothing we count, so they all get this one record (no lane: stop and state ignore it).
Event g_group;

int CudaDevice() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) lib = ::dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) return -1;
  using GetDevice = int (*)(int*);
  auto fn = reinterpret_cast<GetDevice>(::dlsym(lib, "cuCtxGetDevice"));
  int dev = -1;
  if (!fn || fn(&dev) != 0) dev = -1;
  return dev;
}

// NCCL dlcloses the plugin after its last communicator; our writer thread and late
// events outlive that, so the library pins itself the first time it is used.
void PinLibrary() {
  static const bool pinned = [] {
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<void*>(&PinLibrary), &info) || !info.dli_fname) return false;
    return ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr;
  }();
  (void)pinned;
}

size_t TypeSize(const char* datatype) {
  if (!datatype) return 1;
  if (std::strstr(datatype, "64") || std::strstr(datatype, "ouble")) return 8;
  if (std::strstr(datatype, "32") || !std::strcmp(datatype, "ncclFloat") || !std::strcmp(datatype, "ncclInt")) return 4;
  if (std::strstr(datatype, "16") || std::strstr(datatype, "alf")) return 2;
  return 1;
}

const char* FuncNameV1(uint8_t f) {
  static const char* kNames[] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce", "SendRecv", "Send", "Recv"};
  return f < sizeof kNames / sizeof kNames[0] ? kNames[f] : nullptr;
}

size_t TypeSizeV1(uint8_t dt) {
  return dt < sizeof abi::kDatatypeSizeV1 / sizeof abi::kDatatypeSizeV1[0] ? abi::kDatatypeSizeV1[dt] : 1;
}

abi::Result Init(void** context, int* mask, CommInfo info, bool known, abi::Logger logger) {
  if (!context) return abi::kInvalidArgument;
  *context = nullptr;
  if (mask) *mask = kActivationMask;
  PinLibrary();
  Writer::Get().SetLogger(logger);
  info.gpu = CudaDevice();
  Context* ctx = nullptr;
  try {
    ctx = new Context(info, known);
  } catch (...) {
    return abi::kInternalError;  // NCCL goes on calling us with a null context
  }
  Writer::Get().Register(&ctx->state);
  *context = ctx;
  return abi::kSuccess;
}

Context* Live(void* context) {
  auto* ctx = static_cast<Context*>(context);
  return ctx && !ctx->state.finalized.load(std::memory_order_relaxed) ? ctx : nullptr;
}

// ---- the event engine ----

// Handles go to NCCL as HandleHead* and come back the same way (event_pool.h).
void* Out(HandleHead* h) { return h; }
HandleHead* In(void* handle) { return static_cast<HandleHead*>(handle); }

// A parent handle is only followed when it is ours and still the event it was.
Event* Parent(const Event* child) {
  Event* p = child->parent;
  return p && p->generation.load(std::memory_order_relaxed) == child->parent_generation ? p : nullptr;
}

[[gnu::always_inline]] inline void Release(Event* e) {
  if (CommState::OwnedHere(e->lane)) e->lane->pool.PushLocal(e);
  else e->lane->pool.PushRemote(e);
}

void CompleteColl(Event* c) {
  Lane* lane = c->lane->comm->LaneHere();  // counted by the thread that sees it end
  if (!lane) return;
  const uint64_t now = NowNs();
  const uint64_t g0 = c->gpu_start.load(std::memory_order_relaxed), g1 = c->gpu_end.load(std::memory_order_relaxed);
  // GPU-side duration over all channels where the kernel timer is known, else host-side.
  RecentColl r;
  r.func = c->func;
  r.seq = c->seq;
  r.bytes = c->coll_bytes;
  r.start_ns = c->start_ns;
  r.done_ns = now;
  r.td_us = g1 > g0 && g0 != UINT64_MAX ? static_cast<double>(g1 - g0) / 1000.0
                                        : static_cast<double>(now - c->start_ns) / 1000.0;
  lane->CollCompleted(r);
}

void DropCollRef(Event* c) {
  if (c->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (!c->counts_channels || c->channels == 0) CompleteColl(c);  // nothing else to wait for
  Release(c);
}

Event* Pop(Context* ctx, Lane** lane_out) {
  Lane* lane = ctx->state.LaneHere();
  *lane_out = lane;
  return lane ? lane->pool.Pop(lane) : nullptr;
}

// counts_channels: NCCL (>= 2.27) announces exactly how many kernel channels will report;
// the collective completes when they have. Before, channels take references as they come.
void* StartColl(Context* ctx, int func, uint64_t seq, uint64_t bytes, uint8_t channels, bool counts_channels) {
  Lane* lane = ctx->state.LaneHere();
  if (!lane) return nullptr;
  lane->CollLaunched(func, seq);  // CL counts even when the pool is full
  Event* e = lane->pool.Pop(lane);
  if (!e) return nullptr;
  e->parent = nullptr;
  e->func = func;
  e->seq = seq;
  e->coll_bytes = bytes;
  e->start_ns = NowNs();
  e->channels = channels;
  e->counts_channels = counts_channels;
  e->channels_done.store(0, std::memory_order_relaxed);
  e->gpu_start.store(UINT64_MAX, std::memory_order_relaxed);
  e->gpu_end.store(0, std::memory_order_relaxed);
  e->refs.store(1 + (counts_channels ? channels : 0), std::memory_order_relaxed);
  e->type.store(abi::kColl, std::memory_order_release);
  return Out(e);
}

void* StartP2p(Context* ctx, const char* func, uint8_t channels, bool counts_channels) {
  const int f = FuncIndex(func);
  return StartColl(ctx, f, ctx->state.p2p_seq[f].fetch_add(1, std::memory_order_relaxed), 0, channels, counts_channels);
}

// The collective `parent` names, when it is one of ours and alive. With take_ref, a
// reference is taken only while the collective still holds one (it may be ending on
// another thread, its record even reused: the generation tells).
void AttachToColl(Event* e, void* parent, bool take_ref) {
  e->parent = nullptr;
  HandleHead* h = In(parent);
  if (!h) return;
  const uint32_t generation = h->generation.load(std::memory_order_acquire);
  if (h->type.load(std::memory_order_acquire) != abi::kColl) return;
  auto* p = static_cast<Event*>(h);
  if (take_ref) {
    int refs = p->refs.load(std::memory_order_acquire);
    do {
      if (refs <= 0) return;  // ended: its record is on its way back to the pool
    } while (!p->refs.compare_exchange_weak(refs, refs + 1, std::memory_order_acq_rel, std::memory_order_acquire));
    if (p->generation.load(std::memory_order_acquire) != generation) {
      DropCollRef(p);  // a later collective in the same record: give back what we took
      return;
    }
  }
  e->parent = p;
  e->parent_generation = generation;
}

void* StartProxyOp(Context* ctx, void* parent, const abi::ProxyOpDescr& d, uint64_t bytes_per_step) {
  Lane* lane;
  Event* e = Pop(ctx, &lane);
  if (!e) return nullptr;
  e->peer = d.peer;
  e->dir = d.isSend ? 0 : 1;
  e->slot = lane->peers.Get(d.peer, e->dir);
  if (!e->slot) e->slot = &lane->sink;
  e->bytes = bytes_per_step;
  e->owner_id = t_thread_id;  // LaneHere() gave this thread its ThreadState
  e->stopped.store(false, std::memory_order_relaxed);
  // PXN: the op may belong to a collective of another process; its handle is not ours.
  if (d.pid == ctx->pid) AttachToColl(e, parent, true);
  else e->parent = nullptr;
  e->type.store(abi::kProxyOp, std::memory_order_relaxed);
  return Out(e);
}

void* StartKernelCh(Context* ctx, void* parent, uint64_t ptimer, bool counts_channels) {
  Lane* lane;
  Event* e = Pop(ctx, &lane);
  if (!e) return nullptr;
  AttachToColl(e, parent, !counts_channels);
  e->ch_start = ptimer;
  e->ch_end = 0;
  e->type.store(abi::kKernelCh, std::memory_order_relaxed);
  return Out(e);
}

// ---- proxy steps: the per-request path ----
//
// The fast path handles a step kept in its op's record (StepRec) by the thread that owns
// the op's lane: plain loads and stores on that lane's counters, no call, no atomic
// read-modify-write. Everything else (the first request of an epoch or every
// kTimeEvery-th: timed; a step in a pool event; a step reported by another thread) goes
// through the out-of-line functions below, which read the step through a Step view.

struct Step {
  uint8_t& flags;
  uint64_t& bytes;
  uint64_t& post_tick;
  Lane* lane;      // where `slot` lives
  PeerSlot* slot;  // the (peer, direction) counters in `lane`
  int peer;
  uint8_t dir;
};

Step ViewOf(StepRec* r) {
  Event* op = r->op;
  return {r->flags, r->bytes, r->post_tick, op->lane, op->slot, op->peer, op->dir};
}
Step ViewOf(Event* e) { return {e->flags, e->bytes, e->post_tick, e->lane, e->slot, e->peer, e->dir}; }

// The counters of the step's (peer, direction) in the calling thread's lane.
PeerSlot* SlotHere(const Step& s) {
  if (CommState::OwnedHere(s.lane)) return s.slot;
  Lane* lane = s.lane->comm->LaneHere();
  return lane ? lane->peers.Get(s.peer, s.dir) : nullptr;
}

bool IsPost(int state) { return state == abi::kProxyStepSendWait || state == abi::kProxyStepRecvWait; }
bool IsDone(int state) { return state == abi::kProxyStepRecvFlushWait || state == abi::kProxyStepRecvGPUWait; }

// Timing a request: its post time, then at completion its span into the ring.
[[gnu::noinline]] void TimePost(PeerSlot* s, uint8_t& flags, uint64_t& post_tick, uint64_t posted) {
  s->next_timed = posted + kTimeEvery;
  s->epoch = g_sample_epoch.load(std::memory_order_relaxed);
  post_tick = Ticks();
  flags |= kTimed;
  s->last_post.store(post_tick, std::memory_order_release);
}

[[gnu::noinline]] void TimeDone(PeerSlot* s, uint64_t bytes, uint64_t post_tick) {
  const uint64_t t = Ticks();
  const uint32_t k = s->ring_next;
  s->ring_next = k + 1 == kRecentThroughput ? 0 : k + 1;
  const uint32_t v = s->ring_version.load(std::memory_order_relaxed);
  s->ring_version.store(v + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s->ring_bytes[k].store(bytes, std::memory_order_relaxed);
  s->ring_span[k].store(t > post_tick ? t - post_tick : 1, std::memory_order_relaxed);
  s->ring_done[k].store(t, std::memory_order_relaxed);
  s->ring_version.store(v + 2, std::memory_order_release);
  s->last_done.store(t, std::memory_order_release);
}

// Counting, given the caller's own slot (never null). A repeated wait state is one request.
[[gnu::always_inline]] inline void CountPost(PeerSlot* s, uint8_t& flags, uint64_t& bytes, uint64_t& post_tick,
                                             uint64_t size) {
  if (flags & kPosted) return;
  flags |= kPosted;
  if (size) bytes = size;
  const uint64_t n = s->posted.load(std::memory_order_relaxed);
  s->posted.store(n + 1, std::memory_order_release);
  if (n >= s->next_timed || s->epoch != g_sample_epoch.load(std::memory_order_relaxed)) [[unlikely]]
    TimePost(s, flags, post_tick, n);
}

[[gnu::always_inline]] inline void CountDone(PeerSlot* s, uint8_t& flags, uint64_t& bytes, uint64_t post_tick,
                                             uint64_t size) {
  if ((flags & (kPosted | kDone)) != kPosted) return;
  flags |= kDone;
  if (size) bytes = size;
  OwnerAdd(s->bytes, bytes);
  OwnerAdd(s->completed, 1);
  if (flags & kTimed) [[unlikely]]
    TimeDone(s, bytes, post_tick);
}

void StepState(const Step& st, int state, uint64_t size) {
  if (st.peer < 0) return;
  if (IsPost(state) && !(st.flags & kPosted)) {
    if (PeerSlot* s = SlotHere(st)) CountPost(s, st.flags, st.bytes, st.post_tick, size);
  } else if (IsDone(state) && (st.flags & (kPosted | kDone)) == kPosted) {
    if (PeerSlot* s = SlotHere(st)) CountDone(s, st.flags, st.bytes, st.post_tick, size);
  }
}

void StepStopped(const Step& st) {
  if (st.peer < 0 || (st.flags & (kPosted | kDone)) != kPosted) return;
  if (PeerSlot* s = SlotHere(st)) CountDone(s, st.flags, st.bytes, st.post_tick, 0);  // a send completes at its stop
}

// A step in a pool event: the op's slot for this step is taken, or the op is not ours.
[[gnu::noinline]] void* StartPoolStep(Context* ctx, HandleHead* parent) {
  if (!ctx || ctx->state.finalized.load(std::memory_order_relaxed)) return nullptr;
  Event* op = parent && parent->type.load(std::memory_order_relaxed) == abi::kProxyOp ? static_cast<Event*>(parent)
                                                                                      : nullptr;
  Lane* lane;
  Event* e = Pop(ctx, &lane);
  if (!e) return nullptr;
  e->flags = 0;
  e->parent = nullptr;
  if (op) {
    // The step keeps its own copy of where it goes: its op may be recycled first.
    e->peer = op->peer;
    e->dir = op->dir;
    e->bytes = op->bytes;
    e->slot = op->lane == lane ? op->slot : lane->peers.Get(op->peer, op->dir);
  } else {
    e->peer = -1;
    e->slot = nullptr;
    e->bytes = 0;
  }
  e->type.store(abi::kProxyStep, std::memory_order_relaxed);
  return Out(e);
}

[[gnu::always_inline]] inline void* StartProxyStep(Context* ctx, void* parent, int step) {
  HandleHead* h = In(parent);
  if (h && h->type.load(std::memory_order_relaxed) == abi::kProxyOp) [[likely]] {
    auto* op = static_cast<Event*>(h);
    StepRec& r = op->steps[static_cast<unsigned>(step) % kStepSlots];
    const uint64_t me = t_thread_id;
    if (op->owner_id == me && r.type.load(std::memory_order_relaxed) == 0) [[likely]] {
      r.flags = 0;
      r.owner_id = me;
      r.slot = op->slot;
      r.bytes = op->bytes;
      r.type.store(kStepInOp, std::memory_order_relaxed);
      return Out(&r);
    }
  }
  return StartPoolStep(ctx, h);
}

bool StepsAlive(const Event* op) {
  for (const StepRec& r : op->steps)
    if (r.type.load(std::memory_order_acquire) != 0) return true;
  return false;
}

// An op stopped while its steps were alive is recycled by whoever ends it last.
[[gnu::noinline]] void ReleaseOpIfDone(Event* op) {
  if (!StepsAlive(op) && op->stopped.exchange(false, std::memory_order_acq_rel)) Release(op);
}

void StopProxyOp(Event* e) {
  if (Event* p = Parent(e)) DropCollRef(p);
  if (!StepsAlive(e)) {
    Release(e);
    return;
  }
  e->stopped.store(true, std::memory_order_seq_cst);
  ReleaseOpIfDone(e);  // a step that ended meanwhile may have missed `stopped`
}

// A step kept in its op, reported by a thread that does not own the op's lane (NCCL does
// not do this): counted in the caller's own lane.
[[gnu::noinline]] void StopStepInOpElsewhere(StepRec* r) {
  StepStopped(ViewOf(r));
  r->type.store(0, std::memory_order_release);
}

void KernelChDone(Event* e) {
  Event* c = Parent(e);
  if (!c) return;
  uint64_t cur = c->gpu_start.load(std::memory_order_relaxed);
  while (e->ch_start && e->ch_start < cur && !c->gpu_start.compare_exchange_weak(cur, e->ch_start)) {
  }
  cur = c->gpu_end.load(std::memory_order_relaxed);
  while (e->ch_end > cur && !c->gpu_end.compare_exchange_weak(cur, e->ch_end)) {
  }
  if (c->counts_channels) {
    const int n = c->channels_done.fetch_add(1, std::memory_order_acq_rel) + 1;
    if (n > c->channels) return;  // a channel NCCL did not announce holds no reference
    if (n == c->channels) CompleteColl(c);
  }
  DropCollRef(c);
}

// Everything but a step kept in its op and reported by its owner (rare: per op,
// channel, collective, or a step that fell back to the pool or changed threads).
[[gnu::noinline]] abi::Result RecordOther(HandleHead* h, int state, uint64_t word) {
  if (!h) return abi::kSuccess;
  switch (h->type.load(std::memory_order_relaxed)) {
    case kStepInOp: StepState(ViewOf(static_cast<StepRec*>(h)), state, word); break;
    case abi::kProxyStep: StepState(ViewOf(static_cast<Event*>(h)), state, word); break;
    case abi::kKernelCh:
      if (state == abi::kKernelChStop) static_cast<Event*>(h)->ch_end = word;
      break;
    default: break;
  }
  return abi::kSuccess;
}

// word: the state argument's first word, a step's size (transSize, NCCL >= 2.27) or a
// kernel channel's end timer (pTimer, KernelChStop); 0 when NCCL gives none.
[[gnu::always_inline]] inline abi::Result RecordState(void* handle, int state, uint64_t word) {
  HandleHead* h = In(handle);
  if (h && h->type.load(std::memory_order_relaxed) == kStepInOp) [[likely]] {
    auto* r = static_cast<StepRec*>(h);
    if (r->owner_id == t_thread_id) [[likely]] {
      if (IsPost(state)) CountPost(r->slot, r->flags, r->bytes, r->post_tick, word);
      else if (IsDone(state)) CountDone(r->slot, r->flags, r->bytes, r->post_tick, word);
      return abi::kSuccess;
    }
  }
  return RecordOther(h, state, word);
}

[[gnu::noinline]] abi::Result StopOther(HandleHead* h) {
  if (!h) return abi::kSuccess;
  const uint8_t type = h->type.load(std::memory_order_relaxed);
  if (type == kStepInOp) {
    StopStepInOpElsewhere(static_cast<StepRec*>(h));
    return abi::kSuccess;
  }
  // Any other live handle is an Event; 0 is a record stopped twice (or the group's).
  if (type != abi::kColl && type != abi::kProxyOp && type != abi::kProxyStep && type != abi::kKernelCh)
    return abi::kSuccess;
  auto* e = static_cast<Event*>(h);
  switch (type) {
    case abi::kColl: DropCollRef(e); return abi::kSuccess;  // "enqueued", not done
    case abi::kProxyOp: StopProxyOp(e); return abi::kSuccess;
    case abi::kProxyStep: StepStopped(ViewOf(e)); break;
    default: KernelChDone(e); break;
  }
  Release(e);
  return abi::kSuccess;
}

abi::Result Stop(void* handle) {
  HandleHead* h = In(handle);
  if (h && h->type.load(std::memory_order_relaxed) == kStepInOp) [[likely]] {
    auto* r = static_cast<StepRec*>(h);
    if (r->owner_id == t_thread_id) [[likely]] {
      // A send completes at its stop; a recv without flush too.
      CountDone(r->slot, r->flags, r->bytes, r->post_tick, 0);
      r->type.store(0, std::memory_order_release);
      if (r->op->stopped.load(std::memory_order_relaxed)) [[unlikely]]
        ReleaseOpIfDone(r->op);
      return abi::kSuccess;
    }
  }
  return StopOther(h);
}

abi::Result Finalize(void* context) {
  auto* ctx = static_cast<Context*>(context);
  if (!ctx) return abi::kSuccess;
  Writer::Get().Finalize(&ctx->state);
  // The context stays allocated: late proxy events may still name it. They are ignored.
  return abi::kSuccess;
}

// Every version's startEvent: a proxy step first, the rest out of line.
template <typename Descr, abi::Result (*Other)(void*, void**, Descr*)>
abi::Result StartFast(void* context, void** handle, Descr* d) {
  if (d && handle && d->type == abi::kProxyStep) [[likely]] {
    *handle = StartProxyStep(static_cast<Context*>(context), d->parentObj, d->proxyStep.step);
    return abi::kSuccess;
  }
  return Other(context, handle, d);
}

// ---- v5 (NCCL 2.28) ----
abi::Result InitV5(void** context, uint64_t comm_id, int* mask, const char* name, int nnodes, int nranks, int rank,
                   abi::Logger logger) {
  return Init(context, mask, {comm_id, name ? name : "", nranks, nnodes, rank, -1, 5}, true, logger);
}

[[gnu::noinline]] abi::Result StartV5Other(void* context, void** handle, abi::EventDescr_v5* d) {
  if (!handle) return abi::kSuccess;
  *handle = nullptr;
  Context* ctx = Live(context);
  if (!ctx || !d) return abi::kSuccess;
  switch (d->type) {
    case abi::kProxyOp: *handle = StartProxyOp(ctx, d->parentObj, d->proxyOp, 0); break;
    case abi::kKernelCh: *handle = StartKernelCh(ctx, d->parentObj, d->kernelCh.pTimer, true); break;
    case abi::kColl:
      *handle = StartColl(ctx, FuncIndex(d->coll.base.func), d->coll.base.seqNumber,
                          d->coll.base.count * TypeSize(d->coll.base.datatype), d->coll.base.nChannels, true);
      break;
    case abi::kP2p: *handle = StartP2p(ctx, d->p2p.func, d->p2p.nChannels, true); break;
    case abi::kGroup: *handle = Out(&g_group); break;
    default: break;
  }
  return abi::kSuccess;
}

abi::Result RecordV45(void* handle, int state, abi::EventStateArgs* args) {
  return RecordState(handle, state, args ? args->proxyStep.transSize : 0);  // transSize or pTimer: one word
}

// ---- v4 (NCCL 2.27) ----
abi::Result InitV4(void** context, int* mask, const char* name, uint64_t comm_hash, int nnodes, int nranks, int rank,
                   abi::Logger logger) {
  return Init(context, mask, {comm_hash, name ? name : "", nranks, nnodes, rank, -1, 4}, true, logger);
}

[[gnu::noinline]] abi::Result StartV4Other(void* context, void** handle, abi::EventDescr_v4* d) {
  if (!handle) return abi::kSuccess;
  *handle = nullptr;
  Context* ctx = Live(context);
  if (!ctx || !d) return abi::kSuccess;
  switch (d->type) {
    case abi::kProxyOp: *handle = StartProxyOp(ctx, d->parentObj, d->proxyOp, 0); break;
    case abi::kKernelCh: *handle = StartKernelCh(ctx, d->parentObj, d->kernelCh.pTimer, true); break;
    case abi::kColl:
      *handle = StartColl(ctx, FuncIndex(d->coll.func), d->coll.seqNumber, d->coll.count * TypeSize(d->coll.datatype),
                          d->coll.nChannels, true);
      break;
    case abi::kP2p: *handle = StartP2p(ctx, d->p2p.func, d->p2p.nChannels, true); break;
    case abi::kGroup: *handle = Out(&g_group); break;
    default: break;
  }
  return abi::kSuccess;
}

// ---- v1 to v3 (NCCL 2.23 to 2.26) ----
// init names no communicator: it is learnt from the first collective or p2p. Steps carry
// no size: a step counts its op's chunk size (an upper bound: the last step may be
// shorter). Kernel channels (v3) carry no timer and no count: durations are host-side.
template <int kApi>
abi::Result InitOld(void** context, int* mask) {
  CommInfo info;
  info.api = kApi;
  return Init(context, mask, info, false, nullptr);
}

template <typename Descr>
void LearnFrom(Context* ctx, const char* name, uint64_t hash, const Descr* d) {
  if (!ctx->state.identity_known()) ctx->state.LearnIdentity(hash, name, d->rank);
}

[[gnu::noinline]] abi::Result StartV1Other(void* context, void** handle, abi::EventDescr_v1* d) {
  if (!handle) return abi::kSuccess;
  *handle = nullptr;
  Context* ctx = Live(context);
  if (!ctx || !d) return abi::kSuccess;
  switch (d->type) {
    case abi::kProxyOp:
      *handle = StartProxyOp(ctx, d->parentObj, d->proxyOp, static_cast<uint64_t>(d->proxyOp.chunkSize));
      break;
    case abi::kColl:
      LearnFrom(ctx, d->coll.name, d->coll.commHash, d);
      *handle = StartColl(ctx, FuncIndex(FuncNameV1(d->coll.func)), d->coll.seqNumber,
                          d->coll.count * TypeSizeV1(d->coll.datatype), 0, false);
      break;
    case abi::kP2p:
      LearnFrom(ctx, d->p2p.name, d->p2p.commHash, d);
      *handle = StartP2p(ctx, FuncNameV1(d->p2p.func), 0, false);
      break;
    case abi::kGroup: *handle = Out(&g_group); break;
    default: break;
  }
  return abi::kSuccess;
}

// v2 and v3 differ only where we do not look (trafficBytes, kernel and net events).
template <typename Descr>
[[gnu::noinline]] abi::Result StartV23Other(void* context, void** handle, Descr* d) {
  if (!handle) return abi::kSuccess;
  *handle = nullptr;
  Context* ctx = Live(context);
  if (!ctx || !d) return abi::kSuccess;
  switch (d->type) {
    case abi::kProxyOp:
      *handle = StartProxyOp(ctx, d->parentObj, d->proxyOp, static_cast<uint64_t>(d->proxyOp.chunkSize));
      break;
    case abi::kColl:
      LearnFrom(ctx, d->coll.name, d->coll.commHash, d);
      *handle = StartColl(ctx, FuncIndex(d->coll.func), d->coll.seqNumber, d->coll.count * TypeSize(d->coll.datatype),
                          0, false);
      break;
    case abi::kP2p:
      LearnFrom(ctx, d->p2p.name, d->p2p.commHash, d);
      *handle = StartP2p(ctx, d->p2p.func, 0, false);
      break;
    case abi::kKernelCh:
      if constexpr (std::is_same_v<Descr, abi::EventDescr_v3>) *handle = StartKernelCh(ctx, d->parentObj, 0, false);
      break;
    case abi::kGroup: *handle = Out(&g_group); break;
    default: break;
  }
  return abi::kSuccess;
}

// Proxy-step states carry no arguments before NCCL 2.27; proxy-op states carry the op's
// bytes so far, which the step count already covers.
abi::Result RecordV1(void* handle, int state, abi::EventStateArgs_v1*) { return RecordState(handle, state, 0); }

}  // namespace
}  // namespace aegis::probe

extern "C" {
__attribute__((visibility("default"))) aegis::probe::abi::Profiler_v5 ncclProfiler_v5 = {
    "aegis", aegis::probe::InitV5, aegis::probe::StartFast<aegis::probe::abi::EventDescr_v5, aegis::probe::StartV5Other>, aegis::probe::Stop, aegis::probe::RecordV45,
    aegis::probe::Finalize};
__attribute__((visibility("default"))) aegis::probe::abi::Profiler_v4 ncclProfiler_v4 = {
    "aegis", aegis::probe::InitV4, aegis::probe::StartFast<aegis::probe::abi::EventDescr_v4, aegis::probe::StartV4Other>, aegis::probe::Stop, aegis::probe::RecordV45,
    aegis::probe::Finalize};
__attribute__((visibility("default"))) aegis::probe::abi::Profiler_v3 ncclProfiler_v3 = {
    "aegis", aegis::probe::InitOld<3>, aegis::probe::StartFast<aegis::probe::abi::EventDescr_v3, aegis::probe::StartV23Other<aegis::probe::abi::EventDescr_v3>>, aegis::probe::Stop,
    aegis::probe::RecordV1, aegis::probe::Finalize};
__attribute__((visibility("default"))) aegis::probe::abi::Profiler_v2 ncclProfiler_v2 = {
    "aegis", aegis::probe::InitOld<2>, aegis::probe::StartFast<aegis::probe::abi::EventDescr_v2, aegis::probe::StartV23Other<aegis::probe::abi::EventDescr_v2>>, aegis::probe::Stop,
    aegis::probe::RecordV1, aegis::probe::Finalize};
__attribute__((visibility("default"))) aegis::probe::abi::Profiler_v1 ncclProfiler_v1 = {
    "aegis", aegis::probe::InitOld<1>, aegis::probe::StartFast<aegis::probe::abi::EventDescr_v1, aegis::probe::StartV1Other>, aegis::probe::Stop, aegis::probe::RecordV1,
    aegis::probe::Finalize};
}
