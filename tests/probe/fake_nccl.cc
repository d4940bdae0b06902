#include "probe/fake_nccl.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace aegis::test {

namespace abi = probe::abi;

namespace {
uint8_t FuncV1(const char* f) {
  static const char* kNames[] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce", "SendRecv", "Send", "Recv"};
  for (uint8_t i = 0; i < 8; ++i)
    if (f && !std::strcmp(f, kNames[i])) return i;
  return abi::kFuncSend;  // NCCL's own fallback
}

uint8_t DatatypeV1(const char* d) {
  static const char* kNames[] = {"ncclInt8",    "ncclUint8",   "ncclInt32",   "ncclUint32",
                                 "ncclInt64",   "ncclUint64",  "ncclFloat16", "ncclFloat32",
                                 "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
  for (uint8_t i = 0; i < 12; ++i)
    if (d && !std::strcmp(d, kNames[i])) return i;
  return abi::kFloat64;
}

template <typename T>
const T* Resolve(void* lib, const char* name) {
  auto* p = static_cast<const T*>(::dlsym(lib, name));
  if (!p) throw std::runtime_error(std::string(name) + " not exported");
  return p;
}
}  // namespace

FakeNccl::FakeNccl(const std::string& path, int api, int proxy_threads) : api_(api) {
  if (api < 1 || api > 5 || proxy_threads < 1) throw std::invalid_argument("api 1..5, proxy threads >= 1");
  lib_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib_) throw std::runtime_error(std::string("dlopen: ") + ::dlerror());
  v5_ = Resolve<abi::Profiler_v5>(lib_, "ncclProfiler_v5");
  v4_ = Resolve<abi::Profiler_v4>(lib_, "ncclProfiler_v4");
  v3_ = Resolve<abi::Profiler_v3>(lib_, "ncclProfiler_v3");
  v2_ = Resolve<abi::Profiler_v2>(lib_, "ncclProfiler_v2");
  v1_ = Resolve<abi::Profiler_v1>(lib_, "ncclProfiler_v1");
  for (int i = 0; i < proxy_threads; ++i) {
    proxies_.push_back(std::make_unique<Proxy>());
    Proxy* p = proxies_.back().get();
    p->thread = std::thread([this, p] { ProxyLoop(p); });
  }
}

FakeNccl::~FakeNccl() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& p : proxies_) p->thread.join();
  // The library stays loaded unless Close() was called: its writer thread lives on.
}

void FakeNccl::Close() {
  if (lib_) ::dlclose(lib_);
  lib_ = nullptr;
}

std::vector<FakeNccl::Rank> FakeNccl::InitComm(uint64_t hash, const char* name, int nranks, int nnodes) {
  std::vector<Rank> ranks;
  for (int r = 0; r < nranks; ++r) {
    Rank k;
    k.rank = r;
    k.nranks = nranks;
    k.hash = hash;
    k.name = name;
    int mask = 0;
    abi::Result res = abi::kInternalError;
    switch (api_) {
      case 5: res = v5_->init(&k.ctx, hash, &mask, name, nnodes, nranks, r, nullptr); break;
      case 4: res = v4_->init(&k.ctx, &mask, name, hash, nnodes, nranks, r, nullptr); break;
      case 3: res = v3_->init(&k.ctx, &mask); break;
      case 2: res = v2_->init(&k.ctx, &mask); break;
      case 1: res = v1_->init(&k.ctx, &mask); break;
    }
    if (res != abi::kSuccess) throw std::runtime_error("init failed");
    if (!(mask & abi::kColl) || !(mask & abi::kProxyStep) || (api_ >= 3 && !(mask & abi::kKernelCh)))
      throw std::runtime_error("activation mask lacks what the probe needs");
    ranks.push_back(k);
  }
  return ranks;
}

