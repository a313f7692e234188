//===- Json.h - a small JSON reader for the launcher ------------*- C++ -*-===//
//
// Enough JSON to read manifests: objects (key order kept), arrays, strings
// with every escape (\uXXXX and surrogate pairs as UTF-8), numbers (kept as
// int64 when integral and in range, also as double), true/false/null. No
// third-party library, so the launcher builds where only a compiler is.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_RUNTIME_JSON_H
#define PALLAS_RUNTIME_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pallas_rt {
namespace json {

class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;
  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isNumber() const { return kind_ == Kind::Number; }
  /// A number written without fraction or exponent that fits in int64.
  bool isInteger() const { return kind_ == Kind::Number && integral_; }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  bool boolean() const { return bool_; }
  double number() const { return number_; }
  int64_t integer() const { return integer_; }
  const std::string &string() const { return string_; }
  const std::vector<Value> &array() const { return array_; }
  const std::vector<std::pair<std::string, Value>> &object() const {
    return object_;
  }
  /// The member `key` of an object, or nullptr (also when not an object).
  const Value *find(const std::string &key) const;

  /// "null", "a boolean", "a number", "a string", "an array", "an object".
  static const char *kindName(Kind kind);

private:
  friend class Parser;
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  bool integral_ = false;
  double number_ = 0;
  int64_t integer_ = 0;
  std::string string_;
  std::vector<Value> array_;
  std::vector<std::pair<std::string, Value>> object_;
};

/// Parses the whole of `text` (one value, surrounded by optional
/// whitespace). On failure returns false and sets `error` to a message that
/// names the byte offset, line and column of the problem.
bool parse(const std::string &text, Value &out, std::string &error);

} // namespace json
} // namespace pallas_rt

#endif
