// A redacted export (`?redact=1`): no original identifier (host, address, switch, user,
// job, path, process) is left in any of its files; pseudonyms are the same in every file
// of one export; and `aegis diagnose` on it reaches the incident's verdict, named by the
// pseudonyms.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "bundle/bundle_reader.h"
#include "controller/bundle_export.h"
#include "controller/iso_time.h"
#include "controller/redaction.h"
#include "env/manual_clock_env.h"
#include "gen/cluster.h"
#include "sources/bundle_source.h"
#include "test_controller.h"

namespace aegis::controller::test {
namespace {

using nlohmann::json;

const Catalog& ShippedCatalog() {
  static const std::shared_ptr<const Rules> rules = [] {
    std::shared_ptr<const Rules> r;
    if (!LoadRules({}, &r).ok()) std::abort();
    return r;
  }();
  return rules->catalog;
}

// True when `id` occurs in `text` as a whole word: not inside a longer name or number.
bool ContainsWord(const std::string& text, const std::string& id) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
  for (size_t at = text.find(id); at != std::string::npos; at = text.find(id, at + 1)) {
    const bool before = at > 0 && (word(text[at - 1]) || (text[at - 1] == '.' && std::isdigit(static_cast<unsigned char>(id[0]))));
    const size_t end = at + id.size();
    const bool after = end < text.size() && (word(text[end]) || (text[end] == '.' && end + 1 < text.size() &&
                                                                   std::isdigit(static_cast<unsigned char>(text[end + 1]))));
    if (!before && !after) return true;
  }
  return false;
}

// ---- The pieces ----

TEST(RedactionText, ReplacesIdentifiersAndKeepsWhatRulesRead) {
  Pseudonymizer p;
  const std::string h = p.Host("node-0007");
  EXPECT_EQ(h, "host-001");
  EXPECT_EQ(p.Host("node-0007"), h);  // stable
  std::string out = p.Text(
      "NVRM: Xid (PCI:0000:18:00): 79, pid=41233, name=python3, GPU has fallen off the bus on node-0007.cluster.local "
      "(10.1.0.7, 02:42:ac:11:00:02, fe80::a00:27ff:fe4e:66a1) reading /home/alice/data/shard-7.bin and ./cfg/run.yaml "
      "for alice@example.com; /dev/shm kept; NET/IB : Got completion from peer ::ffff:10.1.0.8 via mlx5_0 "
      "Process 41233 (python3) of user 1001 dumped core");
  for (const char* gone : {"node-0007", "cluster.local", "10.1.0.7", "10.1.0.8", "02:42:ac:11:00:02", "fe80::a00:27ff",
                           "/home/alice", "alice", "shard-7", "cfg/run.yaml", "41233", "python3", "1001"})
    EXPECT_FALSE(ContainsWord(out, gone)) << gone << " in: " << out;
  for (const char* kept : {"Xid (PCI:0000:18:00): 79,", "GPU has fallen off the bus", "/dev/shm", "NET/IB", "mlx5_0",
                           "host-001", "::ffff:10.255."})
    EXPECT_NE(out.find(kept), std::string::npos) << kept << " not in: " << out;
  // The same address is the same pseudonym wherever it is met again.
  const std::string again = p.Text("peer 10.1.0.7<43210>");
  EXPECT_NE(out.find(again.substr(5, again.find('<') - 5)), std::string::npos) << again << " / " << out;
  EXPECT_EQ(p.FilePath("nodes/node-0007/kernel.log"), "nodes/" + h + "/kernel.log");
  EXPECT_EQ(p.FilePath("nodes/node-0007/ccl/node-0007-41233.jsonl.1"), "nodes/" + h + "/ccl/ccl-001.jsonl.1");
  // Loopback and Docker's bridge keep their meaning (rules read them).
  EXPECT_NE(p.Text("connect to 172.17.0.2<1234> failed").find("172.17."), std::string::npos);
  EXPECT_NE(p.Text("listening on 127.0.0.1").find("127.0.0.1"), std::string::npos);
  // A URL is a path (its host, its user); a local rank is not a pid.
  out = p.Text("pulling https://registry.corp.example/alice/llm:v3 failed; process 3 terminated with exit code 1");
  EXPECT_EQ(out.find("alice"), std::string::npos) << out;
  EXPECT_EQ(out.find("corp.example"), std::string::npos) << out;
  EXPECT_NE(out.find("process 3 terminated"), std::string::npos) << out;
  // Not addresses: C++ scopes, versions.
  EXPECT_EQ(p.Text("c10::Error and std::vector, NCCL 2.21.5"), "c10::Error and std::vector, NCCL 2.21.5");
}

TEST(RedactionText, JobWordsAndJsonAreReplacedEverywhere) {
  Pseudonymizer p;
  p.AddTopology(R"({"nodes": [{"host": "gpu-a1", "mgmt_ip": "192.168.10.7", "pod": "pod-east",
                  "gpus": [{"index": 0, "pci": "0000:18:00.0", "uuid": "GPU-1f2e3d4c-aaaa-bbbb-cccc-111122223333"}],
                  "nics": [{"name": "mlx5_0", "ip": "10.1.0.7", "rail": 0, "switch": "tor-east-1", "port": "Ethernet8"}]}],
                  "switches": [{"name": "tor-east-1", "tier": 1, "uplinks": ["agg-east"]}]})");
  const json job = {{"id", "slurm-998877"}, {"user", "alice"}, {"name", "alice llama finetune"},
                    {"hosts", {"gpu-a1"}}, {"started_at", "2026-11-30T08:00:00Z"}, {"account", "team-vision"}};
  p.AddJob(job);
  json j = {{"host", "gpu-a1"}, {"job", "slurm-998877"}, {"summary", "alice llama finetune failed on gpu-a1 (tor-east-1)"},
            {"pid", 4242}, {"gpu-a1", {{"user", "alice"}, {"pci", "0000:18:00.0"}}},
            {"uuid", "GPU-1f2e3d4c-aaaa-bbbb-cccc-111122223333"}, {"team", "team-vision"}};
  p.Json(j);
  const std::string text = j.dump();
  for (const char* gone : {"gpu-a1", "slurm-998877", "alice", "llama", "tor-east-1", "4242", "1f2e3d4c", "team-vision"})
    EXPECT_FALSE(ContainsWord(text, gone)) << gone << " in " << text;
  EXPECT_EQ(j["host"], "host-001");
  EXPECT_EQ(j["job"], "job-001");
  EXPECT_TRUE(j.contains("host-001"));
  EXPECT_EQ(j["host-001"]["pci"], "0000:18:00.0");
  EXPECT_EQ(j["pid"], 0);
  EXPECT_EQ(p.FilePath("switches/tor-east-1.log"), "switches/switch-001.log");
}

