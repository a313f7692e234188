//===- Backends.cpp - the backend of each target kind ---------------------===//
#include "pallas/Driver/Backend.h"

using namespace mlir;
using namespace mlir::pallas;

const Backend &mlir::pallas::backendFor(TargetKind kind) {
  static const std::unique_ptr<Backend> host = createHostBackend(),
                                        triton = createTritonBackend(),
                                        cuda = createCudaBackend(),
                                        mosaic = createMosaicBackend();
  switch (kind) {
  case TargetKind::Host:
    return *host;
  case TargetKind::Triton:
    return *triton;
  case TargetKind::Cuda:
    return *cuda;
  case TargetKind::Tpu:
    return *mosaic;
  }
  llvm_unreachable("every target kind has a backend");
}
