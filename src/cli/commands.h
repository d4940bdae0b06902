// The subcommands of the aegis CLI; each returns the process exit code.
#pragma once
#include <string>
#include <vector>

#include "match/matcher.h"

namespace aegis {

struct DiagnoseArgs {
  std::string bundle;
  bool json = false;
  int threads = 0;
  std::string prometheus;     // live metrics source
  double window_s = 600;      // outlier window T
  double min_sustained_s = 300;
  double step_s = 15;
  bool classic_outliers = false;
};
int RunDiagnose(const DiagnoseArgs& args, const Matcher& matcher);

struct ClassifyArgs {
  std::vector<std::string> files;
  bool json = false;
};
int RunClassify(const ClassifyArgs& args, const Matcher& matcher);

int RunRulesCheck(const Matcher& matcher);

}  // namespace aegis
