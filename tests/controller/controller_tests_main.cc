// controller_tests: the controller's suite. A PostgreSQL test run by hand (outside
// ctest's fixture) brings its own server; it is stopped at the end.
#include <gtest/gtest.h>

#include "pg_server.h"

namespace {

class OwnServerCleanup : public ::testing::Environment {
 public:
  void TearDown() override { aegis::store::test::StopOwnPgServer(); }
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new OwnServerCleanup);
  return RUN_ALL_TESTS();
}
