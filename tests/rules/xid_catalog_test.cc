// The Xid and SXid catalogues: the shipped data is complete and consistent, the decode
// cases classify their own real sample lines through the real scanner, the behaviours
// NVIDIA documents hold, and bad catalogue files are refused with their file and entry.
#include "rules/xid_catalog.h"

#include <gtest/gtest.h>

#include <regex>

#include "logs/scanner.h"
#include "rules/catalog.h"
#include "rules_check/samples_check.h"
#include "test_util.h"

namespace aegis {
namespace {

const XidCatalogs& Shipped() { return test::ShippedCatalog().xid_catalogs(); }

// Every event of `text` (one or more log lines) as the engine's scanner classifies them.
std::vector<LogEvent> Scan(const std::string& text) {
  ScanOptions o;
  o.year = 2026;
  Scanner scanner(test::ShippedMatcher(), o);
  std::vector<LogEvent> events;
  scanner.ScanText(text, [&](LogEvent&& e) { events.push_back(std::move(e)); });
  return events;
}

// The class the scanner gives the one record of `line`.
LineClass ClassOf(const std::string& line) {
  auto events = Scan(line + "\n");
  EXPECT_EQ(events.size(), 1u) << line;
  return events.empty() ? LineClass::kNone : events.front().line_class;
}

TEST(ShippedXidCatalog, EveryEntryHasBucketNameSourceAndTheMappedClass) {
  for (XidTable t : {XidTable::kXid, XidTable::kSxid}) {
    const XidTableData& table = Shipped().table(t);
    ASSERT_FALSE(table.entries.empty());
    for (const auto& [number, x] : table.entries) {
      SCOPED_TRACE(std::string(ToString(t)) + " " + std::to_string(number));
      EXPECT_FALSE(x.name.empty());
      EXPECT_FALSE(x.source.empty());
      EXPECT_FALSE(Shipped().ActionOf(x).empty());
      ASSERT_TRUE(table.buckets.count(x.bucket)) << x.bucket;
      const LineClass mapped = table.buckets.at(x.bucket).line_class;
      // The one mapping, or a written deviation from it.
      if (x.deviation.empty()) EXPECT_EQ(x.line_class, mapped);
      else EXPECT_NE(x.line_class, mapped);
      // Sources are expanded citations, not the short names of the data file.
      EXPECT_GT(x.source.size(), 20u);
    }
  }
}

TEST(ShippedXidCatalog, DeviationsAreTheDocumentedFew) {
  std::vector<int> deviating;
  for (const auto& [number, x] : Shipped().table(XidTable::kXid).entries)
    if (!x.deviation.empty()) {
      deviating.push_back(number);
      EXPECT_GT(x.deviation.size(), 40u) << "Xid " << number << " needs a real reason";
    }
  EXPECT_EQ(deviating, (std::vector<int>{13, 31, 43, 45, 167, 169}));
  for (const auto& [number, x] : Shipped().table(XidTable::kSxid).entries) EXPECT_TRUE(x.deviation.empty()) << number;
}

TEST(ShippedXidCatalog, MappingFromBucketToClass) {
  const auto& b = Shipped().table(XidTable::kXid).buckets;
  for (const char* critical : {"RESET_GPU", "RESTART_BM", "RESTART_VM", "CHECK_MECHANICALS", "WORKFLOW_XID_48",
                               "WORKFLOW_NVLINK_ERR", "WORKFLOW_NVLINK5_ERR"})
    EXPECT_EQ(b.at(critical).line_class, LineClass::kCritical) << critical;
  for (const char* hint : {"RESTART_APP", "IGNORE", "CONTACT_SUPPORT", "UPDATE_SWFW", "CHECK_UVM", "WORKFLOW_XID_45",
                           "XID_154", "UNLISTED"})
    EXPECT_EQ(b.at(hint).line_class, LineClass::kHint) << hint;
  for (const auto& [name, bucket] : Shipped().table(XidTable::kSxid).buckets)
    EXPECT_EQ(bucket.line_class, name == "IGNORE" ? LineClass::kHint : LineClass::kCritical) << name;
}

TEST(ShippedXidCatalog, DecodeSamplesClassifyAsDeclaredThroughTheScanner) {
  for (const auto& p : CheckDecodeSamples(test::ShippedMatcher(), /*require_samples=*/true)) ADD_FAILURE() << p;
  size_t checked = 0;
  for (XidTable t : {XidTable::kXid, XidTable::kSxid}) {
    const XidTableData& table = Shipped().table(t);
    std::vector<const XidDecode*> cases;
    for (const auto& [number, x] : table.entries)
      for (const auto& c : x.decode) cases.push_back(&c);
    for (const auto& c : table.common_decode) cases.push_back(&c);
    for (const XidDecode* c : cases)
      for (const auto& sample : c->samples) {
        EXPECT_EQ(ClassOf(sample), c->line_class) << c->where << ": " << sample;
        ++checked;
      }
  }
  EXPECT_GE(checked, 15u);
}

TEST(XidDecode, NvlinkFiveNonfatalIsAHintAndFatalIsCritical) {
  // The real lines' layout with each NVLink5 Xid number.
  const std::string nonfatal =
      "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 "
      "0x00000000 0x00100000 0x00000004)";
  const std::string fatal =
      "[171167.620236] NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 0x00000000 "
      "0x00000000 0x00000000 0x00000000 0x00000000)";
  for (int x = 144; x <= 150; ++x) {
    const std::string n = std::to_string(x);
    EXPECT_EQ(ClassOf(std::regex_replace(nonfatal, std::regex(": 145, "), ": " + n + ", ")), LineClass::kHint) << x;
    EXPECT_EQ(ClassOf(std::regex_replace(fatal, std::regex(": 149, "), ": " + n + ", ")), LineClass::kCritical) << x;
  }
  // No token (older drivers, other formats): the bucket's class.
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:3b:00): 145, pid=41233, name=python, NVLink: fatal error detected on link 7"),
            LineClass::kCritical);
  // The same tokens mean nothing to other Xids.
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:01:00): 63, SAW_MVB Fatal XC0 i0 Link 0"), LineClass::kHint);
}

