//===- Registration.cpp - dialects and passes the tools know --------------===//
#include "pallas/Driver/Registration.h"

#include "pallas/Dialect/Pallas.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Host/HostPasses.h"
#include "pallas/Mosaic/MosaicPasses.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Triton/Triton.h"
#include "pallas/Triton/TritonPasses.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::pallas::registerPallasDialects(DialectRegistry &registry) {
  registry.insert<PallasDialect, tt::TTDialect, pgpu::PallasGpuDialect, tpu::TPUDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void mlir::pallas::registerAllPallasPasses() {
  static bool once = [] {
    registerAllPasses();
    registerPallasPasses();
    registerHostPasses();
    registerTritonPasses();
    registerCudaPasses();
    registerMosaicPasses();
    registerHostPipeline();
    registerTritonPipeline();
    registerCudaPipeline();
    registerMosaicPipeline();
    return true;
  }();
  (void)once;
}
