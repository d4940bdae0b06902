// What every NCCL profiler plugin API version (v1, NCCL 2.23, to v5, NCCL 2.28) shares:
// result codes, the logger, event type bits and event states, and the ncclFunc_t /
// ncclDataType_t values that v1 passes as integers. Values are NCCL's own, checked
// against the debug info of NCCL 2.28.9 by tests/probe/abi_check.sh; nothing here needs
// NCCL or CUDA to build.
#pragma once
#include <cstddef>
#include <cstdint>

namespace aegis::probe::abi {

enum Result : int { kSuccess = 0, kInternalError = 3, kInvalidArgument = 4 };

// ncclDebugLogLevel / ncclDebugLogSubSys values used for warnings (v4 and v5 only).
enum LogLevel : int { kLogNone = 0, kLogVersion = 1, kLogWarn = 2, kLogInfo = 3 };
constexpr unsigned long kLogAll = ~0ul;
using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

// Event types (bits of the activation mask). v1 and v2 know bits 0-5, v3 and v4 add 6-7,
// v5 adds 8-11.
enum EventType : uint64_t {
  kGroup = 1u << 0,
  kColl = 1u << 1,
  kP2p = 1u << 2,
  kProxyOp = 1u << 3,
  kProxyStep = 1u << 4,
  kProxyCtrl = 1u << 5,
  kKernelCh = 1u << 6,      // v3
  kNetPlugin = 1u << 7,     // v3
  kGroupApi = 1u << 8,      // v5
  kCollApi = 1u << 9,       // v5
  kP2pApi = 1u << 10,       // v5
  kKernelLaunch = 1u << 11,  // v5
};

// ncclProfilerEventState_vN_t: one numbering for all versions (later ones only append).
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

// ncclFunc_t (v1 passes it as uint8_t; v2 and later pass the name).
enum FuncV1 : uint8_t {
  kFuncBroadcast = 0,
  kFuncReduce = 1,
  kFuncAllGather = 2,
  kFuncReduceScatter = 3,
  kFuncAllReduce = 4,
  kFuncSendRecv = 5,
  kFuncSend = 6,
  kFuncRecv = 7,
};

// ncclDataType_t (v1 passes it as uint8_t); its element sizes, by value.
enum DatatypeV1 : uint8_t {
  kInt8 = 0, kUint8 = 1, kInt32 = 2, kUint32 = 3, kInt64 = 4, kUint64 = 5,
  kFloat16 = 6, kFloat32 = 7, kFloat64 = 8, kBfloat16 = 9, kFloat8e4m3 = 10, kFloat8e5m2 = 11,
};
constexpr size_t kDatatypeSizeV1[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};

}  // namespace aegis::probe::abi