TEST(XidDecode, Xid149LinkDownSubcodesThatNvidiaIgnores) {
  // https://github.com/leptonai/gpud/pull/1160: subcode 38 (IGNORE) and 37 (RESET_GPU).
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x026001c6 0x00000000 "
                    "0x00000000 0x00000000 0x00000000 0x00000000)"),
            LineClass::kHint);
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000 "
                    "0x00000000 0x00000000 0x00000000 0x00000000)"),
            LineClass::kCritical);
  // Subcode 40 (101000): IGNORE too.
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x028001c6 0x00000000)"),
            LineClass::kHint);
}

TEST(XidDecode, Xid154FollowsTheRecoveryActionItNames) {
  const std::string head = "NVRM: Xid (PCI:0009:01:00): 154, GPU recovery action changed from ";
  EXPECT_EQ(ClassOf(head + "0x1 (GPU Reset Required) to 0x0 (None)"), LineClass::kHint);
  EXPECT_EQ(ClassOf(head + "0x0 (None) to 0x1 (GPU Reset Required)"), LineClass::kCritical);
  EXPECT_EQ(ClassOf(head + "0x0 (None) to 0x2 (Node Reboot Required)"), LineClass::kCritical);
  EXPECT_EQ(ClassOf(head + "0x0 (None) to 0x3 (Drain P2P)"), LineClass::kCritical);
  EXPECT_EQ(ClassOf(head + "0x0 (None) to 0x4 (Drain and Reset)"), LineClass::kCritical);
  EXPECT_EQ(ClassOf(head + "0x0 (None) to 0x1 (PF FLR)"), LineClass::kCritical);
}

TEST(XidDecode, ContainedAndUncontainedMemoryErrorsAsNvidiaDocuments) {
  // 94: RESTART_APP (the GPU stays usable); 95: RESET_GPU.
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:00:08): 94, pid='<unknown>', name=<unknown>, Contained: SM (0x1). RST: No, "
                    "D-RST: No"),
            LineClass::kHint);
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:3b:00): 95, pid=41233, name=python, Uncontained: FBHUB. RST: Yes, D-RST: No"),
            LineClass::kCritical);
}

