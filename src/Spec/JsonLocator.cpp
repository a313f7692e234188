//===- JsonLocator.cpp - source positions of JSON values ------------------===//
#include "pallas/Spec/JsonLocator.h"

#include <string>

using namespace mlir::pallas;

JsonLocator::JsonLocator(llvm::StringRef text) : text(text) {
  skipSpace();
  scanValue("");
}

std::pair<unsigned, unsigned> JsonLocator::here() const {
  llvm::StringRef before = text.take_front(pos);
  unsigned line = 1 + before.count('\n');
  size_t lastNewline = before.rfind('\n');
  unsigned col = lastNewline == llvm::StringRef::npos ? pos + 1 : pos - lastNewline;
  return {line, col};
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

void JsonLocator::scanValue(const std::string &path) {
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
      scanValue(path.empty() ? key : path + "." + key);
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        skipSpace();
      }
    }
    ++pos;
    return;
  }
  if (c == '[') {
    ++pos;
    skipSpace();
    for (unsigned i = 0; pos < text.size() && text[pos] != ']'; ++i) {
      scanValue(path + "[" + std::to_string(i) + "]");
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        skipSpace();
      }
    }
    ++pos;
    return;
  }
  if (c == '"') {
    scanString();
    return;
  }
  while (pos < text.size() && !llvm::StringRef(",]} \n\t\r").contains(text[pos]))
    ++pos;
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
