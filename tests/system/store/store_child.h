// The second process of the store's multi-process tests: store_test_child (beside this
// file), built with them; its path comes from the build.
#pragma once
#include <string>

namespace aegis::store::test {

inline std::string ChildProgram() { return AEGIS_STORE_CHILD; }

}  // namespace aegis::store::test
