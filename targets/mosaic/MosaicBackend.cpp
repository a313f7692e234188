//===- MosaicBackend.cpp - Mosaic bytecode and tpu_custom_call config -----===//
//
// The artifacts a TPU launch needs, as JAX builds them for a pallas_call:
// the Mosaic module serialised (stable_mosaic ops, MLIR bytecode version 0)
// and the `tpu_custom_call` backend config that carries it in base64.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/Backend.h"
#include "pallas/Mosaic/MosaicPasses.h"

#include "mlir/Transforms/Passes.h"
#include "pallas/Mosaic/TpuRules.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Base64.h"

using namespace mlir;
using namespace mlir::pallas;
using json = nlohmann::json;

/// The stable_mosaic version the serialised module carries (see
/// MosaicSerialize.cpp for why 11).
static constexpr int64_t kStableMosaicVersion = 11;

namespace {
/// flops, transcendentals and bytes of one launch, when every dot and
/// transcendental op runs a statically known number of times.
struct CostEstimate {
  int64_t flops = 0, transcendentals = 0, bytesAccessed = 0;
  bool known = true;
};
} // namespace

/// How many times `op` runs per program: the product of the trip counts of
/// the scf.for loops around it; nullopt when one is not constant.
static std::optional<int64_t> tripCount(Operation *op) {
  int64_t n = 1;
  for (Operation *p = op->getParentOp(); p && !isa<KernelOp>(p); p = p->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(p);
    if (!loop)
      continue;
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> st = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !st || *st <= 0)
      return std::nullopt;
    n *= std::max<int64_t>(0, (*ub - *lb + *st - 1) / *st);
  }
  return n;
}

