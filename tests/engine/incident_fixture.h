// Incidents built in memory for the stage tests: a cluster of n hosts (node-1..n), each
// with `gpus` GPUs and one NIC per GPU on rail g (10.<g>.0.<i>, cabled to tor-r<g> port
// Ethernet<i>), a job on all of them from 10:00 to 10:30 UTC on 2026-11-30, and log text
// run through the real scanner of the shipped catalogue into an IncidentBuilder.
#pragma once
#include <map>
#include <string>

#include "engine/incident_builder.h"
#include "engine/verdict.h"

namespace aegis::test {

constexpr double kJobStart = 1796032800.0;  // 2026-11-30T10:00:00Z
constexpr double kJobEnd = kJobStart + 1800;

class IncidentFixture {
 public:
  explicit IncidentFixture(int hosts, JobState state = JobState::kFailed, int gpus = 1);
  // Scans `text` as host h's kernel.log or train.log (appending to what was fed before).
  void Kernel(int h, const std::string& text) { Log(h, SourceKind::kKernel, text); }
  void Train(int h, const std::string& text) { Log(h, SourceKind::kTrain, text); }
  void Switch(const std::string& name, const std::string& text);
  void Facts(int h, std::map<std::string, std::string> facts);
  void Ccl(const std::string& json_line, int h);  // one snapshot record of host h
  IncidentBuilder& builder() { return b_; }
  const Incident& incident() { return b_.View(); }
  Verdict Decide();
  static std::string Host(int h) { return "node-" + std::to_string(h); }

 private:
  void Log(int h, SourceKind kind, const std::string& text);
  void Feed(const std::string& host, SourceKind kind, const std::string& file, const std::string& text);
  IncidentBuilder b_;
  std::map<std::string, uint64_t> lines_;  // lines fed per file so far
};

}  // namespace aegis::test
