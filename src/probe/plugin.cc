// libnccl-profiler-aegis.so: the NCCL profiler plugin (NCCL_PROFILER_PLUGIN=aegis).
// Exports ncclProfiler_v5 (NCCL 2.28) and ncclProfiler_v4 (NCCL 2.27); both feed the same
// per-communicator CommState. NCCL calls from its application thread (collective start /
// stop) and its proxy thread (proxy ops, steps, kernel channels) at once: every path here
// is lock-free and allocation-free (events come from the communicator's fixed pool).
#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <new>

#include "probe/comm_state.h"
#include "probe/event_pool.h"
#include "probe/nccl_profiler_abi.h"
#include "probe/writer.h"

namespace aegis::probe {
namespace {

// What we need, set once: NCCL keeps one activation mask for all communicators.
constexpr int kActivationMask = abi::kColl | abi::kP2p | abi::kProxyOp | abi::kProxyStep | abi::kKernelCh;
constexpr uint32_t kEventsPerComm = 16384;

struct Context {
  CommState state;
  EventPool pool{kEventsPerComm};
  std::atomic<uint64_t> p2p_seq{0};
  explicit Context(const CommInfo& info) : state(info) {}
};

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

size_t TypeSize(const char* datatype) {
  if (!datatype) return 1;
  if (std::strstr(datatype, "64") || std::strstr(datatype, "ouble")) return 8;
  if (std::strstr(datatype, "32") || !std::strcmp(datatype, "ncclFloat") || !std::strcmp(datatype, "ncclInt")) return 4;
  if (std::strstr(datatype, "16") || std::strstr(datatype, "alf")) return 2;
  return 1;
}

abi::Result Init(void** context, uint64_t comm_hash, int* mask, const char* name, int nnodes, int nranks, int rank,
                 abi::Logger logger) {
  if (!context) return abi::kInvalidArgument;
  *context = nullptr;
  if (mask) *mask = kActivationMask;
  Writer::Get().SetLogger(logger);
  CommInfo info;
  info.comm_hash = comm_hash;
  info.comm_name = name ? name : "";
  info.nnodes = nnodes;
  info.nranks = nranks;
  info.rank = rank;
  info.gpu = CudaDevice();
  auto* ctx = new (std::nothrow) Context(info);
  if (!ctx) return abi::kInternalError;  // NCCL goes on calling us with a null context
  Writer::Get().Register(&ctx->state);
  *context = ctx;
  return abi::kSuccess;
}

// A parent handle is only followed when it is ours and still the event it was.
Event* Parent(Event* child) {
  Event* p = child->parent;
  return p && p->generation == child->parent_generation ? p : nullptr;
}

void CompleteColl(Context* ctx, Event* c) {
  const uint64_t now = NowNs();
  const uint64_t g0 = c->gpu_start.load(std::memory_order_relaxed), g1 = c->gpu_end.load(std::memory_order_relaxed);
  // GPU-side duration over all channels where the kernel timer is known, else host-side.
  const double td_us = g1 > g0 && g0 != UINT64_MAX ? static_cast<double>(g1 - g0) / 1000.0
                                                   : static_cast<double>(now - c->start_ns) / 1000.0;
  ctx->state.CollCompleted(c->func, c->seq, c->bytes, c->start_ns, td_us);
}

void DropCollRef(Context* ctx, Event* c) {
  if (c->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (c->channels == 0) CompleteColl(ctx, c);  // no kernel channels to wait for
  ctx->pool.Push(c);
}

Event* StartColl(Context* ctx, int func, uint64_t seq, uint64_t bytes, uint8_t channels) {
  ctx->state.CollLaunched(func, seq);  // CL counts even when the pool is full
  Event* e = ctx->pool.Pop();
  if (!e) return nullptr;
  e->type = abi::kColl;
  e->comm = &ctx->state;
  e->owner = ctx;
  e->parent = nullptr;
  e->func = func;
  e->seq = seq;
  e->bytes = bytes;
  e->start_ns = NowNs();
  e->channels = channels;
  e->channels_done.store(0, std::memory_order_relaxed);
  e->gpu_start.store(UINT64_MAX, std::memory_order_relaxed);
  e->gpu_end.store(0, std::memory_order_relaxed);
  e->refs.store(1 + channels, std::memory_order_release);
  return e;
}

Event* StartChild(Context* ctx, uint8_t type, void* parent_obj, bool parent_is_ours) {
  Event* e = ctx->pool.Pop();
  if (!e) return nullptr;
  e->type = type;
  e->comm = &ctx->state;
  e->owner = ctx;
  e->parent = nullptr;
  e->parent_generation = 0;
  auto* parent = static_cast<Event*>(parent_obj);
  if (parent && parent_is_ours) {
    e->parent = parent;
    e->parent_generation = parent->generation;
  }
  e->posted = e->done = false;
  e->post_ns = e->step_bytes = e->ch_start = 0;
  return e;
}

abi::Result StartProxyOp(Context* ctx, void** handle, void* parent_obj, const abi::ProxyOpDescr& d) {
  // PXN: the op may belong to a collective of another process; its handle is not ours.
  Event* e = StartChild(ctx, abi::kProxyOp, parent_obj, d.pid == ::getpid());
  if (e) {
    e->peer = d.peer;
    e->is_send = d.isSend != 0;
    if (Event* p = Parent(e); p && p->type == abi::kColl) p->refs.fetch_add(1, std::memory_order_relaxed);
    else e->parent = nullptr;
  }
  *handle = e;
  return abi::kSuccess;
}

abi::Result StartEventCommon(void* context, void** handle, uint64_t type, void* parent_obj,
                             const abi::CollDescr* coll, const char* p2p_func, uint8_t p2p_channels,
                             const abi::ProxyOpDescr* op, uint64_t kernel_ptimer) {
  if (!handle) return abi::kSuccess;
  *handle = nullptr;
  auto* ctx = static_cast<Context*>(context);
  if (!ctx || ctx->state.finalized.load(std::memory_order_relaxed)) return abi::kSuccess;
  switch (type) {
    case abi::kColl:
      *handle = StartColl(ctx, FuncIndex(coll->func), coll->seqNumber, coll->count * TypeSize(coll->datatype),
                          coll->nChannels);
      break;
    case abi::kP2p:
      *handle = StartColl(ctx, FuncIndex(p2p_func), ctx->p2p_seq.fetch_add(1, std::memory_order_relaxed), 0,
                          p2p_channels);
      break;
    case abi::kProxyOp: return StartProxyOp(ctx, handle, parent_obj, *op);
    case abi::kProxyStep: {
      Event* e = StartChild(ctx, abi::kProxyStep, parent_obj, true);
      if (e) {
        Event* op = Parent(e);
        // The step keeps its own copy of where it goes: its op may be recycled first.
        e->peer = op && op->type == abi::kProxyOp ? op->peer : -1;
        e->is_send = op && op->is_send;
      }
      *handle = e;
      break;
    }
    case abi::kKernelCh: {
      Event* e = StartChild(ctx, abi::kKernelCh, parent_obj, true);
      if (e) {
        e->ch_start = kernel_ptimer;
        if (!Parent(e) || Parent(e)->type != abi::kColl) e->parent = nullptr;
      }
      *handle = e;
      break;
    }
    default: break;
  }
  return abi::kSuccess;
}

void StepPosted(Event* step, uint64_t bytes) {
  if (step->posted || step->peer < 0) return;  // a repeated wait state is one request
  step->posted = true;
  step->post_ns = NowNs();
  if (bytes) step->step_bytes = bytes;
  step->comm->Posted(step->peer, step->is_send ? 0 : 1, step->post_ns);
}

void StepDone(Event* step, uint64_t bytes) {
  if (!step->posted || step->done) return;
  step->done = true;
  if (bytes) step->step_bytes = bytes;
  step->comm->Completed(step->peer, step->is_send ? 0 : 1, step->step_bytes, step->post_ns, NowNs());
}

abi::Result RecordState(void* handle, int state, abi::EventStateArgs* args) {
  auto* e = static_cast<Event*>(handle);
  if (!e || !e->comm) return abi::kSuccess;
  const uint64_t size = args ? args->proxyStep.transSize : 0;
  switch (e->type) {
    case abi::kProxyStep:
      if (state == abi::kProxyStepSendWait || state == abi::kProxyStepRecvWait) StepPosted(e, size);
      else if (state == abi::kProxyStepRecvFlushWait || state == abi::kProxyStepRecvGPUWait) StepDone(e, size);
      break;
    case abi::kKernelCh:
      if (state == abi::kKernelChStop && args) e->step_bytes = args->kernelCh.pTimer;  // end timer until stop
      break;
    default: break;
  }
  return abi::kSuccess;
}

abi::Result Stop(void* handle) {
  auto* e = static_cast<Event*>(handle);
  if (!e || !e->comm) return abi::kSuccess;
  auto* ctx = static_cast<Context*>(e->owner);
  switch (e->type) {
    case abi::kColl: DropCollRef(ctx, e); return abi::kSuccess;  // "enqueued", not done
    case abi::kProxyOp:
      if (Event* p = Parent(e)) DropCollRef(ctx, p);
      break;
    case abi::kProxyStep:
      StepDone(e, 0);  // a send completes at its stop; a recv without flush too
      break;
    case abi::kKernelCh:
      if (Event* c = Parent(e)) {
        uint64_t cur = c->gpu_start.load(std::memory_order_relaxed);
        while (e->ch_start && e->ch_start < cur && !c->gpu_start.compare_exchange_weak(cur, e->ch_start)) {
        }
        cur = c->gpu_end.load(std::memory_order_relaxed);
        while (e->step_bytes > cur && !c->gpu_end.compare_exchange_weak(cur, e->step_bytes)) {
        }
        if (c->channels_done.fetch_add(1, std::memory_order_acq_rel) + 1 == c->channels) CompleteColl(ctx, c);
        DropCollRef(ctx, c);
      }
      break;
    default: break;
  }
  ctx->pool.Push(e);
  return abi::kSuccess;
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
  return Init(context, comm_id, mask, name, nnodes, nranks, rank, logger);
}
abi::Result StartV5(void* context, void** handle, abi::EventDescr_v5* d) {
  if (!d) return abi::kSuccess;
  return StartEventCommon(context, handle, d->type, d->parentObj, &d->coll.base, d->p2p.func, d->p2p.nChannels,
                          &d->proxyOp, d->kernelCh.pTimer);
}

// ---- v4 (NCCL 2.27) ----
abi::Result InitV4(void** context, int* mask, const char* name, uint64_t comm_hash, int nnodes, int nranks, int rank,
                   abi::Logger logger) {
  return Init(context, comm_hash, mask, name, nnodes, nranks, rank, logger);
}
abi::Result StartV4(void* context, void** handle, abi::EventDescr_v4* d) {
  if (!d) return abi::kSuccess;
  return StartEventCommon(context, handle, d->type, d->parentObj, &d->coll, d->p2p.func, d->p2p.nChannels, &d->proxyOp,
                          d->kernelCh.pTimer);
}

}  // namespace
}  // namespace aegis::probe

extern "C" {
__attribute__((visibility("default"))) aegis::probe::abi::Profiler_v5 ncclProfiler_v5 = {
    "aegis", aegis::probe::InitV5, aegis::probe::StartV5, aegis::probe::Stop, aegis::probe::RecordState,
    aegis::probe::Finalize};
__attribute__((visibility("default"))) aegis::probe::abi::Profiler_v4 ncclProfiler_v4 = {
    "aegis", aegis::probe::InitV4, aegis::probe::StartV4, aegis::probe::Stop, aegis::probe::RecordState,
    aegis::probe::Finalize};
}
