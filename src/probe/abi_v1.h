// NCCL profiler plugin API v1 (NCCL 2.23): the layout of ncclProfilerEventDescr_v1_t,
// ncclProfilerEventStateArgs_v1_t and ncclProfiler_v1_t, declared from NCCL's
// ext-profiler headers of that release and pinned offset by offset (checked against the
// debug info of NCCL 2.28.9, which still declares v1). v1 init carries no communicator:
// its name, hash and rank come with each collective and p2p descriptor; func and
// datatype are ncclFunc_t / ncclDataType_t values (abi_common.h).
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "probe/abi_common.h"

namespace aegis::probe::abi {

struct ProxyOpDescr {  // identical in every version
  pid_t pid;
  uint8_t channelId;
  int peer;
  int nSteps;
  int chunkSize;
  int isSend;
};

struct ProxyStepDescr {  // identical in every version
  int step;
};

struct EventDescr_v1 {
  uint8_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      const char* name;
      uint64_t commHash;
      uint64_t seqNumber;
      uint8_t func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      uint8_t datatype;
      uint32_t op;
      size_t trafficBytes;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      uint8_t algo;
      uint8_t proto;
      int isCollnet;
      int isNvls;
    } coll;
    struct {
      const char* name;
      uint64_t commHash;
      uint8_t func;
      void* buff;
      uint8_t datatype;
      size_t count;
      int peer;
    } p2p;
    ProxyOpDescr proxyOp;
    ProxyStepDescr proxyStep;
  };
};

// v1 to v3: proxy-op states carry the op's progress (steps) and its bytes so far; proxy
// step states carry no arguments (NCCL passes NULL).
union EventStateArgs_v1 {
  struct {
    size_t transSize;
    int steps;
  } proxyOp;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
};

struct Profiler_v1 {
  const char* name;
  Result (*init)(void** context, int* eActivationMask);
  Result (*startEvent)(void* context, void** eHandle, EventDescr_v1* eDescr);
  Result (*stopEvent)(void* eHandle);
  Result (*recordEventState)(void* eHandle, int eState, EventStateArgs_v1* eStateArgs);
  Result (*finalize)(void* context);
};

static_assert(sizeof(ProxyOpDescr) == 24 && offsetof(ProxyOpDescr, channelId) == 4 &&
              offsetof(ProxyOpDescr, peer) == 8 && offsetof(ProxyOpDescr, isSend) == 20);
static_assert(sizeof(EventDescr_v1) == 120);
static_assert(offsetof(EventDescr_v1, parentObj) == 8);
static_assert(offsetof(EventDescr_v1, rank) == 16);
static_assert(offsetof(EventDescr_v1, coll.name) == 24);
static_assert(offsetof(EventDescr_v1, coll.commHash) == 32);
static_assert(offsetof(EventDescr_v1, coll.seqNumber) == 40);
static_assert(offsetof(EventDescr_v1, coll.func) == 48);
static_assert(offsetof(EventDescr_v1, coll.count) == 72);
static_assert(offsetof(EventDescr_v1, coll.datatype) == 84);
static_assert(offsetof(EventDescr_v1, coll.trafficBytes) == 96);
static_assert(offsetof(EventDescr_v1, coll.nMaxChannels) == 104);
static_assert(offsetof(EventDescr_v1, coll.isNvls) == 112);
static_assert(offsetof(EventDescr_v1, p2p.func) == 40);
static_assert(offsetof(EventDescr_v1, p2p.datatype) == 56);
static_assert(offsetof(EventDescr_v1, p2p.count) == 64);
static_assert(offsetof(EventDescr_v1, p2p.peer) == 72);
static_assert(offsetof(EventDescr_v1, proxyOp.pid) == 24);
static_assert(offsetof(EventDescr_v1, proxyOp.isSend) == 44);
static_assert(offsetof(EventDescr_v1, proxyStep.step) == 24);
static_assert(sizeof(EventStateArgs_v1) == 16 && offsetof(EventStateArgs_v1, proxyOp.steps) == 8);
static_assert(sizeof(Profiler_v1) == 48 && offsetof(Profiler_v1, finalize) == 40);

}  // namespace aegis::probe::abi
