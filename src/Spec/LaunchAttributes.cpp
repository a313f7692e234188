//===- LaunchAttributes.cpp - the launch spec as IR attributes ------------===//
#include "pallas/Spec/LaunchAttributes.h"

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
  // A plgpu kernel's grid counts clusters (as JAX's does): each program
  // id runs over the grid times the cluster along its axis (the in-order
  // and own-schedule lowerings split it into the two mesh axes).
  SmallVector<int64_t> grid(spec.grid);
  SmallVector<DimensionSemantics> semantics(spec.dimensionSemantics);
  std::vector<std::string> gridSizes(spec.gridSizes);
  if (spec.mesh) {
    ArrayRef<int64_t> cluster = spec.mesh->cluster;
    if (cluster.size() > grid.size() && !llvm::all_of(cluster, [](int64_t c) { return c == 1; }))
      grid.resize(cluster.size(), 1);
    for (auto [i, c] : llvm::enumerate(cluster))
      if (i < grid.size() && !ShapedType::isDynamic(grid[i]))
        grid[i] *= c;
    if (!semantics.empty())
      semantics.resize(grid.size(), DimensionSemantics::parallel);
    if (!gridSizes.empty())
      gridSizes.resize(grid.size());
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
