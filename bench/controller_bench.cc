// The controller at cluster scale (a generated 1,250-host x 8-GPU job with an Xid 79),
// three figures, medians where repeated:
//   1. ingest: 1,250 simulated agents post their classified events over HTTP (keep-alive
//      connections, 64 client threads, batches of 50 events): events stored per second,
//      SQLite in WAL mode, every batch durable (synchronous=FULL) before it is answered;
//   2. verdict latency: the job ends; every agent had reported before; the controller waits
//      for each to report after the end; from the last of those heartbeats to the recorded
//      decision (target < 1 s);
//   3. re-deciding the live 1,250-host incident after one new event: feed + Decide (target
//      < 50 ms);
//   4. the reports of a running job's agents: each of the 1,250 agents posts an empty batch
//      (what an agent sends every --report-interval while its node runs a job, answered
//      with its node's scope) on a connection of its own, as an idle agent does (it closes
//      its connection when its queue is empty), from 64 client threads as fast as they go:
//      posts per second and the CPU time of this process (server and clients together: an
//      upper bound) per post.
// Run: build/aegis_controller_bench [--hosts N] [--rounds R] [--threads T] [--sync full|normal]
#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <thread>

#include "agent_sim.h"
#include "bundle/bundle_reader.h"
#include "controller/controller.h"
#include "controller/http_api.h"
#include "controller/iso_time.h"
#include "controller/live_job.h"
#include "env/env.h"
#include "gen/scenarios.h"
#include "match/live_rules.h"

namespace {

using namespace aegis;
using namespace aegis::controller;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// CPU time of this process (server and clients together).
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::atomic<size_t> retries{0};

// As an agent posts: again after a 503 (backpressure) or a connection the server closed.
int Post(httplib::Client& c, const std::string& path, const std::string& body) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto r = c.Post(path.c_str(), body, "application/json");
    if (r && r->status != 503) return r->status;
    ++retries;
    std::this_thread::sleep_for(std::chrono::milliseconds(r ? 20 : 1));
  }
  return 0;
}

gen::Bundle MakeIncident(const std::string& scenario, int hosts, int day) {
  gen::GenOptions g;
  g.scenario = scenario;
  g.seed = 5;
  g.hosts = hosts;
  g.kernel_bytes = 8000;
  g.train_bytes = 16000;
  gen::Bundle first = gen::BuildBundle(g);
  if (day == 0) return first;
  g.timeline = gen::Timeline{first.c.start + 86400 * day, first.c.fail + 86400 * day, first.c.end + 86400 * day, 1800};
  gen::Bundle b = gen::BuildBundle(g);
  b.c.job_id += "-day" + std::to_string(day);
  return b;
}

// Median time of one new event fed to a live job of the bundle plus its decision.
double Redecide(gen::Bundle& b, const Rules& rules, size_t* events, std::string* verdict, double* decide_only) {
  test::SimOptions sim;
  sim.include_metrics = false;
  std::vector<test::AgentPost> posts = test::PostsFromBundle(b, rules.matcher, sim);
  Topology topology;
  (void)ParseTopology(test::TopologyText(b), &topology, nullptr);
  Job job;
  (void)ParseJob(test::RunningJobText(b), &job, nullptr);
  LiveJob live(job, topology);
  *events = 0;
  for (const auto& p : posts)
    for (const auto& e : p.body["events"]) {
      wire::DecodedEvent d;
      if (wire::DecodeEvent(e, p.node, &d).ok()) {
        live.Feed(d, 0);
        ++*events;
      }
    }
  const JobState state = ParseJobState(b.state).value_or(JobState::kFailed);
  Verdict v = live.DecideAs(state, b.c.end, rules.catalog, {});
  std::vector<double> times;
  json extra;
  for (const auto& p : posts)
    for (const auto& e : p.body["events"])
      if (e["type"] == "log") extra = e;
  for (int i = 0; i < 30; ++i) {
    wire::DecodedEvent d;
    extra["line"] = extra["first_line"] = extra["last_line"] = 1000000 + i;
    (void)wire::DecodeEvent(extra, extra["node"].get<std::string>(), &d);
    const auto t0 = Clock::now();
    live.Feed(d, 0);
    v = live.DecideAs(state, b.c.end, rules.catalog, {});
    times.push_back(Seconds(t0, Clock::now()));
  }
  std::vector<double> alone;  // the engine's part: Decide on the picture as it is
  for (int i = 0; i < 10; ++i) {
    const auto t0 = Clock::now();
    v = live.DecideAs(state, b.c.end, rules.catalog, {});
    alone.push_back(Seconds(t0, Clock::now()));
  }
  *decide_only = Median(alone);
  *verdict = fmt::format("{} {} {}", ToString(v.action), ToString(v.stage), v.isolate.empty() ? "" : v.isolate[0].host);
  return Median(times);
}

}  // namespace

