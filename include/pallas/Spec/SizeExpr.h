//===- SizeExpr.h - integer expressions over symbolic sizes -----*- C++ -*-===//
//
// A grid entry of a spec with symbolic sizes (`"cdiv(M, 128)"`): integer
// literals, size names, `+ - *`, and `cdiv(a, b)`, `min(a, b)`, `max(a, b)`.
// The compiler parses it from the spec and the launchers evaluate it from the
// manifest, so this header needs nothing but the C++ standard library.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_SPEC_SIZEEXPR_H
#define PALLAS_SPEC_SIZEEXPR_H

#include <cctype>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pallas_size {

struct SizeExpr {
  enum class Kind { Constant, Name, Add, Sub, Mul, Cdiv, Min, Max };
  Kind kind = Kind::Constant;
  int64_t value = 0;
  std::string name;
  /// Two operands for every kind but Constant and Name.
  std::vector<SizeExpr> operands;

  /// Parses `text`; on failure sets `error` and the 0-based `column` of the
  /// problem and returns nothing.
  static std::optional<SizeExpr> parse(const std::string &text,
                                       std::string &error, size_t &column) {
    Parser p{text, 0, error, column, 0};
    std::optional<SizeExpr> e = p.expr();
    if (e) {
      p.skipSpace();
      if (p.at != text.size()) {
        p.fail("unexpected '" + std::string(1, text[p.at]) + "'");
        return std::nullopt;
      }
    }
    return e;
  }

  /// The canonical text: `cdiv(M, 128)`, `M * 2 + 1`, parenthesised only
  /// where needed.
  std::string str() const { return print(0); }

  /// A C expression over int64_t variables (`name` gives each size's C
  /// text); cdiv rounds up for the non-negative values a valid launch has.
  std::string c(const std::function<std::string(const std::string &)> &name) const {
    switch (kind) {
    case Kind::Constant:
      return "INT64_C(" + std::to_string(value) + ")";
    case Kind::Name:
      return name(this->name);
    default:
      break;
    }
    std::string a = operands[0].c(name), b = operands[1].c(name);
    switch (kind) {
    case Kind::Add:
      return "(" + a + " + " + b + ")";
    case Kind::Sub:
      return "(" + a + " - " + b + ")";
    case Kind::Mul:
      return "(" + a + " * " + b + ")";
    case Kind::Cdiv:
      return "((" + a + " + " + b + " - 1) / " + b + ")";
    case Kind::Min:
      return "(" + a + " < " + b + " ? " + a + " : " + b + ")";
    default:
      return "(" + a + " > " + b + " ? " + a + " : " + b + ")";
    }
  }

  /// Size names in order of first appearance (each once).
  void names(std::vector<std::string> &out) const {
    if (kind == Kind::Name) {
      for (const std::string &n : out)
        if (n == name)
          return;
      out.push_back(name);
    }
    for (const SizeExpr &o : operands)
      o.names(out);
  }

  /// The value for the sizes `lookup` gives; nothing on int64 overflow, a
  /// cdiv by a non-positive number or a name `lookup` does not know.
  std::optional<int64_t>
  evaluate(const std::function<std::optional<int64_t>(const std::string &)> &lookup) const {
    switch (kind) {
    case Kind::Constant:
      return value;
    case Kind::Name:
      return lookup(name);
    default:
      break;
    }
    std::optional<int64_t> a = operands[0].evaluate(lookup);
    std::optional<int64_t> b = operands[1].evaluate(lookup);
    if (!a || !b)
      return std::nullopt;
    int64_t r;
    switch (kind) {
    case Kind::Add:
      if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt;
      return r;
    case Kind::Sub:
      if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt;
      return r;
    case Kind::Mul:
      if (__builtin_mul_overflow(*a, *b, &r)) return std::nullopt;
      return r;
    case Kind::Cdiv:
      if (*b <= 0) return std::nullopt;
      // Rounds toward +infinity for either sign of a.
      return *a / *b + ((*a % *b) > 0 ? 1 : 0);
    case Kind::Min:
      return *a < *b ? *a : *b;
    case Kind::Max:
      return *a > *b ? *a : *b;
    default:
      return std::nullopt;
    }
  }

private:
  static int precedence(Kind k) {
    switch (k) {
    case Kind::Add:
    case Kind::Sub:
      return 1;
    case Kind::Mul:
      return 2;
    default:
      return 3;
    }
  }

