//===- PtxasReport.h - what ptxas -v says of a kernel -----------*- C++ -*-===//
//
// ptxas's verbose report of the entry function: the registers a thread
// takes, the named barriers, the local memory it spills to, and the
// performance notes on wgmma code (C75xx: a warpgroup.wait or .arrive
// ptxas inserted, wgmma instructions it serialized). The manifest carries
// it per chip, so that a build pipeline or a test sees spills and
// serialized wgmma without running ptxas again.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_BACKEND_PTXASREPORT_H
#define PALLAS_TARGETS_CUDA_BACKEND_PTXASREPORT_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::pallas::cuda {

struct PtxasReport {
  int64_t registers = 0;
  int64_t barriers = 0;
  int64_t stackFrameBytes = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  /// ptxas's "(C75xx) ..." notes, as it words them (without the
  /// `ptxas info    : ` prefix), in its order.
  std::vector<std::string> wgmmaNotes;
};

/// The report of entry function `function` in ptxas -v's output `log`
/// (zeros where it says nothing).
PtxasReport parsePtxasReport(const std::string &log, const std::string &function);

} // namespace mlir::pallas::cuda

#endif
