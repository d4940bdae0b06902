// Configuration faults whose error lines do not point at the culprit: processes that
// disagree print it on both sides and on healthy pairs alike (NCCL's "wrong type" at
// bootstrap, a collective mismatch, completion errors between hosts that cannot agree on
// a transfer), so the hosts that LOGGED the errors are not the ones to repair. The odd
// host out of ConfigCheck is; when every host is configured alike, a mismatch of
// collectives is the job's own code.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "gen/faults.h"
#include "gen/families.h"

namespace aegis::gen {

namespace {

// PyTorch's ProcessGroupWrapper (TORCH_DISTRIBUTED_DEBUG=DETAIL) raising on rank `rank`.
std::string TorchMismatch(int rank, int other, long seq) {
  return fmt::format(
      "RuntimeError: Detected mismatch between collectives on ranks. Rank {} is running collective: "
      "CollectiveFingerPrint(SequenceNumber={}, OpType=ALLREDUCE, TensorShape=[4096], TensorDtypes=BFloat16, "
      "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), "
      "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank {} is "
      "running collective: CollectiveFingerPrint(SequenceNumber={}, OpType=BROADCAST).",
      rank, seq, other, seq);
}

// What a host prints when it and `peer` disagree about a transfer or a collective.
enum class Symptom { kNcclSizes, kNcclInit, kTorch, kWrongType };

void PrintSymptom(Scene& s, Symptom what, int node, int peer, double ts, long seq) {
  const int g = s.Rand(s.Gpus());
  const GenNode& p = s.N(peer);
  switch (what) {
    case Symptom::kNcclSizes:
      s.NcclWarn(node, g, ts,
                 fmt::format("transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 peer {}<{}> collective "
                             "mismatch error, local size {} remote size {}",
                             p.nic_ip[static_cast<size_t>(g)], 40000 + s.Rand(20000), 496640, 65536));
      break;
    case Symptom::kNcclInit:
      s.NcclWarn(node, g, ts,
                 fmt::format("init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective "
                             "calls at and around rank {}. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to "
                             "see the collective logs",
                             s.b.c.Rank(peer, g)));
      break;
    case Symptom::kTorch:
      s.Train(node, g, ts, GlogHeader('E', ts, "ProcessGroupWrapper.cpp:563") + "collective fingerprint check failed");
      s.Train(node, g, ts, TorchMismatch(s.b.c.Rank(node, g), s.b.c.Rank(peer, g), seq));
      break;
    case Symptom::kWrongType:
      s.NcclWarn(node, g, ts, "misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type 4 != 3");
      break;
  }
}

// A few hosts (never `except`) print `what` about one another within seconds of `t`.
void Symptoms(Scene& s, Symptom what, const std::set<int>& except, double t) {
  std::vector<int> hosts = s.Pick(std::min(5, s.Hosts() - static_cast<int>(except.size())), except);
  const long seq = 100 + s.Rand(9000);
  for (size_t k = 0; k < hosts.size(); ++k) {
    const int peer = hosts[(k + 1) % hosts.size()];
    PrintSymptom(s, what, hosts[k], peer == hosts[k] ? *except.begin() : peer, t + s.Jitter(2), seq);
    s.keep.insert(hosts[k]);
  }
}

// Completion errors between disjoint pairs of healthy hosts, each pair reporting each
// other: distributed errors with no common endpoint.
void SymmetricEdges(Scene& s, const std::set<int>& except, double t) {
  std::vector<int> hosts = s.Pick(6, except);
  if (hosts.size() < 4) return;  // two hosts would be a pair, which is a verdict of its own
  for (size_t k = 0; k + 1 < hosts.size(); k += 2) {
    const int rail = s.Rand(s.Gpus());
    IbCompletionError(s, hosts[k], hosts[k + 1], rail, t + s.Jitter(1));
    IbCompletionError(s, hosts[k + 1], hosts[k], rail, t + s.Jitter(1));
    s.keep.insert(hosts[k]);
    s.keep.insert(hosts[k + 1]);
  }
}

}  // namespace

// One host's configuration differs; OTHER hosts print the errors: a mismatch of
// collectives or sizes (or NCCL's bootstrap "wrong type" for a version drift), and
// completion errors between healthy pairs. By seed, the mismatch lines come first, the
// completion errors come first, or only the mismatch lines are printed.
void InjectConfigSymmetric(Scene& s) {
  const Drift d = DriftConfig(s);
  const std::set<int> odd{d.host};
  static const Symptom kSymptoms[] = {Symptom::kNcclSizes, Symptom::kNcclInit, Symptom::kTorch};
  const Symptom what = d.key == "nccl.version" && s.Coin() ? Symptom::kWrongType : kSymptoms[s.Rand(3)];
  switch (s.seed % 3) {
    case 0:
      Symptoms(s, what, odd, s.At(0));
      SymmetricEdges(s, odd, s.At(8));
      s.Variant(d.key + ": mismatch lines first, then completion errors between healthy pairs");
      break;
    case 1:
      SymmetricEdges(s, odd, s.At(0));
      Symptoms(s, what, odd, s.At(8));
      s.Variant(d.key + ": completion errors between healthy pairs first, then mismatch lines");
      break;
    default:
      Symptoms(s, what, odd, s.At(0));
      s.Variant(d.key + ": mismatch lines only");
  }
  WatchdogTimeouts(s);
}

// Every host is configured alike and the ranks call different collectives: the job's own
// code (a rank that skips a collective, a data-dependent branch). Several hosts print the
// mismatch; every rank then times out.
void InjectCollectiveMismatch(Scene& s) {
  static const Symptom kSymptoms[] = {Symptom::kNcclSizes, Symptom::kNcclInit, Symptom::kTorch};
  const int first = s.Rand(s.Hosts());
  Symptoms(s, kSymptoms[s.Rand(3)], {first}, s.At(0));
  WatchdogTimeouts(s);
  s.Expect("none", "user", "user_error");
}

}  // namespace aegis::gen
