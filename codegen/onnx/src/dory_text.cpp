#include "ctile/onnx/dory_text.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>

namespace ctile::onnx {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == ',' ||
                   s[e - 1] == '\\'))
    --e;
  return s.substr(b, e - b);
}

}  // namespace

dory_file read_dory_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open '" + path + "'");
  dory_file r;
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    ++n;
    const std::string t = trim(line);
    if (t.empty()) continue;
    const char c0 = t[0];
    const bool numeric = (c0 >= '0' && c0 <= '9') || c0 == '-' || c0 == '+' || c0 == '.';
    if (!numeric) {
      if (r.values.empty() && r.header.empty()) {
        r.header = line;
        continue;
      }
      throw std::runtime_error(path + ":" + std::to_string(n) + ": not a number: '" + t + "'");
    }
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0' || errno != 0 || !std::isfinite(v))
      throw std::runtime_error(path + ":" + std::to_string(n) + ": not a number: '" + t + "'");
    if (v != std::floor(v) || std::fabs(v) > 9.0e15)
      throw std::runtime_error(path + ":" + std::to_string(n) + ": not an integer: '" + t + "'");
    r.values.push_back(static_cast<std::int64_t>(v));
  }
  return r;
}

void write_dory_file(const std::string& path, const std::string& header,
                     std::span<const std::int32_t> values) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write '" + path + "'");
  f << header << ",\\\n";
  for (std::int32_t v : values) f << v << ",\\\n";
  if (!f) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace ctile::onnx