TEST(RedactionLine, KeepsTheRulesSpanAndTheRulesMatch) {
  Pseudonymizer p;
  p.Host("node-0003");
  LineRedactor lines(ShippedCatalog(), p);
  // A job's exception: its class is kept, its message is not.
  std::string out = lines.Line("python-exception", "ValueError: cannot open /home/alice/x.bin on 10.9.8.7 as alice");
  EXPECT_EQ(out, "ValueError: <message>");
  // A Xid: the match only (pid and process name are outside it, or replaced).
  out = lines.Line("xid-79", "NVRM: Xid (PCI:0000:18:00): 79, pid=1234, name=python3, GPU has fallen off the bus.");
  EXPECT_NE(out.find("Xid (PCI:0000:18:00): 79"), std::string::npos) << out;
  EXPECT_EQ(out.find("python3"), std::string::npos) << out;
  EXPECT_EQ(out.find("1234"), std::string::npos) << out;
  // A captured peer becomes its pseudonym, and the rule still reads it as the peer.
  out = lines.Line("nccl-socket-closed", "NCCL WARN Connection closed by peer node-0003<43210>");
  EXPECT_EQ(out, "Connection closed by peer host-001<43210>");
  out = lines.Line("nccl-socket-closed", "NCCL WARN Connection reset by peer 10.1.0.9:43210 during recv");
  EXPECT_NE(out.rfind("Connection reset by peer 10.255.", 0), std::string::npos) << out;
  // An unknown host name a rule captures as the peer becomes a host's pseudonym.
  out = lines.Line("nccl-socket-closed", "Connection refused gpu-z9<1234>");
  EXPECT_EQ(out, "Connection refused host-002<1234>");
  EXPECT_EQ(lines.Line("no-such-rule", "anything at all"), "");
}

