#include "ctile/solve/json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace ctile::solve {

class json_parser {
 public:
  explicit json_parser(std::string_view t) : t_(t) {}

  json document() {
    json v = value(0);
    skip();
    if (p_ != t_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  std::string_view t_;
  std::size_t p_ = 0;

  [[noreturn]] void fail(const std::string& why) const {
    throw json_error("malformed JSON at byte " + std::to_string(p_) + ": " + why);
  }
  void skip() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t'))
      ++p_;
  }
  bool eat(char c) {
    skip();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(std::string_view w) {
    if (t_.substr(p_, w.size()) == w) {
      p_ += w.size();
      return true;
    }
    return false;
  }

  json value(int depth) {
    if (depth > 64) fail("nesting too deep");
    skip();
    if (p_ >= t_.size()) fail("unexpected end of input");
    json v;
    const char c = t_[p_];
    if (c == '{') {
      ++p_;
      v.kind_ = json::type::object;
      if (eat('}')) return v;
      do {
        skip();
        if (p_ >= t_.size() || t_[p_] != '"') fail("expected a member name");
        std::string k = string();
        expect(':');
        v.o_[k] = value(depth + 1);
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++p_;
      v.kind_ = json::type::array;
      if (eat(']')) return v;
      do v.a_.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind_ = json::type::string;
      v.s_ = string();
    } else if (word("true")) {
      v.kind_ = json::type::boolean;
      v.b_ = true;
    } else if (word("false")) {
      v.kind_ = json::type::boolean;
    } else if (word("null")) {
      v.kind_ = json::type::null;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      number(v);
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    return v;
  }

  std::string string() {
    ++p_;  // opening quote
    std::string s;
    while (true) {
      if (p_ >= t_.size()) fail("unterminated string");
      const char c = t_[p_++];
      if (c == '"') return s;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        s += c;
        continue;
      }
      if (p_ >= t_.size()) fail("unterminated escape");
      const char e = t_[p_++];
      switch (e) {
        case '"':
          s += '"';
          break;
        case '\\':
          s += '\\';
          break;
        case '/':
          s += '/';
          break;
        case 'b':
          s += '\b';
          break;
        case 'f':
          s += '\f';
          break;
        case 'n':
          s += '\n';
          break;
        case 'r':
          s += '\r';
          break;
        case 't':
          s += '\t';
          break;
        case 'u': {
          if (p_ + 4 > t_.size()) fail("short \\u escape");
          unsigned cp = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = t_[p_++];
            cp <<= 4;
            if (h >= '0' && h <= '9')
              cp |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f')
              cp |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
              cp |= static_cast<unsigned>(h - 'A' + 10);
            else
              fail("bad \\u escape");
          }
          if (cp < 0x80) {
            s += static_cast<char>(cp);
          } else if (cp < 0x800) {
            s += static_cast<char>(0xC0 | (cp >> 6));
            s += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            s += static_cast<char>(0xE0 | (cp >> 12));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }

  void number(json& v) {
    const std::size_t start = p_;
    if (t_[p_] == '-') ++p_;
    bool integral = true;
    auto digits = [&] {
      const std::size_t s = p_;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
      if (p_ == s) fail("expected digits");
    };
    digits();
    if (p_ < t_.size() && t_[p_] == '.') {
      ++p_;
      integral = false;
      digits();
    }
    if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
      ++p_;
      integral = false;
      if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
      digits();
    }
    const std::string text(t_.substr(start, p_ - start));
    errno = 0;
    if (integral) {
      char* end = nullptr;
      const long long x = std::strtoll(text.c_str(), &end, 10);
      if (errno == ERANGE) fail("integer out of range");
      v.kind_ = json::type::integer;
      v.i_ = x;
    } else {
      v.kind_ = json::type::number;
      v.d_ = std::strtod(text.c_str(), nullptr);
    }
  }
};

json json::parse(std::string_view text) {
  return json_parser(text).document();
}

std::int64_t json::as_int(const std::string& what) const {
  if (kind_ == type::integer) return i_;
  if (kind_ == type::boolean) return b_ ? 1 : 0;
  throw json_error(what + ": expected an integer");
}
int json::as_int32(const std::string& what) const {
  const std::int64_t v = as_int(what);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw json_error(what + ": integer out of range");
  return static_cast<int>(v);
}
bool json::as_bool(const std::string& what) const {
  if (kind_ == type::boolean) return b_;
  if (kind_ == type::integer && (i_ == 0 || i_ == 1)) return i_ == 1;
  throw json_error(what + ": expected true or false");
}
const std::string& json::as_string(const std::string& what) const {
  if (kind_ != type::string) throw json_error(what + ": expected a string");
  return s_;
}
const std::vector<json>& json::as_array(const std::string& what) const {
  if (kind_ != type::array) throw json_error(what + ": expected an array");
  return a_;
}
const json& json::at(const std::string& key, const std::string& what) const {
  if (kind_ != type::object) throw json_error(what + ": expected an object");
  const auto it = o_.find(key);
  if (it == o_.end()) throw json_error(what + ": missing member \"" + key + "\"");
  return it->second;
}
bool json::has(const std::string& key) const {
  return kind_ == type::object && o_.count(key) != 0;
}

}  // namespace ctile::solve
