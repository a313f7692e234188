//===- HostBackend.cpp - native object, shared library, C header ----------===//
//
// The host pipeline (one named function, readable top to bottom), LLVM code
// generation for this machine's architecture, and the C launch header.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/Compile.h"
#include "pallas/Host/HostPasses.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Instrumentation/AddressSanitizer.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::pallas;

/// The lowering from expanded kernels to the LLVM dialect (passes on the
/// module).
static const char *kHostPipeline =
    "convert-pallas-to-host, canonicalize, cse,"
    "convert-elementwise-to-linalg, linalg-fuse-elementwise-ops, canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries=1 allow-return-allocs-from-loops=1 "
    "function-boundary-type-conversion=identity-layout-map},"
    // The deallocation helper takes dynamically shaped memrefs, which the
    // bare-pointer calling convention cannot pass: it is inlined.
    "buffer-deallocation-pipeline, inline, canonicalize, pallas-host-legalize,"
    "convert-linalg-to-loops, lower-affine, convert-scf-to-cf,"
    "expand-strided-metadata, lower-affine,"
    "math-extend-to-supported-types{target-type=f32},"
    "arith-expand{include-bf16=1},"
    "arith-emulate-unsupported-floats{source-types=bf16,f16,f8E4M3FN,f8E5M2 "
    "target-type=f32},"
    "arith-expand{include-bf16=1},"
    // Math ops with an LLVM intrinsic first (ctpop, rsqrt as 1/sqrt, ...),
    // the rest as libm calls (the artifacts link -lm).
    "finalize-memref-to-llvm, convert-math-to-llvm{approximate-log1p=0}, convert-math-to-libm,"
    "convert-arith-to-llvm, convert-index-to-llvm, convert-cf-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
    "reconcile-unrealized-casts, canonicalize";

static std::string cType(Type t) {
  if (t.isF64()) return "double";
  if (t.isF32()) return "float";
  if (t.isF16() || t.isBF16()) return "uint16_t";
  if (t.isInteger(1) || t.getIntOrFloatBitWidth() == 8)
    return t.isInteger(8) ? "int8_t" : "uint8_t";
  if (t.isInteger(16)) return "int16_t";
  if (t.isInteger(32)) return "int32_t";
  return "int64_t";
}

/// `void NAME_run_packed(int64_t begin, int64_t end, void **args)`: the same
/// entry with its pointers in an array, for launchers that learn the
/// parameter count at run time.
static void addPackedEntry(llvm::Module &m, StringRef name, unsigned numArgs) {
  llvm::Function *range = m.getFunction((name + "_run_range").str());
  llvm::LLVMContext &c = m.getContext();
  auto *i64 = llvm::Type::getInt64Ty(c);
  auto *ptr = llvm::PointerType::getUnqual(c);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {i64, i64, ptr}, false);
  auto *fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                    (name + "_run_packed").str(), m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", fn));
  SmallVector<llvm::Value *> args{fn->getArg(0), fn->getArg(1)};
  for (unsigned i = 0; i < numArgs; ++i)
    args.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, fn->getArg(2), i)));
  b.CreateCall(range, args);
  b.CreateRetVoid();
}

/// `__truncsfbf2` (f32 -> bf16, round to nearest even), defined weak and
/// hidden in every object: x86 code generation keeps bf16 values in f32
/// registers and calls it where they are narrowed again (a select or phi of
/// bf16), and host artifacts link no compiler-rt that would provide it.
static void addBf16Truncation(llvm::Module &m) {
  llvm::LLVMContext &c = m.getContext();
  auto *type = llvm::FunctionType::get(llvm::Type::getBFloatTy(c),
                                       {llvm::Type::getFloatTy(c)}, false);
  auto *fn = llvm::Function::Create(type, llvm::GlobalValue::WeakAnyLinkage,
                                    "__truncsfbf2", m);
  fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", fn));
  llvm::Value *x = fn->getArg(0);
  llvm::Value *u = b.CreateBitCast(x, b.getInt32Ty());
  llvm::Value *lsb = b.CreateAnd(b.CreateLShr(u, 16), 1);
  llvm::Value *rounded = b.CreateAdd(u, b.CreateAdd(lsb, b.getInt32(0x7FFF)));
  // NaN stays NaN (quiet), whatever rounding would carry into the exponent.
  llvm::Value *quiet = b.CreateOr(u, b.getInt32(0x400000));
  llvm::Value *isNan = b.CreateFCmpUNO(x, x);
  llvm::Value *bits = b.CreateLShr(b.CreateSelect(isNan, quiet, rounded), 16);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(bits, b.getInt16Ty()), llvm::Type::getBFloatTy(c)));
}

