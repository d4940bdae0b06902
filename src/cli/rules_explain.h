// `aegis rules explain xid N` / `aegis rules explain sxid N` [--json]: one entry of the Xid
// or NVSwitch SXid catalogue, for a person (name, NVIDIA's bucket, the class and how it
// follows from the bucket or why it deviates, component, decode cases, source, what to
// do) or as one JSON object. Exit 0; 2 with one line on stderr for an unknown table or
// number. Reads only the loaded catalogue.
#pragma once
#include <string>

#include "rules/catalog.h"

namespace aegis {

struct ExplainArgs {
  std::string table;   // "xid" or "sxid"
  std::string number;  // as typed, checked here so that every bad input gets one line
  bool json = false;
};
int RunRulesExplain(const ExplainArgs& args, const Catalog& catalog);

// The entry as RunRulesExplain prints it (text ends with a newline; JSON is one line).
std::string ExplainText(const XidCatalogs& catalogues, const XidInfo& entry);
std::string ExplainJson(const XidCatalogs& catalogues, const XidInfo& entry);

}  // namespace aegis
