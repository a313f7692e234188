//===- LaunchAttributes.h - the launch spec as IR attributes ----*- C++ -*-===//
//
// The driver writes the (vmap-applied) spec onto the kernel once, as
// `pallas.launch = #pallas.launch<...>` and one
// `pallas.block_spec = #pallas.block_spec<...>` per argument
// (PallasAttrs.td); passes read the launch from the IR alone.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_SPEC_LAUNCHATTRIBUTES_H
#define PALLAS_SPEC_LAUNCHATTRIBUTES_H

#include "pallas/Spec/LaunchSpec.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::pallas {

/// Writes `spec` (already through applyVmap) onto `kernel`. `batchAxes` is
/// the number of grid axes vmap added in front.
void attachLaunchAttributes(KernelOp kernel, const LaunchSpec &spec,
                            unsigned batchAxes);

/// The launch a kernel (or the function lowered from it) carries; null
/// when it has none.
LaunchAttr getLaunch(Operation *kernel);
void setLaunch(Operation *kernel, LaunchAttr launch);

/// The BlockSpec of argument `arg`; null when it has none.
BlockSpecAttr getBlockSpec(FunctionOpInterface kernel, unsigned arg);
void setBlockSpec(FunctionOpInterface kernel, unsigned arg, BlockSpecAttr spec);
/// Whether argument `arg` is a scratch buffer.
bool isScratchArg(FunctionOpInterface kernel, unsigned arg);

} // namespace mlir::pallas

#endif
