// Bundles written by hand, not by the generator, in forms the generator does not print:
// a Kubernetes job (kernel log from journald, the job's output as the container runtime
// keeps it: "<time> stderr F <line>") and a DeepSpeed job over pdsh ("worker-3: " before
// every line) whose culprit's folder was not collected. Each holds its expected verdict
// (expected.json: action, cause, stage, isolate, repair); every bundle under
// tests/data/bundles is diagnosed and compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "test_util.h"

namespace aegis {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::vector<std::string> Bundles() {
  std::vector<std::string> out;
  for (const auto& d : fs::directory_iterator(std::string(AEGIS_TEST_DATA) + "/bundles"))
    if (d.is_directory()) out.push_back(d.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class HandmadeBundle : public ::testing::TestWithParam<std::string> {};

TEST_P(HandmadeBundle, ReachesItsExpectedVerdict) {
  const std::string dir = std::string(AEGIS_TEST_DATA) + "/bundles/" + GetParam();
  const json want = json::parse(test::ReadFile(dir + "/expected.json"));
  const json got = json::parse(VerdictToJson(test::Diagnose(dir)));
  SCOPED_TRACE(got.dump(2));
  EXPECT_EQ(got["action"], want["action"]);
  EXPECT_EQ(got["cause"], want["cause"]);
  EXPECT_EQ(got["stage"], want["stage"]);
  auto entries = [](const json& list) {
    std::set<std::tuple<std::string, std::string, std::string>> s;
    for (const auto& e : list)
      s.insert({e["host"].get<std::string>(), e["component"].get<std::string>(),
                e.contains("key") ? e["key"].get<std::string>()
                                  : (e.contains("device") && e["device"].is_string() ? e["device"].get<std::string>() : "")});
    return s;
  };
  EXPECT_EQ(entries(got["isolate"]), entries(want["isolate"]));
  EXPECT_EQ(entries(got["repair"]), entries(want["repair"]));
}

INSTANTIATE_TEST_SUITE_P(Bundles, HandmadeBundle, ::testing::ValuesIn(Bundles()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aegis
