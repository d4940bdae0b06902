// Prints the layout the probe declares, as "<gdb expression on NCCL's types> <value>"
// lines, for abi_check.sh to compare with NCCL's own debug info.
#include <cstddef>
#include <cstdio>

#include "probe/nccl_profiler_abi.h"

using namespace aegis::probe::abi;

#define SIZE(nccl, ours) std::printf("sizeof(%s) %zu\n", nccl, sizeof(ours))
#define OFF(nccl, path, ours, our_path) \
  std::printf("(long)&((%s*)0)->%s %zu\n", nccl, path, offsetof(ours, our_path))

int main() {
  SIZE("ncclProfilerEventDescr_v5_t", EventDescr_v5);
  SIZE("ncclProfilerEventDescr_v4_t", EventDescr_v4);
  SIZE("ncclProfilerEventStateArgs_v5_t", EventStateArgs);
  SIZE("ncclProfiler_v5_t", Profiler_v5);
  SIZE("ncclProfiler_v4_t", Profiler_v4);
  const char* v5 = "ncclProfilerEventDescr_v5_t";
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
  const char* v4 = "ncclProfilerEventDescr_v4_t";
  OFF(v4, "type", EventDescr_v4, type);
  OFF(v4, "parentObj", EventDescr_v4, parentObj);
  OFF(v4, "rank", EventDescr_v4, rank);
  OFF(v4, "coll.seqNumber", EventDescr_v4, coll.seqNumber);
  OFF(v4, "coll.func", EventDescr_v4, coll.func);
  OFF(v4, "coll.count", EventDescr_v4, coll.count);
  OFF(v4, "coll.datatype", EventDescr_v4, coll.datatype);
  OFF(v4, "coll.nChannels", EventDescr_v4, coll.nChannels);
  OFF(v4, "coll.proto", EventDescr_v4, coll.proto);
  OFF(v4, "p2p.peer", EventDescr_v4, p2p.peer);
  OFF(v4, "p2p.nChannels", EventDescr_v4, p2p.nChannels);
  OFF(v4, "proxyOp.pid", EventDescr_v4, proxyOp.pid);
  OFF(v4, "proxyOp.peer", EventDescr_v4, proxyOp.peer);
  OFF(v4, "proxyOp.isSend", EventDescr_v4, proxyOp.isSend);
  OFF(v4, "proxyStep.step", EventDescr_v4, proxyStep.step);
  OFF(v4, "kernelCh.pTimer", EventDescr_v4, kernelCh.pTimer);
  OFF("ncclProfiler_v5_t", "init", Profiler_v5, init);
  OFF("ncclProfiler_v5_t", "startEvent", Profiler_v5, startEvent);
  OFF("ncclProfiler_v5_t", "stopEvent", Profiler_v5, stopEvent);
  OFF("ncclProfiler_v5_t", "recordEventState", Profiler_v5, recordEventState);
  OFF("ncclProfiler_v5_t", "finalize", Profiler_v5, finalize);
  OFF("ncclProfiler_v4_t", "finalize", Profiler_v4, finalize);
  // Enum values the probe relies on.
  std::printf("(long)ncclProfileColl %d\n", static_cast<int>(kColl));
  std::printf("(long)ncclProfileProxyStep %d\n", static_cast<int>(kProxyStep));
  std::printf("(long)ncclProfileKernelCh %d\n", static_cast<int>(kKernelCh));
  std::printf("(long)ncclProfileKernelLaunch %d\n", static_cast<int>(kKernelLaunch));
  std::printf("(long)ncclProfilerProxyStepSendWait %d\n", static_cast<int>(kProxyStepSendWait));
  std::printf("(long)ncclProfilerProxyStepRecvWait %d\n", static_cast<int>(kProxyStepRecvWait));
  std::printf("(long)ncclProfilerProxyStepRecvFlushWait %d\n", static_cast<int>(kProxyStepRecvFlushWait));
  std::printf("(long)ncclProfilerProxyStepRecvGPUWait %d\n", static_cast<int>(kProxyStepRecvGPUWait));
  std::printf("(long)ncclProfilerProxyStepSendPeerWait_v4 %d\n", static_cast<int>(kProxyStepSendPeerWait_v4));
  std::printf("(long)ncclProfilerKernelChStop %d\n", static_cast<int>(kKernelChStop));
  return 0;
}