void* FakeNccl::Start(void* ctx, const abi::EventDescr_v5& ev, const Rank* comm) {
  void* h = nullptr;
  const char* name = comm ? comm->name.c_str() : nullptr;
  const uint64_t hash = comm ? comm->hash : 0;
  const auto type = static_cast<uint8_t>(ev.type);
  switch (api_) {
    case 5: {
      abi::EventDescr_v5 d = ev;
      v5_->startEvent(ctx, &h, &d);
      break;
    }
    case 4: {
      abi::EventDescr_v4 d{};
      d.type = type;
      d.parentObj = ev.parentObj;
      d.rank = ev.rank;
      if (ev.type == abi::kColl) d.coll = ev.coll.base;
      else if (ev.type == abi::kP2p) d.p2p = {ev.p2p.func, ev.p2p.buff, ev.p2p.datatype, ev.p2p.count, ev.p2p.peer, ev.p2p.nChannels};
      else if (ev.type == abi::kProxyOp) d.proxyOp = ev.proxyOp;
      else if (ev.type == abi::kProxyStep) d.proxyStep = ev.proxyStep;
      else if (ev.type == abi::kKernelCh) d.kernelCh = ev.kernelCh;
      else if (ev.type == abi::kNetPlugin) d.netPlugin = ev.netPlugin;
      v4_->startEvent(ctx, &h, &d);
      break;
    }
    case 3:
    case 2: {
      // v2 and v3 share every field we fill except trafficBytes (v2) and kernelCh (v3).
      auto fill = [&](auto& d) {
        d.type = type;
        d.parentObj = ev.parentObj;
        d.rank = ev.rank;
        if (ev.type == abi::kColl) {
          const auto& c = ev.coll.base;
          d.coll.name = name;
          d.coll.commHash = hash;
          d.coll.seqNumber = c.seqNumber;
          d.coll.func = c.func;
          d.coll.count = c.count;
          d.coll.root = c.root;
          d.coll.datatype = c.datatype;
          d.coll.nMaxChannels = c.nChannels;
          d.coll.algo = "RING";
          d.coll.proto = "SIMPLE";
        } else if (ev.type == abi::kP2p) {
          d.p2p.name = name;
          d.p2p.commHash = hash;
          d.p2p.func = ev.p2p.func;
          d.p2p.datatype = ev.p2p.datatype;
          d.p2p.count = ev.p2p.count;
          d.p2p.peer = ev.p2p.peer;
        } else if (ev.type == abi::kProxyOp) {
          d.proxyOp = ev.proxyOp;
        } else if (ev.type == abi::kProxyStep) {
          d.proxyStep = ev.proxyStep;
        }
      };
      if (api_ == 3) {
        abi::EventDescr_v3 d{};
        fill(d);
        if (ev.type == abi::kKernelCh) d.kernelCh.channelId = ev.kernelCh.channelId;
        v3_->startEvent(ctx, &h, &d);
      } else {
        if (ev.type == abi::kKernelCh || ev.type == abi::kNetPlugin) return nullptr;  // not in v2
        abi::EventDescr_v2 d{};
        fill(d);
        v2_->startEvent(ctx, &h, &d);
      }
      break;
    }
    case 1: {
      if (ev.type == abi::kKernelCh || ev.type == abi::kNetPlugin) return nullptr;  // not in v1
      abi::EventDescr_v1 d{};
      d.type = type;
      d.parentObj = ev.parentObj;
      d.rank = ev.rank;
      if (ev.type == abi::kColl) {
        const auto& c = ev.coll.base;
        d.coll.name = name;
        d.coll.commHash = hash;
        d.coll.seqNumber = c.seqNumber;
        d.coll.func = FuncV1(c.func);
        d.coll.count = c.count;
        d.coll.root = c.root;
        d.coll.datatype = DatatypeV1(c.datatype);
        d.coll.nMaxChannels = c.nChannels;
      } else if (ev.type == abi::kP2p) {
        d.p2p.name = name;
        d.p2p.commHash = hash;
        d.p2p.func = FuncV1(ev.p2p.func);
        d.p2p.datatype = DatatypeV1(ev.p2p.datatype);
        d.p2p.count = ev.p2p.count;
        d.p2p.peer = ev.p2p.peer;
      } else if (ev.type == abi::kProxyOp) {
        d.proxyOp = ev.proxyOp;
      } else if (ev.type == abi::kProxyStep) {
        d.proxyStep = ev.proxyStep;
      }
      v1_->startEvent(ctx, &h, &d);
      break;
    }
  }
  return h;
}

void FakeNccl::Record(void* handle, int state, size_t word, bool with_args) {
  if (api_ >= 4) {
    abi::EventStateArgs a{};
    a.proxyStep.transSize = word;  // or kernelCh.pTimer: the same word
    (api_ == 5 ? v5_->recordEventState : v4_->recordEventState)(handle, state, with_args ? &a : nullptr);
    return;
  }
  // v1-v3: proxy-op states carry the op's bytes so far; proxy-step states nothing.
  abi::EventStateArgs_v1 a{};
  a.proxyOp.transSize = word;
  abi::EventStateArgs_v1* args = with_args && state <= abi::kProxyOpRecvDone ? &a : nullptr;
  if (api_ == 3) v3_->recordEventState(handle, state, args);
  else if (api_ == 2) v2_->recordEventState(handle, state, args);
  else v1_->recordEventState(handle, state, args);
}

void FakeNccl::Stop(void* handle) {
  switch (api_) {
    case 5: v5_->stopEvent(handle); break;
    case 4: v4_->stopEvent(handle); break;
    case 3: v3_->stopEvent(handle); break;
    case 2: v2_->stopEvent(handle); break;
    case 1: v1_->stopEvent(handle); break;
  }
}

