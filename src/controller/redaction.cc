#include "controller/redaction.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <functional>

namespace aegis::controller {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

bool TokenChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'; }
bool IsToken(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), TokenChar); }
bool HasAlpha(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

bool ParseIpv4(std::string_view s, int octets[4]) {
  int part = 0, digits = 0, value = 0;
  for (char c : s) {
    if (c == '.') {
      if (digits == 0 || part == 3) return false;
      octets[part++] = value;
      value = digits = 0;
    } else if (std::isdigit(static_cast<unsigned char>(c)) && digits < 3) {
      value = value * 10 + (c - '0');
      ++digits;
    } else {
      return false;
    }
    if (value > 255) return false;
  }
  if (part != 3 || digits == 0) return false;
  octets[3] = value;
  return true;
}

// Each match of `re` in `text` replaced by fn(groups); groups[0] is the whole match.
template <class F>
std::string ReplaceEach(std::string_view text, const RE2& re, F fn) {
  const int n = re.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> g(static_cast<size_t>(n));
  std::string out;
  size_t pos = 0;
  while (pos < text.size() && re.Match(text, pos, text.size(), RE2::UNANCHORED, g.data(), n)) {
    const size_t start = static_cast<size_t>(g[0].data() - text.data());
    size_t end = start + g[0].size();
    out.append(text.substr(pos, start - pos));
    out += fn(g);
    if (end == start) out += text[end++];  // an empty match moves on by one character
    pos = end;
  }
  if (pos < text.size()) out.append(text.substr(pos));
  return out;
}

std::string Str(const re2::StringPiece& p) { return std::string(p.data(), p.size()); }

// Keys whose numbers identify a process or a person, never a device.
bool IsIdKey(const std::string& key) { return key == "pid" || key == "tid" || key == "uid" || key == "gid"; }
bool IsHostKey(const std::string& key) { return key == "host" || key == "hostname" || key == "node" || key == "hosts"; }

}  // namespace

