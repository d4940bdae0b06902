// NCCL profiler plugin API v4 (NCCL 2.27): init receives the communicator (name, hash,
// nodes, ranks, rank, logger); descriptors drop name and commHash; p2p gains nChannels;
// kernel channels carry the GPU timer (pTimer) at start and, through the KernelChStop
// state, at the end; proxy-step states carry the step's size. Declared from NCCL's
// ext-profiler headers of that release, pinned offset by offset (checked against NCCL
// 2.28.9's debug info).
#pragma once
#include "probe/abi_v3.h"

namespace aegis::probe::abi {

struct CollDescr {  // v4; v5 appends parentGroup
  uint64_t seqNumber;
  const char* func;
  const void* sendBuff;
  void* recvBuff;
  size_t count;
  int root;
  const char* datatype;
  uint8_t nChannels;
  uint8_t nWarps;
  const char* algo;
  const char* proto;
};

struct P2pDescr_v4 {
  const char* func;
  void* buff;
  const char* datatype;
  size_t count;
  int peer;
  uint8_t nChannels;
};

struct KernelChDescr {  // v4 and v5
  uint8_t channelId;
  uint64_t pTimer;
};

struct EventDescr_v4 {
  uint8_t type;
  void* parentObj;
  int rank;
  union {
    CollDescr coll;
    P2pDescr_v4 p2p;
    ProxyOpDescr proxyOp;
    ProxyStepDescr proxyStep;
    KernelChDescr kernelCh;
    NetPluginDescr netPlugin;
  };
};

union EventStateArgs {  // v4 and v5 are identical
  struct {
    size_t transSize;
  } proxyStep;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
  struct {
    void* data;
  } netPlugin;
  struct {
    uint64_t pTimer;
  } kernelCh;
};

struct Profiler_v4 {
  const char* name;
  Result (*init)(void** context, int* eActivationMask, const char* commName, uint64_t commHash, int nNodes, int nranks,
                 int rank, Logger logfn);
  Result (*startEvent)(void* context, void** eHandle, EventDescr_v4* eDescr);
  Result (*stopEvent)(void* eHandle);
  Result (*recordEventState)(void* eHandle, int eState, EventStateArgs* eStateArgs);
  Result (*finalize)(void* context);
};

static_assert(sizeof(EventDescr_v4) == 104);
static_assert(offsetof(EventDescr_v4, parentObj) == 8);
static_assert(offsetof(EventDescr_v4, rank) == 16);
static_assert(offsetof(EventDescr_v4, coll.seqNumber) == 24);
static_assert(offsetof(EventDescr_v4, coll.func) == 32);
static_assert(offsetof(EventDescr_v4, coll.count) == 56);
static_assert(offsetof(EventDescr_v4, coll.datatype) == 72);
static_assert(offsetof(EventDescr_v4, coll.nChannels) == 80);
static_assert(offsetof(EventDescr_v4, coll.proto) == 96);
static_assert(offsetof(EventDescr_v4, p2p.peer) == 56);
static_assert(offsetof(EventDescr_v4, p2p.nChannels) == 60);
static_assert(offsetof(EventDescr_v4, proxyOp.isSend) == 44);
static_assert(offsetof(EventDescr_v4, kernelCh.pTimer) == 32);
static_assert(sizeof(EventStateArgs) == 8);
static_assert(sizeof(Profiler_v4) == 48 && offsetof(Profiler_v4, recordEventState) == 32);

}  // namespace aegis::probe::abi
