#include <gtest/gtest.h>

#include "engine/verdict.h"

namespace aegis {
namespace {

Verdict Full() {
  Verdict v;
  v.job = "job-1";
  v.kind = Kind::kHang;
  v.action = Action::kRepair;
  v.cause = Cause::kConfig;
  v.stage = Stage::kConfigCheck;
  v.isolate.push_back({"node-3", Component::kNic, "mlx5_1"});
  v.repair.push_back({"node-4", Component::kConfig, "NCCL_IB_GID_INDEX", "", "0", "3", ""});
  v.repair.push_back({"node-5", Component::kSwitchPort, "", "Ethernet8", "", "", "leaf-2"});
  v.offline = {"node-6"};
  v.evidence.push_back({"node-3", "nodes/node-3/kernel.log", 42, "xid-79", "NVRM: Xid 79", 812345, 913402, 1764500000.5});
  v.history.push_back({"node-3", "nodes/node-3/kernel.log", 7, "xid-48", "old", 1, 0, NAN});
  v.missing = {"nodes/node-9/kernel.log"};
  v.unreadable.push_back({"nodes/node-2/train.log", "cut at 1 MiB"});
  v.confidence = {Strength::kHigh, 0.87, "3 independent reporters"};
  v.summary = "repair node-4";
  return v;
}

TEST(VerdictParse, ReadsBackEverythingItWrote) {
  const std::string text = VerdictToJson(Full());
  Verdict read;
  ASSERT_TRUE(VerdictFromJson(text, &read).ok());
  EXPECT_EQ(VerdictToJson(read), text);
  EXPECT_EQ(read.action, Action::kRepair);
  EXPECT_EQ(read.repair[1].switch_name, "leaf-2");
  EXPECT_EQ(read.evidence[0].count, 812345u);
}

TEST(VerdictParse, RefusalsNameTheField) {
  Verdict v;
  auto why = [&](const std::string& text) { return VerdictFromJson(text, &v).message(); };
  EXPECT_NE(why("[]").find("verdict"), std::string::npos);
  EXPECT_NE(why(R"({"kind":"failure","action":"reboot","cause":"unknown","stage":"offline"})").find("verdict.action"),
            std::string::npos);
  EXPECT_NE(why(R"({"kind":"failure","action":"offline","cause":"unknown","stage":"offline","isolate":[{"host":"a","component":"toaster"}]})")
                .find("component"),
            std::string::npos);
  EXPECT_NE(why(R"({"kind":"failure","action":"offline","cause":"unknown"})").find("stage"), std::string::npos);
  EXPECT_NE(why(R"({"kind":"failure","action":"offline","cause":"unknown","stage":"offline","evidence":[{"line":"x"}]})")
                .find("line"),
            std::string::npos);
}

}  // namespace
}  // namespace aegis