TEST(XidDecode, ApplicationXidsAreTheJobsOwn) {
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:01:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 1, SM 1): MMU Fault"),
            LineClass::kUser);
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:01:00): 31, pid=14292, name=python, Ch 00000030, intr 00000000. MMU Fault"),
            LineClass::kUser);
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:00:05): 43, pid=1045242, name=pt_main_thread, Ch 00000008"), LineClass::kUser);
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:34:00): 45, Ch 00000010"), LineClass::kUser);
  // ... unless it names the Xid that caused it: that one decides.
  EXPECT_EQ(ClassOf("kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous "
                    "Xid 149"),
            LineClass::kHint);
}

TEST(XidDecode, UnknownNumbersAreRecordedNeverACause) {
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0000:01:00): 999, something new"), LineClass::kHint);
  EXPECT_EQ(ClassOf("nvidia-nvswitch0: SXid (PCI:0000:c2:00.0): 99999, Non-fatal, Link 28 new"), LineClass::kHint);
  // An SXid's own token still decides for a number the catalogue does not know.
  EXPECT_EQ(ClassOf("nvidia-nvswitch0: SXid (PCI:0000:c2:00.0): 99999, Fatal, Link 28 new"), LineClass::kCritical);
}

TEST(SxidDecode, TheReportsTokenDecides) {
  // 12028 and 19084 are fatal in NVIDIA's mapping; the driver still reports them
  // non-fatal when they were (NVIDIA: non-fatal SXids are informational).
  EXPECT_EQ(ClassOf("nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error "
                    "(First)"),
            LineClass::kHint);
  EXPECT_EQ(ClassOf("nvidia-nvswitch4: SXid (PCI:0000:c6:00.0): 19084, Non-fatal, Link 29 AN1 Heartbeat Timeout Error "
                    "(First)"),
            LineClass::kHint);
  EXPECT_EQ(ClassOf("nvidia-nvswitch0: SXid (PCI:0000:c2:00.0): 20034, Fatal, Link 28 LTSSM Fault Up"),
            LineClass::kCritical);
  EXPECT_EQ(ClassOf("nvidia-nvswitch1: SXid (PCI:0000:aa:00.0): 24007, Severity 1 Engine instance 12 Sub-engine "
                    "instance 00"),
            LineClass::kCritical);
  // No token: the entry's bucket (10002 HOST_PRIV_TIMEOUT is IGNORE).
  EXPECT_EQ(ClassOf("nvidia-nvswitch2: SXid (PCI:0000:c4:00.0): 10002, Severity 5 Engine instance 00 Sub-engine "
                    "instance 00"),
            LineClass::kHint);
}

TEST(SxidDecode, AReportIsJudgedByItsTokensNotItsDataLine) {
  // NVIDIA Fabric Manager user guide, SXid error log example: a non-fatal report.
  auto events = Scan(
      "nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 28006, Non-fatal, Link 46 MC TS crumbstore MCTO (First)\n"
      "nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 28006, Severity 0 Engine instance 46 Sub-engine instance 00\n"
      "nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 28006, Data {0x00140004, 0x00100000, 0x00140004, 0x00000000, "
      "0x00000000, 0x00000000, 0x00000000, 0x00000000}\n");
  ASSERT_EQ(events.size(), 3u);
  for (const auto& e : events) EXPECT_EQ(e.line_class, LineClass::kHint) << e.text;
  // A fatal report: its first two lines are critical; the raw data line stays a hint
  // although 20034's bucket is RESET_GPU.
  events = Scan(
      "nvidia-nvswitch0: SXid (PCI:0000:a9:00.0): 20034, Fatal, Link 28 LTSSM Fault Up\n"
      "nvidia-nvswitch0: SXid (PCI:0000:a9:00.0): 20034, Severity 1 Engine instance 28 Sub-engine instance 00\n"
      "nvidia-nvswitch0: SXid (PCI:0000:a9:00.0): 20034, Data {0x50610002, 0x10100030}\n");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].line_class, LineClass::kCritical);
  EXPECT_EQ(events[1].line_class, LineClass::kCritical);
  EXPECT_EQ(events[2].line_class, LineClass::kHint);
}

