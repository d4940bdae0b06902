// A strict reader of the Prometheus text exposition format, for the tests of the agent's
// /metrics page and of what each source adds to it.
#pragma once
#include <cstdlib>
#include <map>
#include <regex>
#include <string>

namespace aegis::agent::testing {

// A strict reader of the text exposition format (version 0.0.4): every sample belongs to a
// family announced by HELP and TYPE lines before it; names and labels are well formed.
struct Exposition {
  std::map<std::string, std::string> type, help;
  // "name{a="x",b="y"}" (labels sorted as written) -> value
  std::map<std::string, double> samples;
  std::string error;

  static Exposition Parse(const std::string& text) {
    Exposition e;
    const std::regex name_re("[a-zA-Z_:][a-zA-Z0-9_:]*");
    std::string family;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) {
        e.error = "no newline at the end";
        return e;
      }
      std::string line = text.substr(pos, nl - pos);
      pos = nl + 1;
      if (line.rfind("# HELP ", 0) == 0) {
        const size_t sp = line.find(' ', 7);
        family = line.substr(7, sp - 7);
        e.help[family] = sp == std::string::npos ? "" : line.substr(sp + 1);
        continue;
      }
      if (line.rfind("# TYPE ", 0) == 0) {
        const size_t sp = line.find(' ', 7);
        const std::string name = line.substr(7, sp - 7), type = line.substr(sp + 1);
        if (name != family || !e.help.count(name)) e.error = "TYPE without HELP: " + name;
        if (type != "counter" && type != "gauge") e.error = "bad type " + type;
        e.type[name] = type;
        continue;
      }
      size_t i = 0;
      while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
      const std::string name = line.substr(0, i);
      if (!std::regex_match(name, name_re)) e.error = "bad name " + name;
      if (name != family || !e.type.count(name)) e.error = "sample outside its family: " + name;
      std::string key = name;
      if (i < line.size() && line[i] == '{') {
        key += '{';
        ++i;
        while (i < line.size() && line[i] != '}') {
          size_t eq = line.find('=', i);
          const std::string label = line.substr(i, eq - i);
          if (!std::regex_match(label, name_re) || eq + 1 >= line.size() || line[eq + 1] != '"') {
            e.error = "bad label in " + line;
            return e;
          }
          std::string value;
          size_t j = eq + 2;
          for (; j < line.size() && line[j] != '"'; ++j) {
            if (line[j] == '\\' && j + 1 < line.size()) {
              ++j;
              value += line[j] == 'n' ? '\n' : line[j];
            } else {
              value += line[j];
            }
          }
          key += label + "=\"" + value + "\"";
          i = j + 1;
          if (i < line.size() && line[i] == ',') {
            key += ',';
            ++i;
          }
        }
        key += '}';
        ++i;
      }
      if (i >= line.size() || line[i] != ' ') {
        e.error = "no value in " + line;
        return e;
      }
      const std::string v = line.substr(i + 1);
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0') e.error = "bad value in " + line;
      if (e.samples.count(key)) e.error = "sample twice: " + key;
      e.samples[key] = d;
    }
    return e;
  }
};

}  // namespace aegis::agent::testing
