// The NCCL profiler plugin ABI, versions 5 (NCCL 2.28) and 4 (NCCL 2.27), declared here
// from the documented layout so that the probe builds and loads without NCCL or CUDA.
// Every size and offset is pinned by a static_assert, checked against the debug info of
// NCCL 2.28.9's libnccl.so.2 (gdb: ptype /o ncclProfilerEventDescr_v5_t, ...).
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace aegis::probe::abi {

enum Result : int { kSuccess = 0, kInternalError = 3, kInvalidArgument = 4 };

// ncclDebugLogLevel / ncclDebugLogSubSys values used for warnings.
enum LogLevel : int { kLogNone = 0, kLogVersion = 1, kLogWarn = 2, kLogInfo = 3 };
constexpr unsigned long kLogAll = ~0ul;
using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

// Event types (bit mask of the activation mask).
enum EventType : uint64_t {
  kGroup = 1u << 0,
  kColl = 1u << 1,
  kP2p = 1u << 2,
  kProxyOp = 1u << 3,
  kProxyStep = 1u << 4,
  kProxyCtrl = 1u << 5,
  kKernelCh = 1u << 6,
  kNetPlugin = 1u << 7,
  kGroupApi = 1u << 8,    // v5
  kCollApi = 1u << 9,     // v5
  kP2pApi = 1u << 10,     // v5
  kKernelLaunch = 1u << 11,  // v5
};

// ncclProfilerEventState_v5_t (v4 shares the values it has).
enum EventState : int {
  kProxyOpSendPosted = 0,
  kProxyOpSendRemFifoWait = 1,
  kProxyOpSendTransmitted = 2,
  kProxyOpSendDone = 3,
  kProxyOpRecvPosted = 4,
  kProxyOpRecvReceived = 5,
  kProxyOpRecvTransmitted = 6,
  kProxyOpRecvDone = 7,
  kProxyStepSendGPUWait = 8,
  kProxyStepSendWait = 9,
  kProxyStepRecvWait = 10,
  kProxyStepRecvFlushWait = 11,
  kProxyStepRecvGPUWait = 12,
  kProxyCtrlIdle = 13,
  kProxyCtrlActive = 14,
  kProxyCtrlSleep = 15,
  kProxyCtrlWakeup = 16,
  kProxyCtrlAppend = 17,
  kProxyCtrlAppendEnd = 18,
  kProxyOpInProgress_v4 = 19,
  kProxyStepSendPeerWait_v4 = 20,
  kNetPluginUpdate = 21,
  kKernelChStop = 22,
  kGroupStartApiStop = 23,
  kGroupEndApiStart = 24,
};

struct CollDescr {  // shared by v4 and v5 (v5 appends parentGroup)
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

struct ProxyOpDescr {
  pid_t pid;
  uint8_t channelId;
  int peer;
  int nSteps;
  int chunkSize;
  int isSend;
};

struct ProxyStepDescr {
  int step;
};

struct KernelChDescr {
  uint8_t channelId;
  uint64_t pTimer;
};

struct NetPluginDescr {
  int64_t id;
  void* data;
};

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

struct Profiler_v5 {
  const char* name;
  Result (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes, int nranks,
                 int rank, Logger logfn);
  Result (*startEvent)(void* context, void** eHandle, EventDescr_v5* eDescr);
  Result (*stopEvent)(void* eHandle);
  Result (*recordEventState)(void* eHandle, int eState, EventStateArgs* eStateArgs);
  Result (*finalize)(void* context);
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

// Layout pinned against NCCL 2.28.9 (x86_64 / aarch64 LP64).
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

static_assert(sizeof(EventDescr_v4) == 104);
static_assert(offsetof(EventDescr_v4, parentObj) == 8);
static_assert(offsetof(EventDescr_v4, rank) == 16);
static_assert(offsetof(EventDescr_v4, coll.seqNumber) == 24);
static_assert(offsetof(EventDescr_v4, coll.nChannels) == 80);
static_assert(offsetof(EventDescr_v4, coll.proto) == 96);
static_assert(offsetof(EventDescr_v4, p2p.peer) == 56);
static_assert(offsetof(EventDescr_v4, p2p.nChannels) == 60);
static_assert(offsetof(EventDescr_v4, proxyOp.isSend) == 44);
static_assert(offsetof(EventDescr_v4, kernelCh.pTimer) == 32);

static_assert(sizeof(EventStateArgs) == 8);
static_assert(sizeof(Profiler_v5) == 48 && offsetof(Profiler_v5, finalize) == 40);
static_assert(sizeof(Profiler_v4) == 48 && offsetof(Profiler_v4, recordEventState) == 32);

}  // namespace aegis::probe::abi
