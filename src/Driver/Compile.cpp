//===- Compile.cpp - the compilation pipeline, kernel to artifacts --------===//
#include "pallas/Driver/Compile.h"
#include "pallas/Mgpu/Mgpu.h"
#include "pallas/Driver/Bindings.h"

#include "pallas/Driver/Backend.h"
#include "pallas/Driver/Registration.h"

#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Spec/SpecChecker.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::pallas;
using json = nlohmann::json;

/// Loads `path` into the source manager; reports a located error if it
/// cannot be read.
static FailureOr<unsigned> openInput(MLIRContext &ctx, llvm::SourceMgr &sm,
                                     StringRef path, StringRef what) {
  // A buffer the caller put in `sm` under that name already is the input
  // (compiles from memory: the whole-driver fuzzer).
  for (unsigned i = 1; i <= sm.getNumBuffers(); ++i)
    if (sm.getMemoryBuffer(i)->getBufferIdentifier() == path)
      return i;
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(&ctx, path, 0, 0))
        << "cannot open " << what << " '" << path
        << "': " << buffer.getError().message();
    return failure();
  }
  return sm.AddNewSourceBuffer(std::move(*buffer), SMLoc());
}

std::optional<HugeResultNumber> mlir::pallas::findHugeResultNumber(StringRef text) {
  unsigned line = 1, column = 1;
  for (size_t i = 0; i < text.size(); ++i, ++column) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      column = 0;
      continue;
    }
    if (c != '%')
      continue;
    size_t j = i + 1;
    while (j < text.size() && (isalnum(text[j]) || StringRef("_$.-").contains(text[j])))
      ++j;
    if (j == i + 1 || j >= text.size() || text[j] != '#')
      continue;
    size_t k = j + 1;
    uint64_t number = 0;
    while (k < text.size() && isdigit(text[k]) && number <= kMaxResultNumber)
      number = number * 10 + (text[k++] - '0');
    if (number > kMaxResultNumber)
      return HugeResultNumber{text.slice(i, j), line, column};
  }
  return std::nullopt;
}

/// Huge result numbers (findHugeResultNumber) are refused first, at their
/// place in the kernel file.
static LogicalResult checkResultNumbers(MLIRContext &ctx, StringRef text, StringRef file) {
  std::optional<HugeResultNumber> at = findHugeResultNumber(text);
  if (!at)
    return success();
  return emitError(FileLineColLoc::get(&ctx, file, at->line, at->column + at->name.size()))
             << "result number of '" << at->name << "' is out of range (at most "
             << kMaxResultNumber << ")",
         failure();
}

static json shapeJson(ArrayRef<int64_t> shape) {
  json j = json::array();
  for (int64_t d : shape)
    j.push_back(d);
  return j;
}

/// Array dims or grid extents: a number, or a size name / expression where
/// `names` has one.
template <typename Names>
static json symbolicShapeJson(ArrayRef<int64_t> shape, const Names &names) {
  json j = json::array();
  for (auto [d, n] : llvm::enumerate(shape))
    if (d < names.size() && !names[d].empty())
      j.push_back(names[d]);
    else
      j.push_back(n);
  return j;
}

/// Where a spec with symbolic sizes first names one (for refusals).
static std::string firstSymbolicPath(const LaunchSpec &spec) {
  for (const std::vector<SpecOperand> *list : {&spec.inputs, &spec.outputs})
    for (const SpecOperand &op : *list)
      for (auto [d, n] : llvm::enumerate(op.sizeNames))
        if (!n.empty())
          return op.path + ".shape[" + std::to_string(d) + "]";
  return "grid";
}

