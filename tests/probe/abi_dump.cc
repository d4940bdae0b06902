// Prints the layout the probe declares for every profiler API version, as
// "<gdb expression on NCCL's types> <value>" lines, for abi_check.sh to compare with NCCL's
// own debug info (NCCL 2.28.9 declares v1 to v5).
#include <cstddef>
#include <cstdio>

#include "probe/nccl_profiler_abi.h"

using namespace aegis::probe::abi;

#define SIZE(nccl, ours) std::printf("sizeof(%s) %zu\n", nccl, sizeof(ours))
#define OFF(nccl, path, ours, our_path) \
  std::printf("(long)&((%s*)0)->%s %zu\n", nccl, path, offsetof(ours, our_path))
#define VALUE(nccl, ours) std::printf("(long)%s %ld\n", nccl, static_cast<long>(ours))

namespace {

// The fields the probe reads, and the ones around them, in v1 to v3 (shared names).
template <typename Descr>
void OldDescr(const char* t) {
  OFF(t, "type", Descr, type);
  OFF(t, "parentObj", Descr, parentObj);
  OFF(t, "rank", Descr, rank);
  OFF(t, "coll.name", Descr, coll.name);
  OFF(t, "coll.commHash", Descr, coll.commHash);
  OFF(t, "coll.seqNumber", Descr, coll.seqNumber);
  OFF(t, "coll.func", Descr, coll.func);
  OFF(t, "coll.sendBuff", Descr, coll.sendBuff);
  OFF(t, "coll.recvBuff", Descr, coll.recvBuff);
  OFF(t, "coll.count", Descr, coll.count);
  OFF(t, "coll.root", Descr, coll.root);
  OFF(t, "coll.datatype", Descr, coll.datatype);
  OFF(t, "coll.nMaxChannels", Descr, coll.nMaxChannels);
  OFF(t, "coll.nWarps", Descr, coll.nWarps);
  OFF(t, "coll.algo", Descr, coll.algo);
  OFF(t, "coll.proto", Descr, coll.proto);
  OFF(t, "p2p.name", Descr, p2p.name);
  OFF(t, "p2p.commHash", Descr, p2p.commHash);
  OFF(t, "p2p.func", Descr, p2p.func);
  OFF(t, "p2p.buff", Descr, p2p.buff);
  OFF(t, "p2p.datatype", Descr, p2p.datatype);
  OFF(t, "p2p.count", Descr, p2p.count);
  OFF(t, "p2p.peer", Descr, p2p.peer);
  OFF(t, "proxyOp.pid", Descr, proxyOp.pid);
  OFF(t, "proxyOp.channelId", Descr, proxyOp.channelId);
  OFF(t, "proxyOp.peer", Descr, proxyOp.peer);
  OFF(t, "proxyOp.nSteps", Descr, proxyOp.nSteps);
  OFF(t, "proxyOp.chunkSize", Descr, proxyOp.chunkSize);
  OFF(t, "proxyOp.isSend", Descr, proxyOp.isSend);
  OFF(t, "proxyStep.step", Descr, proxyStep.step);
}

template <typename Profiler>
void Functions(const char* t) {
  OFF(t, "name", Profiler, name);
  OFF(t, "init", Profiler, init);
  OFF(t, "startEvent", Profiler, startEvent);
  OFF(t, "stopEvent", Profiler, stopEvent);
  OFF(t, "recordEventState", Profiler, recordEventState);
  OFF(t, "finalize", Profiler, finalize);
}

}  // namespace