// Path characters stop at quotes, brackets, separators and spaces; the character before a
// path (group 1) must not be a word character, so NET/IB and send/recv are no paths.
struct Pseudonymizer::Patterns {
  RE2 url{R"(\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'"()\[\]{},;<>|]+)"};
  RE2 abs_path{R"((^|[\s'"=(\[{,;<>|:])(~[\w.-]*/[^\s'"()\[\]{},;<>|]*|/[\w.~@+-][^\s'"()\[\]{},;<>|]*))"};
  RE2 rel_path{R"((^|[\s'"=(\[{,;<>|:])((?:\.\.?/)?[\w.@+-]+(?:/[\w.@+:-]*)+))"};
  RE2 email{R"(\b[\w.+-]+@[A-Za-z][\w-]*(?:\.[\w-]+)*)"};
  RE2 ids{R"((?i)\b(pid|tid|uid|gid|job ?id|job_id|step ?id|step_id)(\s*[=:]\s*'?|\s+)(\d+))"};
  // "Process 41233 has 77.89 GiB in use"; not "process 3 terminated" (a local rank).
  RE2 process_num{R"(\b([Pp]rocess) \d{3,}\b)"};
  RE2 of_user{R"(\bof user \d+\b)"};
  RE2 process_paren{R"(\b(Process \d+) \([^)\n]*\))"};
  RE2 name_eq{R"(\b(name|comm|Comm|exe|cmd)=([^\s,]+))"};
  RE2 comm_colon{R"(\b(Comm|comm): (\S+))"};
  RE2 task{R"(\btask ([^\s:]+):(\d+))"};
  RE2 mac{R"((?i)\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b)"};
  RE2 ipv6{R"([0-9A-Fa-f:.]*::[0-9A-Fa-f:.]*|(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4})"};
};

Pseudonymizer::Pseudonymizer() : re_(std::make_unique<Patterns>()) {}
Pseudonymizer::~Pseudonymizer() = default;

std::string Pseudonymizer::Name(Kind kind, const std::string& original, const std::string& label) {
  if (original.empty()) return original;
  if (auto it = known_.find(original); it != known_.end()) return it->second;
  std::string prefix;
  switch (kind) {
    case Kind::kHost: prefix = "host"; break;
    case Kind::kSwitch: prefix = "switch"; break;
    case Kind::kPod: prefix = "pod"; break;
    case Kind::kGpu: prefix = "GPU"; break;
    case Kind::kJob: prefix = "job"; break;
    case Kind::kOther:
      for (char c : label)
        if (std::isalnum(static_cast<unsigned char>(c))) prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (prefix.empty() || prefix.size() > 16) prefix = "id";
      break;
  }
  std::string p;
  do {  // never a name that is some other original
    const int n = ++counters_[prefix];
    p = kind == Kind::kGpu ? fmt::format("GPU-00000000-0000-0000-0000-{:012d}", n) : fmt::format("{}-{:03d}", prefix, n);
  } while (kind_.count(p));
  known_[original] = p;
  known_[p] = p;
  kind_[original] = kind;
  if (!IsToken(original)) {  // found by text search, longest first
    literal_.push_back(original);
    std::stable_sort(literal_.begin(), literal_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  }
  return p;
}

void Pseudonymizer::AddTopology(const std::string& text) {
  json t = json::parse(text, nullptr, false);
  if (!t.is_object()) return;
  auto names = [&](const json& v, Kind kind) {
    if (v.is_string()) Name(kind, v.get<std::string>());
    if (v.is_array())
      for (const auto& e : v)
        if (e.is_string()) Name(kind, e.get<std::string>());
  };
  if (t.contains("nodes") && t["nodes"].is_array())
    for (const auto& n : t["nodes"]) {
      if (!n.is_object()) continue;
      names(n.value("host", json()), Kind::kHost);
      names(n.value("pod", json()), Kind::kPod);
      if (n.contains("mgmt_ip") && n["mgmt_ip"].is_string()) Address(n["mgmt_ip"].get<std::string>());
      if (n.contains("gpus") && n["gpus"].is_array())
        for (const auto& g : n["gpus"])
          if (g.is_object()) names(g.value("uuid", json()), Kind::kGpu);
      if (n.contains("nics") && n["nics"].is_array())
        for (const auto& nic : n["nics"]) {
          if (!nic.is_object()) continue;
          names(nic.value("switch", json()), Kind::kSwitch);
          if (nic.contains("ip") && nic["ip"].is_string()) Address(nic["ip"].get<std::string>());
        }
    }
  if (t.contains("switches") && t["switches"].is_array())
    for (const auto& s : t["switches"]) {
      if (!s.is_object()) continue;
      names(s.value("name", json()), Kind::kSwitch);
      names(s.value("pod", json()), Kind::kPod);
      names(s.value("uplinks", json()), Kind::kSwitch);
    }
}

void Pseudonymizer::AddJob(const json& job) {
  if (!job.is_object()) return;
  if (job.contains("id") && job["id"].is_string()) Name(Kind::kJob, job["id"].get<std::string>());
  if (job.contains("hosts") && job["hosts"].is_array())
    for (const auto& h : job["hosts"])
      if (h.is_string()) Host(h.get<std::string>());
  if (job.contains("ranks") && job["ranks"].is_array())
    for (const auto& r : job["ranks"])
      if (r.is_object() && r.contains("host") && r["host"].is_string()) Host(r["host"].get<std::string>());
  if (job.contains("not_before") && job["not_before"].is_object())
    for (const auto& [host, at] : job["not_before"].items()) Host(host);
  // The job's own words (user, name, account, labels, ...): each its own kind of pseudonym.
  std::function<void(const json&, const std::string&)> own = [&](const json& v, const std::string& key) {
    if (v.is_string() && !known_.count(v.get<std::string>())) Name(Kind::kOther, v.get<std::string>(), key);
    if (v.is_array())
      for (const auto& e : v) own(e, key);
    if (v.is_object())
      for (const auto& [k, e] : v.items()) own(e, k);
  };
  for (const auto& [key, v] : job.items())
    if (key != "id" && key != "state" && key != "started_at" && key != "ended_at" && key != "hosts" && key != "ranks" &&
        key != "not_before")
      own(v, key);
}

std::string Pseudonymizer::Address(const std::string& ipv4) {
  int o[4];
  if (!ParseIpv4(ipv4, o)) return ipv4;
  // Loopback, "any" and broadcast name no one.
  if (o[0] == 127 || (o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0) || (o[0] == 255 && o[1] == 255)) return ipv4;
  const std::string key = fmt::format("{}.{}.{}.{}", o[0], o[1], o[2], o[3]);
  if (auto it = known_.find(key); it != known_.end()) return it->second;
  // Link-local and Docker's bridge stay in their range: NCCL's configuration rules read them.
  const std::string range = o[0] == 169 && o[1] == 254 ? "169.254" : o[0] == 172 && o[1] == 17 ? "172.17" : "10.255";
  std::string p;
  do {
    const int n = counters_["ip:" + range]++;  // 10.255.0.1, ... 10.255.0.254, 10.255.1.1
    p = fmt::format("{}.{}.{}", range, (n / 254) % 256, n % 254 + 1);
  } while (kind_.count(p));
  known_[key] = p;
  known_[ipv4] = p;
  known_[p] = p;
  kind_[key] = Kind::kOther;
  return p;
}

std::string Pseudonymizer::Address6(const std::string& ipv6) {
  in6_addr a;
  std::string s = ipv6;
  if (inet_pton(AF_INET6, s.c_str(), &a) != 1) return ipv6;
  if (IN6_IS_ADDR_V4MAPPED(&a)) {
    const std::string v4 = fmt::format("{}.{}.{}.{}", a.s6_addr[12], a.s6_addr[13], a.s6_addr[14], a.s6_addr[15]);
    return "::ffff:" + Address(v4);
  }
  if (IN6_IS_ADDR_LOOPBACK(&a) || IN6_IS_ADDR_UNSPECIFIED(&a)) return ipv6;
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, &a, buf, sizeof buf);
  const std::string key = buf;
  if (auto it = known_.find(key); it != known_.end()) return it->second;
  const bool link_local = IN6_IS_ADDR_LINKLOCAL(&a);
  const int n = ++counters_[link_local ? "ip6:ll" : "ip6"];
  const std::string p = fmt::format("{}::{:x}", link_local ? "fe80" : "fd00", n);
  known_[key] = p;
  known_[p] = p;
  return p;
}

std::string Pseudonymizer::Mac(const std::string& mac) {
  std::string key = mac;
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (key == "00:00:00:00:00:00" || key == "ff:ff:ff:ff:ff:ff") return mac;
  if (auto it = known_.find(key); it != known_.end()) return it->second;
  const int n = ++counters_["mac"];
  const std::string p = fmt::format("02:00:00:00:{:02x}:{:02x}", (n >> 8) & 0xff, n & 0xff);
  known_[key] = p;
  known_[p] = p;
  return p;
}

std::string Pseudonymizer::Path(const std::string& path, bool shaped) {
  if (path.rfind("/redacted/path-", 0) == 0) return path;  // one of ours
  auto [it, fresh] = paths_.emplace(path, "");
  if (fresh) it->second = fmt::format("{:03d}", paths_.size());
  if (!shaped) return "<path-" + it->second + ">";
  // The shape of a path, for a rule that reads one (`[\w./-]+\.py FAILED`): the file's
  // extension is kept.
  std::string ext;
  const size_t slash = path.find_last_of('/'), dot = path.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash) && path.size() - dot <= 9) {
    ext = path.substr(dot);
    if (!std::all_of(ext.begin() + 1, ext.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
      ext.clear();
  }
  return "/redacted/path-" + it->second + ext;
}

const std::string* Pseudonymizer::Known(std::string_view token) const {
  auto it = known_.find(token);
  if (it == known_.end()) return nullptr;
  // A bare number or a very short word is replaced only where it stands alone (a JSON
  // value): as text it would hit counters and common words.
  if (token.size() < 3 || !HasAlpha(token)) return nullptr;
  return &it->second;
}

// Runs of name characters: a known name, an IPv4 address, or known names among the
// run's '-', '_' and '.' separated parts (node-0007-gpu3, alice_run.cluster.local).
std::string Pseudonymizer::Tokens(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (!TokenChar(text[i])) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && TokenChar(text[j])) ++j;
    const std::string_view run = text.substr(i, j - i);
    i = j;
    if (const std::string* p = Known(run)) {
      out += *p;
      continue;
    }
    const size_t last = run.find_last_not_of('.');
    const std::string_view trimmed = run.substr(0, last == std::string_view::npos ? 0 : last + 1);
    const std::string_view dots = run.substr(trimmed.size());
    int o[4];
    if (ParseIpv4(trimmed, o)) {
      out += Address(std::string(trimmed));
      out += dots;
      continue;
    }
    // Parts between separators; the longest known sequence of parts from each part on.
    std::vector<size_t> starts{0}, ends;
    for (size_t k = 0; k < trimmed.size(); ++k)
      if (trimmed[k] == '-' || trimmed[k] == '_' || trimmed[k] == '.') {
        ends.push_back(k);
        starts.push_back(k + 1);
      }
    ends.push_back(trimmed.size());
    size_t part = 0, emitted = 0;
    std::string piece;
    while (part < starts.size()) {
      bool found = false;
      for (size_t last_part = starts.size(); last_part-- > part;) {
        const std::string_view cand = trimmed.substr(starts[part], ends[last_part] - starts[part]);
        const std::string* p = Known(cand);
        if (!p) continue;
        piece += trimmed.substr(emitted, starts[part] - emitted);
        piece += *p;
        emitted = ends[last_part];
        part = last_part + 1;
        found = true;
        // A host's domain names the site: a fully qualified name becomes the host's pseudonym.
        auto kind = kind_.find(cand);
        if (kind != kind_.end() && kind->second == Kind::kHost && emitted < trimmed.size() && trimmed[emitted] == '.') {
          const std::string_view rest = trimmed.substr(emitted + 1);
          if (!rest.empty() && std::isalpha(static_cast<unsigned char>(rest[0]))) {
            emitted = trimmed.size();
            part = starts.size();
          }
        }
        break;
      }
      if (!found) ++part;
    }
    piece += trimmed.substr(emitted);
    out += piece;
    out += dots;
  }
  return out;
}

std::string Pseudonymizer::Text(std::string_view text, bool shaped) {
  std::string s(text);
  for (const std::string& lit : literal_) {
    const std::string& p = known_[lit];
    for (size_t at = s.find(lit); at != std::string::npos; at = s.find(lit, at + p.size())) s.replace(at, lit.size(), p);
  }
  const Patterns& re = *re_;
  s = ReplaceEach(s, re.url, [&](const auto& g) { return Path(Str(g[0]), false); });  // its host, user, path
  s = ReplaceEach(s, re.abs_path, [&](const auto& g) {
    const std::string path = Str(g[2]);
    if (path.rfind("/dev/", 0) == 0 || path.rfind("/sys/", 0) == 0 || path == "/dev" || path == "/sys")
      return Str(g[0]);  // device and sysfs paths name devices, and rules read them
    return Str(g[1]) + Path(path, shaped);
  });
  s = ReplaceEach(s, re.rel_path, [&](const auto& g) {
    const std::string path = Str(g[2]);
    for (const char* own : {"nodes/", "switches/", "metrics/"})  // the bundle's own files
      if (path.rfind(own, 0) == 0) return Str(g[0]);
    std::vector<std::string> parts;
    for (size_t a = 0, b; a <= path.size(); a = b + 1) {
      b = path.find('/', a);
      if (b == std::string::npos) b = path.size();
      parts.push_back(path.substr(a, b - a));
    }
    const bool words = std::all_of(parts.begin(), parts.end(), [](const std::string& p) {
      return std::all_of(p.begin(), p.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
    });  // NET/IB/GIN, TCP/IP, 11/30/2026
    auto file = [](const std::string& p) { return p.find('.') != std::string::npos && HasAlpha(p); };
    const bool path_like = path.rfind("./", 0) == 0 || path.rfind("../", 0) == 0 || parts.size() >= 3 ||
                           file(parts.back()) || file(parts.front());
    if (words || !path_like) return Str(g[0]);
    return Str(g[1]) + Path(path, shaped);
  });
  s = ReplaceEach(s, re.email, [](const auto&) { return std::string("<email>"); });
  s = ReplaceEach(s, re.ids, [](const auto& g) { return Str(g[1]) + Str(g[2]) + "0"; });
  s = ReplaceEach(s, re.process_num, [](const auto& g) { return Str(g[1]) + " 0"; });
  s = ReplaceEach(s, re.of_user, [](const auto&) { return std::string("of user 0"); });
  s = ReplaceEach(s, re.process_paren, [](const auto& g) { return Str(g[1]) + " (<process>)"; });
  s = ReplaceEach(s, re.name_eq, [](const auto& g) { return Str(g[1]) + "=<process>"; });
  s = ReplaceEach(s, re.comm_colon, [](const auto& g) { return Str(g[1]) + ": <process>"; });
  s = ReplaceEach(s, re.task, [](const auto&) { return std::string("task <process>:0"); });
  s = ReplaceEach(s, re.mac, [&](const auto& g) { return Mac(Str(g[0])); });
  s = ReplaceEach(s, re.ipv6, [&](const auto& g) {
    // Not part of a longer word (c10::Error, std::vector), and a real address.
    const std::string m = Str(g[0]);
    const char* begin = s.data();
    const size_t at = static_cast<size_t>(g[0].data() - begin), end = at + m.size();
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    if ((at > 0 && word(s[at - 1])) || (end < s.size() && word(s[end]))) return m;
    std::string addr = m;
    while (!addr.empty() && addr.back() == '.') addr.pop_back();
    const std::string p = Address6(addr);
    return p == addr ? m : p + m.substr(addr.size());
  });
  return Tokens(s);
}

std::string Pseudonymizer::FilePath(const std::string& path) {
  std::vector<std::string> parts;
  for (size_t a = 0, b; a <= path.size(); a = b + 1) {
    b = path.find('/', a);
    if (b == std::string::npos) b = path.size();
    parts.push_back(path.substr(a, b - a));
  }
  if (parts.size() >= 2 && parts[0] == "nodes") {
    parts[1] = Host(parts[1]);
    if (parts.size() >= 4 && parts[2] == "ccl") {  // HOST-PID.jsonl: a host and a process
      auto [it, fresh] = ccl_files_.emplace(path, "");
      if (fresh) {
        const size_t ext = parts.back().find(".jsonl");
        it->second = fmt::format("ccl-{:03d}{}", ccl_files_.size(),
                                 ext == std::string::npos ? std::string(".jsonl") : parts.back().substr(ext));
      }
      parts.back() = it->second;
    }
  } else if (parts.size() == 2 && parts[0] == "switches") {
    std::string name = parts[1];
    const bool log = name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0;
    if (log) name.resize(name.size() - 4);
    parts[1] = Name(Kind::kSwitch, name) + (log ? ".log" : "");
  } else {
    return path;
  }
  std::string out;
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? "/" : "") + parts[k];
  return out;
}

template <class J>
void Pseudonymizer::Walk(J& j, const std::string& key) {
  if (j.is_string()) {
    const std::string s = j.template get<std::string>();
    int o[4];
    if (auto it = known_.find(s); it != known_.end()) j = it->second;
    else if (!s.empty() && s.find_first_not_of("0123456789.eE+-") == std::string::npos && !ParseIpv4(s, o)) return;  // a value
    else if (IsIdKey(key)) j = "0";
    else if (IsHostKey(key) && IsToken(s) && HasAlpha(s)) j = Host(s);  // a container's name in a CCL record
    else j = Text(s);
  } else if (j.is_number() && IsIdKey(key)) {
    j = 0;
  } else if (j.is_array()) {
    for (auto& e : j) Walk(e, key);
  } else if (j.is_object()) {
    J out = J::object();
    for (auto& [k, v] : j.items()) {
      auto it = known_.find(k);
      const std::string name = it != known_.end() ? it->second : Text(k);
      J value = v;
      Walk(value, k);
      out[name] = std::move(value);
    }
    j = std::move(out);
  }
}

void Pseudonymizer::Json(json& j) { Walk(j, ""); }
void Pseudonymizer::Json(ordered_json& j) { Walk(j, ""); }

struct LineRedactor::Compiled {
  std::unique_ptr<RE2> re, unless;
  bool user = false;  // the job's own message: its free text is not shared
};

LineRedactor::LineRedactor(const Catalog& catalog, Pseudonymizer& names) : catalog_(catalog), names_(names) {}
LineRedactor::~LineRedactor() = default;

const std::vector<const LineRedactor::Compiled*>& LineRedactor::Patterns(const std::string& id) {
  auto it = by_id_.find(id);
  if (it != by_id_.end()) return it->second;
  std::vector<const Compiled*>& list = by_id_[id];
  const bool xid = id.rfind("xid-", 0) == 0, sxid = id.rfind("sxid-", 0) == 0;
  for (const Rule& r : catalog_.rules()) {
    const bool fits = r.id == id || (xid && r.xid_table == Rule::XidTable::kXid) ||
                      (sxid && r.xid_table != Rule::XidTable::kNone);
    if (!fits) continue;
    auto c = std::make_unique<Compiled>();
    c->re = std::make_unique<RE2>(r.pattern, RE2::Quiet);
    if (!c->re->ok()) continue;
    if (!r.unless.empty()) {
      c->unless = std::make_unique<RE2>(r.unless, RE2::Quiet);
      if (!c->unless->ok()) c->unless.reset();
    }
    c->user = r.line_class == LineClass::kUser;
    list.push_back(c.get());
    owned_.push_back(std::move(c));
  }
  return list;
}

bool LineRedactor::StillTheRules(const std::string& rule_id, const std::string& text) {
  for (const Compiled* c : Patterns(rule_id))
    if (RE2::PartialMatch(text, *c->re) && !(c->unless && RE2::PartialMatch(text, *c->unless))) return true;
  return false;
}

std::string LineRedactor::Line(const std::string& rule_id, const std::string& text) {
  for (const Compiled* c : Patterns(rule_id)) {
    const int n = c->re->NumberOfCapturingGroups() + 1;
    std::vector<re2::StringPiece> g(static_cast<size_t>(n));
    if (!c->re->Match(text, 0, text.size(), RE2::UNANCHORED, g.data(), n)) continue;
    const char* span_begin = g[0].data();
    std::string span;
    size_t at = 0;  // in g[0]
    for (const auto& [name, index] : c->re->NamedCapturingGroups()) {
      const re2::StringPiece& v = g[static_cast<size_t>(index)];
      if (v.data() == nullptr || v.empty()) continue;
      const std::string value(v.data(), v.size());
      // A remote peer named by a host name the topology does not know is still a host.
      if (name.rfind("peer", 0) == 0 && IsToken(value) && HasAlpha(value) && value.find('.') == std::string::npos &&
          value != "rank")
        names_.Host(value);
      if (c->user && name == "msg" && static_cast<size_t>(v.data() - span_begin) >= at) {
        span.append(span_begin + at, v.data());
        span += "<message>";
        at = static_cast<size_t>(v.data() - span_begin) + v.size();
      }
    }
    span.append(span_begin + at, g[0].size() - at);
    for (bool shaped : {false, true}) {
      std::string out = names_.Text(span, shaped);
      if (StillTheRules(rule_id, out)) return out;
    }
    return "";  // no redaction of it is still the rule's: dropped, not shared whole
  }
  return "";
}

void RedactIncident(ordered_json& incident, LineRedactor& lines, Pseudonymizer& names) {
  if (incident.contains("verdict") && incident["verdict"].is_object()) {
    ordered_json& v = incident["verdict"];
    for (const char* list : {"evidence", "history"}) {
      if (!v.contains(list) || !v[list].is_array()) continue;
      ordered_json kept = ordered_json::array();
      for (ordered_json e : v[list]) {
        if (!e.is_object()) continue;
        const std::string file = e.value("file", "");
        const bool train = file.size() >= 10 && file.compare(file.size() - 10, 10, "/train.log") == 0;
        if (std::string(list) == "history" && train) continue;  // another job's output
        if (e.contains("text") && e["text"].is_string()) {
          const std::string text = e["text"].get<std::string>();
          const bool log_line = e.value("line", 0) > 0 && file.find("/ccl/") == std::string::npos;
          e["text"] = log_line ? lines.Line(e.value("rule", ""), text) : names.Text(text);
        }
        if (!file.empty()) e["file"] = names.FilePath(file);
        kept.push_back(std::move(e));
      }
      if (kept.empty() && std::string(list) == "history") v.erase(list);
      else v[list] = std::move(kept);
    }
    if (v.contains("missing") && v["missing"].is_array())
      for (auto& m : v["missing"])
        if (m.is_string()) m = names.FilePath(m.get<std::string>());
    if (v.contains("unreadable") && v["unreadable"].is_array())
      for (auto& u : v["unreadable"])
        if (u.is_object() && u.contains("file") && u["file"].is_string()) u["file"] = names.FilePath(u["file"].get<std::string>());
  }
  // The controller instance that decided (its host name and pid).
  if (incident.contains("decided_by") && incident["decided_by"].is_string())
    incident["decided_by"] = names.Name(Pseudonymizer::Kind::kOther, incident["decided_by"].get<std::string>(), "controller");
  names.Json(incident);
}

}  // namespace aegis::controller
