#include "engine/incident_fixture.h"

#include <cstdio>

#include "ccl/reader.h"
#include "common/time.h"
#include "engine/engine.h"
#include "logs/scanner.h"
#include "test_util.h"

namespace aegis::test {

IncidentFixture::IncidentFixture(int hosts, JobState state, int gpus) {
  Topology t;
  Job j;
  j.id = "job-mem";
  j.state = state;
  j.started_at = kJobStart;
  j.ended_at = state == JobState::kRunning ? NAN : kJobEnd;
  for (int i = 1; i <= hosts; ++i) {
    NodeInfo n;
    n.host = Host(i);
    n.pod = "pod-1";
    for (int g = 0; g < gpus; ++g) {
      char pci[32];
      std::snprintf(pci, sizeof pci, "0000:%02x:00.0", 0x18 + 0x10 * g);
      n.gpus.push_back({g, pci, ""});
      NicInfo nic;
      nic.name = "mlx5_" + std::to_string(g);
      nic.ip = "10." + std::to_string(g) + ".0." + std::to_string(i);
      nic.rail = g;
      nic.switches = {"tor-r" + std::to_string(g)};
      nic.ports = {"Ethernet" + std::to_string(i)};
      n.nics.push_back(nic);
    }
    t.by_host[n.host] = static_cast<int>(t.nodes.size());
    t.nodes.push_back(n);
    j.hosts.push_back(n.host);
  }
  b_.SetTopology(std::move(t));
  b_.SetJob(std::move(j));
}

void IncidentFixture::Feed(const std::string& host, SourceKind kind, const std::string& file, const std::string& text) {
  // Each call is a piece of the file after what was fed before: line numbers continue.
  ScanOptions o;
  o.year = YearOf(kJobStart);
  o.ref_time = kJobStart;
  Scanner scanner(ShippedMatcher(), o);
  const uint64_t before = lines_[file];
  ScanStats st = scanner.ScanText(text, [&](LogEvent&& ev) {
    ev.line += before;
    ev.first_line += before;
    ev.last_line += before;
    if (ev.traceback_line) ev.traceback_line += before;
    b_.AddLogEvent(host, kind, file, std::move(ev));
  });
  lines_[file] = before + st.lines;
}

void IncidentFixture::Log(int h, SourceKind kind, const std::string& text) {
  Feed(Host(h), kind, "nodes/" + Host(h) + (kind == SourceKind::kKernel ? "/kernel.log" : "/train.log"), text);
}

void IncidentFixture::Switch(const std::string& name, const std::string& text) {
  Feed(name, SourceKind::kSwitch, "switches/" + name + ".log", text);
}

void IncidentFixture::Facts(int h, std::map<std::string, std::string> facts) { b_.SetFacts(Host(h), std::move(facts)); }

void IncidentFixture::Ccl(const std::string& json_line, int h) {
  std::map<std::pair<std::string, int>, CclRecord> newest;
  ReadCclText(json_line, "nodes/" + Host(h) + "/ccl/probe.jsonl", Host(h), &newest);
  for (auto& [k, r] : newest) b_.AddCclRecord(std::move(r));
}

Verdict IncidentFixture::Decide() { return aegis::Decide(b_.View(), ShippedCatalog()); }

}  // namespace aegis::test
