//===- Chain.h - a chain of kernels: a forward pass and its backward ---*- C++ -*-===//
//
// `pallasc CHAIN/chain.json -t T -o OUT` compiles every kernel of a chain
// manifest (what `pallasc_jax --vjp` writes: each kernel in CHAIN/DIR/,
// kernel.mlir and spec.json, and where each operand comes from) into
// OUT/DIR/, copies the manifest to OUT/chain.json, and with --emit torch
// adds OUT/FUNCTION_torch.py: the forward kernel's op with autograd
// through the backward kernels.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DRIVER_CHAIN_H
#define PALLAS_DRIVER_CHAIN_H

#include "pallas/Driver/Artifact.h"
#include "pallas/Driver/CompileOptions.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::pallas {

/// Whether `path` names a chain manifest (a .json file given where a kernel is).
bool isChainManifest(llvm::StringRef path);

/// Compiles every kernel of the chain at `chainFile` with `options` (its
/// kernel and spec set per kernel), collecting the artifacts with paths
/// relative to the output directory (DIR/FILE, chain.json,
/// FUNCTION_torch.py). Errors go to stderr, naming the manifest and the
/// entry; nothing is collected then.
LogicalResult compileChain(CompileOptions options, llvm::StringRef chainFile,
                           std::vector<Artifact> &artifacts);

/// The text of FUNCTION_torch.py for a chain whose manifest (validated)
/// is `chainJson`.
std::string chainTorchModule(llvm::StringRef function, llvm::StringRef chainJson);

} // namespace mlir::pallas

#endif
