// Scenario generator, the fault injectors of every scenario, one family per file:
// critical hardware errors (scenarios_critical.cc), the job's own faults
// (scenarios_user.cc), distributed errors and their common endpoint (scenarios_dist.cc),
// configuration and network faults (scenarios_net.cc), configuration faults whose errors
// are printed by other hosts (scenarios_config.cc), the CCL probe's view of hangs and
// slow jobs (scenarios_ccl.cc), metric outliers (scenarios_metrics.cc), and faults whose
// difficulty is when lines say they happened (scenarios_timing.cc). The table in
// scenarios.cc names them.
#pragma once
#include "gen/scene.h"

namespace aegis::gen {

void InjectXid79(Scene& s);
void InjectDbe(Scene& s);
void InjectNvlink(Scene& s);
void InjectPcieFatal(Scene& s);
void InjectNicDown(Scene& s);

void InjectUserException(Scene& s);
void InjectOom(Scene& s);
void InjectAppXid(Scene& s);

void InjectPair(Scene& s);
void InjectRootDiag(Scene& s);
void InjectRootDiagMissing(Scene& s);
void InjectNoSignal(Scene& s);

void InjectConfigMismatch(Scene& s);
void InjectSwitchFlap(Scene& s);
void InjectLargePacketLoss(Scene& s);
void InjectIncidentalEdges(Scene& s);

void InjectConfigSymmetric(Scene& s);
void InjectCollectiveMismatch(Scene& s);

void InjectComputeHang(Scene& s);
void InjectCommHang(Scene& s);
void InjectComputeStraggler(Scene& s);
void InjectDegradedNic(Scene& s);
void InjectNoisyStraggler(Scene& s);

void InjectEcnSurge(Scene& s);
void InjectThermalThrottling(Scene& s);
void InjectGlobalSlowdown(Scene& s);
void InjectTransientSpike(Scene& s);

void InjectHistoryBeforeJob(Scene& s);
void InjectUntimedAfterStale(Scene& s);

}  // namespace aegis::gen
