// NCCL profiler plugin API v3 (NCCL 2.26): v2 without trafficBytes, plus kernel-channel
// events (channel id only, no GPU timer) and network-plugin events. Declared from NCCL's
// ext-profiler headers of that release, pinned offset by offset (checked against NCCL
// 2.28.9's debug info). State arguments are v1's.
#pragma once
#include "probe/abi_v1.h"

namespace aegis::probe::abi {

struct NetPluginDescr {  // v3 and later
  int64_t id;
  void* data;
};

struct EventDescr_v3 {
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
    struct {
      uint8_t channelId;
    } kernelCh;
    NetPluginDescr netPlugin;
  };
};

using EventStateArgs_v3 = EventStateArgs_v1;

struct Profiler_v3 {
  const char* name;
  Result (*init)(void** context, int* eActivationMask);
  Result (*startEvent)(void* context, void** eHandle, EventDescr_v3* eDescr);
  Result (*stopEvent)(void* eHandle);
  Result (*recordEventState)(void* eHandle, int eState, EventStateArgs_v3* eStateArgs);
  Result (*finalize)(void* context);
};

static_assert(sizeof(EventDescr_v3) == 120);
static_assert(offsetof(EventDescr_v3, coll.name) == 24);
static_assert(offsetof(EventDescr_v3, coll.commHash) == 32);
static_assert(offsetof(EventDescr_v3, coll.seqNumber) == 40);
static_assert(offsetof(EventDescr_v3, coll.func) == 48);
static_assert(offsetof(EventDescr_v3, coll.count) == 72);
static_assert(offsetof(EventDescr_v3, coll.datatype) == 88);
static_assert(offsetof(EventDescr_v3, coll.nMaxChannels) == 96);
static_assert(offsetof(EventDescr_v3, coll.proto) == 112);
static_assert(offsetof(EventDescr_v3, p2p.func) == 40);
static_assert(offsetof(EventDescr_v3, p2p.peer) == 72);
static_assert(offsetof(EventDescr_v3, proxyOp.isSend) == 44);
static_assert(offsetof(EventDescr_v3, kernelCh.channelId) == 24);
static_assert(offsetof(EventDescr_v3, netPlugin.data) == 32);
static_assert(sizeof(Profiler_v3) == 48 && offsetof(Profiler_v3, finalize) == 40);

}  // namespace aegis::probe::abi
