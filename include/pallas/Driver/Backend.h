//===- Backend.h - what a target kind's backend provides --------*- C++ -*-===//
//
// Each targets/<kind>/ folder owns one backend: it lowers the kernel (which
// carries its launch, see LaunchAttributes.h) with its registered pipeline
// and writes the artifacts. A backend adds itself to the registry below
// from its folder: its CMakeLists.txt names it with pallas_add_backend(),
// which lists its registration function in the generated
// `pallas/Driver/Backends.def`, and that function (register<Name>Backend)
// calls registerBackend(). The driver (Compile.cpp) looks the backend up
// by target kind and adds the manifest.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DRIVER_BACKEND_H
#define PALLAS_DRIVER_BACKEND_H

#include "pallas/Driver/CompileOptions.h"
#include "pallas/Spec/LaunchSpec.h"
#include "pallas/Target/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <deque>

namespace mlir {
class DialectRegistry;
namespace pallas {

/// What the driver hands a backend: the module whose kernel carries its
/// launch, the (vmap-applied) spec that the artifacts' descriptions quote,
/// the targets (one, or several CUDA chips) and the options.
struct BackendInput {
  ModuleOp module;
  const LaunchSpec &spec;
  ArrayRef<TargetDescription> targets;
  const CompileOptions &options;
};

/// Lowers the module and collects the artifacts and the manifest's
/// `launch` entry in `result`.
using EmitArtifacts = LogicalResult (*)(const BackendInput &in, BackendResult &result);

/// A backend as the driver and the tools see it.
struct BackendInfo {
  /// The target descriptions' `kind` it compiles for.
  TargetKind kind;
  EmitArtifacts emit;
  /// Registers its passes and its `--pallas-<backend>-pipeline` (pallas-opt).
  void (*registerPasses)() = nullptr;
  /// Adds the dialects its lowering produces beyond the tile layer's.
  void (*registerDialects)(DialectRegistry &registry) = nullptr;
  /// Several chips of its kind compile into one set of artifacts
  /// (`--target sm_90a,sm_80`).
  bool combinesTargets = false;
  /// It takes kernels with symbolic sizes.
  bool symbolicSizes = false;
  /// It runs the grid's leading parallel axes as program ids x, y, z, so
  /// that with symbolic sizes at most three of them can be launched.
  bool programIdGrid = false;
  /// It takes plgpu kernels (Pallas:MGPU, a pallas.kernel with a
  /// #plgpu.mesh).
  bool plgpuKernels = false;
};

/// Adds a backend; the one registered last for a kind wins.
void registerBackend(const BackendInfo &info);
/// The backend of a target kind; null where this binary has none.
const BackendInfo *lookupBackend(TargetKind kind);
/// Every registered backend, in registration order.
const std::deque<BackendInfo> &registeredBackends();

/// With `--emit mlir`, adds `op` printed as MLIR text (what `pallas-opt`
/// prints) to the artifacts as `filename`.
void addMlirArtifact(BackendResult &result, const CompileOptions &options,
                     std::string filename, Operation *op);

/// Runs the passes `build` adds on `op`, printing the whole module after
/// every pass when --print-ir-after-all asks for it (the context runs
/// single-threaded then, so that the dumps come in order).
LogicalResult runPasses(Operation *op, const CompileOptions &options,
                        function_ref<void(OpPassManager &)> build);

/// The programs along grid `axis` for a manifest: the number, or the size
/// expression launchers evaluate.
nlohmann::json gridExtentJson(const LaunchSpec &spec, unsigned axis);
/// A CUDA or Triton kernel's launch grid x, y, z with symbolic sizes: the
/// leading parallel axes (at most three), 1 past them.
nlohmann::json symbolicLaunchGridJson(const LaunchSpec &spec);

} // namespace pallas
} // namespace mlir

#endif
