#include "agent/source_registry.h"

#include <algorithm>

namespace aegis::agent {

Status SourceRegistry::Register(const std::string& name, SourceFactory factory) {
  if (name.empty()) return Status::InvalidArgument("a source needs a name");
  if (factories_.count(name)) {
    std::string msg = "agent source \"";
    msg.append(name).append("\" is registered twice");
    return Status::AlreadyExists(msg);
  }
  factories_[name] = std::move(factory);
  return Status::Ok();
}

Status SourceRegistry::Create(const std::string& name, const SourceContext& ctx, std::unique_ptr<Source>* out) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::string known;
    for (const auto& [n, f] : factories_) {
      if (!known.empty()) known += ", ";
      known += n;
    }
    std::string msg = "unknown agent source \"";
    msg.append(name).append("\" (known: ").append(known.empty() ? "none" : known).append(")");
    return Status::InvalidArgument(msg);
  }
  out->reset();
  if (Status s = it->second(ctx, out); !s.ok()) return s;
  if (!*out) {
    std::string msg = "agent source \"";
    msg.append(name).append("\" built nothing");
    return Status::InvalidArgument(msg);
  }
  return Status::Ok();
}

std::vector<std::string> SourceRegistry::names() const {
  std::vector<std::string> v;
  for (const auto& [n, f] : factories_) v.push_back(n);
  return v;
}

std::vector<std::string> SourceNamesFor(const AgentConfig& c) {
  std::vector<std::string> names;
  if (c.kernel_log == "kmsg") names.push_back("kmsg");
  else if (c.kernel_log == "journald") names.push_back("journald");
  else if (!IsOff(c.kernel_log)) names.push_back("kernel_file");
  if (!c.train_logs.empty()) names.push_back("train_logs");
  if (!IsOff(c.ccl_socket) || !c.ccl_dir.empty()) names.push_back("ccl");
  names.push_back("node_sampler");
  if (!IsOff(c.facts)) names.push_back("facts");
  return names;
}

SourceList::SourceList(Env* env) : env_(env ? env : Env::Default()) {}

Status SourceList::Build(const SourceRegistry& registry, const std::vector<std::string>& names,
                         const SourceContext& ctx) {
  std::vector<std::unique_ptr<Entry>> built;
  for (const auto& name : names) {
    auto e = std::make_unique<Entry>();
    if (Status s = registry.Create(name, ctx, &e->source); !s.ok()) return s;
    built.push_back(std::move(e));
  }
  for (auto& e : built) entries_.push_back(std::move(e));
  return Status::Ok();
}

void SourceList::Add(std::unique_ptr<Source> source) {
  auto e = std::make_unique<Entry>();
  e->source = std::move(source);
  entries_.push_back(std::move(e));
}

SourcePass SourceList::Timed(size_t i, const std::function<SourcePass()>& pass) {
  SourceStats& st = entries_[i]->stats;
  const double start = env_->NowMonotonicSeconds();
  const SourcePass r = pass();
  st.last_run_s.store(std::max(0.0, env_->NowMonotonicSeconds() - start), std::memory_order_relaxed);
  st.runs.fetch_add(1, std::memory_order_relaxed);
  if (r.failed) st.errors.fetch_add(1, std::memory_order_relaxed);
  return r;
}

SourcePass SourceList::OnReadable(size_t i, double now) {
  return Timed(i, [&] { return entries_[i]->source->OnReadable(now); });
}

SourcePass SourceList::Poll(size_t i, const SourceTick& tick) {
  return Timed(i, [&] { return entries_[i]->source->Poll(tick); });
}

void SourceList::Render(PromText* p) const {
  p->Family("aegis_agent_source_runs_total", "counter", "Passes of each source (input read, periodic work).");
  for (const auto& e : entries_)
    p->Sample("aegis_agent_source_runs_total", {{"source", e->source->name()}}, e->stats.runs.load(std::memory_order_relaxed));
  p->Family("aegis_agent_source_errors_total", "counter", "Passes of each source that failed (the agent's log says why).");
  for (const auto& e : entries_)
    p->Sample("aegis_agent_source_errors_total", {{"source", e->source->name()}}, e->stats.errors.load(std::memory_order_relaxed));
  p->Family("aegis_agent_source_last_run_seconds", "gauge", "Duration of each source's last pass.");
  for (const auto& e : entries_)
    p->Sample("aegis_agent_source_last_run_seconds", {{"source", e->source->name()}},
              e->stats.last_run_s.load(std::memory_order_relaxed));
  p->Family("aegis_agent_input_missing", "gauge",
            "1 for each file the agent was told to read that does not exist (a mistyped --kernel-log, say).");
  for (const auto& e : entries_)
    for (const std::string& input : e->source->MissingInputs())
      p->Sample("aegis_agent_input_missing", {{"source", e->source->name()}, {"input", input}}, uint64_t{1});
  for (const auto& e : entries_) e->source->RenderMetrics(p);
}

std::vector<std::string> SourceList::MissingInputs() const {
  std::vector<std::string> out;
  for (const auto& e : entries_)
    for (const std::string& input : e->source->MissingInputs()) out.push_back(e->source->name() + ": " + input);
  return out;
}

}  // namespace aegis::agent
