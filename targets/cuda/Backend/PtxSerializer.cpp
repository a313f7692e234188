//===- PtxSerializer.cpp - a gpu.module's PTX through LLVM's NVPTX backend ===//
//
// MLIR's NVVM serialiser (ModuleToObject) translates the gpu.module to LLVM
// IR and links libdevice; this subclass replaces its optimisation and
// object steps. Code without wgmma (mma.sync, CUDA cores):
//   - LLVM's -O1 pipeline without LICM. The lowering computes each copy's
//     and each store's addresses where they are used; hoisted out of the
//     loops, the addresses of every copy, fragment read and epilogue store
//     stay live across the whole kernel (matmul_accumulate: 269 values, 312
//     to 348 bytes of spills at 255 registers, none without; causal
//     attention's sm_80 code 28 bytes -> none, 12 % faster on an H100).
//   - the vectors scalarized before code generation. A thread's share of a
//     tile is an LLVM vector (`<128 x float>` for a 128x128 accumulator on 4
//     warps), which the instruction selector would legalize and combine
//     whole (0.53 of llc's 0.58 s on matmul_accumulate, 0.12 s after).
//     PTX has no such vectors. Loads and stores keep theirs (ld.v4, st.v4);
//     f32 -> bf16/f16 conversions go in pairs first
//     (pairNarrowingConversions).
// wgmma code keeps LLVM's -O1 as it is: its accumulators are few, short
// vectors, and its loops short; without LICM a lane test and some address
// arithmetic ran in the attention loop, and the scalarized code scheduled
// differently (D = 64 attention 3.5 % slower either way). (The CUDA
// backend keeps LICM out of the loops of kernels that run two tensor-core
// loops one after the other with half a thread's registers carried:
// attention backward at D = 128. Loop metadata says so.)
// Neither runs the vectorizers: the code is per-thread registers already
// (SLP took 0.18 of 0.39 s on matmul_relu, for the same PTX). Of -O1's
// eight InstCombine runs both keep two: the first (on the IR as
// translated) and the one after loop unrolling; the six between gave the
// same PTX but for register numbering (all example, conformance and
// benchmark kernels; a few differ, ops_tour the most: 647 lines against
// 675, registers unchanged) and took 0.13 of LLVM's 0.45 s on matmul_relu.
// Values go unnamed (the names were a tenth of the optimisation's time,
// hashed and made unique on every new instruction).
// The object is the PTX text (ptxas runs after the PTX rewrites).
//
//===----------------------------------------------------------------------===//
#include "Backend/PtxSerializer.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Scalar/DCE.h"
#include "llvm/Transforms/Scalar/Scalarizer.h"

using namespace mlir;

namespace {

/// Rewrites each `fptrunc <N x float> to <N x bfloat|half>` as N/2 calls of
/// the NVVM intrinsic converting two floats into one bf16x2 / f16x2
/// register (the cvt.rn.bf16x2.f32 the vector would lower to), which the
/// scalarizer leaves whole: split into scalars, the conversion would take
/// one cvt per element.
void pairNarrowingConversions(llvm::Module &module) {
  SmallVector<llvm::FPTruncInst *> conversions;
  for (llvm::Function &f : module)
    for (llvm::Instruction &i : llvm::instructions(f))
      if (auto *t = dyn_cast<llvm::FPTruncInst>(&i))
        if (auto *to = dyn_cast<llvm::FixedVectorType>(t->getType()))
          if (to->getNumElements() % 2 == 0 && t->getSrcTy()->getScalarType()->isFloatTy() &&
              (to->getElementType()->isBFloatTy() || to->getElementType()->isHalfTy()))
            conversions.push_back(t);
  for (llvm::FPTruncInst *t : conversions) {
    auto *to = cast<llvm::FixedVectorType>(t->getType());
    llvm::Intrinsic::ID pair = to->getElementType()->isBFloatTy()
                                   ? llvm::Intrinsic::nvvm_ff2bf16x2_rn
                                   : llvm::Intrinsic::nvvm_ff2f16x2_rn;
    llvm::IRBuilder<> b(t);
    llvm::Value *in = t->getOperand(0), *out = llvm::PoisonValue::get(to);
    for (unsigned e = 0; e < to->getNumElements(); e += 2) {
      // The first operand lands in the high half (element 1).
      llvm::Value *two = b.CreateIntrinsic(
          pair, {}, {b.CreateExtractElement(in, e + 1), b.CreateExtractElement(in, e)});
      out = b.CreateInsertElement(out, b.CreateExtractElement(two, uint64_t(0)), e);
      out = b.CreateInsertElement(out, b.CreateExtractElement(two, 1), e + 1);
    }
    t->replaceAllUsesWith(out);
    t->eraseFromParent();
  }
}

class PtxSerializer : public NVVM::SerializeGPUModuleBase {
public:
  PtxSerializer(Operation &module, NVVM::NVVMTargetAttr target,
                const gpu::TargetOptions &options, bool wgmmaCode, StringRef libdevice)
      : SerializeGPUModuleBase(module, target, options), wgmmaCode(wgmmaCode),
        libdevice(libdevice.str()) {}

private:
  bool wgmmaCode;
  std::string libdevice;

protected:
  /// The libdevice pallasc chose (the base class looks for its own in a
  /// toolkit of the environment's).
  std::optional<SmallVector<std::unique_ptr<llvm::Module>>>
  loadBitcodeFiles(llvm::Module &module) override {
    SmallVector<std::unique_ptr<llvm::Module>> files;
    if (libdevice.empty())
      return files;
    Attribute path = StringAttr::get(getOperation().getContext(), libdevice);
    if (failed(loadBitcodeFilesFromList(module.getContext(), path, files, true)))
      return std::nullopt;
    return files;
  }