/// The manifest: parameters in launch order, grid, target, version and the
/// sha256 of every other artifact.
static Artifact buildManifest(const LaunchSpec &spec, const LaunchSpec &expanded,
                              const TargetDescription &target,
                              const BackendResult &result) {
  json m;
  m["name"] = spec.name;
  m["kernel"] = spec.kernel;
  m["target"] = target.name;
  m["target_kind"] = targetKindName(target.kind).str();
  m["compiler"] = std::string("pallasc ") + PALLAS_VERSION;
  m["grid"] = symbolicShapeJson(expanded.grid, expanded.gridSizes);
  if (spec.hasSymbolicSizes()) {
    // Launch-argument order; launchers bind them from the arrays' shapes.
    json sizes = json::array();
    for (const SpecSize &s : spec.sizes)
      sizes.push_back({{"name", s.name}, {"multiple_of", s.multipleOf}, {"max", s.max}});
    m["sizes"] = sizes;
  }
  json params = json::array();
  auto add = [&](const SpecOperand &op, const SpecOperand &batched,
                 StringRef role, std::optional<int64_t> alias) {
    json p;
    p["name"] = op.name;
    p["role"] = role.str();
    p["shape"] = symbolicShapeJson(batched.shape, batched.sizeNames);
    p["dtype"] = op.dtype;
    json block = json::array();
    for (std::optional<int64_t> d : batched.blockShape)
      block.push_back(d ? json(*d) : json(nullptr));
    p["block_shape"] = block;
    if (alias)
      p["aliases"] = *alias;
    params.push_back(p);
  };
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    add(spec.inputs[i], expanded.inputs[i],
        static_cast<int64_t>(i) < spec.numScalarPrefetch ? "prefetch" : "input",
        spec.aliasedOutput(i));
  for (size_t i = 0; i < spec.outputs.size(); ++i)
    add(spec.outputs[i], expanded.outputs[i], "output", spec.aliasedInput(i));
  m["parameters"] = params;
  json scratch = json::array();
  for (const SpecScratch &s : spec.scratch)
    scratch.push_back({{"shape", shapeJson(s.shape)}, {"dtype", s.dtype}});
  m["scratch"] = scratch;
  json sem = json::array();
  for (size_t a = 0; a < expanded.grid.size(); ++a)
    sem.push_back(expanded.isParallel(a) ? "parallel" : "arbitrary");
  m["dimension_semantics"] = sem;
  m["compiler_params"] = {{"num_warps", spec.numWarps},
                          {"num_stages", spec.numStages}};
  m["launch"] = result.launch;
  json files = json::object();
  for (const Artifact &a : result.artifacts)
    files[a.filename] = {{"kind", a.kind}, {"sha256", sha256Hex(a.contents)}};
  m["artifacts"] = files;
  return {spec.name + ".manifest.json", m.dump(2) + "\n", "manifest"};
}


/// Options that only some targets read are refused elsewhere, rather than
/// silently ignored.
static LogicalResult checkOptionsApply(const CompileOptions &options,
                                       const TargetDescription &target, Location cmdline) {
  auto refuse = [&](StringRef option, StringRef what) {
    emitError(cmdline) << option << " " << what << "; target '" << target.name << "' is a "
                       << targetKindName(target.kind) << " target";
    return failure();
  };
  if (target.kind != TargetKind::Host) {
    if (!options.sanitize.empty())
      return refuse("--sanitize", "instruments the host target's code");
    if (!options.hostCpu.empty())
      return refuse("--host-cpu", "picks the host target's CPU");
    if (llvm::is_contained(options.emit, "llvm"))
      return refuse("--emit llvm", "writes the host target's LLVM IR (CUDA targets write their "
                                   "PTX, triton its .ttir, TPU targets their Mosaic module)");
  }
  if (target.kind != TargetKind::Cuda) {
    if (options.tma)
      return refuse("--tma / --no-warp-specialize", "apply to sm_90a code");
    if (options.noTma)
      return refuse("--no-tma", "applies to sm_90a code");
    if (!options.warpgroupTurns)
      return refuse("--no-warpgroup-turns", "applies to sm_90a code");
    if (!options.persistent)
      return refuse("--no-persistent", "applies to sm_90a code");
    if (options.plgpuSchedule != "auto")
      return refuse("--plgpu-schedule", "applies to sm_90a code");
  }
  return success();
}