static std::string headerText(const LaunchSpec &spec, int64_t workItems) {
  std::string name = spec.name, guard = "PALLAS_HOST_" + llvm::StringRef(name).upper() + "_H";
  std::string s;
  llvm::raw_string_ostream os(s);
  SmallVector<std::pair<std::string, std::string>> params; // (decl, name)
  os << "/* " << name << ".h: launch API of Pallas kernel '" << spec.kernel
     << "' for the host target.\n * Generated by pallasc " << PALLAS_VERSION
     << "; do not edit. Link with " << name << ".o (or " << name
     << ".so) and -lpthread.\n *\n * Parameters, in spec order (row-major "
        "arrays):\n";
  auto describe = [&](const SpecOperand &op, StringRef role, bool isConst) {
    os << " *   " << op.name << ": " << op.dtype << "[";
    for (auto [i, d] : llvm::enumerate(op.shape))
      os << (i ? ", " : "") << d;
    os << "] " << role << "\n";
    params.push_back({std::string(isConst ? "const " : "") + cType(op.elementType) +
                          " *" + op.name,
                      op.name});
  };
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    describe(spec.inputs[i], static_cast<int64_t>(i) < spec.numScalarPrefetch ? "scalar prefetch" : "input",
             !spec.aliasedOutput(i));
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    describe(spec.outputs[i], "output", false);
    if (auto in = spec.aliasedInput(i))
      os << " *     (aliases input " << *in << ": pass the same pointer)\n";
  }
  os << " */\n#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <pthread.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
     << "#include <unistd.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  os << "/* Programs of the grid's leading parallel axes; the rest run in order "
        "inside each. */\n#define " << name << "_NUM_WORK_ITEMS " << workItems << "LL\n";
  os << "#define " << name << "_NUM_PARAMS " << params.size() << "\n\n";
  os << "/* Runs work items [begin, end). Thread-safe for disjoint ranges. */\n";
  os << "void " << name << "_run_range(int64_t begin, int64_t end";
  for (auto &p : params)
    os << ", void *" << p.second;
  os << ");\n/* The same, with the parameters in an array. */\n";
  os << "void " << name << "_run_packed(int64_t begin, int64_t end, void **params);\n\n";
  os << "typedef struct " << name << "_slice {\n  int64_t begin, end;\n  void *params["
     << params.size() << "];\n} " << name << "_slice;\n\n";
  os << "static void *" << name << "_worker(void *p) {\n  " << name
     << "_slice *s = (" << name << "_slice *)p;\n  " << name
     << "_run_packed(s->begin, s->end, s->params);\n  return 0;\n}\n\n";
  os << "/* Runs the whole grid over up to PALLAS_HOST_THREADS threads (default:\n"
        " * the online CPUs). `stream` is unused on the host: the API has the\n"
        " * shape of the CUDA one. Returns 0; never prints or exits. */\n";
  os << "static inline int " << name << "(void *stream";
  for (auto &p : params)
    os << ", " << p.first;
  os << ") {\n";
  os << "  enum { MAX_THREADS = 256 };\n"
     << "  pthread_t threads[MAX_THREADS];\n"
     << "  int started[MAX_THREADS];\n"
     << "  " << name << "_slice slices[MAX_THREADS];\n"
     << "  int64_t n = 8, t;\n"
     << "  const char *env = getenv(\"PALLAS_HOST_THREADS\");\n"
     << "#if defined(_SC_NPROCESSORS_ONLN)\n"
     << "  n = (int64_t)sysconf(_SC_NPROCESSORS_ONLN);\n"
     << "#endif\n"
     << "  if (env && atoi(env) > 0) n = atoi(env);\n"
     << "  if (n > MAX_THREADS) n = MAX_THREADS;\n"
     << "  if (n > " << name << "_NUM_WORK_ITEMS) n = " << name << "_NUM_WORK_ITEMS;\n"
     << "  if (n < 1) n = 1;\n"
     << "  (void)stream;\n"
     << "  for (t = 0; t < n; ++t) {\n"
     << "    slices[t].begin = " << name << "_NUM_WORK_ITEMS * t / n;\n"
     << "    slices[t].end = " << name << "_NUM_WORK_ITEMS * (t + 1) / n;\n";
  for (auto [i, p] : llvm::enumerate(params))
    os << "    slices[t].params[" << i << "] = (void *)" << p.second << ";\n";
  os << "    started[t] = t > 0 && pthread_create(&threads[t], 0, " << name
     << "_worker, &slices[t]) == 0;\n"
     << "  }\n"
     << "  " << name << "_worker(&slices[0]);\n"
     << "  for (t = 1; t < n; ++t) {\n"
     << "    if (started[t]) pthread_join(threads[t], 0);\n"
     << "    else " << name << "_worker(&slices[t]);\n"
     << "  }\n"
     << "  return 0;\n}\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard
     << " */\n";
  return s;
}

