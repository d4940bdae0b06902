// NCCL profiler plugin API v5 (NCCL 2.28): init takes the communicator id first; the event
// type is 64 bits wide; API-level events (group / collective / p2p API, kernel launch)
// are added and a collective's parent becomes its API event (the group is in
// parentGroup). State arguments are v4's. Declared from NCCL's ext-profiler headers of
// that release, pinned offset by offset against NCCL 2.28.9's debug info.
#pragma once
#include "probe/abi_v4.h"

namespace aegis::probe::abi {

struct EventDescr_v5 {
  uint64_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      bool graphCaptured;
      int groupDepth;
    } groupApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graphCaptured;
    } collApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graphCaptured;
    } p2pApi;
    struct {
      void* stream;
    } kernelLaunch;
    struct {
      CollDescr base;
      void* parentGroup;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
      void* parentGroup;
    } p2p;
    ProxyOpDescr proxyOp;
    ProxyStepDescr proxyStep;
    KernelChDescr kernelCh;
    NetPluginDescr netPlugin;
  };
};

struct Profiler_v5 {
  const char* name;
  Result (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes, int nranks,
                 int rank, Logger logfn);
  Result (*startEvent)(void* context, void** eHandle, EventDescr_v5* eDescr);
  Result (*stopEvent)(void* eHandle);
  Result (*recordEventState)(void* eHandle, int eState, EventStateArgs* eStateArgs);
  Result (*finalize)(void* context);
};

static_assert(sizeof(EventDescr_v5) == 112);
static_assert(offsetof(EventDescr_v5, type) == 0);
static_assert(offsetof(EventDescr_v5, parentObj) == 8);
static_assert(offsetof(EventDescr_v5, rank) == 16);
static_assert(offsetof(EventDescr_v5, groupApi.groupDepth) == 28);
static_assert(offsetof(EventDescr_v5, collApi.root) == 48);
static_assert(offsetof(EventDescr_v5, collApi.graphCaptured) == 64);
static_assert(offsetof(EventDescr_v5, p2pApi.graphCaptured) == 56);
static_assert(offsetof(EventDescr_v5, coll.base.seqNumber) == 24);
static_assert(offsetof(EventDescr_v5, coll.base.func) == 32);
static_assert(offsetof(EventDescr_v5, coll.base.count) == 56);
static_assert(offsetof(EventDescr_v5, coll.base.root) == 64);
static_assert(offsetof(EventDescr_v5, coll.base.datatype) == 72);
static_assert(offsetof(EventDescr_v5, coll.base.nChannels) == 80);
static_assert(offsetof(EventDescr_v5, coll.base.nWarps) == 81);
static_assert(offsetof(EventDescr_v5, coll.base.algo) == 88);
static_assert(offsetof(EventDescr_v5, coll.base.proto) == 96);
static_assert(offsetof(EventDescr_v5, coll.parentGroup) == 104);
static_assert(offsetof(EventDescr_v5, p2p.peer) == 56);
static_assert(offsetof(EventDescr_v5, p2p.nChannels) == 60);
static_assert(offsetof(EventDescr_v5, p2p.parentGroup) == 64);
static_assert(offsetof(EventDescr_v5, proxyOp.pid) == 24);
static_assert(offsetof(EventDescr_v5, proxyOp.channelId) == 28);
static_assert(offsetof(EventDescr_v5, proxyOp.peer) == 32);
static_assert(offsetof(EventDescr_v5, proxyOp.nSteps) == 36);
static_assert(offsetof(EventDescr_v5, proxyOp.chunkSize) == 40);
static_assert(offsetof(EventDescr_v5, proxyOp.isSend) == 44);
static_assert(offsetof(EventDescr_v5, proxyStep.step) == 24);
static_assert(offsetof(EventDescr_v5, kernelCh.channelId) == 24);
static_assert(offsetof(EventDescr_v5, kernelCh.pTimer) == 32);
static_assert(offsetof(EventDescr_v5, netPlugin.id) == 24);
static_assert(offsetof(EventDescr_v5, netPlugin.data) == 32);
static_assert(sizeof(Profiler_v5) == 48 && offsetof(Profiler_v5, finalize) == 40);

}  // namespace aegis::probe::abi
