// What the agent reads from sysfs and procfs (counter files, PCI configuration space,
// /proc/driver/nvidia/version, limits, maps) and its own state file, from any bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/agent_state.h"
#include "agent/sources/facts/facts.h"
#include "agent/sources/node_sampler/rdma_counters.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  uint64_t v = 0;
  aegis::agent::ParseCounterValue(text, &v);
  aegis::agent::AcsEnabledFromConfig(text);
  aegis::agent::DriverVersionFromProc(text);
  aegis::agent::MemlockFromLimits(text);
  aegis::agent::NcclVersionFromMaps(text);
  aegis::agent::AgentState state;
  if (aegis::agent::AgentStateFromJson(text, &state).ok()) {
    // What was read writes back and reads again the same.
    aegis::agent::AgentState again;
    const std::string json = aegis::agent::AgentStateToJson(state);
    if (!aegis::agent::AgentStateFromJson(json, &again).ok() || aegis::agent::AgentStateToJson(again) != json)
      __builtin_trap();
  }
  return 0;
}
