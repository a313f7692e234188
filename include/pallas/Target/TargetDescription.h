//===- TargetDescription.h - chips as data ----------------------*- C++ -*-===//
//
// targets/*.yaml describe what pallasc compiles for. They are
// embedded in the binaries at build time; `--target-file` loads another.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGET_TARGETDESCRIPTION_H
#define PALLAS_TARGET_TARGETDESCRIPTION_H

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::pallas {

enum class TargetKind { Cuda, Triton, Tpu, Host };

struct TargetDescription {
  std::string name;
  TargetKind kind = TargetKind::Host;
  std::string description;
  /// Every scalar field of the YAML file by key (for --list-targets and for
  /// passes that read chip limits), as text.
  std::map<std::string, std::string> fields;
  /// List fields, e.g. tensor_cores: [mma_sync, wgmma].
  std::map<std::string, std::vector<std::string>> lists;

  /// An integer field; `fallback` when absent.
  int64_t getInt(const std::string &key, int64_t fallback = 0) const;
  bool getBool(const std::string &key) const;
  bool has(const std::string &key, const std::string &listItem) const;
};

/// Parses one YAML description; errors name the source and the field.
llvm::Expected<TargetDescription> parseTargetDescription(llvm::StringRef yaml,
                                                        llvm::StringRef source);

/// The descriptions built into pallasc, sorted by name.
const std::vector<TargetDescription> &builtinTargets();

/// A built-in target by name; an error listing the known names otherwise.
llvm::Expected<TargetDescription> lookupTarget(llvm::StringRef name);

llvm::StringRef targetKindName(TargetKind kind);

} // namespace mlir::pallas

#endif
