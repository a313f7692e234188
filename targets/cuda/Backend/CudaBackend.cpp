//===- CudaBackend.cpp - cubins and a C launch header for NVIDIA GPUs -----===//
//
// tile IR (convert-pallas-to-tile) -> per-thread code in a gpu.module
// (convert-tile-to-nvvm) -> NVVM/LLVM -> PTX through LLVM's NVPTX backend
// (PtxSerializer.cpp, one per requested architecture) -> cubin
// through the CUDA toolkit's ptxas.
//
//===----------------------------------------------------------------------===//
#include "Backend/CudaHeader.h"
#include "Backend/WaveOccupancy.h"
#include "Backend/PtxSerializer.h"
#include "Backend/PtxasReport.h"
#include "Backend/WgmmaWaitPlacement.h"
#include "Transforms/PlgpuUserSchedule.h"

#include "pallas/Driver/Backend.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Mgpu/Mgpu.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"

#ifdef __linux__
#include <sys/personality.h>
#endif
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <mutex>
#include <thread>

using namespace mlir;
using namespace mlir::pallas;

/// The CUDA toolkit's assembler: $PALLAS_PTXAS, /usr/local/cuda/bin, PATH.
static std::optional<std::string> findPtxas() {
  if (const char *env = std::getenv("PALLAS_PTXAS"); env && *env)
    return std::string(env);
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  if (auto p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  return std::nullopt;
}

/// Children started from now on run without address space layout
/// randomization (Linux; elsewhere nothing). ptxas orders some of its
/// choices by where its data lies in memory: for some PTX (megablox's
/// sequential GEMM) two runs on the same input schedule and allocate
/// registers differently unless the layout is the same every time. Set
/// once, for the process (personality is shared by its threads; the flag
/// applies at exec).
static void spawnWithFixedAddresses() {
#ifdef __linux__
  static const bool set = [] {
    int current = personality(0xffffffff);
    return current != -1 && personality(current | ADDR_NO_RANDOMIZE) != -1;
  }();
  (void)set;
#endif
}

/// Assembles `ptx` for `chip` into `img.cubin` with ptxas's report on
/// kernel `function` (registers, spills); ptxas's messages on failure
/// (none with `quiet`: a variant tried where the build has another).
static LogicalResult runPtxas(Location loc, StringRef ptxas, StringRef chip, StringRef ptx,
                              StringRef function, CudaImage &img, const CompileOptions &options,
                              bool quiet = false) {
  SmallString<128> in, out, err;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("pallas", "ptx", fd, in) ||
      llvm::sys::fs::createTemporaryFile("pallas", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("pallas", "log", err))
    return emitError(loc) << "cannot create temporary files for ptxas", failure();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  // (-v adds the report; the code is the same, the cubin records the
  // options it was assembled with.)
  SmallVector<StringRef> args = {ptxas, arch, "-O3", "-v", "-o", out, in};
  reportCommand(options, args);
  std::optional<StringRef> redirects[] = {std::nullopt, err, err};
  std::string execError;
  spawnWithFixedAddresses();
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &execError);
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(in);
    llvm::sys::fs::remove(out);
    llvm::sys::fs::remove(err);
  });
  if (rc != 0 && quiet)
    return failure();
  if (rc != 0) {
    auto log = llvm::MemoryBuffer::getFile(err);
    return emitError(loc) << "ptxas (" << ptxas << ") failed for " << chip
                          << (execError.empty() ? "" : ": " + execError) << "\n"
                          << (log ? (*log)->getBuffer() : StringRef()),
           failure();
  }
  auto bin = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!bin)
    return emitError(loc) << "ptxas wrote no cubin for " << chip, failure();
  img.cubin = (*bin)->getBuffer().str();
  if (auto log = llvm::MemoryBuffer::getFile(err))
    img.ptxas = cuda::parsePtxasReport((*log)->getBuffer().str(), function.str());
  return success();
}

