// NCCL profiler plugin API v2 (NCCL 2.24; 2.25 changed no library feature and uses it
// too): v1's layout with func, datatype, algo and proto as strings and no op / isCollnet
// / isNvls. Declared from NCCL's ext-profiler headers of that release, pinned offset by
// offset (checked against NCCL 2.28.9's debug info). State arguments are v1's.
#pragma once
#include "probe/abi_v1.h"

namespace aegis::probe::abi {

struct EventDescr_v2 {
  uint8_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      const char* name;
      uint64_t commHash;
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      size_t trafficBytes;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
    } coll;
    struct {
      const char* name;
      uint64_t commHash;
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
    } p2p;
    ProxyOpDescr proxyOp;
    ProxyStepDescr proxyStep;
  };
};

using EventStateArgs_v2 = EventStateArgs_v1;

struct Profiler_v2 {
  const char* name;
  Result (*init)(void** context, int* eActivationMask);
  Result (*startEvent)(void* context, void** eHandle, EventDescr_v2* eDescr);
  Result (*stopEvent)(void* eHandle);
  Result (*recordEventState)(void* eHandle, int eState, EventStateArgs_v2* eStateArgs);
  Result (*finalize)(void* context);
};

static_assert(sizeof(EventDescr_v2) == 128);
static_assert(offsetof(EventDescr_v2, coll.name) == 24);
static_assert(offsetof(EventDescr_v2, coll.commHash) == 32);
static_assert(offsetof(EventDescr_v2, coll.seqNumber) == 40);
static_assert(offsetof(EventDescr_v2, coll.func) == 48);
static_assert(offsetof(EventDescr_v2, coll.count) == 72);
static_assert(offsetof(EventDescr_v2, coll.datatype) == 88);
static_assert(offsetof(EventDescr_v2, coll.trafficBytes) == 96);
static_assert(offsetof(EventDescr_v2, coll.nMaxChannels) == 104);
static_assert(offsetof(EventDescr_v2, coll.proto) == 120);
static_assert(offsetof(EventDescr_v2, p2p.func) == 40);
static_assert(offsetof(EventDescr_v2, p2p.datatype) == 56);
static_assert(offsetof(EventDescr_v2, p2p.peer) == 72);
static_assert(offsetof(EventDescr_v2, proxyOp.isSend) == 44);
static_assert(sizeof(Profiler_v2) == 48 && offsetof(Profiler_v2, finalize) == 40);

}  // namespace aegis::probe::abi
