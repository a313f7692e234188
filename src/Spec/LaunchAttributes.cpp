//===- LaunchAttributes.cpp - the launch spec as IR attributes ------------===//
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::pallas;

static void annotateOperand(KernelOp kernel, unsigned arg, StringRef role,
                            const SpecOperand &op) {
  Builder b(kernel.getContext());
  kernel.setArgAttr(arg, attr::kRole, b.getStringAttr(role));
  kernel.setArgAttr(arg, attr::kName, b.getStringAttr(op.name));
  kernel.setArgAttr(arg, attr::kShape, b.getDenseI64ArrayAttr(op.shape));
  SmallVector<int64_t> block;
  for (std::optional<int64_t> d : op.blockShape)
    block.push_back(d.value_or(0));
  kernel.setArgAttr(arg, attr::kBlock, b.getDenseI64ArrayAttr(block));
  if (!op.indexFn.empty())
    kernel.setArgAttr(arg, attr::kIndexFn,
                      FlatSymbolRefAttr::get(b.getContext(), op.indexFn));
  else
    kernel.setArgAttr(arg, attr::kIndexMap, AffineMapAttr::get(op.indexMap));
}

void mlir::pallas::attachLaunchAttributes(KernelOp kernel,
                                          const LaunchSpec &spec,
                                          unsigned batchAxes) {
  Builder b(kernel.getContext());
  kernel->setAttr(attr::kGrid, b.getDenseI64ArrayAttr(spec.grid));
  kernel->setAttr(attr::kSymbol, b.getStringAttr(spec.name));
  if (!spec.dimensionSemantics.empty()) {
    SmallVector<Attribute> sem;
    for (DimensionSemantics s : spec.dimensionSemantics)
      sem.push_back(b.getStringAttr(s == DimensionSemantics::Parallel
                                        ? "parallel"
                                        : "arbitrary"));
    kernel->setAttr(attr::kDimensionSemantics, b.getArrayAttr(sem));
  }
  if (batchAxes)
    kernel->setAttr(attr::kBatchAxes, b.getI64IntegerAttr(batchAxes));
  unsigned arg = 0;
  for (auto [i, op] : llvm::enumerate(spec.inputs))
    annotateOperand(kernel, arg++,
                    static_cast<int64_t>(i) < spec.numScalarPrefetch ? "prefetch"
                                                                     : "input",
                    op);
  for (const SpecOperand &op : spec.outputs)
    annotateOperand(kernel, arg++, "output", op);
  for (const SpecScratch &s : spec.scratch) {
    (void)s;
    kernel.setArgAttr(arg++, attr::kRole, b.getStringAttr("scratch"));
  }
}

SmallVector<int64_t> mlir::pallas::kernelGrid(KernelOp kernel) {
  if (auto grid = kernel->getAttrOfType<DenseI64ArrayAttr>(attr::kGrid))
    return SmallVector<int64_t>(grid.asArrayRef());
  return {};
}
