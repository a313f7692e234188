//===- Backends.cpp - the backend of each target kind ---------------------===//
#include "pallas/Driver/Backend.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::pallas;

Backend mlir::pallas::backendFor(TargetKind kind) {
  switch (kind) {
  case TargetKind::Host:
    return emitHost;
  case TargetKind::Triton:
    return emitTriton;
  case TargetKind::Cuda:
    return emitCuda;
  case TargetKind::Tpu:
    return emitMosaic;
  }
  llvm_unreachable("every target kind has a backend");
}

nlohmann::json mlir::pallas::gridExtentJson(const LaunchSpec &spec, unsigned axis) {
  if (ShapedType::isDynamic(spec.grid[axis]))
    return spec.gridSizes[axis];
  return spec.grid[axis];
}

nlohmann::json mlir::pallas::symbolicLaunchGridJson(const LaunchSpec &spec) {
  nlohmann::json grid = nlohmann::json::array();
  unsigned leading = spec.numLeadingParallelAxes();
  for (unsigned a = 0; a < 3; ++a)
    grid.push_back(a < leading ? gridExtentJson(spec, a) : nlohmann::json(1));
  return grid;
}
