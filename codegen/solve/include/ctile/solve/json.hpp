// A small JSON reader (RFC 8259 values; numbers kept as integers when they are integers) for
// the problem files ctile-solve reads. Malformed input throws json_error with the offset.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ctile::solve {

struct json_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class json {
 public:
  enum class type { null, boolean, integer, number, string, array, object };

  json() = default;
  [[nodiscard]] type kind() const { return kind_; }
  [[nodiscard]] bool is_null() const { return kind_ == type::null; }

  /// Parses a whole document (trailing garbage is an error).
  static json parse(std::string_view text);

  /// Accessors throw json_error naming `what` (a path such as "layers[3].problem.H").
  [[nodiscard]] std::int64_t as_int(const std::string& what) const;
  [[nodiscard]] int as_int32(const std::string& what) const;
  [[nodiscard]] bool as_bool(const std::string& what) const;
  [[nodiscard]] const std::string& as_string(const std::string& what) const;
  [[nodiscard]] const std::vector<json>& as_array(const std::string& what) const;
  /// A member of an object (an error if missing).
  [[nodiscard]] const json& at(const std::string& key, const std::string& what) const;
  [[nodiscard]] bool has(const std::string& key) const;

 private:
  friend class json_parser;
  type kind_ = type::null;
  bool b_ = false;
  std::int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<json> a_;
  std::map<std::string, json> o_;
};

}  // namespace ctile::solve
