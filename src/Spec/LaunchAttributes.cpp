//===- LaunchAttributes.cpp - the launch spec as IR attributes ------------===//
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Mgpu/Mgpu.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::pallas;

static SmallVector<StringAttr> stringAttrs(MLIRContext *ctx,
                                           ArrayRef<std::string> strings) {
  SmallVector<StringAttr> out;
  for (const std::string &s : strings)
    out.push_back(StringAttr::get(ctx, s));
  return out;
}

static BlockSpecAttr blockSpecOf(MLIRContext *ctx, ArgRole role,
                                 const SpecOperand &op) {
  SmallVector<int64_t> squeezed;
  for (auto [d, size] : llvm::enumerate(op.blockShape))
    if (!size)
      squeezed.push_back(d);
  FlatSymbolRefAttr fn;
  if (!op.indexFn.empty())
    fn = FlatSymbolRefAttr::get(ctx, op.indexFn);
  return BlockSpecAttr::get(ctx, role, op.name, op.shape, op.blockDims(),
                            squeezed, fn ? AffineMap() : op.indexMap, fn,
                            stringAttrs(ctx, op.sizeNames));
}

void mlir::pallas::attachLaunchAttributes(KernelOp kernel,
                                          const LaunchSpec &spec,
                                          unsigned batchAxes) {
  MLIRContext *ctx = kernel.getContext();
  SmallVector<std::string> sizeNames;
  SmallVector<int64_t> multiples;
  for (const SpecSize &s : spec.sizes) {
    sizeNames.push_back(s.name);
    multiples.push_back(s.multipleOf);
  }
  if (llvm::all_of(multiples, [](int64_t m) { return m == 1; }))
    multiples.clear();
  // A plgpu kernel's grid counts clusters and runs its last axis along
  // CUDA's x, as JAX's does (MeshAttr::launchGrid): the program ids are
  // the launch's, which the in-order and own-schedule lowerings map back
  // onto the mesh's axes (MeshAttr::launchAxisOf).
  SmallVector<int64_t> grid(spec.grid);
  SmallVector<DimensionSemantics> semantics(spec.dimensionSemantics);
  std::vector<std::string> gridSizes(spec.gridSizes);
  if (spec.mesh) {
    grid = plgpu::MeshAttr::launchGrid(spec.grid, spec.mesh->cluster);
    semantics.clear(); // (all parallel)
    // Launch axis k is grid axis G - 1 - k (past G: the cluster's alone).
    if (!gridSizes.empty()) {
      std::vector<std::string> launchSizes(grid.size());
      for (size_t k = 0; k < spec.gridSizes.size(); ++k)
        launchSizes[k] = spec.gridSizes[spec.gridSizes.size() - 1 - k];
      gridSizes = std::move(launchSizes);
    }
  }
  setLaunch(kernel, LaunchAttr::get(ctx, spec.name, grid,
                                    semantics, batchAxes,
                                    spec.numWarps, spec.numStages,
                                    /*expanded=*/false, /*programOrder=*/{},
                                    /*programGroup=*/0, stringAttrs(ctx, sizeNames),
                                    multiples,
                                    stringAttrs(ctx, gridSizes)));
  unsigned arg = 0;
  for (auto [i, op] : llvm::enumerate(spec.inputs))
    setBlockSpec(kernel, arg++,
                 blockSpecOf(ctx,
                             static_cast<int64_t>(i) < spec.numScalarPrefetch
                                 ? ArgRole::prefetch
                                 : ArgRole::input,
                             op));
  for (const SpecOperand &op : spec.outputs)
    setBlockSpec(kernel, arg++, blockSpecOf(ctx, ArgRole::output, op));
  for (size_t s = 0; s < spec.scratch.size(); ++s)
    setBlockSpec(kernel, arg++,
                 BlockSpecAttr::get(ctx, ArgRole::scratch, "", {}, {}, {},
                                    AffineMap(), FlatSymbolRefAttr(), {}));
  // An input and the output it aliases are one buffer: two arguments that
  // may address the same memory (whoever reorders loads and stores asks).
  for (auto [in, out] : spec.aliases) {
    kernel.setArgAttr(in, PallasDialect::kAliasedAttrName, UnitAttr::get(ctx));
    kernel.setArgAttr(spec.inputs.size() + out, PallasDialect::kAliasedAttrName,
                      UnitAttr::get(ctx));
  }
}

LaunchAttr mlir::pallas::getLaunch(Operation *kernel) {
  return kernel->getAttrOfType<LaunchAttr>(PallasDialect::kLaunchAttrName);
}

void mlir::pallas::setLaunch(Operation *kernel, LaunchAttr launch) {
  kernel->setAttr(PallasDialect::kLaunchAttrName, launch);
}

BlockSpecAttr mlir::pallas::getBlockSpec(FunctionOpInterface kernel,
                                         unsigned arg) {
  return kernel.getArgAttrOfType<BlockSpecAttr>(arg,
                                                PallasDialect::kBlockSpecAttrName);
}

void mlir::pallas::setBlockSpec(FunctionOpInterface kernel, unsigned arg,
                                BlockSpecAttr spec) {
  kernel.setArgAttr(arg, PallasDialect::kBlockSpecAttrName, spec);
}

bool mlir::pallas::isScratchArg(FunctionOpInterface kernel, unsigned arg) {
  BlockSpecAttr spec = getBlockSpec(kernel, arg);
  return spec && spec.getRole() == ArgRole::scratch;
}
