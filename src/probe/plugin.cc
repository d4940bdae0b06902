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
  e->owner.store(ThreadToken(), std::memory_order_relaxed);  // the thread that owns `lane`
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
// NCCL reports each network request as a step's start, its wait states and its stop, all
// on the proxy thread that started the step's op. The fast path is a step kept in its
// op's record (StepRec) and reported by the thread that started the op in its own lane:
// the step's `type` says where its request is (StepState), so each call decides from that
// byte, one comparison of the op's owner with ThreadToken() and, for a state, one range
// check; it writes the step and its lane's counters with plain stores, calls nothing,
// reads no clock. Everything else (a timed request, one in kTimeEvery; a step in a pool
// event; a step reported by another thread; an op stopped before its steps) goes through
// the out-of-line functions below, which read a step through a Step view and share one
// logic.

static_assert(abi::kProxyStepRecvWait == abi::kProxyStepSendWait + 1);
static_assert(abi::kProxyStepRecvGPUWait == abi::kProxyStepRecvFlushWait + 1);
// SendWait / RecvWait: the request is posted. RecvFlushWait / RecvGPUWait: it is done.
bool IsPost(int state) { return static_cast<unsigned>(state) - unsigned{abi::kProxyStepSendWait} < 2u; }
bool IsDone(int state) { return static_cast<unsigned>(state) - unsigned{abi::kProxyStepRecvFlushWait} < 2u; }

struct Step {
  uint8_t& flags;
  uint64_t& bytes;
  uint64_t& post_tick;
  Lane* lane;      // where `slot` lives
  PeerSlot* slot;  // the (peer, direction) counters in `lane`
  int peer;
  uint8_t dir;
};

Step ViewOf(Event* e) { return {e->flags, e->bytes, e->post_tick, e->lane, e->slot, e->peer, e->dir}; }

// A step kept in its op: its StepState as flags and back.
uint8_t FlagsOf(uint8_t state) {
  switch (state) {
    case kStepPosted: return kPosted;
    case kStepPostedTimed: return kPosted | kTimed;
    case kStepDone: return kPosted | kDone;
    default: return 0;
  }
}
uint8_t StepStateOf(uint8_t flags) {
  if (flags & kDone) return kStepDone;
  if (flags & kPosted) return flags & kTimed ? kStepPostedTimed : kStepPosted;
  return kStepStarted;
}

// The counters of the step's (peer, direction) in the calling thread's lane.
PeerSlot* SlotHere(const Step& s) {
  if (CommState::OwnedHere(s.lane)) return s.slot;
  Lane* lane = s.lane->comm->LaneHere();
  return lane ? lane->peers.Get(s.peer, s.dir) : nullptr;
}