  /// The NVPTX target machine, contracting f32/f64 multiply-adds into FMAs
  /// (`mul` + `add` into `fma.rn`), as Triton's default does (so as JAX's
  /// Pallas kernels compute on the GPU) and nvcc's: one rounding instead of
  /// two, one instruction instead of two.
  FailureOr<llvm::TargetMachine *> targetMachine() {
    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (succeeded(machine))
      (*machine)->Options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
    return machine;
  }

  LogicalResult optimizeModule(llvm::Module &module, int optLevel) override {
    FailureOr<llvm::TargetMachine *> machine = targetMachine();
    if (failed(machine))
      return getOperation().emitError("internal error: no NVPTX target machine"), failure();
    // Code generation at the same level (llc -O1).
    (*machine)->setOptLevel(static_cast<llvm::CodeGenOptLevel>(optLevel));

    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    module.getContext().setDiscardValueNames(true);
    llvm::PassInstrumentationCallbacks instrumentation;
    // Per function, InstCombine runs first, and again once loop unrolling
    // has run since.
    struct Combines {
      bool combined = false, unrolled = false;
    };
    llvm::DenseMap<const llvm::Function *, Combines> combines;
    instrumentation.registerShouldRunOptionalPassCallback(
        [&, licm = wgmmaCode](StringRef pass, llvm::Any ir) {
          auto *const *f = llvm::any_cast<const llvm::Function *>(&ir);
          if (f && pass == "LoopUnrollPass")
            combines[*f].unrolled = true;
          if (f && pass == "InstCombinePass") {
            Combines &c = combines[*f];
            if (c.combined && !c.unrolled)
              return false;
            c.combined = true;
            c.unrolled = false;
          }
          return licm || pass != "LICMPass";
        });
    // No vectorizers (see above).
    llvm::PipelineTuningOptions tuning;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = false;
    tuning.LoopVectorization = false;
    tuning.SLPVectorization = false;
    llvm::PassBuilder pb(*machine, tuning, std::nullopt, &instrumentation);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);

    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(
        optLevel >= 3   ? llvm::OptimizationLevel::O3
        : optLevel == 2 ? llvm::OptimizationLevel::O2
        : optLevel == 1 ? llvm::OptimizationLevel::O1
                        : llvm::OptimizationLevel::O0);
    mpm.run(module, mam);
    if (wgmmaCode)
      return success();

    pairNarrowingConversions(module);
    llvm::FunctionPassManager scalarize;
    scalarize.addPass(llvm::ScalarizerPass());
    scalarize.addPass(llvm::DCEPass());
    llvm::ModulePassManager after;
    after.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(scalarize)));
    after.run(module, mam);
    return success();
  }

  FailureOr<SmallVector<char, 0>> moduleToObject(llvm::Module &module) override {
    FailureOr<llvm::TargetMachine *> machine = targetMachine();
    if (failed(machine))
      return getOperation().emitError("internal error: no NVPTX target machine"), failure();
    FailureOr<SmallString<0>> ptx =
        translateModuleToISA(module, **machine, [&] { return getOperation().emitError(); });
    if (failed(ptx))
      return failure();
    return SmallVector<char, 0>(ptx->begin(), ptx->end());
  }
};

} // namespace

FailureOr<std::string> mlir::pallas::cuda::serializeToPtx(gpu::GPUModuleOp module,
                                                         NVVM::NVVMTargetAttr target,
                                                         StringRef libdevice,
                                                         bool wgmmaCode) {
  NVVM::SerializeGPUModuleBase::init();
  std::optional<PtxSerializer> made;
  {
    // The base class looks up a libdevice of its own (CUDA_ROOT, ...) as it
    // is made, and reports one it does not find as an error: pallasc links
    // the one it chose instead (loadBitcodeFiles), so that lookup says
    // nothing.
    ScopedDiagnosticHandler quiet(module.getContext(), [](Diagnostic &d) {
      std::string text = d.str();
      return success(StringRef(text).starts_with("LibDevice path:") ||
                     StringRef(text).starts_with("CUDA path:"));
    });
    made.emplace(*module, target, gpu::TargetOptions(), wgmmaCode, libdevice);
  }
  PtxSerializer &serializer = *made;
  std::optional<SmallVector<char, 0>> ptx = serializer.run();
  if (!ptx)
    return failure();
  std::string text(ptx->begin(), ptx->end());
  // (Without the NUL the printer may leave at the end.)
  while (!text.empty() && text.back() == '\0')
    text.pop_back();
  return text;
}
