//===- PlgpuUserSchedule.h - which plgpu kernels keep their schedule -*- C++ -*-===//
//
// convert-plgpu-to-tile (ConvertPlgpuToTile.cpp) lowers a Pallas:MGPU
// kernel for sm_90a as the kernel wrote it: its shared-memory buffers,
// TMA copies, mbarriers and wgmma waits stay where they are. What it takes
// so far is checked here first, so that the backend can tell a kernel it
// runs in order instead (convert-plgpu-to-pallas) why.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TRANSFORMS_PLGPUUSERSCHEDULE_H
#define PALLAS_TARGETS_CUDA_TRANSFORMS_PLGPUUSERSCHEDULE_H

#include "pallas/Dialect/Pallas.h"

#include <optional>
#include <string>

namespace mlir::pallas::cuda {

/// Why convert-plgpu-to-tile cannot lower `kernel` (a plgpu kernel) yet:
/// the op and the reason; none where it can.
struct UserScheduleGap {
  Operation *op;
  std::string reason;
};
std::optional<UserScheduleGap> userScheduleGap(KernelOp kernel);

} // namespace mlir::pallas::cuda

#endif