static CostEstimate estimateCost(KernelOp kernel, const LaunchSpec &spec) {
  CostEstimate c;
  int64_t programs = spec.numPrograms();
  kernel.walk([&](Operation *op) {
    bool transcendental = isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
                              math::Log1pOp, math::Log2Op, math::TanhOp, math::SinOp,
                              math::CosOp, math::RsqrtOp, math::SqrtOp, math::ErfOp,
                              math::PowFOp, math::AtanOp, math::Atan2Op>(op);
    auto dot = dyn_cast<DotOp>(op);
    if (!dot && !transcendental)
      return;
    std::optional<int64_t> n = tripCount(op);
    if (!n) {
      c.known = false;
      return;
    }
    if (dot) {
      auto lhs = cast<RankedTensorType>(dot.getLhs().getType());
      auto result = cast<RankedTensorType>(dot.getType());
      int64_t k = lhs.getShape()[dot.getTransposeLhs() ? lhs.getRank() - 2
                                                       : lhs.getRank() - 1];
      c.flops += 2 * result.getNumElements() * k * *n * programs;
      return;
    }
    int64_t elements = 1;
    if (auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
      elements = t.getNumElements();
    c.transcendentals += elements * *n * programs;
  });
  for (const auto *ops : {&spec.inputs, &spec.outputs})
    for (const SpecOperand &op : *ops) {
      int64_t bytes = dtypeBytes(op.elementType);
      for (int64_t d : op.shape)
        bytes *= d;
      c.bytesAccessed += bytes;
    }
  return c;
}

static LogicalResult emitMosaic(const BackendInput &in, BackendResult &result) {
  auto [module, spec, targets, options] = in;
  // The TPU rules and the cost estimate read the kernel with its helper
  // functions inlined, as the pipeline will see it.
  if (failed(runPasses(module, options,
                       [](OpPassManager &pm) { pm.addPass(createInlinerPass()); })))
    return failure();
  const TargetDescription &target = targets.front();
  MLIRContext *ctx = module.getContext();
  auto kernels = module.getOps<KernelOp>();
  if (kernels.empty())
    return emitError(module.getLoc()) << "no kernel to compile", failure();
  KernelOp kernel = *kernels.begin();
  FailureOr<TpuMemoryUse> memory = checkTpuRules(kernel, spec, target);
  if (failed(memory))
    return failure();
  CostEstimate cost = estimateCost(kernel, spec);
  std::string kernelName = kernel.getSymName().str();

  if (failed(runPasses(module, options, buildMosaicPipeline)))
    return failure();
  std::string name = spec.name;
  addMlirArtifact(result, options, name + ".mosaic.mlir", module);

  // stable_mosaic ops are unregistered: the verifier after the pass must
  // accept them.
  bool allowed = ctx->allowsUnregisteredDialects();
  ctx->allowUnregisteredDialects(true);
  LogicalResult serialized = runPasses(module, options, [](OpPassManager &pm) {
    pm.addPass(createMosaicSerialize({kStableMosaicVersion}));
  });
  ctx->allowUnregisteredDialects(allowed);
  if (failed(serialized))
    return failure();
  std::string body;
  {
    llvm::raw_string_ostream os(body);
    BytecodeWriterConfig config;
    config.setDesiredBytecodeVersion(0);
    if (failed(writeBytecodeToFile(module, os, config)))
      return emitError(module.getLoc()) << "cannot write Mosaic bytecode",
             failure();
  }

  // The backend config, with the fields and spelling of JAX's
  // CustomCallBackendConfig.to_json.
  json call = {{"body", llvm::encodeBase64(body)},
               {"serialization_format", 1},
               {"needs_layout_passes", true}};
  if (cost.known)
    call["cost_estimate"] = {{"flops", cost.flops},
                             {"transcendentals", cost.transcendentals},
                             {"bytes_accessed", cost.bytesAccessed},
                             {"remote_bytes_transferred", 0}};
  json config = {{"custom_call_config", call}};
  if (spec.vmemLimitBytes)
    config["scoped_memory_configs"] = json::array(
        {{{"memory_space", 1}, {"offset", 0}, {"size", *spec.vmemLimitBytes}}});
  result.artifacts.push_back({name + ".mlirbc", body, "mosaic"});
  result.artifacts.push_back(
      {name + ".tpu_custom_call.json", config.dump() + "\n", "backend_config"});

  json sem = json::array();
  for (unsigned a = 0; a < spec.grid.size(); ++a)
    sem.push_back(spec.dimensionSemantics.empty()
                      ? "arbitrary"
                      : (spec.isParallel(a) ? "parallel" : "arbitrary"));
  json aliases = json::object();
  for (auto [in, out] : spec.aliases)
    aliases[std::to_string(in)] = out;
  result.launch = {{"custom_call_target", "tpu_custom_call"},
                   {"kernel", kernelName},
                   {"body", name + ".mlirbc"},
                   {"backend_config", name + ".tpu_custom_call.json"},
                   {"stable_mosaic_version", kStableMosaicVersion},
                   {"iteration_bounds", spec.grid},
                   {"dimension_semantics", sem},
                   {"num_scalar_prefetch", spec.numScalarPrefetch},
                   {"input_output_aliases", aliases},
                   {"operand_layout", "row-major (minor-to-major [rank-1, ..., 0])"},
                   {"vmem_bytes", memory->vmem},
                   {"vmem_limit_bytes", memory->vmemLimit},
                   {"smem_bytes", memory->smem}};
  return success();
}

namespace mlir::pallas {
/// Adds this backend to the registry; pallas_add_backend(Mosaic) lists it in
/// Backends.def, which the driver calls through.
void registerMosaicBackend();
} // namespace mlir::pallas

void mlir::pallas::registerMosaicBackend() {
  BackendInfo info{TargetKind::Tpu, emitMosaic};
  info.registerPasses = [] {
    registerMosaicPasses();
    registerMosaicPipeline();
  };
  info.registerDialects = [](DialectRegistry &registry) {
    registry.insert<tpu::TPUDialect>();
  };
  registerBackend(info);
}
