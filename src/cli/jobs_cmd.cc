#include "cli/jobs_cmd.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "bundle/bundle_reader.h"
#include "common/json_check.h"
#include "common/text.h"

namespace aegis {

CLI::App* AddJobsCommand(CLI::App& app, JobsArgs* a) {
  auto* jobs = app.add_subcommand("jobs", "tell the controller a job started or ended");
  jobs->require_subcommand(1);
  a->start = jobs->add_subcommand("start", "a job started: register it (job.json, state running)");
  AddClientOptions(a->start, &a->client);
  a->start->add_option("--job", a->job, "job.json of the job")->required()->check(CLI::ExistingFile);
  a->end = jobs->add_subcommand("end", "a job ended: failed or hung opens an incident and decides it; done closes it");
  AddClientOptions(a->end, &a->client);
  a->end->add_option("--job", a->job, "the job's id")->required();
  a->end->add_option("--state", a->state, "how it ended")->required()->check(CLI::IsMember({"failed", "hung", "slow", "done"}));
  return jobs;
}

int RunJobs(const JobsArgs& a) {
  controller::Reply reply;
  int rc = 0;
  if (*a.start) {
    std::string body;
    if (Status s = ReadSmallFile(a.job, &body, 16u << 20); !s.ok()) return Fail(s.message());
    rc = CallController(a.client, "POST", "/api/v1/jobs", body, &reply);
  } else {
    if (!IsSafeName(a.job)) return Fail("--job \"" + a.job + "\" is not a job id");
    nlohmann::json body = {{"state", a.state}};
    rc = CallController(a.client, "POST", "/api/v1/jobs/" + a.job + "/end", body.dump(), &reply);
  }
  if (rc != 0) return rc;
  std::fwrite(reply.body.data(), 1, reply.body.size(), stdout);
  if (*a.start) {
    const auto answer = nlohmann::json::parse(reply.body, nullptr, false);
    const auto it = answer.is_object() ? answer.find("hosts_not_in_service") : answer.end();
    if (it != answer.end() && it->is_array())
      for (const auto& h : *it)
        if (h.is_object() && h.value("host", "") != "")
          std::fprintf(stderr, "aegis: warning: the job runs on %s, which is %s\n",
                       SanitizeForOutput(h.value("host", ""), 200).c_str(), SanitizeForOutput(h.value("state", ""), 32).c_str());
  }
  return 0;
}

}  // namespace aegis
