//===- fuzz-spec.cpp - libFuzzer target for the launch-spec loader --------===//
//
// Feeds the input to loadLaunchSpec as a JSON launch spec. When it loads,
// runs what the driver runs next: the check against a fixed module of
// kernels, and, when that passes, applyVmap and attachLaunchAttributes.
// Spec errors are ordinary diagnostics and are swallowed; the target must
// never crash, abort or hang.
//
//===----------------------------------------------------------------------===//
#include "FuzzContext.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Spec/LaunchSpec.h"
#include "pallas/Spec/SpecChecker.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace mlir;

// LLVM's BumpPtrAllocator, inlined into the instrumented code, poisons each
// new slab for ASan and unpoisons the pieces it hands out; the uninstrumented
// copy inside libMLIR hands out pieces of the same slabs without unpoisoning
// them, which ASan would report as use-after-poison.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

// Kernels the specs are checked against: matmul_relu, add_one and
// matmul_accumulate from the conformance suite, prefetch_rows (scalar
// prefetch, an "@fn" index map) and scale (vmap) from examples/.
static const char kKernels[] = R"mlir(
pallas.kernel @matmul_relu(%x: !pallas.ref<512x1024xf32>, %y: !pallas.ref<1024x512xf32>,
                           %z: !pallas.ref<512x512xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<512x1024xf32> -> tensor<512x1024xf32>
  %b = pallas.load %y[...] : !pallas.ref<1024x512xf32> -> tensor<1024x512xf32>
  %c = pallas.dot %a, %b : tensor<512x1024xf32>, tensor<1024x512xf32> -> tensor<512x512xf32>
  %zero = arith.constant dense<0.0> : tensor<512x512xf32>
  %r = arith.maximumf %c, %zero : tensor<512x512xf32>
  pallas.store %z[...], %r : !pallas.ref<512x512xf32>, tensor<512x512xf32>
  pallas.return
}

pallas.kernel @add_one(%x: !pallas.ref<32xi32>, %o: !pallas.ref<32xi32>) {
  %i = pallas.program_id 0 : i32
  %c8 = arith.constant 8 : i32
  %base = arith.muli %i, %c8 : i32
  %r = pallas.iota 0 : tensor<8xi32>
  %b = pallas.broadcast %base : i32 -> tensor<8xi32>
  %offs = arith.addi %b, %r : tensor<8xi32>
  %v = pallas.load %x[%offs] : !pallas.ref<32xi32>, tensor<8xi32> -> tensor<8xi32>
  %one = arith.constant dense<1> : tensor<8xi32>
  %w = arith.addi %v, %one : tensor<8xi32>
  pallas.store %o[%offs], %w : !pallas.ref<32xi32>, tensor<8xi32>, tensor<8xi32>
  pallas.return
}

pallas.kernel @matmul_accumulate(%x: !pallas.ref<256x256xbf16>, %y: !pallas.ref<256x256xbf16>,
                                 %z: !pallas.ref<256x256xf32>, %acc: !pallas.ref<256x256xf32, vmem>) {
  %k = pallas.program_id 2 : i32
  %nk = pallas.num_programs 2 : i32
  %a = pallas.load %x[...] : !pallas.ref<256x256xbf16> -> tensor<256x256xbf16>
  %b = pallas.load %y[...] : !pallas.ref<256x256xbf16> -> tensor<256x256xbf16>
  %old = pallas.load %acc[...] : !pallas.ref<256x256xf32, vmem> -> tensor<256x256xf32>
  %new = pallas.dot %a, %b acc %old : tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xf32> -> tensor<256x256xf32>
  pallas.store %acc[...], %new : !pallas.ref<256x256xf32, vmem>, tensor<256x256xf32>
  pallas.store %z[...], %new : !pallas.ref<256x256xf32>, tensor<256x256xf32>
  pallas.return
}

func.func @row_of(%i: i32, %rows: !pallas.ref<4xi32, smem>) -> (i32, i32) {
  %r = pallas.load %rows[%i] : !pallas.ref<4xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  return %r, %c0 : i32, i32
}

pallas.kernel @prefetch_rows(%rows: !pallas.ref<4xi32, smem>, %x: !pallas.ref<128xf32>,
                             %o: !pallas.ref<128xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<128xf32> -> tensor<128xf32>
  pallas.store %o[...], %v : !pallas.ref<128xf32>, tensor<128xf32>
  pallas.return
}

pallas.kernel @scale(%x: !pallas.ref<8xf32>, %w: !pallas.ref<8xf32>, %o: !pallas.ref<8xf32>) {
  %i = pallas.program_id 0 : i32
  %a = pallas.load %x[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  %b = pallas.load %w[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  %p = arith.mulf %a, %b : tensor<8xf32>
  pallas.store %o[...], %p : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.return
}
)mlir";

/// One parsed module for all inputs (parsing would be most of the cost of
/// an input otherwise).
static ModuleOp kernels() {
  static ModuleOp module = [] {
    OwningOpRef<ModuleOp> m =
        parseSourceString<ModuleOp>(kKernels, &fuzzContext(), "kernels.mlir");
    if (!m) {
      llvm::errs() << "fuzz-spec: the fixed kernels do not parse\n";
      std::abort();
    }
    return m.release();
  }();
  return module;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = fuzzContext();
  ModuleOp module = kernels();
  ScopedDiagnosticHandler swallow(&ctx, [](Diagnostic &) { return success(); });

  StringRef text(reinterpret_cast<const char *>(data), size);
  FailureOr<pallas::LaunchSpec> spec =
      pallas::loadLaunchSpec("fuzz.json", text, &ctx);
  if (failed(spec))
    return 0;
  // The driver's order: check, then fold vmap in and annotate the kernel.
  // The check only reads the module; the annotation goes on a copy.
  if (failed(pallas::checkSpecAgainstKernel(*spec, module)))
    return 0;
  OwningOpRef<ModuleOp> copy = module.clone();
  auto kernel = copy->lookupSymbol<pallas::KernelOp>(spec->kernel);
  if (!kernel) {
    llvm::errs() << "fuzz-spec: checked kernel @" << spec->kernel
                 << " is missing from the copy\n";
    std::abort();
  }
  pallas::LaunchSpec expanded = pallas::applyVmap(*spec);
  pallas::attachLaunchAttributes(kernel, expanded, spec->vmap ? 1 : 0);
  return 0;
}