namespace {

/// One chip's share of a CUDA build.
struct ChipBuild {
  CudaImage image;
  int64_t threads = 0;
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t sharedBytes = 0;
  bool persistent = false;
  /// CTAs per thread-block cluster (1: none).
  int64_t cluster = 1;
  /// Why the spec's cluster is not used (empty: it is, or none asked for).
  std::string clusterUnused;
  /// Its --emit mlir artifacts.
  BackendResult result;
};

/// A chip's gpu.module to LLVM functions: convert-gpu-to-nvvm takes the
/// math ops libdevice implements...
constexpr const char kToLlvmFuncPipeline[] =
    "gpu.module(convert-nvvm-to-llvm, convert-scf-to-cf, convert-gpu-to-nvvm)";

/// ...convert-math-to-llvm the rest (trunc, absi, bit counts); then PTX
/// through the NVPTX backend (cuda::serializeToPtx), libdevice from the toolkit.
constexpr const char kToLlvmPipeline[] =
    "gpu.module(convert-math-to-llvm, convert-vector-to-llvm, canonicalize, cse, "
    "reconcile-unrealized-casts)";

/// Loads the dialects every pass of a chip's build may load, so that
/// chips can compile on threads of their own.
void loadCudaDialects(MLIRContext *ctx) {
  OpPassManager pm(ModuleOp::getOperationName());
  CudaPipelineOptions options;
  buildCudaPipeline(pm, options);
  (void)parsePassPipeline(kToLlvmFuncPipeline, pm, llvm::nulls());
  (void)parsePassPipeline(kToLlvmPipeline, pm, llvm::nulls());
  DialectRegistry registry;
  pm.getDependentDialects(registry);
  ctx->appendDialectRegistry(registry);
  ctx->loadAllAvailableDialects();
}

/// Turns off LLVM's straight-line strength reduction (NVPTX runs it before
/// instruction selection) for this process, once: on the long unrolled
/// blocks the lowering makes it takes most of code generation (2.0 of
/// 2.7 s for sm_80 flash attention) for the same PTX give or take a few
/// lines, and ptxas reduces strength itself. Through LLVM's -opt-disable
/// gate, as `llc --opt-disable=slsr` would.
void disableSlowCodegenPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("opt-disable");
    if (it != options.end())
      (void)it->second->addOccurrence(0, "opt-disable", "slsr");
  });
}

} // namespace

// The id of chip `index`'s code generation (stage 0) or ptxas (stage 1)
// timer. MLIR keys a timer by its id, and an interned name lives on the heap,
// where a pass freed earlier in the compile may have lived: its timer would
// absorb ours. Static storage is no pass's address.
static const void *chipTimerId(size_t index, int stage) {
  static char ids[64][2];
  return &ids[index % 64][stage];
}

