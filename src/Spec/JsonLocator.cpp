//===- JsonLocator.cpp - source positions of JSON values ------------------===//
#include "pallas/Spec/JsonLocator.h"

#include <string>

using namespace mlir::pallas;

/// Values nested deeper than this are skipped, not recorded: no spec field is
/// that deep, and recording every level would take stack per level and
/// memory quadratic in the depth (each path repeats its parent's).
static constexpr unsigned kMaxRecordedDepth = 16;

JsonLocator::JsonLocator(llvm::StringRef text) : text(text) {
  skipSpace();
  scanValue("", 0);
}

std::pair<unsigned, unsigned> JsonLocator::here() {
  // `pos` only moves forward: count the newlines since the last call rather
  // than from the start (which is quadratic in the number of values).
  for (; counted < pos && counted < text.size(); ++counted)
    if (text[counted] == '\n') {
      ++line;
      lineStart = counted + 1;
    }
  return {line, static_cast<unsigned>(pos - lineStart + 1)};
}

void JsonLocator::skipSeparator() {
  skipSpace();
  if (pos < text.size() && text[pos] == ',') {
    ++pos;
    skipSpace();
  }
}

void JsonLocator::skipSpace() {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                               text[pos] == '\t' || text[pos] == '\r'))
    ++pos;
}

void JsonLocator::scanString() {
  ++pos; // opening quote
  while (pos < text.size() && text[pos] != '"')
    pos += text[pos] == '\\' ? 2 : 1;
  ++pos; // closing quote
}

void JsonLocator::skipValue() {
  if (pos >= text.size())
    return;
  if (text[pos] == '"') {
    scanString();
    return;
  }
  if (text[pos] != '{' && text[pos] != '[') {
    scanScalar();
    return;
  }
  // A container: to the bracket that closes it, without recursing.
  size_t depth = 0;
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '"') {
      scanString();
      continue;
    }
    ++pos;
    if (c == '{' || c == '[')
      ++depth;
    else if ((c == '}' || c == ']') && --depth == 0)
      return;
  }
}

void JsonLocator::scanScalar() {
  while (pos < text.size() && !llvm::StringRef(",]} \n\t\r").contains(text[pos]))
    ++pos;
}

void JsonLocator::scanValue(const std::string &path, unsigned depth) {
  if (depth > kMaxRecordedDepth) {
    skipValue();
    return;
  }
  positions[path] = here();
  if (pos >= text.size())
    return;
  char c = text[pos];
  if (c == '{') {
    ++pos;
    skipSpace();
    while (pos < text.size() && text[pos] != '}') {
      size_t keyStart = pos + 1;
      scanString();
      std::string key = text.slice(keyStart, pos - 1).str();
      skipSpace();
      ++pos; // ':'
      skipSpace();
      scanValue(path.empty() ? key : path + "." + key, depth + 1);
      skipSeparator();
    }
    ++pos;
    return;
  }
  if (c == '[') {
    ++pos;
    skipSpace();
    for (unsigned i = 0; pos < text.size() && text[pos] != ']'; ++i) {
      scanValue(path + "[" + std::to_string(i) + "]", depth + 1);
      skipSeparator();
    }
    ++pos;
    return;
  }
  if (c == '"') {
    scanString();
    return;
  }
  scanScalar();
}

std::pair<unsigned, unsigned> JsonLocator::find(llvm::StringRef path) const {
  std::string p = path.str();
  while (true) {
    auto it = positions.find(p);
    if (it != positions.end())
      return it->second;
    size_t cut = p.find_last_of(".[");
    if (cut == std::string::npos)
      return {1, 1};
    p = p.substr(0, cut);
  }
}
