//===- Backends.cpp - the backend of each target kind ---------------------===//
#include "pallas/Driver/Backend.h"

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
