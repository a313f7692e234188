//===- ChainScanFusion.h - a recomputing scan folded into another -*- C++ -*-===//
//
// A chain's kernel whose output is the sum, over a scan of blocks, of
// dot(X, B) where X is, pair of row blocks for pair, a value another scan
// of the same kernel already computes (JAX's flash attention backward: dQ
// = sum over key blocks of dot(dS, K), with dS recomputed; the dK/dV scan
// over query blocks has it), is rewritten so that the other scan adds its
// pairs' dot(X, B) into a float32 accumulator of the whole output with
// atomic adds, and the recomputing scan goes. Two kernels join the chain:
// one zeroing the accumulator before it, one casting it to the output
// after it. `pallasc --scan-fusion=never` compiles chains as written.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DRIVER_CHAINSCANFUSION_H
#define PALLAS_DRIVER_CHAINSCANFUSION_H

#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace mlir::pallas {

/// The kernels a fused kernel becomes: MLIR text and spec each.
struct ScanFusion {
  std::string kernel;         ///< the rewritten kernel
  nlohmann::json spec;        ///< its spec: the accumulator aliased in and out
  std::string zeroKernel;     ///< fills the accumulator with zeros
  nlohmann::json zeroSpec;
  std::string castKernel;     ///< the accumulator to the output it replaced
  nlohmann::json castSpec;
  size_t output = 0;          ///< the output the accumulator stands for
  int64_t stepRows = 0;       ///< rows of the output each step of the other scan adds
  int64_t width = 0;          ///< the output block's other dim (attention's head dim)
};

/// The fusion of the kernel `kernelText` with spec `spec`, or nullopt
/// where the kernel does not have the form (then it compiles as written).
std::optional<ScanFusion> fuseRecomputingScan(llvm::StringRef kernelText,
                                              const nlohmann::json &spec);

} // namespace mlir::pallas

#endif
