// The words a line model reads (learn/line_model.h): a log line reduced to what its
// program said rather than what it was about. Numbers, hex values, IPv4 addresses, PCI
// addresses and paths become one placeholder each (a model that learnt "10.0.0.3" would
// know one host, not a failure), camelCase is split into its words, everything is lower
// case, and punctuation that only separates is dropped. Pure and thread-safe; any bytes in
// (invalid UTF-8, control characters), at most one word per input byte out.
#pragma once
#include <string>
#include <string_view>

namespace aegis {

// Space-separated words of `line`, e.g. "NCCL WARN Connect to 10.0.0.3<4242> failed" ->
// "nccl warn connect to ipaddr 0 failed".
std::string LineWords(std::string_view line);

}  // namespace aegis