int main() {
  // ---- v1 (NCCL 2.23) ----
  SIZE("ncclProfilerEventDescr_v1_t", EventDescr_v1);
  SIZE("ncclProfilerEventStateArgs_v1_t", EventStateArgs_v1);
  SIZE("ncclProfiler_v1_t", Profiler_v1);
  OldDescr<EventDescr_v1>("ncclProfilerEventDescr_v1_t");
  OFF("ncclProfilerEventDescr_v1_t", "coll.op", EventDescr_v1, coll.op);
  OFF("ncclProfilerEventDescr_v1_t", "coll.trafficBytes", EventDescr_v1, coll.trafficBytes);
  OFF("ncclProfilerEventDescr_v1_t", "coll.isCollnet", EventDescr_v1, coll.isCollnet);
  OFF("ncclProfilerEventDescr_v1_t", "coll.isNvls", EventDescr_v1, coll.isNvls);
  OFF("ncclProfilerEventStateArgs_v1_t", "proxyOp.transSize", EventStateArgs_v1, proxyOp.transSize);
  OFF("ncclProfilerEventStateArgs_v1_t", "proxyOp.steps", EventStateArgs_v1, proxyOp.steps);
  OFF("ncclProfilerEventStateArgs_v1_t", "proxyCtrl.appendedProxyOps", EventStateArgs_v1, proxyCtrl.appendedProxyOps);
  Functions<Profiler_v1>("ncclProfiler_v1_t");

  // ---- v2 (NCCL 2.24, 2.25) ----
  SIZE("ncclProfilerEventDescr_v2_t", EventDescr_v2);
  SIZE("ncclProfilerEventStateArgs_v2_t", EventStateArgs_v2);
  SIZE("ncclProfiler_v2_t", Profiler_v2);
  OldDescr<EventDescr_v2>("ncclProfilerEventDescr_v2_t");
  OFF("ncclProfilerEventDescr_v2_t", "coll.trafficBytes", EventDescr_v2, coll.trafficBytes);
  Functions<Profiler_v2>("ncclProfiler_v2_t");

  // ---- v3 (NCCL 2.26) ----
  SIZE("ncclProfilerEventDescr_v3_t", EventDescr_v3);
  SIZE("ncclProfilerEventStateArgs_v3_t", EventStateArgs_v3);
  SIZE("ncclProfiler_v3_t", Profiler_v3);
  OldDescr<EventDescr_v3>("ncclProfilerEventDescr_v3_t");
  OFF("ncclProfilerEventDescr_v3_t", "kernelCh.channelId", EventDescr_v3, kernelCh.channelId);
  OFF("ncclProfilerEventDescr_v3_t", "netPlugin.id", EventDescr_v3, netPlugin.id);
  OFF("ncclProfilerEventDescr_v3_t", "netPlugin.data", EventDescr_v3, netPlugin.data);
  Functions<Profiler_v3>("ncclProfiler_v3_t");

  // ---- v4 (NCCL 2.27) ----
  const char* v4 = "ncclProfilerEventDescr_v4_t";
  SIZE(v4, EventDescr_v4);
  SIZE("ncclProfilerEventStateArgs_v4_t", EventStateArgs);
  SIZE("ncclProfiler_v4_t", Profiler_v4);
  OFF(v4, "type", EventDescr_v4, type);
  OFF(v4, "parentObj", EventDescr_v4, parentObj);
  OFF(v4, "rank", EventDescr_v4, rank);
  OFF(v4, "coll.seqNumber", EventDescr_v4, coll.seqNumber);
  OFF(v4, "coll.func", EventDescr_v4, coll.func);
  OFF(v4, "coll.count", EventDescr_v4, coll.count);
  OFF(v4, "coll.datatype", EventDescr_v4, coll.datatype);
  OFF(v4, "coll.nChannels", EventDescr_v4, coll.nChannels);
  OFF(v4, "coll.proto", EventDescr_v4, coll.proto);
  OFF(v4, "p2p.func", EventDescr_v4, p2p.func);
  OFF(v4, "p2p.peer", EventDescr_v4, p2p.peer);
  OFF(v4, "p2p.nChannels", EventDescr_v4, p2p.nChannels);
  OFF(v4, "proxyOp.pid", EventDescr_v4, proxyOp.pid);
  OFF(v4, "proxyOp.peer", EventDescr_v4, proxyOp.peer);
  OFF(v4, "proxyOp.chunkSize", EventDescr_v4, proxyOp.chunkSize);
  OFF(v4, "proxyOp.isSend", EventDescr_v4, proxyOp.isSend);
  OFF(v4, "proxyStep.step", EventDescr_v4, proxyStep.step);
  OFF(v4, "kernelCh.channelId", EventDescr_v4, kernelCh.channelId);
  OFF(v4, "kernelCh.pTimer", EventDescr_v4, kernelCh.pTimer);
  OFF(v4, "netPlugin.data", EventDescr_v4, netPlugin.data);
  OFF("ncclProfilerEventStateArgs_v4_t", "proxyStep.transSize", EventStateArgs, proxyStep.transSize);
  OFF("ncclProfilerEventStateArgs_v4_t", "kernelCh.pTimer", EventStateArgs, kernelCh.pTimer);
  Functions<Profiler_v4>("ncclProfiler_v4_t");

  // ---- v5 (NCCL 2.28) ----
  const char* v5 = "ncclProfilerEventDescr_v5_t";
  SIZE(v5, EventDescr_v5);
  SIZE("ncclProfilerEventStateArgs_v5_t", EventStateArgs);
  SIZE("ncclProfiler_v5_t", Profiler_v5);
  OFF(v5, "type", EventDescr_v5, type);
  OFF(v5, "parentObj", EventDescr_v5, parentObj);
  OFF(v5, "rank", EventDescr_v5, rank);
  OFF(v5, "groupApi.groupDepth", EventDescr_v5, groupApi.groupDepth);
  OFF(v5, "collApi.root", EventDescr_v5, collApi.root);
  OFF(v5, "collApi.stream", EventDescr_v5, collApi.stream);
  OFF(v5, "collApi.graphCaptured", EventDescr_v5, collApi.graphCaptured);
  OFF(v5, "p2pApi.graphCaptured", EventDescr_v5, p2pApi.graphCaptured);
  OFF(v5, "kernelLaunch.stream", EventDescr_v5, kernelLaunch.stream);
  OFF(v5, "coll.seqNumber", EventDescr_v5, coll.base.seqNumber);
  OFF(v5, "coll.func", EventDescr_v5, coll.base.func);
  OFF(v5, "coll.sendBuff", EventDescr_v5, coll.base.sendBuff);
  OFF(v5, "coll.recvBuff", EventDescr_v5, coll.base.recvBuff);
  OFF(v5, "coll.count", EventDescr_v5, coll.base.count);
  OFF(v5, "coll.root", EventDescr_v5, coll.base.root);
  OFF(v5, "coll.datatype", EventDescr_v5, coll.base.datatype);
  OFF(v5, "coll.nChannels", EventDescr_v5, coll.base.nChannels);
  OFF(v5, "coll.nWarps", EventDescr_v5, coll.base.nWarps);
  OFF(v5, "coll.algo", EventDescr_v5, coll.base.algo);
  OFF(v5, "coll.proto", EventDescr_v5, coll.base.proto);
  OFF(v5, "coll.parentGroup", EventDescr_v5, coll.parentGroup);
  OFF(v5, "p2p.func", EventDescr_v5, p2p.func);
  OFF(v5, "p2p.count", EventDescr_v5, p2p.count);
  OFF(v5, "p2p.peer", EventDescr_v5, p2p.peer);
  OFF(v5, "p2p.nChannels", EventDescr_v5, p2p.nChannels);
  OFF(v5, "p2p.parentGroup", EventDescr_v5, p2p.parentGroup);
  OFF(v5, "proxyOp.pid", EventDescr_v5, proxyOp.pid);
  OFF(v5, "proxyOp.channelId", EventDescr_v5, proxyOp.channelId);
  OFF(v5, "proxyOp.peer", EventDescr_v5, proxyOp.peer);
  OFF(v5, "proxyOp.nSteps", EventDescr_v5, proxyOp.nSteps);
  OFF(v5, "proxyOp.chunkSize", EventDescr_v5, proxyOp.chunkSize);
  OFF(v5, "proxyOp.isSend", EventDescr_v5, proxyOp.isSend);
  OFF(v5, "proxyStep.step", EventDescr_v5, proxyStep.step);
  OFF(v5, "kernelCh.channelId", EventDescr_v5, kernelCh.channelId);
  OFF(v5, "kernelCh.pTimer", EventDescr_v5, kernelCh.pTimer);
  OFF(v5, "netPlugin.id", EventDescr_v5, netPlugin.id);
  OFF(v5, "netPlugin.data", EventDescr_v5, netPlugin.data);
  OFF("ncclProfilerEventStateArgs_v5_t", "proxyStep.transSize", EventStateArgs, proxyStep.transSize);
  OFF("ncclProfilerEventStateArgs_v5_t", "kernelCh.pTimer", EventStateArgs, kernelCh.pTimer);
  Functions<Profiler_v5>("ncclProfiler_v5_t");

  // ---- enum values the probe relies on (one numbering for every version) ----
  VALUE("ncclProfileGroup", kGroup);
  VALUE("ncclProfileColl", kColl);
  VALUE("ncclProfileP2p", kP2p);
  VALUE("ncclProfileProxyOp", kProxyOp);
  VALUE("ncclProfileProxyStep", kProxyStep);
  VALUE("ncclProfileProxyCtrl", kProxyCtrl);
  VALUE("ncclProfileKernelCh", kKernelCh);
  VALUE("ncclProfileNetPlugin", kNetPlugin);
  VALUE("ncclProfileGroupApi", kGroupApi);
  VALUE("ncclProfileCollApi", kCollApi);
  VALUE("ncclProfileP2pApi", kP2pApi);
  VALUE("ncclProfileKernelLaunch", kKernelLaunch);
  VALUE("ncclProfilerProxyOpSendPosted", kProxyOpSendPosted);
  VALUE("ncclProfilerProxyOpRecvDone", kProxyOpRecvDone);
  VALUE("ncclProfilerProxyStepSendGPUWait", kProxyStepSendGPUWait);
  VALUE("ncclProfilerProxyStepSendWait", kProxyStepSendWait);
  VALUE("ncclProfilerProxyStepRecvWait", kProxyStepRecvWait);
  VALUE("ncclProfilerProxyStepRecvFlushWait", kProxyStepRecvFlushWait);
  VALUE("ncclProfilerProxyStepRecvGPUWait", kProxyStepRecvGPUWait);
  VALUE("ncclProfilerProxyStepSendPeerWait_v4", kProxyStepSendPeerWait_v4);
  VALUE("ncclProfilerKernelChStop", kKernelChStop);
  VALUE("ncclFuncBroadcast", kFuncBroadcast);
  VALUE("ncclFuncReduce", kFuncReduce);
  VALUE("ncclFuncAllGather", kFuncAllGather);
  VALUE("ncclFuncReduceScatter", kFuncReduceScatter);
  VALUE("ncclFuncAllReduce", kFuncAllReduce);
  VALUE("ncclFuncSendRecv", kFuncSendRecv);
  VALUE("ncclFuncSend", kFuncSend);
  VALUE("ncclFuncRecv", kFuncRecv);
  VALUE("ncclInt8", kInt8);
  VALUE("ncclUint8", kUint8);
  VALUE("ncclInt32", kInt32);
  VALUE("ncclUint32", kUint32);
  VALUE("ncclInt64", kInt64);
  VALUE("ncclUint64", kUint64);
  VALUE("ncclFloat16", kFloat16);
  VALUE("ncclFloat32", kFloat32);
  VALUE("ncclFloat64", kFloat64);
  VALUE("ncclBfloat16", kBfloat16);
  VALUE("ncclFloat8e4m3", kFloat8e4m3);
  VALUE("ncclFloat8e5m2", kFloat8e5m2);
  return 0;
}