TEST(XidDecode, NewerDriversAndRedactedAddresses) {
  // Newer drivers print pid= and name= before the NVLink5 unit (gpud test data).
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0018:01:00): 145, pid=876767, name=ray::WorkerDict, RLW_RXPIPE Nonfatal XC0 i0 "
                    "Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)"),
            LineClass::kHint);
  EXPECT_EQ(ClassOf("NVRM: Xid (PCI:0008:01:00): 145, pid=11436, name=cache_mgr_main, RLW_SRC_TRACK Fatal XC1 i0 Link "
                    "03 (0x040868e2 0x00000001 0x00000000 0x00000000 0x00000000 0x00000000)"),
            LineClass::kCritical);
  // https://github.com/NVIDIA/nccl/issues/2241: the reporter redacted the address.
  auto events = Scan("kernel: NVRM: Xid (PCI:...): 137, RLW_RXPIPE interrupt hit on link 11 on GPU0: PRIV Error\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].xid, 137);
  EXPECT_EQ(events[0].line_class, LineClass::kHint);
  EXPECT_TRUE(events[0].Field("pci").empty());
}

// --- Loading: every mistake is refused with its file and entry. ---

const std::pair<std::string, std::string> kRule = {
    "rules/logs/x.yaml", "rules:\n  - {id: xid, class: xid, component: gpu, pattern: 'NVRM: Xid \\((?P<pci>[0-9a-f:]+)\\): (?P<xid>\\d+)'}\n"};

const std::string kBuckets = R"(
buckets:
  RESET_GPU: {class: critical, action: "reset it"}
  IGNORE: hint
)";

// The CatalogError text of loading `xids_yaml` as a built-in file (empty: it loaded).
std::string LoadError(const std::string& xids_yaml) {
  try {
    Catalog::FromSources({kRule, {"rules/t.yaml", xids_yaml}});
  } catch (const CatalogError& e) {
    return e.what();
  }
  return "";
}

TEST(XidCatalogLoading, RefusesBadDataNamingFileAndEntry) {
  struct Case {
    std::string yaml, expect;
  };
  const std::vector<Case> cases = {
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: REBOOT_IT, source: s}\n", "unknown bucket 'REBOOT_IT'"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, class: critical, source: s}\n", "without a 'deviation'"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, class: hint, source: s}\n", "write class only to deviate"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, deviation: why, source: s}\n", "without a class"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, source: s}\n", "needs a bucket"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE}\n", "without source"},
      {kBuckets + "xids:\n  - {xid: 7, bucket: IGNORE, source: s}\n", "without name"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, source: s, component: gpu0}\n", "unknown component"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, source: s}\n  - {xid: 7, name: m, bucket: IGNORE, source: s}\n",
       "duplicate entry"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, source: s, decode: [{pattern: 'a(', class: hint, reason: r}]}\n",
       "bad pattern"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, source: s, decode: [{pattern: 'a', class: hint}]}\n",
       "without reason"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, source: s, decode: [{pattern: 'a', reason: r}]}\n",
       "needs a class or a bucket"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, source: s, decode: [{pattern: 'a', class: fatal, reason: r}]}\n",
       "unknown class 'fatal'"},
      {kBuckets + "common_decode:\n  - {pattern: 'a', bucket: NOPE, reason: r}\nxids: []\n", "unknown bucket 'NOPE'"},
      {kBuckets + "xids:\n  - {xid: 7, name: n, bucket: IGNORE, source: s, decode: [{pattern: 'a', class: hint, reason: r, only: [7]}]}\n",
       "'only' belongs to common_decode"},
      {"buckets:\n  IGNORE: hint\n", "give exactly one of 'xids' or 'sxids'"},
      {"buckets:\n  IGNORE: {action: x}\nxids: []\n", "bucket without class"},
      {kBuckets + "xids:\n  - {name: n, bucket: IGNORE, source: s}\n", "entry without 'xid'"},
      {kBuckets + "xids:\n  - {xid: seven, name: n, bucket: IGNORE, source: s}\n", "rules/t.yaml"},
  };
  for (const auto& c : cases) {
    const std::string err = LoadError(c.yaml);
    EXPECT_NE(err.find(c.expect), std::string::npos) << "got: " << err << "\nfor:\n" << c.yaml;
    EXPECT_NE(err.find("rules/t.yaml"), std::string::npos) << err;
  }
  // Entry errors name the entry.
  EXPECT_NE(LoadError(cases[0].yaml).find("(xid 7)"), std::string::npos);
  // A clean file loads.
  EXPECT_EQ(LoadError(kBuckets + "xids:\n  - {xid: 7, name: n, bucket: RESET_GPU, source: s}\n"), "");
}

