#include "gen/bundle_writer.h"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace aegis::gen {

namespace fs = std::filesystem;

namespace {

void WriteFile(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + p.string());
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("cannot write " + p.string());
}

std::string JsonText(const nlohmann::json& j) { return j.dump(2) + "\n"; }

}  // namespace

void WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  WriteFile(tmp, text);
  fs::rename(tmp, path);
}

size_t BundleWriter::Write(Bundle& b) const {
  const fs::path dir(dir_);
  fs::create_directories(dir);
  WriteFile(dir / "topology.json", JsonText(TopologyJson(b.c)));
  WriteFile(dir / "job.json", JsonText(JobJson(b, false)));

  size_t bytes = 0;
  auto log = [&](const fs::path& p, LogFile& f) {
    std::string text = f.Render();
    WriteFile(p, text);
    bytes += text.size();
  };
  for (int i = 0; i < b.Hosts(); ++i) {
    NodeData& nd = b.Node(i);
    if (!nd.has_folder) continue;
    const fs::path node_dir = dir / "nodes" / b.N(i).host;
    fs::create_directories(node_dir);
    if (nd.has_kernel) log(node_dir / "kernel.log", nd.kernel);
    if (nd.has_train) log(node_dir / "train.log", nd.train);
    if (nd.has_facts) WriteFile(node_dir / "facts.json", JsonText(nd.facts));
    for (auto& [gpu, f] : nd.ccl) log(dir / CclPath(b.N(i), gpu), f);
  }
  for (auto& [name, f] : b.switches) log(dir / "switches" / (name + ".log"), f);
  if (!b.probes.empty()) WriteFile(dir / "probes.json", JsonText(b.probes));
  for (const auto& [name, body] : b.metrics) WriteFile(dir / "metrics" / (name + ".json"), body);
  WriteFile(dir / "expected.json", JsonText(b.expected));
  return bytes;
}

}  // namespace aegis::gen
