#include "gen/scene.h"

#include <algorithm>

namespace aegis::gen {

using nlohmann::json;

int Scene::Other(std::initializer_list<int> excluded) {
  for (;;) {
    const int n = Rand(Hosts());
    if (std::find(excluded.begin(), excluded.end(), n) == excluded.end()) return n;
  }
}

std::vector<int> Scene::Pick(int count, const std::set<int>& excluded) {
  std::vector<int> candidates;
  for (int n = 0; n < Hosts(); ++n)
    if (!excluded.count(n)) candidates.push_back(n);
  std::shuffle(candidates.begin(), candidates.end(), rng);
  if (static_cast<int>(candidates.size()) > count) candidates.resize(static_cast<size_t>(count));
  return candidates;
}

void Scene::Kernel(int node, double ts, const std::string& msg) { b.Node(node).kernel.Add(ts, KernelLine(N(node), ts, msg)); }

void Scene::Train(int node, int gpu, double ts, const std::string& msg) {
  b.Node(node).train.Add(ts, TrainLine(N(node), b.c.Rank(node, gpu), ts, msg));
}

void Scene::NcclWarn(int node, int gpu, double ts, const std::string& msg) {
  Train(node, gpu, ts, NcclHeader(N(node), gpu, kPidBase + gpu) + msg);
}

void Scene::Expect(const char* action, const char* cause, const char* stage) {
  b.expected["action"] = action;
  b.expected["cause"] = cause;
  b.expected["stage"] = stage;
  if (!b.expected.contains("isolate")) b.expected["isolate"] = json::array();
  if (!b.expected.contains("repair")) b.expected["repair"] = json::array();
}

void Scene::ExpectIsolate(int node, const std::string& component, const std::string& device) {
  if (!b.expected.contains("isolate")) b.expected["isolate"] = json::array();
  b.expected["isolate"].push_back(
      {{"host", N(node).host}, {"component", component}, {"device", device.empty() ? json(nullptr) : json(device)}});
}

void Scene::ExpectRepair(json repair) {
  if (!b.expected.contains("repair")) b.expected["repair"] = json::array();
  b.expected["repair"].push_back(std::move(repair));
}

}  // namespace aegis::gen