int main(int argc, char** argv) {
  int hosts = 1250, rounds = 3, threads = 64;
  std::string sync = "full";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sync")) sync = argv[i + 1];
    if (!std::strcmp(argv[i], "--hosts")) hosts = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
  }
  std::shared_ptr<const Rules> rules;
  if (!LoadRules({}, &rules).ok()) return 1;
  gen::Bundle b = MakeIncident("xid79", hosts, 0);
  test::SimOptions sim;
  sim.batch_events = 50;
  sim.include_metrics = false;
  std::vector<test::AgentPost> posts = test::PostsFromBundle(b, rules->matcher, sim);
  size_t events_per_round = 0;
  for (const auto& p : posts) events_per_round += p.body["events"].size();
  fmt::print("{} hosts: {} events in {} batches per round, {} rounds\n", hosts, events_per_round, posts.size(), rounds);

  const std::string dir = std::filesystem::temp_directory_path() / fmt::format("aegis-ctl-bench-{}", getpid());
  std::filesystem::create_directories(dir);
  ControllerOptions o;
  o.db = "sqlite:" + dir + "/aegis.db";
  o.sqlite_sync_full = sync == "full";
  o.settle_s = 60;
  o.slow_check_s = 0;
  o.max_isolate_share = 1;
  o.hang_after_s = 1e9;
  o.max_ingest_in_flight = 2 * threads;
  o.http_threads = threads + 8;
  o.name = "bench";
  std::unique_ptr<Controller> c;
  if (Status s = Controller::Open(o, &c); !s.ok()) {
    fmt::print(stderr, "{}\n", s.ToString());
    return 1;
  }
  HttpApi api(c.get());
  if (Status s = api.Start("127.0.0.1", 0); !s.ok()) return 1;
  c->Start();
  const int port = api.port();
  {
    httplib::Client cl("127.0.0.1", port);
    cl.Put("/api/v1/topology", test::TopologyText(b), "application/json");
    cl.Post("/api/v1/jobs", test::RunningJobText(b), "application/json");
    const double now = Env::Default()->NowEpochSeconds();
    for (int i = 0; i < hosts; ++i)  // every agent known
      cl.Post("/api/v1/events", test::HeartbeatPost(b.N(i).host, now - 600, "hb0-" + b.N(i).host).body.dump(),
              "application/json");
  }

  // 1. Ingest. Each round sends every batch again under new ids (new events).
  std::vector<double> rates;
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::string> bodies;
    for (auto p : posts) {
      for (auto& e : p.body["events"]) e["id"] = fmt::format("r{}-{}", round, e["id"].get<std::string>());
      bodies.push_back(p.body.dump());
    }
    std::atomic<size_t> next{0}, failed{0};
    const double cpu0 = ProcessCpuSeconds();
    const auto t0 = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        httplib::Client cl("127.0.0.1", port);
        cl.set_keep_alive(true);
        cl.set_tcp_nodelay(true);  // as the agent's sender
        for (size_t i; (i = next++) < bodies.size();)
          if (Post(cl, "/api/v1/events", bodies[i]) != 200) ++failed;
      });
    for (auto& t : pool) t.join();
    const double s = Seconds(t0, Clock::now());
    const double cpu_us = (ProcessCpuSeconds() - cpu0) / static_cast<double>(events_per_round) * 1e6;
    rates.push_back(static_cast<double>(events_per_round) / s);
    fmt::print("ingest round {}: {} events in {:.2f} s = {:.0f} events/s, {:.0f} us of CPU each ({} posts sent again, {} failed)\n",
               round, events_per_round, s, rates.back(), cpu_us, retries.exchange(0), failed.load());
  }
  // Let the decision loop catch up with everything before timing decisions.
  while (c->health().events_fed.load() < c->health().events_accepted.load())
    std::this_thread::sleep_for(std::chrono::milliseconds(10));

  // 2. Verdict latency: the job ends, every agent reports after the end; the last report
  // completes the picture. Each run is another job (a day later: its own events).
  std::vector<double> latencies;
  httplib::Client cl("127.0.0.1", port);
  for (int run = 0; run < 3; ++run) {
    gen::Bundle job = run == 0 ? std::move(b) : MakeIncident("xid79", hosts, run);
    if (run > 0) {
      Post(cl, "/api/v1/jobs", test::RunningJobText(job));
      for (const auto& p : test::PostsFromBundle(job, rules->matcher, sim)) Post(cl, "/api/v1/events", p.body.dump());
      while (c->health().events_fed.load() < c->health().events_accepted.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    auto end = cl.Post(fmt::format("/api/v1/jobs/{}/end", job.c.job_id).c_str(),
                       json{{"state", "failed"}, {"ended_at", FormatIsoTime(job.c.end)}}.dump(), "application/json");
    const std::string inc = json::parse(end->body)["incident"];
    const double after = Env::Default()->NowEpochSeconds() + 0.001;
    for (int i = 0; i + 1 < hosts; ++i)
      Post(cl, "/api/v1/events", test::HeartbeatPost(job.N(i).host, after, fmt::format("hb-{}-{}", run, i)).body.dump());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto t0 = Clock::now();
    Post(cl, "/api/v1/events", test::HeartbeatPost(job.N(hosts - 1).host, after, fmt::format("hb-{}-last", run)).body.dump());
    for (;;) {
      auto r = cl.Get(("/api/v1/incidents/" + inc).c_str());
      if (r && json::parse(r->body)["decided_at"].is_string()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    latencies.push_back(Seconds(t0, Clock::now()));
    fmt::print("verdict latency run {}: {:.0f} ms\n", run, latencies.back() * 1000);
  }
  // 4. Reports: empty batches from every agent, answered from memory with the scope.
  double reports_per_s = 0, cpu_us_per_report = 0;
  {
    std::vector<std::string> bodies;
    json running = {{"id", "bench-reports"}, {"hosts", json::array()}};
    for (int i = 0; i < hosts; ++i) {
      const std::string host = fmt::format("node-{:04d}", i + 1);
      running["hosts"].push_back(host);
      bodies.push_back(json{{"node", host}, {"agent", "a"}, {"events", json::array()}}.dump());
    }
    Post(cl, "/api/v1/jobs", running.dump());  // every node runs a job: each answer names it
    const size_t total = bodies.size() * 8;
    std::atomic<size_t> next{0}, failed{0};
    const double cpu0 = ProcessCpuSeconds();
    const auto t0 = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (size_t i; (i = next++) < total;) {
          httplib::Client client("127.0.0.1", port);
          if (Post(client, "/api/v1/events", bodies[i % bodies.size()]) != 200) ++failed;
        }
      });
    for (auto& t : pool) t.join();
    const double s = Seconds(t0, Clock::now());
    reports_per_s = static_cast<double>(total) / s;
    cpu_us_per_report = (ProcessCpuSeconds() - cpu0) / static_cast<double>(total) * 1e6;
    fmt::print("reports: {} empty posts in {:.2f} s = {:.0f} posts/s, {:.0f} us of CPU each (server and clients); "
               "{} agents reporting every second: {:.1f}% of a core ({} failed)\n",
               total, s, reports_per_s, cpu_us_per_report, hosts, cpu_us_per_report * hosts / 1e4, failed.load());
  }
  const std::string metrics = cl.Get("/metrics")->body;
  for (const char* line : {"aegis_verdict_latency_seconds_sum", "aegis_verdict_latency_seconds_count"})
    if (size_t at = metrics.find(std::string("\n") + line); at != std::string::npos)
      fmt::print("  {}\n", metrics.substr(at + 1, metrics.find('\n', at + 1) - at - 1));
  api.Stop();
  c->Stop();

  // 3. Re-deciding a live incident after one new event: an Xid (decided by the first stage)
  // and a root diagnosis over every host's distributed errors.
  std::vector<std::string> summary;
  for (const char* scenario : {"xid79", "rootdiag"}) {
    gen::Bundle inc = MakeIncident(scenario, hosts, 0);
    size_t events = 0;
    std::string verdict;
    double decide_only = 0;
    const double t = Redecide(inc, *rules, &events, &verdict, &decide_only);
    fmt::print("re-decide {}: {} events held, verdict {}; one new event + decision: median {:.2f} ms "
               "(Decide alone {:.2f} ms)\n",
               scenario, events, verdict, t * 1000, decide_only * 1000);
    summary.push_back(fmt::format("{} {:.2f} ms", scenario, t * 1000));
  }
  fmt::print("\nSUMMARY ({} hosts, SQLite synchronous={}) ingest {:.0f} events/s (median of {}), verdict latency {:.0f} ms "
             "(median of {}), re-decide {}, {}\n",
             hosts, sync, Median(rates), rates.size(), Median(latencies) * 1000, latencies.size(), summary[0], summary[1]);
  fmt::print("SUMMARY reports: {:.0f} empty posts/s, {:.0f} us CPU each; {} agents every second: {:.1f}% of a core\n",
             reports_per_s, cpu_us_per_report, hosts, cpu_us_per_report * hosts / 1e4);
  std::filesystem::remove_all(dir);
  return 0;
}
