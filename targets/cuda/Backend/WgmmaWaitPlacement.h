//===- WgmmaWaitPlacement.h - a K loop's last wgmma wait, placed for ptxas -===//
#ifndef PALLAS_CUDA_WGMMAWAITPLACEMENT_H
#define PALLAS_CUDA_WGMMAWAITPLACEMENT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::pallas::cuda {

/// `ptx` with each `wgmma.wait_group 0` that LLVM scheduled below a loop's
/// back branch (behind instructions not touching wgmma accumulators) moved
/// up to directly after that branch, where ptxas keeps the loop's wgmma
/// pipelined (WgmmaWaitPlacement.cpp says why).
std::string placeFinalWgmmaWaits(llvm::StringRef ptx);

} // namespace mlir::pallas::cuda

#endif
