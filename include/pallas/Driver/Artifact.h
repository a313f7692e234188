//===- Artifact.h - files a compilation produces ----------------*- C++ -*-===//
#ifndef PALLAS_DRIVER_ARTIFACT_H
#define PALLAS_DRIVER_ARTIFACT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::pallas {

/// One output file, held in memory until the whole compilation succeeded.
struct Artifact {
  std::string filename; ///< relative to the output directory
  std::string contents;
  std::string kind;     ///< "object", "header", "ttir", "manifest", ...
};

/// Writes every artifact into `dir` (created if missing), and each of
/// `besides` (a depfile) at its own path, its `filename`. Files are written
/// under temporary names and renamed at the end, so a failure leaves no
/// partial output. Errors are reported as `error: ...` on `errs` (a file
/// outside `dir` named by its kind).
LogicalResult writeArtifacts(StringRef dir, ArrayRef<Artifact> artifacts,
                             llvm::raw_ostream &errs, ArrayRef<Artifact> besides = {});

/// What an earlier build left in `dir` that this one does not write: the
/// files the manifest of the same name there lists (`manifest`, the new
/// one's filename) that `artifacts` lacks and that still hold what that
/// build wrote (their sha256 matches; a file changed since is kept).
std::vector<std::string> staleArtifacts(StringRef dir, StringRef manifest,
                                        ArrayRef<Artifact> artifacts);

/// A Makefile-syntax depfile: `target` depends on each of `prerequisites`
/// (spaces, `#` and `$` escaped as Make and Ninja read them; `-`, stdin,
/// left out).
std::string depfileText(StringRef target, ArrayRef<std::string> prerequisites);

/// Lower-case hex sha256 of `data`.
std::string sha256Hex(StringRef data);

} // namespace mlir::pallas

#endif