static LogicalResult emitCuda(const BackendInput &in, BackendResult &result) {
  ModuleOp module = in.module;
  const LaunchSpec &spec = in.spec;
  ArrayRef<TargetDescription> targets = in.targets;
  const CompileOptions &options = in.options;
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  for (auto k : module.getOps<KernelOp>())
    loc = k.getLoc();

  disableSlowCodegenPasses();
  // The toolkit holding ptxas also holds libdevice (math functions).
  std::optional<std::string> ptxas =
      options.stopBeforeCodegen ? std::optional<std::string>("ptxas") : findPtxas();
  if (!ptxas)
    return emitError(loc) << "ptxas not found: install the CUDA toolkit "
                             "(/usr/local/cuda) or set PALLAS_PTXAS",
           failure();
  if (!options.stopBeforeCodegen && !llvm::sys::fs::can_execute(*ptxas))
    return emitError(loc) << "ptxas '" << *ptxas << "' (PALLAS_PTXAS) is not an executable",
           failure();
  std::string toolkit = llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas)).str();
  // libdevice: the one named (--libdevice, PALLAS_LIBDEVICE), else the one
  // in that toolkit, where there is one (a kernel that calls none needs
  // none). A depfile names it.
  SmallString<256> besidePtxas(toolkit);
  llvm::sys::path::append(besidePtxas, "nvvm", "libdevice", "libdevice.10.bc");
  std::string libdevice = options.libdevice;
  if (!libdevice.empty()) {
    if (!options.stopBeforeCodegen && !llvm::sys::fs::is_regular_file(libdevice))
      return emitError(loc) << "libdevice '" << libdevice
                            << "' (--libdevice or PALLAS_LIBDEVICE) does not exist or is "
                               "not a file",
             failure();
  } else if (llvm::sys::fs::is_regular_file(besidePtxas)) {
    libdevice = besidePtxas.str().str();
  }
  if (!libdevice.empty() && !options.stopBeforeCodegen)
    result.inputs.push_back(libdevice);

  CudaLaunch launch;
  launch.function = spec.name;
  // A producer warpgroup changes the launch's threads, which every chip's
  // code shares: only where every chip can have one (the wgmma chips).
  bool allWgmma = llvm::all_of(
      targets, [](const TargetDescription &t) { return t.has("tensor_cores", "wgmma"); });
  bool producer = !options.noTma && options.warpSpecialize && allWgmma;
  // A Pallas:MGPU kernel keeps its own schedule where every chip has wgmma
  // and the kernel allows it (--plgpu-schedule).
  bool userSchedule = false;
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    if (!plgpu::getMesh(kernel) || options.plgpuSchedule == "in-order")
      continue;
    std::optional<cuda::UserScheduleGap> gap = cuda::userScheduleGap(kernel);
    if (options.plgpuSchedule == "kernel") {
      if (!allWgmma)
        return kernel.emitOpError("--plgpu-schedule=kernel lowers for sm_90a (wgmma) chips only"),
               failure();
      if (gap)
        return gap->op->emitOpError("cannot keep its own schedule on sm_90a yet "
                                    "(--plgpu-schedule=kernel): ")
                   << gap->reason,
               failure();
    }
    userSchedule = allWgmma && !gap;
  }
  // Each chip gets its own lowering of the kernel: the code
  // differs (wgmma on sm_90a), the launch geometry does not.
  auto buildChip = [&](const TargetDescription &t, ChipBuild &out) -> LogicalResult {
    bool wgmma = t.has("tensor_cores", "wgmma");
    // (IR dumps name the chip they are for.)
    CompileOptions passOptions = options;
    passOptions.irDumpChip = t.name;
    int64_t limit = t.getInt("shared_memory_per_block", 49152);
    const cuda::SmLimits smLimits{t.getInt("sm_count"), t.getInt("shared_memory_per_sm"), limit,
                                  t.getInt("max_threads_per_sm", 2048)};
    // Lowers a copy of the kernel; `ringBytes` is the shared memory
    // pallas-stage-loads may stage blocks in.
    // Persistent CTAs (one per SM, looping over the programs) where the
    // kernel has a producer to fill the next program's slots.
    // (Not yet with symbolic sizes: the programs to loop over are known at
    // launch only.)
    int64_t persistentCtas = producer && options.persistent && spec.persistent.value_or(true) &&
                                     !spec.hasSymbolicSizes()
                                 ? t.getInt("sm_count", 0)
                                 : 0;
    // TMA stores in a loop take an area of shared memory of their own
    // (convert-tile-to-nvvm), unless that overflows the chip.
    bool tmaStoreArea = true;
    auto lowerTile = [&](int64_t ringBytes) -> FailureOr<OwningOpRef<ModuleOp>> {
      OwningOpRef<ModuleOp> copy = module.clone();
      CudaPipelineOptions chipOptions;
      chipOptions.wgmma = wgmma;
      chipOptions.sharedBytes = ringBytes;
      chipOptions.warpgroupTurns = options.warpgroupTurns;
      chipOptions.tma = !options.noTma && (options.tma || producer);
      chipOptions.producer = producer;
      chipOptions.persistentCtas = persistentCtas;
      chipOptions.cluster = spec.cluster;
      chipOptions.userSchedule = userSchedule;
      chipOptions.tmaStoreArea = tmaStoreArea;
      if (failed(runPasses(*copy, passOptions, [&](OpPassManager &pm) {
            buildCudaPipeline(pm, chipOptions);
          })))
        return failure();
      return copy;
    };
    // The lowering's launch decisions, one per kernel function.
    auto launchConfigsOf = [](ModuleOp m) {
      SmallVector<std::pair<gpu::GPUFuncOp, pgpu::LaunchConfigAttr>> configs;
      m->walk([&](gpu::GPUFuncOp fn) {
        if (auto c = fn->getAttrOfType<pgpu::LaunchConfigAttr>(pgpu::kLaunchConfigAttrName))
          configs.push_back({fn, c});
      });
      return configs;
    };
    auto sharedBytesOf = [&](ModuleOp m) -> int64_t {
      int64_t bytes = 0;
      for (auto [fn, config] : launchConfigsOf(m))
        bytes = std::max(bytes, config.getSharedBytes());
      return bytes;
    };
    FailureOr<OwningOpRef<ModuleOp>> lowered = lowerTile(limit);
    if (failed(lowered))
      return failure();
    // The TMA stores' own area (saving the other exchanges their waits
    // for the stores' reads) only where the chip keeps as many CTAs an SM
    // with it, by shared memory and threads.
    auto hasTmaStoreArea = [&](ModuleOp m) {
      return llvm::any_of(launchConfigsOf(m), [](auto fc) {
        return fc.first->hasAttr(pgpu::kTmaStoreAreaAttrName);
      });
    };
    if (hasTmaStoreArea(**lowered)) {
      tmaStoreArea = false;
      FailureOr<OwningOpRef<ModuleOp>> without = lowerTile(limit);
      if (failed(without))
        return failure();
      auto ctasPerSm = [&](ModuleOp m) {
        int64_t threads = 1;
        for (auto [fn, config] : launchConfigsOf(m))
          threads = std::max<int64_t>(threads, config.getThreads());
        return std::min(t.getInt("shared_memory_per_sm", limit) / (sharedBytesOf(m) + 1024),
                        t.getInt("max_threads_per_sm", 2048) / threads);
      };
      if (sharedBytesOf(**lowered) > limit || ctasPerSm(**without) > ctasPerSm(**lowered))
        lowered = std::move(without);
    }
    // A persistent kernel's epilogue exchanges values beside the rings
    // (the producer fills them meanwhile): where that overflows the chip,
    // one CTA per program; failing that, rings next to a large exchange
    // area stream through registers instead.
    if (sharedBytesOf(**lowered) > limit && persistentCtas) {
      persistentCtas = 0;
      lowered = lowerTile(limit);
      if (failed(lowered))
        return failure();
    }
    if (sharedBytesOf(**lowered) > limit) {
      lowered = lowerTile(0);
      if (failed(lowered))
        return failure();
    }
    OwningOpRef<ModuleOp> chipModule = std::move(*lowered);

    std::string chip = t.fields.count("ptx_target") ? t.fields.at("ptx_target") : t.name;
    // --emit mlir: the per-thread GPU code, before NVVM and PTX.
    addMlirArtifact(out.result, options, spec.name + "." + chip + ".gpu.mlir", *chipModule);
    CudaImage img;
    // The launch as the lowering decided it (#pallas_gpu.launch_config):
    // read here once, for the manifest and the header.
    auto configs = launchConfigsOf(*chipModule);
    if (configs.size() != 1)
      return emitError(loc) << "internal error: " << configs.size()
                            << " kernels with a launch config after lowering",
             failure();
    auto [kernelFn, config] = configs.front();
    kernelFn->removeAttr(pgpu::kLaunchConfigAttrName);
    kernelFn->removeAttr(pgpu::kTmaStoreAreaAttrName);
    out.threads = config.getThreads();
    if (DenseI64ArrayAttr grid = config.getGrid())
      for (int64_t i = 0; i < 3 && i < grid.size(); ++i)
        out.grid[i] = grid[i];
    out.persistent = config.getPersistent();
    out.cluster = config.getCluster();
    if (StringAttr why = config.getClusterUnused())
      out.clusterUnused = why.str();
    // The tensor maps the launch builds for this chip's code.
    if (ArrayAttr maps = config.getTensorMaps())
      for (Attribute a : maps) {
        auto map = cast<pgpu::TensorMapAttr>(a);
        img.tensorMaps.push_back({map.getParam(), map.getRows(), map.getRowElements(),
                                  map.getElemBytes(), map.getBoxRows(), map.getBoxCols(),
                                  map.getSwizzleBytes(), map.getDataType(),
                                  map.getFragmentRows()});
      }
    int64_t maxThreads = t.getInt("max_threads_per_block", 1024);
    if (out.threads > maxThreads)
      return emitError(loc) << "the kernel runs " << out.threads << " threads per CTA (num_warps "
                            << spec.numWarps << "); " << t.name << " allows at most "
                            << maxThreads,
             failure();
    int64_t shared = config.getSharedBytes();
    if (shared > limit)
      return emitError(loc) << "the kernel needs " << shared
                            << " bytes of shared memory per CTA; " << t.name
                            << " allows at most " << limit << " (use smaller blocks)",
             failure();
    out.sharedBytes = shared;
    // A memory-bound kernel (pallas-stage-loads staged its loop for more
    // CTAs per SM): fewer where the grid then ends sooner (WaveOccupancy.h).
    if (kernelFn->hasAttr(pgpu::kMemoryBoundAttrName)) {
      kernelFn->removeAttr(pgpu::kMemoryBoundAttrName);
      if (!out.persistent && out.cluster == 1 && !spec.hasSymbolicSizes()) {
        out.sharedBytes = cuda::sharedBytesForWaves(
            shared, out.threads, out.grid[0] * out.grid[1] * out.grid[2], smLimits);
      }
    }
    // A cluster the spec asks for, on a chip that has them, and why not.
    if (spec.cluster > 1 && wgmma && out.cluster == 1)
      emitWarning(spec.loc("compiler_params.cluster"))
          << "cluster " << spec.cluster << " not used on " << t.name << ": "
          << (out.clusterUnused.empty()
                  ? std::string("no producer warpgroup fills the kernel's rings through the TMA")
                  : out.clusterUnused)
          << "; one CTA per cluster";

    gpu::GPUModuleOp gpuModule;
    chipModule->walk([&](gpu::GPUModuleOp m) { gpuModule = m; });
    if (!gpuModule)
      return emitError(loc) << "internal error: no gpu.module after lowering", failure();
    // The kernel symbol is the artifact name.
    gpuModule.walk([&](gpu::GPUFuncOp f) {
      if (f.isKernel())
        f.setName(spec.name);
    });
    // LLVM at -O1: the kernels run as fast as at -O3 (ptxas optimizes the
    // PTX at -O3 either way; bench/RESULTS.md, session 8), and compile in
    // 10-40 % less time. -O0 leaves ptxas too much to undo.
    auto target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/1, "nvptx64-nvidia-cuda", chip,
                                            "+ptx80");
    gpuModule.setTargetsAttr(ArrayAttr::get(ctx, {target}));
    auto run = [&](const std::string &pipeline) -> LogicalResult {
      LogicalResult parsed = success();
      LogicalResult ran = runPasses(*chipModule, passOptions, [&](OpPassManager &pm) {
        parsed = parsePassPipeline(pipeline, pm, llvm::errs());
      });
      if (failed(parsed))
        return emitError(loc) << "internal error: bad NVVM pipeline", failure();
      return ran;
    };
    // Pipelined loops are not unrolled: ptxas would unroll short ones (8 to
    // 16 iterations of a K loop) in full, for several times the assembly
    // time (0.57 -> 0.10 s for examples/matmul_dma's sm_90a code) and more
    // registers. The annotation reaches the PTX as `.pragma "nounroll"`
    // (convert-scf-to-cf moves it to the loop's back edge).
    // Where a kernel's threads run two tensor-core loops one after the
    // other (attention backward's dK/dV and dQ scans) and one of them
    // carries half a thread's registers or more (D = 128: dK and dV, 131
    // registers), LLVM hoists nothing out of them: hoisted, the address
    // arithmetic both compute became one value live across both loops,
    // beside the accumulators (causal backward: 48 bytes of spills, none
    // kept in; 2-2.6 % faster at D = 128; at D = 64, 67 registers carried,
    // the loops kept hoisting: 16 % faster that way). So also for one such
    // loop of three dots or more (the five-matmul backward on 128 keys:
    // dK and dV, 128 registers; 204 bytes of spills, 8 kept in). What
    // counts is what the loop carries with its two largest dot results
    // (S and dP): 192 registers of a consumer's 240 or more. The
    // five-matmul backward at D = 64 on 128-row blocks carries 64 but its
    // S and dP are 128 x 128 (64 each): hoisted, 112 bytes of spills; kept
    // in, none, and 6 % faster (causal 5 %).
    auto annotation = [&](bool noUnroll, bool noLicm) {
      auto yes = BoolAttr::get(ctx, true);
      return LLVM::LoopAnnotationAttr::get(
          ctx, {}, {}, {},
          noUnroll ? LLVM::LoopUnrollAttr::get(ctx, yes, {}, {}, {}, {}, {}, {})
                   : LLVM::LoopUnrollAttr(),
          {}, noLicm ? LLVM::LoopLICMAttr::get(ctx, yes, {}) : LLVM::LoopLICMAttr(), {}, {}, {},
          {}, {}, {}, {}, {}, {});
    };
    // 32-bit registers a thread's values of `types` take.
    auto registersOf = [](TypeRange types) {
      int64_t bits = 0;
      for (Type t : types) {
        if (auto s = dyn_cast<LLVM::LLVMStructType>(t))
          for (Type field : s.getBody())
            bits += field.isIntOrFloat() ? field.getIntOrFloatBitWidth() : 0;
        else if (auto v = dyn_cast<VectorType>(t))
          bits += v.getNumElements() * v.getElementTypeBitWidth();
        else if (t.isIntOrFloat())
          bits += t.getIntOrFloatBitWidth();
      }
      return bits / 32;
    };
    chipModule->walk([&](gpu::GPUFuncOp fn) {
      // The innermost loops with wgmma (a persistent kernel's loop over
      // its programs holds its one K loop).
      SmallVector<scf::ForOp> dotLoops;
      int64_t live = 0, mostDots = 0;
      fn.walk([&](scf::ForOp loop) {
        bool dots = false, inner = false;
        int64_t commits = 0;
        // Registers of each dot's result: one wgmma commit a dot, its
        // chains (one an m64 block) starting where a wgmma's accumulator
        // comes from no other. (Dots with A in registers are inline PTX,
        // not counted; a dot adding into what the loop carries with A in
        // a ring counts twice: an estimate from above.)
        SmallVector<int64_t> results{0};
        loop.getBody()->walk([&](Operation *op) {
          if (auto mma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
            dots = true;
            if (!mma.getInouts().getDefiningOp<NVVM::WgmmaMmaAsyncOp>())
              results.back() += registersOf(mma.getType());
          }
          inner |= isa<scf::ForOp>(op);
          if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op)) {
            ++commits;
            results.push_back(0);
          }
        });
        if (dots && !inner) {
          dotLoops.push_back(loop);
          llvm::sort(results, std::greater<int64_t>());
          results.resize(std::max<size_t>(results.size(), 2));
          live = std::max(live, registersOf(loop.getResultTypes()) + results[0] + results[1]);
          mostDots = std::max(mostDots, commits);
        }
      });
      bool keepInvariantsIn = live >= 192 && (dotLoops.size() > 1 || mostDots >= 3);
      fn.walk([&](scf::ForOp loop) {
        bool pipelined = static_cast<bool>(loop->removeAttr(pgpu::kPipelinedLoopAttrName));
        bool keepIn = keepInvariantsIn && llvm::is_contained(dotLoops, loop);
        if (pipelined || keepIn)
          loop->setAttr("llvm.loop_annotation", annotation(pipelined, keepIn));
      });
    });
    // (Before the NVVM ops become inline assembly.)
    bool wgmmaCode = false;
    chipModule->walk([&](NVVM::WgmmaMmaAsyncOp) { wgmmaCode = true; });
    if (failed(run(kToLlvmFuncPipeline)))
      return failure();
    img.chip = chip;
    img.computeCapability = t.getInt("compute_capability", 0);
    if (options.stopBeforeCodegen) {
      out.image = std::move(img);
      return success();
    }
    // The kernel's last parameters are its CUtensorMaps: 128 bytes by
    // value on 64, __grid_constant__ (the TMA reads them in place).
    if (!img.tensorMaps.empty())
      chipModule->walk([&](LLVM::LLVMFuncOp fn) {
        if (!fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
          return;
        unsigned n = fn.getNumArguments();
        for (unsigned i = n - img.tensorMaps.size(); i < n; ++i) {
          fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128)));
          fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        IntegerAttr::get(IntegerType::get(ctx, 64), 64));
          fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), UnitAttr::get(ctx));
        }
      });
    if (failed(run(kToLlvmPipeline)))
      return failure();
    // convert-scf-to-cf leaves the loop annotation on the back edge as a
    // discardable attribute, which the branch's conversion to LLVM keeps as
    // such; the translation to LLVM IR reads the branch's own property.
    chipModule->walk([&](LLVM::BrOp br) {
      if (auto a = br->getAttrOfType<LLVM::LoopAnnotationAttr>("llvm.loop_annotation")) {
        br->removeAttr("llvm.loop_annotation");
        br.setLoopAnnotationAttr(a);
      }
    });
    img.archSpecific = StringRef(chip).ends_with("a");
    {
      TimingScope codegenTime =
          options.timing ? options.timing->nest(chipTimerId(&t - targets.data(), 0),
                                                [&] { return "LLVM to PTX " + chip; })
                         : TimingScope();
      FailureOr<std::string> ptx =
          cuda::serializeToPtx(gpuModule, target, libdevice, wgmmaCode);
      if (failed(ptx))
        return failure();
      img.ptx = std::move(*ptx);
      // A libdevice function left undefined: there was none to link.
      if (size_t at = img.ptx.find(".extern .func"); at != std::string::npos &&
                                                    libdevice.empty()) {
        size_t nv = img.ptx.find("__nv_", at);
        StringRef name = nv == std::string::npos
                             ? StringRef("a libdevice function")
                             : StringRef(img.ptx).substr(nv).take_while(
                                   [](char c) { return std::isalnum(c) || c == '_'; });
        return emitError(loc) << "this kernel calls " << name << " from libdevice, which is not "
                              << "beside ptxas (" << besidePtxas
                              << "): pass --libdevice PATH or set PALLAS_LIBDEVICE",
               failure();
      }
    }
    img.ptx = cuda::placeFinalWgmmaWaits(img.ptx);
    {
      TimingScope ptxasTime =
          options.timing ? options.timing->nest(chipTimerId(&t - targets.data(), 1),
                                                [&] { return "ptxas " + chip; })
                         : TimingScope();
      if (failed(runPtxas(loc, *ptxas, img.chip, img.ptx, launch.function, img, options)))
        return failure();
      if (cuda::setmaxnregIgnored(img.ptxas)) {
        img.ptx = cuda::pinEntryRegisterCount(img.ptx);
        if (failed(runPtxas(loc, *ptxas, img.chip, img.ptx, launch.function, img, options)))
          return failure();
      } else if (wgmmaCode && img.ptx.find("setmaxnreg") == std::string::npos) {
        // One more CTA an SM where registers alone hold the SM to fewer
        // than its shared memory and threads allow, if ptxas fits the
        // code into the smaller share without spilling or serializing a
        // wgmma: JAX's D = 64 attention backward on 64-row blocks (one
        // warpgroup, 176 registers, 56 KB): two CTAs -> three at 168,
        // 0.80x -> 0.91x of cuDNN.
        int64_t byRegisters = cuda::ctasByRegisters(img.ptxas.registers, out.threads,
                                                    t.getInt("registers_per_sm", 65536));
        // (Only where registers leave an SM one or two CTAs: past that, a
        // CTA more adds little, and ptxas rarely fits the smaller share.)
        if (byRegisters >= 1 && byRegisters <= 2 &&
            byRegisters <
                cuda::ctasBySharedMemoryAndThreads(out.sharedBytes, out.threads, smLimits)) {
          CudaImage more = img;
          more.ptx = cuda::withMinCtasPerSm(img.ptx, byRegisters + 1);
          // (ptxas refuses a share too small for a wgmma's registers: C7602.)
          if (succeeded(runPtxas(loc, *ptxas, more.chip, more.ptx, launch.function, more, options,
                                 /*quiet=*/true)) &&
              more.ptxas.spillStoreBytes == 0 && more.ptxas.spillLoadBytes == 0 &&
              more.ptxas.wgmmaNotes.size() <= img.ptxas.wgmmaNotes.size())
            img = std::move(more);
        }
      }
    }
    out.image = std::move(img);
    return success();
  };

  std::vector<ChipBuild> chips(targets.size());
  if (targets.size() == 1 || options.printIRAfterAll || !ctx->isMultithreadingEnabled()) {
    for (size_t i = 0; i < targets.size(); ++i)
      if (failed(buildChip(targets[i], chips[i])))
        return failure();
  } else {
    // Chips compile side by side: their dialects are loaded first (loading
    // one is not thread-safe), their diagnostics come out in chip order.
    loadCudaDialects(ctx);
    ParallelDiagnosticHandler diagnostics(ctx);
    std::vector<char> built(targets.size(), 0);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < targets.size(); ++i)
      threads.emplace_back([&, i] {
        diagnostics.setOrderIDForThread(i);
        built[i] = succeeded(buildChip(targets[i], chips[i]));
        diagnostics.eraseOrderIDForThread();
      });
    for (std::thread &thread : threads)
      thread.join();
    if (llvm::is_contained(built, 0))
      return failure();
  }
  for (ChipBuild &chip : chips) {
    // (A producer warpgroup runs beside the num_warps warps.)
    if (chip.threads != chips.front().threads)
      return emitError(loc) << "internal error: the chips' codes want " << chips.front().threads
                            << " and " << chip.threads << " threads per CTA",
             failure();
    launch.threads = chip.threads;
    launch.grid = chip.grid;
    launch.persistent = chip.persistent;
    launch.cluster = std::max(launch.cluster, chip.cluster);
    // The launch asks for the most any chip's code needs.
    launch.sharedBytes = std::max(launch.sharedBytes, chip.sharedBytes);
    launch.images.push_back(std::move(chip.image));
    for (Artifact &a : chip.result.artifacts)
      result.artifacts.push_back(std::move(a));
  }

  const std::string &name = spec.name;
  nlohmann::json cubins = nlohmann::json::object();
  for (const CudaImage &img : launch.images) {
    result.artifacts.push_back({name + "." + img.chip + ".ptx", img.ptx, "ptx"});
    result.artifacts.push_back({name + "." + img.chip + ".cubin", img.cubin, "cubin"});
    cubins[img.chip] = name + "." + img.chip + ".cubin";
  }
  result.artifacts.push_back({name + ".h", cudaHeaderText(spec, launch), "header"});
  // (With symbolic sizes, the launcher evaluates the extents.)
  nlohmann::json grid =
      spec.gridSizes.empty() ? nlohmann::json(launch.grid) : symbolicLaunchGridJson(spec);
  result.launch = {{"function", launch.function},
                   {"grid", grid},
                   {"block", {launch.threads, 1, 1}},
                   {"shared_bytes", launch.sharedBytes},
                   {"cubins", cubins}};
  // Per chip whose code takes them: the CUtensorMap parameters after the
  // arrays, in order (the TMA's views of arrays, as cuTensorMapEncodeTiled
  // takes them: innermost dimension first).
  nlohmann::json tensorMaps = nlohmann::json::object();
  for (const CudaImage &img : launch.images) {
    if (img.tensorMaps.empty())
      continue;
    nlohmann::json list = nlohmann::json::array();
    // A symbolic size (-1 - p, p the kernel parameter after the arrays
    // that holds it) by its name.
    size_t numArrays = spec.inputs.size() + spec.outputs.size();
    auto dim = [&](int64_t v) -> nlohmann::json {
      if (v >= 0)
        return v;
      return spec.sizes[static_cast<size_t>(-1 - v) - numArrays].name;
    };
    for (const CudaTensorMap &m : img.tensorMaps) {
      nlohmann::json entry = {{"param", m.param},
                              {"element_bytes", m.elemBytes},
                              {"dims", {dim(m.rowElements), dim(m.rows)}},
                              {"box", {m.boxCols, m.boxRows}},
                              {"swizzle_bytes", m.swizzleBytes}};
      // (Absent: unsigned integers of element_bytes.)
      if (m.dataType >= 0)
        entry["data_type"] = m.dataType;
      // Rows permuted within each 16: the 5-D view, with the byte strides
      // of dims 1 to 4 (absent: rows of dims[0] elements, contiguous).
      if (m.fragmentRows) {
        TensorMapView view = fragmentRowsView(m);
        entry["dims"] = view.dims;
        entry["box"] = view.box;
        entry["strides"] = view.strides;
      }
      list.push_back(entry);
    }
    tensorMaps[img.chip] = list;
  }
  if (!tensorMaps.empty())
    result.launch["tensor_maps"] = tensorMaps;
  // What ptxas says each chip's code takes (registers, spills) and of its
  // wgmma code (waits it inserted, instructions it serialized).
  nlohmann::json resources = nlohmann::json::object();
  for (const CudaImage &img : launch.images) {
    const cuda::PtxasReport &r = img.ptxas;
    resources[img.chip] = {{"registers", r.registers},
                           {"barriers", r.barriers},
                           {"stack_frame_bytes", r.stackFrameBytes},
                           {"spill_store_bytes", r.spillStoreBytes},
                           {"spill_load_bytes", r.spillLoadBytes},
                           {"wgmma_notes", r.wgmmaNotes}};
  }
  result.launch["ptxas"] = resources;
  // Launchers may start fewer CTAs along x (one per SM; the header does).
  if (launch.persistent)
    result.launch["persistent"] = true;
  // Launchers start clusters of this many CTAs along x (the code requires
  // it: .reqnctapercluster).
  if (launch.cluster > 1)
    result.launch["cluster"] = {launch.cluster, 1, 1};
  return success();
}

namespace mlir::pallas {
/// Adds this backend to the registry; pallas_add_backend(Cuda) lists it in
/// Backends.def, which the driver calls through.
void registerCudaBackend();
} // namespace mlir::pallas

void mlir::pallas::registerCudaBackend() {
  BackendInfo info{TargetKind::Cuda, emitCuda};
  info.registerPasses = [] {
    registerCudaPasses();
    registerCudaPipeline();
  };
  info.registerDialects = [](DialectRegistry &registry) {
    registry.insert<pgpu::PallasGpuDialect>();
  };
  info.combinesTargets = true;
  info.symbolicSizes = true;
  info.plgpuKernels = true;
  info.programIdGrid = true;
  registerBackend(info);
}
