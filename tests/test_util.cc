#include "test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "sources/bundle_source.h"

namespace aegis::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "aegis-test-XXXXXX").string();
  char* p = mkdtemp(tmpl.data());
  if (!p) std::abort();
  path_ = p;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void WriteFile(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const Catalog& ShippedCatalog() {
  static const Catalog* c = new Catalog(Catalog::Load({}));
  return *c;
}

const Matcher& ShippedMatcher() {
  static const Matcher* m = new Matcher(ShippedCatalog());
  return *m;
}

Verdict Diagnose(const std::string& bundle_dir) {
  Verdict v;
  Status s = DiagnoseBundle(bundle_dir, ShippedMatcher(), {}, &v);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return v;
}

}  // namespace aegis::test
