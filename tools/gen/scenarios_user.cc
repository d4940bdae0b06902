// The job's own faults: an exception, an out-of-memory, an illegal memory access with the
// application Xid it causes. Peers then report connection errors naming the dead
// process's host and every rank times out; none of that is a device's fault.
#include <fmt/format.h>

#include "gen/faults.h"
#include "gen/families.h"

namespace aegis::gen {

namespace {

enum class UserFault { kException, kOom, kAppXid };

void InjectUserFault(Scene& s, UserFault kind) {
  const int v = s.Rand(s.Hosts()), g = s.Rand(s.Gpus());
  const double t = s.At(0);
  switch (kind) {
    case UserFault::kException:
      PythonTraceback(s, v, g, t,
                      s.Coin() ? "KeyError: 'attention_mask'"
                               : "RuntimeError: shape '[8, 4096, 32, 128]' is invalid for input of size 67108864");
      break;
    case UserFault::kOom:
      PythonTraceback(s, v, g, t,
                      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 3 has a total "
                      "capacity of 79.11 GiB of which 1.21 GiB is free. Process 41233 has 77.89 GiB memory in use.");
      break;
    case UserFault::kAppXid: {  // the job's own kernel faults (MMU fault, Xid 31); CUDA reports an illegal access
      const std::string pci = PciShort(s.N(v).gpu_pci[static_cast<size_t>(g)]);
      s.Kernel(v, t, fmt::format("NVRM: Xid (PCI:{}): 31, pid={}, name=python, Ch 00000008, intr 00000000. MMU Fault: "
                                 "ENGINE GRAPHICS GPCCLIENT_T1_8 faulted @ 0x7f3a_1c000000. Fault is of type "
                                 "FAULT_PDE ACCESS_TYPE_VIRT_WRITE",
                                 pci, kPidBase + g));
      PythonTraceback(s, v, g, s.At(0.1), "RuntimeError: CUDA error: an illegal memory access was encountered");
      break;
    }
  }
  s.keep.insert(v);
  PeersLoseConnection(s, v, 5, true);
  WatchdogTimeouts(s, {v});
  s.Expect("none", "user", "user_error");
}

}  // namespace

void InjectUserException(Scene& s) { InjectUserFault(s, UserFault::kException); }
void InjectOom(Scene& s) { InjectUserFault(s, UserFault::kOom); }
void InjectAppXid(Scene& s) { InjectUserFault(s, UserFault::kAppXid); }

}  // namespace aegis::gen