// ---- Exports of decided incidents ----

json TheJob(const gen::Bundle& b) {
  json job = gen::JobJson(b, true);
  job["user"] = "alice";
  job["name"] = "alice-llama-70b-finetune";
  job["account"] = "vision-team";
  return job;
}

// Registers topology and the job (with its user and name), posts the agents' events, ends
// the job as `state` (or lets the controller, on `clock`, find the hang), and returns the
// decided incident and its export document.
struct Exported {
  json incident, doc;
};
Exported DecideAndExport(TestController& c, gen::Bundle& b, const std::string& state, bool redact,
                         ManualClockEnv* clock = nullptr) {
  Exported e;
  EXPECT_EQ(c.Put("/api/v1/topology", TopologyText(b)).status, 200);
  HttpReply started = c.Post("/api/v1/jobs", TheJob(b).dump());
  EXPECT_TRUE(started.status == 201 || started.status == 200) << started.body;
  for (const AgentPost& p : PostsFromBundle(b, ShippedMatcher(), {})) {
    HttpReply r = c.Post("/api/v1/events", p.body.dump());
    EXPECT_EQ(r.status, 200) << r.body;
  }
  std::string id;
  if (!state.empty()) {
    HttpReply end = c.Post("/api/v1/jobs/" + b.c.job_id + "/end",
                           json{{"state", state}, {"ended_at", FormatIsoTime(b.c.end)}}.dump());
    if (!end.Json().contains("incident") || !end.Json()["incident"].is_string()) {
      ADD_FAILURE() << end.body;
      return e;
    }
    id = end.Json()["incident"];
  } else {
    if (!clock) return e;
    EXPECT_TRUE(WaitForLoopPasses(c, 1));
    clock->Advance(c.controller().options().hang_after_s + 1);
    c.controller().loop().Wake();
    WaitFor([&] { return c.Get("/api/v1/incidents").Json().size() == 1; });
    id = c.Get("/api/v1/incidents").Json()[0]["id"];
  }
  e.incident = WaitDecided(c, id);
  HttpReply bundle = c.Get("/api/v1/incidents/" + id + "/bundle" + (redact ? "?redact=1" : ""));
  EXPECT_EQ(bundle.status, 200);
  e.doc = bundle.Json();
  return e;
}

// Adds what a tenant's job leaks into its logs and facts: paths, user, an address, a
// process.
void AddTenantText(gen::Bundle& b) {
  const double t = b.c.start + 5;
  for (int i = 0; i < b.Hosts(); ++i) {
    b.Node(i).facts["env"]["NCCL_TOPO_FILE"] = "/home/alice/topo/cluster.xml";
    b.Node(i).facts["container"]["image"] = "registry.corp.example/alice/llm-train:v3";
    b.Node(i).facts["hostname_fqdn"] = b.N(i).host + ".corp.example";
  }
  b.Node(0).train.Add(t, gen::TrainLine(b.N(0), 0, t,
                                        "ValueError: cannot open /home/alice/data/shard-7.bin on 10.77.1.2 for alice "
                                        "(job alice-llama-70b-finetune)"));
  b.Node(1).kernel.Add(t, gen::KernelLine(b.N(1), t, "Process 41233 (python3) of user 1001 dumped core"));
}

// Every identifier of the inputs: hosts, addresses, switches, pods, GPU UUIDs, the job's
// id, user, name and account, and the tenant's paths and process.
std::set<std::string> OriginalIdentifiers(const gen::Bundle& b) {
  std::set<std::string> ids;
  const json topo = json::parse(TopologyText(b));
  for (const auto& n : topo["nodes"]) {
    ids.insert(n["host"].get<std::string>());
    ids.insert(n["mgmt_ip"].get<std::string>());
    for (const auto& g : n["gpus"]) ids.insert(g["uuid"].get<std::string>());
    for (const auto& nic : n["nics"]) {
      ids.insert(nic["ip"].get<std::string>());
      if (nic["switch"].is_string()) ids.insert(nic["switch"].get<std::string>());
    }
  }
  for (const auto& s : topo["switches"]) ids.insert(s["name"].get<std::string>());
  const json job = TheJob(b);
  for (const char* k : {"id", "user", "name", "account"}) ids.insert(job[k].get<std::string>());
  for (const char* s : {"/home/alice", "shard-7.bin", "10.77.1.2", "python3", "41233", "corp.example", "llm-train"})
    ids.insert(s);
  return ids;
}

