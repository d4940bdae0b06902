// Every line of data/real-log-lines.tsv (real lines from public issue threads, labelled by
// incident category) classified as its label says. Lines are classified in the context
// they were posted in (one file per source thread, in order), as `aegis classify` would
// see the log. A category labels a whole incident, so a detail line of a fatal incident
// is expected critical; where the line alone does not prove that (and the line-by-line
// labels of tests/data/corpus agree), the disagreement is listed with its reason.
#include <gtest/gtest.h>

#include <map>

#include "rules/labelled_lines.h"
#include "test_util.h"

namespace aegis {
namespace {

// Where we disagree with a label, and why. Each entry is checked: the line must get
// exactly the class written here.
const std::map<std::string, std::pair<LineClass, std::string>> kDisagreements = {
    {"akash209b",
     {LineClass::kNone,
      "'NVRM: GPU at PCI:...: GPU-<uuid>' is the header the driver prints before a GPU's first Xid; the same line "
      "is labelled 'other' in tinygrad6947a and ogkm1118a. The Xid 79 line after it carries the verdict."}},
    {"tf40042",
     {LineClass::kNone,
      "a step/throughput line; it is labelled gpu_thermal_or_clock/no but names no thermal or clock signal itself."}},
    {"akash209e",
     {LineClass::kHint,
      "the crash-dump notice follows the Xid 79 that decides; alone it proves nothing (corpus k-ak209-e, the same "
      "line, is labelled hint)."}},
    {"gpuburn1f",
     {LineClass::kHint,
      "'device has no AER-aware driver' is a step of any AER recovery, fatal or not; the fatal record before it "
      "decides (corpus k-gb1-i, the same line, is labelled hint)."}},
    {"nccl230b",
     {LineClass::kHint,
      "NCCL's async-event reader failing is the follow-on of the catastrophic error line before it, which is "
      "critical; alone it does not prove the NIC bad (corpus fw-nc230b and k-n230-b are labelled hint)."}},
    {"nccl1936b",
     {LineClass::kHint,
      "'NET/IB : No device found' is the silent fall-back to sockets that the start-up check reports on hosts with "
      "RDMA NICs; recorded as a hint (corpus fw-nc226a)."}},
    {"nccl1837a",
     {LineClass::kHint,
      "NCCL settings taken from the environment are recorded for the diagnosis (and read by the start-up check); "
      "the corpus labels these lines hint (fw-nc1053c, fw-nc1814c)."}},
};

TEST(RealLogLines, ClassifiedAsLabelled) {
  auto rows = test::LoadLabelled(std::string(AEGIS_TEST_DATA) + "/real-log-lines.tsv");
  ASSERT_GE(rows.size(), 80u);
  ScanOptions o;
  o.year = 2026;
  Scanner scanner(test::ShippedMatcher(), o);
  const auto got = test::ClassifyInContext(rows, scanner);
  size_t disagreements = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (auto d = kDisagreements.find(r.id); d != kDisagreements.end()) {
      EXPECT_EQ(got[i], d->second.first) << r.id << " (" << d->second.second << ")";
      ++disagreements;
    } else {
      EXPECT_TRUE(test::ExpectedForCategory(r).count(got[i]))
          << r.id << " [" << r.category << "/" << r.fatal << "] got " << ToString(got[i]) << ": " << r.line;
    }
  }
  EXPECT_EQ(disagreements, kDisagreements.size()) << "a disagreement names a line that is gone";
}

}  // namespace
}  // namespace aegis