// Timing a request: its post time, then at completion its span into the ring.
[[gnu::noinline]] void TimePost(PeerSlot* s, uint64_t& post_tick, uint64_t posted, uint64_t due) {
  // From the value compared: if the writer has set 0 since, the next request is timed too.
  s->next_timed.compare_exchange_strong(due, posted + kTimeEvery, std::memory_order_relaxed);
  post_tick = Ticks();
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

// Counting, given the caller's own slot (never null). A repeated wait state is one
// request. sized: the state's size is the request's, even 0 (NCCL >= 2.27).
void CountPost(PeerSlot* s, uint8_t& flags, uint64_t& bytes, uint64_t& post_tick, uint64_t size, bool sized) {
  if (flags & kPosted) return;
  flags |= kPosted;
  if (size || sized) bytes = size;
  const uint64_t n = s->posted.load(std::memory_order_relaxed);
  s->posted.store(n + 1, std::memory_order_release);
  const uint64_t due = s->next_timed.load(std::memory_order_relaxed);
  if (n >= due) {
    TimePost(s, post_tick, n, due);
    flags |= kTimed;
  }
}

void CountDone(PeerSlot* s, uint8_t& flags, uint64_t& bytes, uint64_t post_tick, uint64_t size) {
  if ((flags & (kPosted | kDone)) != kPosted) return;
  flags |= kDone;
  if (size) bytes = size;
  OwnerAdd(s->bytes, bytes);
  OwnerAdd(s->completed, 1);
  if (flags & kTimed) TimeDone(s, bytes, post_tick);
}

void OnStepState(const Step& st, int state, uint64_t size, bool sized) {
  if (st.peer < 0) return;
  if (IsPost(state) && !(st.flags & kPosted)) {
    if (PeerSlot* s = SlotHere(st)) CountPost(s, st.flags, st.bytes, st.post_tick, size, sized);
  } else if (IsDone(state) && (st.flags & (kPosted | kDone)) == kPosted) {
    if (PeerSlot* s = SlotHere(st)) CountDone(s, st.flags, st.bytes, st.post_tick, size);
  }
}

void OnStepStop(const Step& st) {
  if (st.peer < 0 || (st.flags & (kPosted | kDone)) != kPosted) return;
  if (PeerSlot* s = SlotHere(st)) CountDone(s, st.flags, st.bytes, st.post_tick, 0);  // a send completes at its stop
}

// A step in a pool event: the op's slot for this step is taken, or the op is not ours.
[[gnu::noinline]] abi::Result StartPoolStep(void* context, void** handle, HandleHead* parent) {
  *handle = nullptr;
  Context* ctx = Live(context);
  if (!ctx) return abi::kSuccess;
  Event* op = parent && parent->type.load(std::memory_order_relaxed) == abi::kProxyOp ? static_cast<Event*>(parent)
                                                                                      : nullptr;
  Lane* lane;
  Event* e = Pop(ctx, &lane);
  if (!e) return abi::kSuccess;
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
  *handle = Out(e);
  return abi::kSuccess;
}

bool StepsAlive(const Event* op) {
  unsigned alive = 0;  // all eight read, no branch per step
  for (const StepRec& r : op->steps) alive |= r.type.load(std::memory_order_acquire);
  return alive != kStepFree;
}

// An op stopped while its steps were alive is recycled by whoever ends it last.
[[gnu::noinline]] abi::Result ReleaseOpIfDone(Event* op) {
  if (!StepsAlive(op) && op->stopped.exchange(false, std::memory_order_acq_rel)) Release(op);
  return abi::kSuccess;
}

void StopProxyOp(Event* e) {
  if (Event* p = Parent(e)) DropCollRef(p);
  if (!StepsAlive(e)) {
    Release(e);
    return;
  }
  // Its steps now take the slow path, which sees `stopped`.
  e->owner.store(0, std::memory_order_relaxed);
  e->stopped.store(true, std::memory_order_seq_cst);
  ReleaseOpIfDone(e);  // a step that ended meanwhile may have missed `stopped`
}

[[gnu::always_inline]] inline abi::Result FreeStep(StepRec* r, Event* op) {
  r->type.store(kStepFree, std::memory_order_release);
  if (op->stopped.load(std::memory_order_relaxed)) [[unlikely]]
    return ReleaseOpIfDone(op);
  return abi::kSuccess;
}

// A step kept in its op that the fast path leaves: a timed request, or a caller that does
// not own the op's lane (counted in the caller's own lane; NCCL does not do this).
[[gnu::noinline]] void InOpStepState(StepRec* r, int state, uint64_t size, bool sized) {
  Event* op = r->op;
  uint8_t flags = FlagsOf(r->type.load(std::memory_order_relaxed));
  OnStepState({flags, r->bytes, r->post_tick, op->lane, op->slot, op->peer, op->dir}, state, size, sized);
  r->type.store(StepStateOf(flags), std::memory_order_relaxed);
}

[[gnu::noinline]] abi::Result InOpStepStopped(StepRec* r) {
  Event* op = r->op;
  uint8_t flags = FlagsOf(r->type.load(std::memory_order_relaxed));
  OnStepStop({flags, r->bytes, r->post_tick, op->lane, op->slot, op->peer, op->dir});
  return FreeStep(r, op);
}

// The owner's post and completion of a request it times (one in kTimeEvery, and the
// first after each snapshot).
[[gnu::noinline]] abi::Result PostTimed(StepRec* r, PeerSlot* s, uint64_t posted, uint64_t due) {
  TimePost(s, r->post_tick, posted, due);
  r->type.store(kStepPostedTimed, std::memory_order_relaxed);
  return abi::kSuccess;
}

[[gnu::noinline]] abi::Result DoneTimed(StepRec* r, PeerSlot* s, uint8_t next) {
  OwnerAdd(s->bytes, r->bytes);
  OwnerAdd(s->completed, 1);
  TimeDone(s, r->bytes, r->post_tick);
  r->type.store(next, next == kStepFree ? std::memory_order_release : std::memory_order_relaxed);
  return abi::kSuccess;
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

// Every state the fast path does not take (h is not null). word: the state argument's
// first word, a step's size (transSize, NCCL >= 2.27) or a kernel channel's end timer
// (pTimer, KernelChStop); 0 when NCCL gives none. Proxy-op states carry nothing counted.
[[gnu::noinline]] abi::Result RecordOther(HandleHead* h, int state, uint64_t word, bool sized) {
  const uint8_t type = h->type.load(std::memory_order_relaxed);
  if (IsStepInOp(type)) InOpStepState(static_cast<StepRec*>(h), state, word, sized);
  else if (type == abi::kProxyStep) OnStepState(ViewOf(static_cast<Event*>(h)), state, word, sized);
  else if (type == abi::kKernelCh && state == abi::kKernelChStop) static_cast<Event*>(h)->ch_end = word;
  return abi::kSuccess;
}

// Every stop the fast path does not take (h is not null).
[[gnu::noinline]] abi::Result StopOther(HandleHead* h) {
  const uint8_t type = h->type.load(std::memory_order_relaxed);
  if (IsStepInOp(type)) return InOpStepStopped(static_cast<StepRec*>(h));
  // Any other live handle is an Event; 0 is a record stopped twice (or the group's).
  if (type != abi::kColl && type != abi::kProxyOp && type != abi::kProxyStep && type != abi::kKernelCh)
    return abi::kSuccess;
  auto* e = static_cast<Event*>(h);
  switch (type) {
    case abi::kColl: DropCollRef(e); return abi::kSuccess;  // "enqueued", not done
    case abi::kProxyOp: StopProxyOp(e); return abi::kSuccess;
    case abi::kProxyStep: OnStepStop(ViewOf(e)); break;
    default: KernelChDone(e); break;
  }
  Release(e);
  return abi::kSuccess;
}

// ---- the three calls NCCL makes per request ----
//
// Each handles a step kept in its op and reported by the op's owner inline, as a leaf;
// what it does not take it hands to one out-of-line function by a tail call. The owner
// check, `op->owner == ThreadToken()`, also says that the op is live and not stopped.

// startEvent, every version. kOpBytes (NCCL < 2.27): states give a step no size, so it
// counts its op's chunk size.
template <typename Descr, bool kOpBytes, abi::Result (*Other)(void*, void**, Descr*)>
abi::Result Start(void* context, void** handle, Descr* d) {
  if (d && handle && d->type == abi::kProxyStep) [[likely]] {
    HandleHead* h = In(d->parentObj);
    // Only a live op of this thread has this owner (a StepRec holds a heap pointer there).
    if (h && static_cast<Event*>(h)->owner.load(std::memory_order_relaxed) == ThreadToken()) [[likely]] {
      auto* op = static_cast<Event*>(h);
      // op->steps[step % kStepSlots], as a byte offset (a shift and a mask).
      const uintptr_t at = (static_cast<uintptr_t>(static_cast<unsigned>(d->proxyStep.step)) * sizeof(StepRec)) &
                           ((kStepSlots - 1) * sizeof(StepRec));
      auto* r = reinterpret_cast<StepRec*>(reinterpret_cast<char*>(op->steps) + at);
      if (r->type.load(std::memory_order_acquire) == kStepFree) [[likely]] {
        if constexpr (kOpBytes) r->bytes = op->bytes;
        r->type.store(kStepStarted, std::memory_order_relaxed);
        *handle = Out(r);
        return abi::kSuccess;
      }
    }
    return StartPoolStep(context, handle, h);
  }
  return Other(context, handle, d);
}

// recordEventState, every version. kSized (NCCL >= 2.27): a step's state carries its
// size (transSize); before, no argument that we count.
template <bool kSized, typename Args>
uint64_t WordOf(const Args* args) {
  if constexpr (kSized) return args ? args->proxyStep.transSize : 0;  // transSize or pTimer: one word
  else return 0;
}

template <bool kSized, typename Args>
abi::Result Record(void* handle, int state, Args* args) {
  HandleHead* h = In(handle);
  if (!h) [[unlikely]] return abi::kSuccess;
  const uint8_t type = h->type.load(std::memory_order_relaxed);
  auto* r = static_cast<StepRec*>(h);
  if (type == kStepStarted) [[likely]] {
    if (!IsPost(state)) return abi::kSuccess;  // a wait before the post (GPU, peer): nothing to count
    Event* op = r->op;
    // NCCL >= 2.27 always gives a step's state its arguments; without, the slow path.
    if (op->owner.load(std::memory_order_relaxed) == ThreadToken() && (!kSized || args)) [[likely]] {
      if constexpr (kSized) r->bytes = args->proxyStep.transSize;
      PeerSlot* s = op->slot;
      const uint64_t n = s->posted.load(std::memory_order_relaxed);
      s->posted.store(n + 1, std::memory_order_release);
      const uint64_t due = s->next_timed.load(std::memory_order_relaxed);
      if (n >= due) [[unlikely]]
        return PostTimed(r, s, n, due);
      r->type.store(kStepPosted, std::memory_order_relaxed);
      return abi::kSuccess;
    }
  } else if ((type | 1) == kStepPostedTimed) {  // posted, timed or not
    if (!IsDone(state)) return abi::kSuccess;   // a repeated wait state is one request
    Event* op = r->op;
    if (op->owner.load(std::memory_order_relaxed) == ThreadToken()) [[likely]] {
      // A receive, flushed or in GPU memory.
      if constexpr (kSized) {
        if (const uint64_t size = WordOf<kSized>(args)) r->bytes = size;
      }
      PeerSlot* s = op->slot;
      if (type == kStepPostedTimed) [[unlikely]]
        return DoneTimed(r, s, kStepDone);
      OwnerAdd(s->bytes, r->bytes);
      OwnerAdd(s->completed, 1);
      r->type.store(kStepDone, std::memory_order_relaxed);
      return abi::kSuccess;
    }
  } else if (type == kStepDone || type == abi::kProxyOp) {  // an op's states carry nothing we count
    return abi::kSuccess;
  }
  return RecordOther(h, state, WordOf<kSized>(args), kSized);
}

// stopEvent, every version.
abi::Result Stop(void* handle) {
  HandleHead* h = In(handle);
  if (!h) [[unlikely]] return abi::kSuccess;
  const uint8_t type = h->type.load(std::memory_order_relaxed);
  auto* r = static_cast<StepRec*>(h);
  if (type == kStepPosted) [[likely]] {  // a send (or a receive with no done state) completes at its stop
    Event* op = r->op;
    if (op->owner.load(std::memory_order_relaxed) == ThreadToken()) [[likely]] {
      PeerSlot* s = op->slot;
      OwnerAdd(s->bytes, r->bytes);
      OwnerAdd(s->completed, 1);
      r->type.store(kStepFree, std::memory_order_release);
      return abi::kSuccess;
    }
  } else if (static_cast<uint8_t>(type - kStepStarted) < 2) {  // done at a state, or never posted
    if (r->op->owner.load(std::memory_order_relaxed) == ThreadToken()) [[likely]] {
      r->type.store(kStepFree, std::memory_order_release);
      return abi::kSuccess;
    }
  } else if (type == kStepPostedTimed) {
    Event* op = r->op;
    if (op->owner.load(std::memory_order_relaxed) == ThreadToken()) [[likely]]
      return DoneTimed(r, op->slot, kStepFree);
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

}  // namespace
}  // namespace aegis::probe

extern "C" {
namespace probe = aegis::probe;
namespace abi = aegis::probe::abi;
// Proxy-step states carry no arguments before NCCL 2.27 (proxy-op states carry the op's
// bytes so far, which the step count already covers).
__attribute__((visibility("default"))) abi::Profiler_v5 ncclProfiler_v5 = {
    "aegis", probe::InitV5, probe::Start<abi::EventDescr_v5, false, probe::StartV5Other>, probe::Stop,
    probe::Record<true, abi::EventStateArgs>, probe::Finalize};
__attribute__((visibility("default"))) abi::Profiler_v4 ncclProfiler_v4 = {
    "aegis", probe::InitV4, probe::Start<abi::EventDescr_v4, false, probe::StartV4Other>, probe::Stop,
    probe::Record<true, abi::EventStateArgs>, probe::Finalize};
__attribute__((visibility("default"))) abi::Profiler_v3 ncclProfiler_v3 = {
    "aegis", probe::InitOld<3>, probe::Start<abi::EventDescr_v3, true, probe::StartV23Other<abi::EventDescr_v3>>,
    probe::Stop, probe::Record<false, abi::EventStateArgs_v1>, probe::Finalize};
__attribute__((visibility("default"))) abi::Profiler_v2 ncclProfiler_v2 = {
    "aegis", probe::InitOld<2>, probe::Start<abi::EventDescr_v2, true, probe::StartV23Other<abi::EventDescr_v2>>,
    probe::Stop, probe::Record<false, abi::EventStateArgs_v1>, probe::Finalize};
__attribute__((visibility("default"))) abi::Profiler_v1 ncclProfiler_v1 = {
    "aegis", probe::InitOld<1>, probe::Start<abi::EventDescr_v1, true, probe::StartV1Other>, probe::Stop,
    probe::Record<false, abi::EventStateArgs_v1>, probe::Finalize};
}