TEST(RedactedExport, NoOriginalIdentifierIsLeftInAnyFile) {
  TestController c;
  gen::Bundle b = Generate("user_exception", 7, 8);
  AddTenantText(b);
  const Exported e = DecideAndExport(c, b, "failed", true);
  ASSERT_TRUE(e.doc.is_object() && e.doc.contains("files")) << e.doc.dump().substr(0, 400);
  EXPECT_EQ(e.doc["redacted"], true);
  // The paths too: nodes/HOST/..., switches/NAME.log.
  std::string everything = e.doc.dump();
  for (const auto& [path, text] : e.doc["files"].items()) everything += "\n" + path + "\n" + text.get<std::string>();
  for (const std::string& id : OriginalIdentifiers(b)) EXPECT_FALSE(ContainsWord(everything, id)) << id;
  // The unredacted export does hold them (the test would find a leak).
  const HttpReply whole = c.Get("/api/v1/incidents/" + e.incident["id"].get<std::string>() + "/bundle");
  EXPECT_TRUE(ContainsWord(whole.body, b.N(0).host));
  EXPECT_TRUE(ContainsWord(whole.body, "alice-llama-70b-finetune"));
  EXPECT_TRUE(ContainsWord(whole.body, "python3"));
  // What diagnosis needs is kept: the exception's class, the core dump's class of line.
  EXPECT_NE(everything.find("ValueError: <message>"), std::string::npos);
  EXPECT_NE(everything.find("Process 0 (<process>) of user 0 dumped core"), std::string::npos);
}

TEST(RedactedExport, PseudonymsAreTheSameInEveryFile) {
  TestController c;
  gen::Bundle b = Generate("nic_down", 7, 8);
  const Exported e = DecideAndExport(c, b, "failed", true);
  ASSERT_TRUE(e.doc.is_object() && e.doc.contains("files"));
  const json& files = e.doc["files"];
  const json topo = json::parse(files["topology.json"].get<std::string>());
  const json job = json::parse(files["job.json"].get<std::string>());
  std::set<std::string> topo_hosts, job_hosts, topo_ips, topo_switches;
  for (const auto& n : topo["nodes"]) {
    topo_hosts.insert(n["host"].get<std::string>());
    topo_ips.insert(n["mgmt_ip"].get<std::string>());
    for (const auto& nic : n["nics"]) {
      topo_ips.insert(nic["ip"].get<std::string>());
      topo_switches.insert(nic["switch"].get<std::string>());
    }
  }
  for (const auto& s : topo["switches"]) EXPECT_TRUE(topo_switches.count(s["name"].get<std::string>())) << s.dump();
  for (const auto& h : job["hosts"]) job_hosts.insert(h.get<std::string>());
  EXPECT_EQ(topo_hosts, job_hosts);
  EXPECT_EQ(topo_hosts.size(), 8u);
  for (const std::string& h : topo_hosts) EXPECT_EQ(h.rfind("host-", 0), 0u) << h;
  EXPECT_EQ(job["user"], "user-001");
  EXPECT_EQ(job["id"], e.doc["job"]);
  // Every per-host file is under a host of topology.json; every switch log is a switch's.
  for (const auto& [path, text] : files.items()) {
    if (path.rfind("nodes/", 0) == 0) {
      const std::string host = path.substr(6, path.find('/', 6) - 6);
      EXPECT_TRUE(topo_hosts.count(host)) << path;
    }
    if (path.rfind("switches/", 0) == 0) {
      EXPECT_TRUE(topo_switches.count(path.substr(9, path.size() - 13))) << path;
    }
  }
  // Every address the logs and probes name is one of topology.json's (the same pseudonym).
  const std::regex ipv4(R"((\d+\.\d+\.\d+\.\d+))");
  size_t named = 0;
  for (const auto& [path, text] : files.items()) {
    if (path == "topology.json" || path == "incident.json") continue;
    const std::string s = text.get<std::string>();
    for (auto it = std::sregex_iterator(s.begin(), s.end(), ipv4); it != std::sregex_iterator(); ++it) {
      const std::string ip = (*it)[1];
      if (ip.rfind("127.", 0) == 0 || ip.rfind("0.", 0) == 0) continue;
      ++named;
      EXPECT_TRUE(topo_ips.count(ip)) << ip << " in " << path;
    }
  }
  EXPECT_GT(named, 0u) << "the scenario's logs name no address";
  // incident.json: its verdict names the same hosts and files.
  const json incident = json::parse(files["incident.json"].get<std::string>());
  ASSERT_TRUE(incident["verdict"].is_object());
  EXPECT_EQ(incident["job"], e.doc["job"]);
  for (const char* list : {"isolate", "repair"})
    for (const auto& x : incident["verdict"].value(list, json::array())) {
      EXPECT_TRUE(topo_hosts.count(x["host"])) << x.dump();
    }
  for (const auto& ev : incident["verdict"]["evidence"]) {
    if (ev.contains("host")) {
      EXPECT_TRUE(topo_hosts.count(ev["host"].get<std::string>())) << ev.dump();
    }
    if (ev["line"].get<long long>() > 0) {
      EXPECT_TRUE(files.contains(ev["file"].get<std::string>())) << ev.dump();
    }
  }
  for (const auto& a : incident["actions"]) EXPECT_TRUE(topo_hosts.count(a["host"].get<std::string>())) << a.dump();
}