/// A diagnostic as one JSON object: severity, where (the first file
/// location it names), message, and its notes the same way.
static nlohmann::json diagnosticJson(const Diagnostic &d) {
  const char *severity = d.getSeverity() == DiagnosticSeverity::Error     ? "error"
                         : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                         : d.getSeverity() == DiagnosticSeverity::Remark  ? "remark"
                                                                          : "note";
  nlohmann::json out = {{"severity", severity}, {"message", d.str()}};
  FileLineColLoc at;
  d.getLocation()->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      at = f;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (at) {
    out["file"] = at.getFilename().str();
    out["line"] = at.getLine();
    out["column"] = at.getColumn();
  }
  nlohmann::json notes = nlohmann::json::array();
  for (const Diagnostic &note : d.getNotes())
    notes.push_back(diagnosticJson(note));
  if (!notes.empty())
    out["notes"] = notes;
  return out;
}

LogicalResult mlir::pallas::compileWithDiagnostics(const CompileOptions &options,
                                                  std::vector<Artifact> &artifacts,
                                                  std::vector<std::string> *inputs) {
  DialectRegistry registry;
  registerPallasDialects(registry);
  registerAllPallasPasses();
  MLIRContext ctx(registry);
  // Errors point at the user's kernel; the lowered op they were found on
  // (in generic form) means nothing to its author.
  ctx.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  // In-memory sources go in under their names (openInput finds them).
  if (!options.kernelText.empty())
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(options.kernelText, options.kernelFile), SMLoc());
  if (!options.specText.empty())
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(options.specText, options.specFile), SMLoc());
  // --quiet: warnings stop here (a handler registered later runs first).
  auto quiet = [&](Diagnostic &d) {
    return success(options.quiet && d.getSeverity() == DiagnosticSeverity::Warning);
  };
  if (options.diagnosticsFormat == "json") {
    ScopedDiagnosticHandler handler(&ctx, [](Diagnostic &d) {
      llvm::errs() << diagnosticJson(d).dump() << "\n";
      return success();
    });
    ScopedDiagnosticHandler quietHandler(&ctx, quiet);
    return compile(ctx, sourceMgr, options, artifacts, inputs);
  }
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  ScopedDiagnosticHandler quietHandler(&ctx, quiet);
  return compile(ctx, sourceMgr, options, artifacts, inputs);
}