void FakeNccl::Collective(const Rank& r, uint64_t seq, const Plan& plan) {
  abi::EventDescr_v5 g{};
  g.type = abi::kGroup;
  g.rank = r.rank;
  void* group = Start(r.ctx, g, &r);
  // Before NCCL 2.28, no group handle means no collective and no proxy events at all.
  if (!group && api_ < 5) return;
  abi::EventDescr_v5 d{};
  d.type = abi::kColl;
  d.parentObj = api_ < 5 ? group : nullptr;
  d.rank = r.rank;
  d.coll.base.seqNumber = seq;
  d.coll.base.func = "AllReduce";
  d.coll.base.count = plan.step_bytes * static_cast<size_t>(plan.steps) / 4;
  d.coll.base.datatype = "ncclFloat32";
  d.coll.base.nChannels = 2;
  d.coll.parentGroup = group;
  void* coll = Start(r.ctx, d, &r);
  Stop(coll);  // Coll stop: enqueued, not done
  if (group) Stop(group);
  Proxy* p = proxies_[static_cast<size_t>(r.rank) % proxies_.size()].get();
  {
    std::lock_guard<std::mutex> l(mu_);
    p->work.push_back([this, r, coll, plan] { PlayProxy(r, coll, plan); });
  }
  cv_.notify_all();
}

void FakeNccl::PlayProxy(const Rank& r, void* coll, const Plan& plan) {
  const uint64_t t0 = 1000000;
  std::vector<void*> channels;
  if (api_ >= 3)
    for (int ch = 0; ch < 2; ++ch) {
      abi::EventDescr_v5 k{};
      k.type = abi::kKernelCh;
      k.parentObj = coll;
      k.rank = r.rank;
      k.kernelCh.channelId = static_cast<uint8_t>(ch);
      k.kernelCh.pTimer = api_ >= 4 ? t0 + static_cast<uint64_t>(ch) : 0;
      channels.push_back(Start(r.ctx, k, &r));
    }
  for (int dir = 0; dir < 2; ++dir) {
    const bool send = dir == 0;
    const int peer = send ? plan.send_peer : plan.recv_peer;
    if (peer < 0) continue;
    abi::EventDescr_v5 o{};
    o.type = abi::kProxyOp;
    o.parentObj = coll;
    o.rank = r.rank;
    o.proxyOp.pid = ::getpid();
    o.proxyOp.peer = peer;
    o.proxyOp.nSteps = plan.steps;
    o.proxyOp.chunkSize = static_cast<int>(plan.step_bytes);
    o.proxyOp.isSend = send;
    void* op = Start(r.ctx, o, &r);
    size_t so_far = 0;  // the op's bytes so far, as NCCL < 2.27 reports them
    for (int s = 0; s < plan.steps; ++s) {
      Step how = plan.step ? plan.step(s, send) : Step{};
      abi::EventDescr_v5 st{};
      st.type = abi::kProxyStep;
      st.parentObj = op;
      st.rank = r.rank;
      st.proxyStep.step = s;
      void* step = Start(r.ctx, st, &r);
      Record(op, send ? abi::kProxyOpSendPosted : abi::kProxyOpRecvPosted, so_far);
      if (send) {
        Record(step, abi::kProxyStepSendGPUWait, plan.step_bytes);
        if (api_ >= 4) {
          Record(step, abi::kProxyStepSendPeerWait_v4, plan.step_bytes);
          Record(step, abi::kProxyStepSendPeerWait_v4, plan.step_bytes);  // repeated, as NCCL does
        }
        Record(step, abi::kProxyStepSendWait, plan.step_bytes);
        Record(op, abi::kProxyOpSendTransmitted, so_far);
      } else {
        Record(step, abi::kProxyStepRecvWait, plan.step_bytes);
      }
      if (!how.complete) return;  // stuck: neither the step, the op nor the kernel ends
      if (how.in_flight) how.in_flight();
      so_far += plan.step_bytes;
      if (!send) {
        Record(op, abi::kProxyOpRecvReceived, so_far);
        Record(step, abi::kProxyStepRecvFlushWait, plan.step_bytes);
        Record(step, abi::kProxyStepRecvGPUWait, plan.step_bytes);
      }
      Stop(step);
    }
    Record(op, send ? abi::kProxyOpSendDone : abi::kProxyOpRecvDone, so_far);
    Stop(op);
  }
  if (!plan.kernel_finishes) return;
  for (size_t ch = 0; ch < channels.size(); ++ch) {
    if (api_ >= 4) Record(channels[ch], abi::kKernelChStop, t0 + 5000 + ch);  // 5 us on the GPU
    Stop(channels[ch]);
  }
}

void FakeNccl::ProxyLoop(Proxy* p) {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    cv_.wait(l, [this, p] { return stop_ || !p->work.empty(); });
    if (p->work.empty() && stop_) return;
    auto job = std::move(p->work.front());
    p->work.pop_front();
    p->busy = true;
    l.unlock();
    job();
    l.lock();
    p->busy = false;
    idle_cv_.notify_all();
  }
}

void FakeNccl::Drain() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [this] {
    for (auto& p : proxies_)
      if (!p->work.empty() || p->busy) return false;
    return true;
  });
}

void FakeNccl::Finalize(const Rank& r) {
  switch (api_) {
    case 5: v5_->finalize(r.ctx); break;
    case 4: v4_->finalize(r.ctx); break;
    case 3: v3_->finalize(r.ctx); break;
    case 2: v2_->finalize(r.ctx); break;
    case 1: v1_->finalize(r.ctx); break;
  }
}

}  // namespace aegis::test
