// A fresh directory under the system temp dir for one test, removed with the object.
#pragma once
#include <string>

namespace aegis::store::test {

class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace aegis::store::test