LogicalResult mlir::pallas::compile(MLIRContext &ctx, llvm::SourceMgr &sm,
                                    const CompileOptions &options,
                                    std::vector<Artifact> &artifacts,
                                    std::vector<std::string> *inputs) {
  // Target(s) first: the cheapest mistake to report.
  SmallVector<StringRef> names;
  StringRef(options.target).split(names, ',', -1, /*KeepEmpty=*/false);
  Location cmdline = FileLineColLoc::get(&ctx, "<command line>", 1, 1);
  if (names.empty()) {
    emitError(cmdline) << "no target given (see --list-targets)";
    return failure();
  }
  std::vector<TargetDescription> targets;
  for (StringRef n : names) {
    auto t = lookupTarget(n.trim());
    if (!t) {
      emitError(cmdline) << llvm::toString(t.takeError());
      return failure();
    }
    if (llvm::any_of(targets, [&](auto &known) { return known.name == t->name; })) {
      emitError(cmdline) << "target '" << t->name << "' is listed twice";
      return failure();
    }
    targets.push_back(*t);
  }
  const TargetDescription &target = targets.front();
  registerBuiltinBackends();
  const BackendInfo *backend = lookupBackend(target.kind);
  if (!backend) {
    emitError(cmdline) << "this pallasc has no backend for target '" << target.name
                       << "' (kind " << targetKindName(target.kind) << ")";
    return failure();
  }
  if (targets.size() > 1 &&
      (!backend->combinesTargets ||
       llvm::any_of(targets, [&](auto &t) { return t.kind != target.kind; }))) {
    emitError(cmdline)
        << "only CUDA targets can be combined in one --target list";
    return failure();
  }

  if (failed(checkOptionsApply(options, target, cmdline)))
    return failure();

  FailureOr<unsigned> kernelBuf = openInput(ctx, sm, options.kernelFile, "kernel file");
  if (failed(kernelBuf))
    return failure();
  FailureOr<unsigned> specBuf = openInput(ctx, sm, options.specFile, "spec file");
  if (failed(specBuf))
    return failure();

  if (failed(checkResultNumbers(ctx, sm.getMemoryBuffer(*kernelBuf)->getBuffer(),
                                options.kernelFile)))
    return failure();
  ParserConfig config(&ctx);
  llvm::SourceMgr kernelOnly;
  OwningOpRef<ModuleOp> module;
  {
    // Parse from a source manager holding only the kernel file.
    auto copy = llvm::MemoryBuffer::getMemBufferCopy(
        sm.getMemoryBuffer(*kernelBuf)->getBuffer(), options.kernelFile);
    kernelOnly.AddNewSourceBuffer(std::move(copy), SMLoc());
    module = parseSourceFile<ModuleOp>(kernelOnly, config);
  }
  if (!module)
    return failure();

  FailureOr<LaunchSpec> spec = loadLaunchSpec(
      options.specFile, sm.getMemoryBuffer(*specBuf)->getBuffer(), &ctx);
  if (failed(spec))
    return failure();
  FailureOr<KernelOp> kernel = checkSpecAgainstKernel(*spec, *module);
  if (failed(kernel))
    return failure();

  if (plgpu::getMesh(*kernel) && !backend->plgpuKernels) {
    kernel->emitError("kernel @")
        << kernel->getSymName() << " is a plgpu kernel (Pallas:MGPU), which the "
        << target.name << " target does not take (host, CUDA and triton targets do)";
    return failure();
  }
  if (spec->hasSymbolicSizes() && !backend->symbolicSizes) {
    emitError(spec->loc(firstSymbolicPath(*spec)))
        << "symbolic sizes are not supported on the " << target.name
        << " target yet (host, triton and CUDA targets take them)";
    return failure();
  }
  if (spec->hasSymbolicSizes() && backend->programIdGrid) {
    // Program ids x, y, z take the leading parallel axes as they are.
    unsigned leading = spec->numLeadingParallelAxes();
    if (leading > 3) {
      emitError(spec->loc("grid"))
          << "grid: with symbolic sizes, the " << target.name
          << " target takes at most three leading parallel grid axes (this grid has "
          << leading << ")";
      return failure();
    }
  }
  if (spec->hasSymbolicSizes() &&
      (llvm::is_contained(options.emit, "torch") ||
       llvm::is_contained(options.emit, "xla-ffi"))) {
    emitError(spec->loc(firstSymbolicPath(*spec)))
        << "--emit torch and --emit xla-ffi do not support symbolic sizes yet";
    return failure();
  }
  LaunchSpec expanded = applyVmap(*spec);
  attachLaunchAttributes(*kernel, expanded, spec->vmap ? 1 : 0);
  // Only the requested kernel is compiled.
  for (KernelOp other : llvm::make_early_inc_range(module->getOps<KernelOp>()))
    if (other != *kernel)
      other.erase();

  // The input of `pallas-opt --pallas-<backend>-pipeline`.
  BackendResult result;
  addMlirArtifact(result, options, spec->name + ".launch.mlir", *module);
  LogicalResult emitted =
      backend->emit({*module, expanded, targets, options}, result);
  if (failed(emitted))
    return failure();
  if (llvm::is_contained(options.emit, "torch") &&
      failed(addTorchArtifacts(cmdline, expanded, target.kind, result.artifacts)))
    return failure();
  if (llvm::is_contained(options.emit, "xla-ffi") &&
      failed(addXlaFfiArtifacts(cmdline, expanded, target.kind, result.artifacts)))
    return failure();
  if (llvm::is_contained(options.emit, "torch-xla") &&
      failed(addTorchXlaArtifacts(cmdline, expanded, target.kind, target.name, result.artifacts)))
    return failure();
  Artifact manifest = buildManifest(*spec, expanded, target, result);
  artifacts = std::move(result.artifacts);
  artifacts.push_back(std::move(manifest));
  if (inputs) {
    *inputs = {options.kernelFile, options.specFile};
    inputs->insert(inputs->end(), result.inputs.begin(), result.inputs.end());
  }
  return success();
}