/// Links `object` into a shared library with the system C compiler.
static FailureOr<std::string> linkShared(StringRef object, Location loc) {
  llvm::ErrorOr<std::string> cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    cc = llvm::sys::findProgramByName("clang-22");
  if (!cc)
    return emitError(loc) << "cannot link the host shared library: no 'cc' on PATH",
           failure();
  SmallString<128> objPath, soPath;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("pallas-host", "o", fd, objPath) ||
      llvm::sys::fs::createTemporaryFile("pallas-host", "so", soPath))
    return emitError(loc) << "cannot create temporary files", failure();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object;
  }
  std::string err;
  StringRef args[] = {*cc, "-shared", "-o", soPath, objPath, "-lm", "-lpthread"};
  int rc = llvm::sys::ExecuteAndWait(*cc, args, std::nullopt, {}, 0, 0, &err);
  llvm::sys::fs::remove(objPath);
  auto so = llvm::MemoryBuffer::getFile(soPath, /*IsText=*/false);
  llvm::sys::fs::remove(soPath);
  if (rc != 0 || !so)
    return emitError(loc) << "linking the host shared library failed"
                          << (err.empty() ? "" : ": ") << err,
           failure();
  return (*so)->getBuffer().str();
}

LogicalResult mlir::pallas::emitHost(ModuleOp module, const LaunchSpec &spec,
                                     const TargetDescription &target,
                                     const CompileOptions &options,
                                     BackendResult &result) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  PassManager pm(ctx);
  printIRIfAsked(pm, options);
  if (failed(parsePassPipeline(kHostPipeline, pm, llvm::errs())))
    return emitError(loc) << "internal error: bad host pipeline", failure();
  if (failed(pm.run(module)))
    return failure();
  std::string name = spec.name;
  if (llvm::is_contained(options.emit, "mlir")) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    result.artifacts.push_back({name + ".host.mlir", text, "mlir"});
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, llvmCtx, name);
  if (!llvmModule)
    return emitError(loc) << "translation to LLVM IR failed", failure();
  unsigned numParams = spec.inputs.size() + spec.outputs.size();
  addPackedEntry(*llvmModule, name, numParams);
  addBf16Truncation(*llvmModule);

  std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!llvmTarget)
    return emitError(loc) << "no LLVM backend for " << triple << ": " << error,
           failure();
  std::string cpu = options.hostCpu.empty()
                        ? (target.fields.count("cpu") ? target.fields.at("cpu") : "generic")
                        : options.hostCpu;
  std::string features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    for (auto &f : llvm::sys::getHostCPUFeatures())
      features += (features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") +
                  f.first().str();
  }
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      llvm::Triple(triple), cpu, features, targetOptions, llvm::Reloc::PIC_));
  if (!tm)
    return emitError(loc) << "cannot create a target machine for CPU '" << cpu << "'",
           failure();
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(llvm::Triple(triple));
  if (llvm::Error e = makeOptimizingTransformer(3, 0, tm.get())(llvmModule.get()))
    return emitError(loc) << "LLVM optimisation failed: " << llvm::toString(std::move(e)),
           failure();
  if (options.sanitize == "address") {
    // Instrument every access of the generated code; the launcher provides
    // the ASan runtime.
    for (llvm::Function &f : *llvmModule)
      if (!f.isDeclaration())
        f.addFnAttr(llvm::Attribute::SanitizeAddress);
    llvm::PassBuilder pb(tm.get());
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::AddressSanitizerPass(llvm::AddressSanitizerOptions()));
    mpm.run(*llvmModule, mam);
  } else if (!options.sanitize.empty()) {
    return emitError(loc) << "unknown sanitizer '" << options.sanitize
                          << "' (expected address)",
           failure();
  }
  if (llvm::is_contained(options.emit, "llvm")) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    result.artifacts.push_back({name + ".ll", text, "llvm"});
  }
  SmallString<0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if (tm->addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      return emitError(loc) << "the LLVM backend cannot emit objects", failure();
    codegen.run(*llvmModule);
  }
  FailureOr<std::string> shared = linkShared(object, loc);
  if (failed(shared))
    return failure();

  int64_t workItems = 1;
  for (unsigned a = 0; a < spec.grid.size() && spec.isParallel(a); ++a)
    workItems *= spec.grid[a];
  result.artifacts.push_back({name + ".o", object.str().str(), "object"});
  result.artifacts.push_back({name + ".so", *shared, "shared_library"});
  result.artifacts.push_back({name + ".h", headerText(spec, workItems), "header"});
  result.launch = {{"entry", name + "_run_range"},
                   {"packed_entry", name + "_run_packed"},
                   {"work_items", workItems},
                   {"cpu", cpu},
                   {"sanitizer", options.sanitize.empty() ? "none" : options.sanitize},
                   {"triple", triple}};
  return success();
}
