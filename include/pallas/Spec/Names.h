//===- Names.h - which names may reach artifacts ----------------*- C++ -*-===//
//
// A spec's `name` (or its kernel's symbol) becomes the stem of every
// artifact file and the prefix of every generated C, C++ and Python name;
// array names become parameters and variables there. Each must be a name
// in all three languages that cannot escape into a path or a string,
// shadow what the generated code declares, or clash with the C library.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_SPEC_NAMES_H
#define PALLAS_SPEC_NAMES_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::pallas {

/// The longest name accepted (file systems and identifiers stay short).
constexpr size_t kMaxNameLength = 64;

/// Why `name` cannot name a kernel's artifacts (a spec's `name`, or its
/// kernel's symbol), or std::nullopt when it can.
std::optional<std::string> whyNotArtifactName(llvm::StringRef name);

/// Why `name` cannot name an input or output array, or std::nullopt.
std::optional<std::string> whyNotArrayName(llvm::StringRef name);

} // namespace mlir::pallas

#endif