TEST(XidCatalogLoading, SourcesExpandAndActionsComeFromTheBucket) {
  Catalog c = Catalog::FromSources(
      {kRule, {"rules/t.yaml", "sources: {cat: 'The long citation of the catalogue'}\n" + kBuckets +
                                   "xids:\n  - {xid: 7, name: n, bucket: RESET_GPU, source: cat}\n"
                                   "  - {xid: 8, name: m, bucket: IGNORE, source: 'a literal source', action: 'own'}\n"}});
  const XidInfo* x7 = c.FindXid(7);
  ASSERT_NE(x7, nullptr);
  EXPECT_EQ(x7->source, "The long citation of the catalogue");
  EXPECT_EQ(c.xid_catalogs().ActionOf(*x7), "reset it");
  EXPECT_EQ(x7->line_class, LineClass::kCritical);
  EXPECT_EQ(c.FindXid(8)->source, "a literal source");
  EXPECT_EQ(c.xid_catalogs().ActionOf(*c.FindXid(8)), "own");
}

TEST(XidCatalogLoading, OperatorOverridesByNumber) {
  test::TempDir dir;
  test::WriteFile(dir.Sub("site.yaml"), R"(
xids:
  # A site that drains on every NVLink5 Xid, whatever the token says.
  - {xid: 145, class: critical, decode: []}
  # A new number, with a class and no bucket.
  - {xid: 900, class: critical, name: "our BMC's forwarded GPU fault"}
  # A bucket change: the class follows the new bucket.
  - {xid: 121, bucket: RESET_GPU}
common_decode:
  - {pattern: 'SITE-DRAIN', class: critical, reason: 'our tooling marks lines to drain'}
)");
  Catalog c = Catalog::Load({dir.path()});
  const XidInfo* x145 = c.FindXid(145);
  ASSERT_NE(x145, nullptr);
  EXPECT_TRUE(x145->decode.empty());
  EXPECT_EQ(x145->bucket, "WORKFLOW_NVLINK5_ERR");  // kept from the built-in entry
  EXPECT_EQ(x145->name, "NVLINK: RLW Error");
  EXPECT_TRUE(x145->from_operator);
  EXPECT_NE(x145->where.find("site.yaml"), std::string::npos);
  const XidInfo* x900 = c.FindXid(900);
  ASSERT_NE(x900, nullptr);
  EXPECT_EQ(x900->line_class, LineClass::kCritical);
  EXPECT_NE(x900->source.find("site.yaml"), std::string::npos);
  EXPECT_EQ(c.FindXid(121)->line_class, LineClass::kCritical);
  // The operator's common case comes before the built-in ones, and still only decides
  // after the entry's own cases.
  const auto& common = c.xid_catalogs().table(XidTable::kXid).common_decode;
  ASSERT_FALSE(common.empty());
  EXPECT_EQ(common.front().pattern, "SITE-DRAIN");
  XidDecision d = c.ClassifyXid(XidTable::kXid, 63, "NVRM: Xid (PCI:0000:01:00): 63, SITE-DRAIN", LineClass::kHint, "gpu");
  EXPECT_EQ(d.line_class, LineClass::kCritical);
  // Dropping an entry's own decode leaves the shared NVLink5 cases: a Nonfatal line is
  // still a hint (a site that wants otherwise adds a common case with `only`).
  d = c.ClassifyXid(XidTable::kXid, 145, "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13",
                    LineClass::kHint, "gpu");
  EXPECT_EQ(d.line_class, LineClass::kHint);
  ASSERT_NE(d.decode, nullptr);
  EXPECT_EQ(d.decode->bucket, "IGNORE");
}

TEST(XidCatalogClassify, DecisionNamesEntryAndCase) {
  const Catalog& c = test::ShippedCatalog();
  XidDecision d = c.ClassifyXid(XidTable::kXid, 79, "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus",
                                LineClass::kHint, "gpu");
  EXPECT_EQ(d.line_class, LineClass::kCritical);
  ASSERT_NE(d.info, nullptr);
  EXPECT_EQ(d.info->bucket, "RESTART_BM");
  EXPECT_EQ(d.decode, nullptr);
  d = c.ClassifyXid(XidTable::kNone, 79, "x", LineClass::kDist, "nic");
  EXPECT_EQ(d.line_class, LineClass::kDist);
  EXPECT_EQ(d.component, "nic");
  EXPECT_EQ(d.info, nullptr);
}

}  // namespace
}  // namespace aegis
