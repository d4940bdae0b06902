// The Xid and NVSwitch SXid catalogues (rules/xid.yaml, rules/sxid.yaml): for every
// number, NVIDIA's resolution bucket (the immediate action), its name and where that
// came from, the class Algorithm 1 gives it, and the message patterns that change that
// class (the catalogue's decode: an NVLink5 Xid's Fatal / Nonfatal token, the recovery
// action an Xid 154 names, an SXid's Fatal / Non-fatal token).
// The class follows from the bucket by the file's one `buckets` mapping; an entry may
// deviate only with a written `deviation`. Loading validates everything (unknown bucket,
// class without deviation, bad pattern) and names the file, line and entry; patterns are
// compiled once at load. A loaded catalogue is immutable and thread-safe; Classify runs
// once per Xid line and costs a map lookup plus the few decode patterns of that entry.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rules/line_class.h"

namespace re2 {
class RE2;
}
namespace YAML {
class Node;
}

namespace aegis {

enum class XidTable { kNone, kXid, kSxid };
std::string_view ToString(XidTable t);  // "xid", "sxid"

// One message-dependent case of an entry: the first whose pattern matches wins.
struct XidDecode {
  std::string pattern;           // RE2, searched in the record's message (prefixes stripped)
  LineClass line_class = LineClass::kHint;
  std::string bucket;            // NVIDIA's resolution bucket for this case, when one applies
  std::string reason;            // why this case has this class, for people
  std::vector<std::string> samples;  // real lines (whole, as logged) this case must classify
  std::vector<int> only;         // shared decode: the numbers it applies to (empty: all)
  std::string where;             // file:line it was loaded from
  std::shared_ptr<const re2::RE2> re;
  bool AppliesTo(int number) const;
};

// What a resolution bucket means: the class it gives and what an operator does.
struct XidBucket {
  LineClass line_class = LineClass::kHint;
  std::string action;
  std::string where;
};

// One Xid or SXid.
struct XidInfo {
  int xid = 0;
  XidTable table = XidTable::kXid;
  LineClass line_class = LineClass::kHint;  // when no decode case matches
  std::string component;
  std::string name;         // NVIDIA's description
  std::string mnemonic;     // NVIDIA's identifier (ROBUST_CHANNEL_..., NVSWITCH_ERR_HW_...)
  std::string bucket;       // NVIDIA's resolution bucket (immediate action); "" for an operator's new entry
  std::string investigate;  // NVIDIA's investigatory action, when given
  std::string action;       // what an operator should do (the entry's own, else the bucket's)
  std::string source;       // where the facts come from
  std::string deviation;    // why line_class is not the bucket's; "" when it follows the bucket
  std::vector<XidDecode> decode;
  std::string where;        // file:line of the entry that last set it
  bool from_operator = false;
};

// What the catalogue says of one event.
struct XidDecision {
  LineClass line_class = LineClass::kHint;
  std::string component;
  const XidInfo* info = nullptr;      // the entry; nullptr when the number is unknown
  const XidDecode* decode = nullptr;  // the case that decided; nullptr when the entry's class did
};

// One table (Xids or SXids).
struct XidTableData {
  std::map<std::string, XidBucket> buckets;
  std::map<int, XidInfo> entries;
  std::vector<XidDecode> common_decode;  // applied after an entry's own decode
};

class XidCatalogs {
 public:
  // Reads the catalogue keys of one YAML file (`sources`, `buckets`, `common_decode`,
  // `xids`, `sxids`); resolved by Finish once every file is read. Throws CatalogError.
  void AddFile(const YAML::Node& root, const std::string& file, bool from_operator);
  // Applies the entries in file order (an operator's entry overrides one by number),
  // checks buckets, classes and deviations, compiles the patterns. Throws CatalogError.
  void Finish();

  const XidTableData& table(XidTable t) const { return t == XidTable::kSxid ? sxid_ : xid_; }
  const XidInfo* Find(XidTable t, int number) const;
  // What an operator should do: the entry's own action, else its bucket's.
  std::string_view ActionOf(const XidInfo& x) const;
  // The class of an event of `table` with this number and message: the entry's decode,
  // then the table's common decode, then the entry's class; `fallback` (and its
  // component) when the number is unknown and no common case matches.
  XidDecision Classify(XidTable t, int number, std::string_view message, LineClass fallback,
                       std::string_view fallback_component) const;

 private:
  struct Pending {
    std::shared_ptr<YAML::Node> node;
    std::string file;
    bool from_operator = false;
  };
  XidTableData& Mutable(XidTable t) { return t == XidTable::kSxid ? sxid_ : xid_; }
  void ApplyEntry(XidTable t, const Pending& p);

  XidTableData xid_, sxid_;
  std::map<std::string, std::string> sources_;  // short name -> citation
  std::vector<std::pair<XidTable, Pending>> pending_;
  std::vector<std::pair<XidTable, Pending>> pending_decode_;
};

}  // namespace aegis
