//===- Backend.cpp - the backend registry and what backends share ---------===//
#include "pallas/Driver/Backend.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"

#include <deque>

using namespace mlir;
using namespace mlir::pallas;

// A deque: lookupBackend's pointers stay valid when more register.
static std::deque<BackendInfo> &backends() {
  static std::deque<BackendInfo> registered;
  return registered;
}

void mlir::pallas::registerBackend(const BackendInfo &info) {
  for (BackendInfo &known : backends())
    if (known.kind == info.kind) {
      known = info;
      return;
    }
  backends().push_back(info);
}

const BackendInfo *mlir::pallas::lookupBackend(TargetKind kind) {
  for (const BackendInfo &known : backends())
    if (known.kind == kind)
      return &known;
  return nullptr;
}

const std::deque<BackendInfo> &mlir::pallas::registeredBackends() { return backends(); }

void mlir::pallas::addMlirArtifact(BackendResult &result,
                                   const CompileOptions &options,
                                   std::string filename, Operation *op) {
  if (!llvm::is_contained(options.emit, "mlir"))
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  os << "\n";
  result.artifacts.push_back({std::move(filename), std::move(text), "mlir"});
}

namespace {
/// --print-ir-after-all: the module after every pass, each dump preceded
/// by the chip it is for where a backend lowers once per chip.
struct ChipIRPrinter : PassManager::IRPrinterConfig {
  explicit ChipIRPrinter(std::string chip)
      : IRPrinterConfig(/*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false),
        chip(std::move(chip)) {}
  void printAfterIfEnabled(Pass *, Operation *, PrintCallbackFn print) override {
    if (!chip.empty())
      llvm::errs() << "// chip: " << chip << "\n";
    print(llvm::errs());
  }
  std::string chip;
};
} // namespace

LogicalResult mlir::pallas::runPasses(Operation *op, const CompileOptions &options,
                                     function_ref<void(OpPassManager &)> build) {
  PassManager pm(op->getContext(), op->getName().getStringRef());
  if (options.printIRAfterAll) {
    pm.getContext()->disableMultithreading();
    pm.enableIRPrinting(std::make_unique<ChipIRPrinter>(options.irDumpChip));
  }
  if (options.timing)
    pm.enableTiming(*options.timing);
  build(pm);
  return pm.run(op);
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
