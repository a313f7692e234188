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

/// Whether ptxas ignored the kernel's setmaxnreg for want of a register
/// count at entry (C7508): the consumers then run at the launch's share of
/// registers and spill.
bool setmaxnregIgnored(const PtxasReport &report);

/// `ptx` with `.minnctapersm 1` after each entry's `.maxntid`: one CTA an SM
/// (what a kernel with a producer warpgroup runs at anyway) pins the
/// register count at entry, and ptxas honors setmaxnreg. Only for the
/// kernels it ignored them in: elsewhere the directive moves ptxas's
/// scheduling (fp8 attention's SASS changes), which was not measured.
std::string pinEntryRegisterCount(const std::string &ptx);

/// `ptx` with `.minnctapersm ctas` after each entry's `.maxntid`: ptxas
/// then holds each thread to the registers that many CTAs an SM leave it.
std::string withMinCtasPerSm(const std::string &ptx, int64_t ctas);

} // namespace mlir::pallas::cuda

#endif