  std::string print(int context) const {
    switch (kind) {
    case Kind::Constant:
      return std::to_string(value);
    case Kind::Name:
      return name;
    case Kind::Cdiv:
    case Kind::Min:
    case Kind::Max: {
      const char *fn = kind == Kind::Cdiv ? "cdiv" : kind == Kind::Min ? "min" : "max";
      return std::string(fn) + "(" + operands[0].print(0) + ", " +
             operands[1].print(0) + ")";
    }
    default:
      break;
    }
    int prec = precedence(kind);
    const char *op = kind == Kind::Add ? " + " : kind == Kind::Sub ? " - " : " * ";
    // Left-associative: the right operand of `-` (and of any operator of the
    // same level) needs parentheses when it is itself of that level.
    std::string s = operands[0].print(prec) + op + operands[1].print(prec + 1);
    return prec < context ? "(" + s + ")" : s;
  }

  struct Parser {
    const std::string &text;
    size_t at;
    std::string &error;
    size_t &column;
    /// Open parentheses and calls; bounded so that no input exhausts the stack.
    int depth;
    static constexpr int kMaxDepth = 32;

    void skipSpace() {
      while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
        ++at;
    }
    std::nullopt_t fail(const std::string &message) {
      if (error.empty()) {
        error = message;
        column = at;
      }
      return std::nullopt;
    }
    bool take(char c) {
      skipSpace();
      if (at < text.size() && text[at] == c) {
        ++at;
        return true;
      }
      return false;
    }
    static SizeExpr binary(Kind k, SizeExpr a, SizeExpr b) {
      SizeExpr e;
      e.kind = k;
      e.operands.push_back(std::move(a));
      e.operands.push_back(std::move(b));
      return e;
    }
    std::optional<SizeExpr> expr() {
      std::optional<SizeExpr> lhs = term();
      while (lhs) {
        Kind k;
        if (take('+'))
          k = Kind::Add;
        else if (take('-'))
          k = Kind::Sub;
        else
          break;
        std::optional<SizeExpr> rhs = term();
        if (!rhs)
          return std::nullopt;
        lhs = binary(k, std::move(*lhs), std::move(*rhs));
      }
      return lhs;
    }
    std::optional<SizeExpr> term() {
      std::optional<SizeExpr> lhs = factor();
      while (lhs && take('*')) {
        std::optional<SizeExpr> rhs = factor();
        if (!rhs)
          return std::nullopt;
        lhs = binary(Kind::Mul, std::move(*lhs), std::move(*rhs));
      }
      return lhs;
    }
    std::optional<SizeExpr> factor() {
      skipSpace();
      if (at >= text.size())
        return fail("expected a number, a size name or '(' at the end");
      char c = text[at];
      if ((c == '(' || std::isalpha(static_cast<unsigned char>(c))) && depth >= kMaxDepth)
        return fail("expression nests deeper than 32 levels");
      if (c == '(') {
        ++at;
        ++depth;
        std::optional<SizeExpr> e = expr();
        --depth;
        if (e && !take(')'))
          return fail("expected ')'");
        return e;
      }
      if (std::isdigit(static_cast<unsigned char>(c))) {
        SizeExpr e;
        while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
          if (e.value > (INT64_MAX - 9) / 10)
            return fail("integer literal is too large");
          e.value = e.value * 10 + (text[at++] - '0');
        }
        return e;
      }
      if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_'))
        return fail("expected a number, a size name or '(', got '" +
                    std::string(1, c) + "'");
      size_t start = at;
      while (at < text.size() && (std::isalnum(static_cast<unsigned char>(text[at])) ||
                                  text[at] == '_'))
        ++at;
      std::string word = text.substr(start, at - start);
      bool isFunction = word == "cdiv" || word == "min" || word == "max";
      skipSpace();
      if (!isFunction) {
        if (at < text.size() && text[at] == '(') {
          at = start;
          return fail("unknown function '" + word + "' (expected cdiv, min or max)");
        }
        SizeExpr e;
        e.kind = Kind::Name;
        e.name = word;
        return e;
      }
      if (!take('('))
        return fail("expected '(' after '" + word + "'");
      ++depth;
      std::optional<SizeExpr> a = expr();
      if (!a)
        return std::nullopt;
      if (!take(','))
        return fail("expected ',' between the operands of '" + word + "'");
      std::optional<SizeExpr> b = expr();
      --depth;
      if (!b)
        return std::nullopt;
      if (!take(')'))
        return fail("expected ')' after the operands of '" + word + "'");
      Kind k = word == "cdiv" ? Kind::Cdiv : word == "min" ? Kind::Min : Kind::Max;
      return binary(k, std::move(*a), std::move(*b));
    }
  };
};

} // namespace pallas_size

#endif
