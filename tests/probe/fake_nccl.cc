#include "probe/fake_nccl.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace aegis::test {

namespace abi = probe::abi;

FakeNccl::FakeNccl(const std::string& path) {
  lib_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib_) throw std::runtime_error(std::string("dlopen: ") + ::dlerror());
  v5_ = static_cast<const abi::Profiler_v5*>(::dlsym(lib_, "ncclProfiler_v5"));
  v4_ = static_cast<const abi::Profiler_v4*>(::dlsym(lib_, "ncclProfiler_v4"));
  if (!v5_ || !v4_) throw std::runtime_error("ncclProfiler_v5/v4 not exported");
  proxy_ = std::thread([this] { ProxyLoop(); });
}

FakeNccl::~FakeNccl() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  proxy_.join();
  // The library stays loaded: its writer thread lives as long as the process.
}

std::vector<FakeNccl::Rank> FakeNccl::InitComm(uint64_t hash, const char* name, int nranks, int nnodes) {
  std::vector<Rank> ranks;
  for (int r = 0; r < nranks; ++r) {
    Rank k;
    k.rank = r;
    k.nranks = nranks;
    int mask = 0;
    if (v5_->init(&k.ctx, hash, &mask, name, nnodes, nranks, r, nullptr) != abi::kSuccess)
      throw std::runtime_error("init failed");
    if (!(mask & abi::kColl) || !(mask & abi::kProxyStep) || !(mask & abi::kKernelCh))
      throw std::runtime_error("activation mask lacks what the probe needs");
    ranks.push_back(k);
  }
  return ranks;
}

void FakeNccl::Collective(const Rank& r, uint64_t seq, const Plan& plan) {
  abi::EventDescr_v5 d{};
  d.type = abi::kColl;
  d.rank = r.rank;
  d.coll.base.seqNumber = seq;
  d.coll.base.func = "AllReduce";
  d.coll.base.count = plan.step_bytes * static_cast<size_t>(plan.steps) / 4;
  d.coll.base.datatype = "ncclFloat32";
  d.coll.base.nChannels = 2;
  void* coll = nullptr;
  v5_->startEvent(r.ctx, &coll, &d);
  v5_->stopEvent(coll);  // Coll stop: enqueued, not done
  auto play = [this, r, plan, coll] {
    const uint64_t t0 = 1000000;
    std::vector<void*> channels;
    for (int ch = 0; ch < 2; ++ch) {
      abi::EventDescr_v5 k{};
      k.type = abi::kKernelCh;
      k.parentObj = coll;
      k.kernelCh.channelId = static_cast<uint8_t>(ch);
      k.kernelCh.pTimer = t0 + static_cast<uint64_t>(ch);
      void* h = nullptr;
      v5_->startEvent(r.ctx, &h, &k);
      channels.push_back(h);
    }
    for (int dir = 0; dir < 2; ++dir) {
      const bool send = dir == 0;
      const int peer = send ? plan.send_peer : plan.recv_peer;
      if (peer < 0) continue;
      abi::EventDescr_v5 o{};
      o.type = abi::kProxyOp;
      o.parentObj = coll;
      o.proxyOp.pid = ::getpid();
      o.proxyOp.peer = peer;
      o.proxyOp.nSteps = plan.steps;
      o.proxyOp.isSend = send;
      void* op = nullptr;
      v5_->startEvent(r.ctx, &op, &o);
      for (int s = 0; s < plan.steps; ++s) {
        Step how = plan.step ? plan.step(s, send) : Step{};
        abi::EventDescr_v5 st{};
        st.type = abi::kProxyStep;
        st.parentObj = op;
        st.proxyStep.step = s;
        void* step = nullptr;
        v5_->startEvent(r.ctx, &step, &st);
        abi::EventStateArgs a{};
        a.proxyStep.transSize = plan.step_bytes;
        if (send) {
          v5_->recordEventState(step, abi::kProxyStepSendGPUWait, &a);
          v5_->recordEventState(step, abi::kProxyStepSendPeerWait_v4, &a);
          v5_->recordEventState(step, abi::kProxyStepSendPeerWait_v4, &a);  // repeated, as NCCL does
          v5_->recordEventState(step, abi::kProxyStepSendWait, &a);
        } else {
          v5_->recordEventState(step, abi::kProxyStepRecvWait, &a);
        }
        if (!how.complete) return;  // stuck: neither the step, the op nor the kernel ends
        if (how.delay_us) std::this_thread::sleep_for(std::chrono::microseconds(how.delay_us));
        if (!send) {
          v5_->recordEventState(step, abi::kProxyStepRecvFlushWait, &a);
          v5_->recordEventState(step, abi::kProxyStepRecvGPUWait, &a);
        }
        v5_->stopEvent(step);
      }
      v5_->stopEvent(op);
    }
    if (!plan.kernel_finishes) return;
    for (int ch = 0; ch < 2; ++ch) {
      abi::EventStateArgs a{};
      a.kernelCh.pTimer = t0 + 5000 + static_cast<uint64_t>(ch);  // 5 us on the GPU
      v5_->recordEventState(channels[static_cast<size_t>(ch)], abi::kKernelChStop, &a);
      v5_->stopEvent(channels[static_cast<size_t>(ch)]);
    }
  };
  {
    std::lock_guard<std::mutex> l(mu_);
    work_.push_back(std::move(play));
  }
  cv_.notify_all();
}

void FakeNccl::ProxyLoop() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    cv_.wait(l, [this] { return stop_ || !work_.empty(); });
    if (work_.empty() && stop_) return;
    auto job = std::move(work_.front());
    work_.pop_front();
    busy_ = true;
    l.unlock();
    job();
    l.lock();
    busy_ = false;
    idle_cv_.notify_all();
  }
}

void FakeNccl::Drain() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [this] { return work_.empty() && !busy_; });
}

void FakeNccl::Finalize(const Rank& r) { v5_->finalize(r.ctx); }

}  // namespace aegis::test
