//===- Json.cpp - a small JSON reader for the launcher --------------------===//
#include "Json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace pallas_rt {
namespace json {

const Value *Value::find(const std::string &key) const {
  if (kind_ != Kind::Object)
    return nullptr;
  for (const auto &member : object_)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

const char *Value::kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Number:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "?";
}

class Parser {
public:
  explicit Parser(const std::string &text) : text_(text) {}

  bool parseDocument(Value &out, std::string &error) {
    skipSpace();
    if (!parseValue(out, 0))
      return report(error);
    skipSpace();
    if (pos_ != text_.size()) {
      fail("unexpected text after the JSON value");
      return report(error);
    }
    return true;
  }

private:
  static constexpr int kMaxDepth = 256;

  const std::string &text_;
  size_t pos_ = 0;
  size_t errorPos_ = 0;
  std::string message_;

  bool fail(const std::string &message) {
    if (message_.empty()) {
      message_ = message;
      errorPos_ = pos_;
    }
    return false;
  }

  bool report(std::string &error) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < errorPos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error = message_ + " at offset " + std::to_string(errorPos_) + " (line " +
            std::to_string(line) + ", column " + std::to_string(column) + ")";
    return false;
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void skipSpace() {
    while (!atEnd() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                        text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool literal(const char *word) {
    size_t start = pos_;
    for (const char *c = word; *c; ++c, ++pos_)
      if (atEnd() || text_[pos_] != *c) {
        pos_ = start;
        return fail("invalid literal");
      }
    return true;
  }

  bool parseValue(Value &out, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth));
    if (atEnd())
      return fail("unexpected end of input, expected a value");
    char c = peek();
    switch (c) {
    case '{':
      return parseObject(out, depth);
    case '[':
      return parseArray(out, depth);
    case '"':
      out.kind_ = Value::Kind::String;
      return parseString(out.string_);
    case 't':
      out.kind_ = Value::Kind::Bool;
      out.bool_ = true;
      return literal("true");
    case 'f':
      out.kind_ = Value::Kind::Bool;
      out.bool_ = false;
      return literal("false");
    case 'n':
      out.kind_ = Value::Kind::Null;
      return literal("null");
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber(out);
      return fail(std::string("unexpected character '") + c + "'");
    }
  }

  bool parseObject(Value &out, int depth) {
    out.kind_ = Value::Kind::Object;
    ++pos_; // '{'
    skipSpace();
    if (peek() == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      skipSpace();
      if (peek() != '"')
        return fail(atEnd() ? "unexpected end of input in an object"
                            : "expected a string key");
      size_t keyPos = pos_;
      std::string key;
      if (!parseString(key))
        return false;
      if (out.find(key)) {
        pos_ = keyPos;
        return fail("duplicate key \"" + key + "\"");
      }
      skipSpace();
      if (peek() != ':')
        return fail("expected ':' after an object key");
      ++pos_;
      skipSpace();
      out.object_.emplace_back(std::move(key), Value());
      if (!parseValue(out.object_.back().second, depth + 1))
        return false;
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return true;
      }
      return fail(atEnd() ? "unexpected end of input in an object"
                          : "expected ',' or '}' in an object");
    }
  }

  bool parseArray(Value &out, int depth) {
    out.kind_ = Value::Kind::Array;
    ++pos_; // '['
    skipSpace();
    if (peek() == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      skipSpace();
      out.array_.emplace_back();
      if (!parseValue(out.array_.back(), depth + 1))
        return false;
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return true;
      }
      return fail(atEnd() ? "unexpected end of input in an array"
                          : "expected ',' or ']' in an array");
    }
  }

  static void appendUtf8(std::string &s, uint32_t cp) {
    if (cp < 0x80) {
      s += char(cp);
    } else if (cp < 0x800) {
      s += char(0xC0 | (cp >> 6));
      s += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += char(0xE0 | (cp >> 12));
      s += char(0x80 | ((cp >> 6) & 0x3F));
      s += char(0x80 | (cp & 0x3F));
    } else {
      s += char(0xF0 | (cp >> 18));
      s += char(0x80 | ((cp >> 12) & 0x3F));
      s += char(0x80 | ((cp >> 6) & 0x3F));
      s += char(0x80 | (cp & 0x3F));
    }
  }

  bool hex4(uint32_t &value) {
    value = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      if (atEnd())
        return fail("unexpected end of input in a \\u escape");
      char c = text_[pos_];
      value <<= 4;
      if (c >= '0' && c <= '9')
        value |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        value |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        value |= uint32_t(c - 'A' + 10);
      else
        return fail("invalid hex digit in a \\u escape");
    }
    return true;
  }

  bool parseString(std::string &out) {
    ++pos_; // '"'
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in a string (escape it)");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (atEnd())
        return fail("unterminated string");
      char e = text_[pos_++];
      switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp;
        if (!hex4(cp))
          return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (pos_ + 1 >= text_.size() || text_[pos_] != '\\' ||
              text_[pos_ + 1] != 'u')
            return fail("high surrogate without a low surrogate");
          pos_ += 2;
          uint32_t low;
          if (!hex4(low))
            return false;
          if (low < 0xDC00 || low > 0xDFFF)
            return fail("high surrogate without a low surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return fail("low surrogate without a high surrogate");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos_;
        return fail(std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  bool parseNumber(Value &out) {
    size_t start = pos_;
    bool integral = true;
    if (peek() == '-')
      ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    } else {
      return fail("invalid number");
    }
    if (peek() == '.') {
      integral = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("invalid number: digits expected after '.'");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos_;
      if (peek() == '+' || peek() == '-')
        ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("invalid number: digits expected in the exponent");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    std::string token = text_.substr(start, pos_ - start);
    out.kind_ = Value::Kind::Number;
    errno = 0;
    out.number_ = std::strtod(token.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(out.number_)) {
      pos_ = start;
      return fail("number out of range");
    }
    if (integral) {
      errno = 0;
      long long v = std::strtoll(token.c_str(), nullptr, 10);
      if (errno == ERANGE) {
        integral = false; // kept as a double only
      } else {
        out.integer_ = v;
      }
    }
    out.integral_ = integral;
    return true;
  }
};

bool parse(const std::string &text, Value &out, std::string &error) {
  out = Value();
  Parser parser(text);
  return parser.parseDocument(out, error);
}

} // namespace json
} // namespace pallas_rt
