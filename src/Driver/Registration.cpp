//===- Registration.cpp - dialects and passes the tools know --------------===//
#include "pallas/Driver/Registration.h"

#include "pallas/Dialect/Pallas.h"
#include "pallas/Mgpu/Mgpu.h"
#include "pallas/Driver/Backend.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Tile/Tile.h"
#include "pallas/Tile/TilePasses.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

// The backends are in libraries the driver links (pallas_write_backends),
// not in the registry's.
#define PALLAS_BACKEND(Name) void register##Name##Backend();
namespace mlir::pallas {
#include "pallas/Driver/Backends.def"
} // namespace mlir::pallas
#undef PALLAS_BACKEND

void mlir::pallas::registerBuiltinBackends() {
  static bool once = [] {
#define PALLAS_BACKEND(Name) register##Name##Backend();
#include "pallas/Driver/Backends.def"
#undef PALLAS_BACKEND
    return true;
  }();
  (void)once;
}

void mlir::pallas::registerPallasDialects(DialectRegistry &registry) {
  registry.insert<PallasDialect, plgpu::PlgpuDialect, tt::TTDialect>();
  registerBuiltinBackends();
  for (const BackendInfo &backend : registeredBackends())
    if (backend.registerDialects)
      backend.registerDialects(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void mlir::pallas::registerAllPallasPasses() {
  static bool once = [] {
    registerAllPasses();
    registerPallasPasses();
    registerTilePasses();
    registerBuiltinBackends();
    for (const BackendInfo &backend : registeredBackends())
      if (backend.registerPasses)
        backend.registerPasses();
    return true;
  }();
  (void)once;
}