// The redacted bundle, written with WriteBundle, diagnoses to the incident's verdict: the
// same decision, its hosts by their pseudonyms.
class RedactedDiagnosis : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(RedactedDiagnosis, ReachesTheIncidentsVerdict) {
  const auto [scenario, state] = GetParam();
  ManualClockEnv clock(WallNow());
  ControllerOptions o = TestController::Defaults();
  o.hang_after_s = 1;
  o.env = &clock;
  TestController c(o);
  gen::Bundle b = Generate(scenario, 7, 8);
  const Exported e = DecideAndExport(c, b, state, true, &clock);
  ASSERT_FALSE(e.incident.is_null());
  ASSERT_TRUE(e.doc.is_object() && e.doc.contains("files"));
  const std::string dir = c.dir() + "/redacted";
  ASSERT_TRUE(WriteBundle(e.doc, dir).ok());
  const json again = DiagnoseDir(dir);
  const json redacted = json::parse(e.doc["files"]["incident.json"].get<std::string>())["verdict"];
  const json& live = e.incident["verdict"];
  // The same decision as the live one...
  for (const char* k : {"kind", "action", "cause", "stage"}) EXPECT_EQ(again[k], live[k]) << k << ": " << again.dump(2);
  // ...naming the same hosts and components as the redacted incident.json does.
  EXPECT_EQ(Decisive(again), Decisive(redacted)) << again.dump(2) << "\n" << redacted.dump(2);
  auto culprits = [](const json& v) {
    std::multiset<std::string> out;
    for (const char* list : {"isolate", "repair"})
      for (const auto& x : v.value(list, json::array())) out.insert(x.value("component", "") + "/" + x.value("device", ""));
    return out;
  };
  EXPECT_EQ(culprits(again), culprits(live));
  for (const char* list : {"isolate", "repair"})
    for (const auto& x : again.value(list, json::array())) {
      EXPECT_EQ(x["host"].get<std::string>().rfind("host-", 0), 0u) << x.dump();
      if (x.contains("switch")) {
        EXPECT_EQ(x["switch"], redacted["repair"][0]["switch"]) << x.dump();
      }
    }
  size_t switch_logs = 0;
  for (const auto& [path, text] : e.doc["files"].items())
    if (path.rfind("switches/", 0) == 0) {
      EXPECT_TRUE(std::regex_match(path, std::regex(R"(switches/switch-\d{3}\.log)"))) << path;
      ++switch_logs;
    }
  if (std::string(scenario) == "switch_flap") {
    EXPECT_GT(switch_logs, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, RedactedDiagnosis,
                         ::testing::Values(std::pair{"xid79", "failed"}, std::pair{"user_exception", "failed"},
                                           std::pair{"nic_down", "failed"}, std::pair{"config_mismatch", "failed"},
                                           std::pair{"compute_hang", ""}, std::pair{"ecn_surge", "slow"},
                                           std::pair{"switch_flap", "failed"}),
                         [](const auto& info) { return std::string(info.param.first); });

}  // namespace
}  // namespace aegis::controller::test
