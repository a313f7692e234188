//===- JsonLocator.h - source positions of JSON values ----------*- C++ -*-===//
//
// nlohmann/json keeps no positions, so diagnostics find them here: a small
// scan of the same text that records where each value starts, keyed by its
// path (`inputs[1].block_shape[0]`).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_SPEC_JSONLOCATOR_H
#define PALLAS_SPEC_JSONLOCATOR_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <utility>

namespace mlir::pallas {

class JsonLocator {
public:
  /// Scans `text`, which must already be valid JSON.
  explicit JsonLocator(llvm::StringRef text);
  /// 1-based (line, column) of the value at `path`, or of its nearest
  /// enclosing value that exists; (1, 1) for the document.
  std::pair<unsigned, unsigned> find(llvm::StringRef path) const;

private:
  void scanValue(const std::string &path, unsigned depth);
  /// Moves past the value at `pos` without recording anything.
  void skipValue();
  void skipSpace();
  /// Space, then a ',' between members or elements and the space after it.
  void skipSeparator();
  void scanString();
  void scanScalar();
  std::pair<unsigned, unsigned> here();

  llvm::StringRef text;
  size_t pos = 0;
  /// here()'s progress: bytes before `counted` are counted into `line`, and
  /// the current line starts at `lineStart`.
  size_t counted = 0, lineStart = 0;
  unsigned line = 1;
  llvm::StringMap<std::pair<unsigned, unsigned>> positions;
};

} // namespace mlir::pallas

#endif
