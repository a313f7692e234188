//===- HostBackend.cpp - native object, shared library, C header ----------===//
//
// The host pipeline (one named function, readable top to bottom), LLVM code
// generation for this machine's architecture, and the C launch header.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/Backend.h"
#include "pallas/Driver/CHeader.h"
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
/// parameter count at run time. Symbolic sizes follow the arrays there, each
/// as a pointer to its int64_t.
static void addPackedEntry(llvm::Module &m, StringRef name, unsigned numArgs,
                           unsigned numSizes) {
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
  for (unsigned i = 0; i < numSizes; ++i)
    args.push_back(b.CreateLoad(
        i64, b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, fn->getArg(2), numArgs + i))));
  b.CreateCall(range, args);
  b.CreateRetVoid();
}

/// `void NAME_run_range(int64_t begin, int64_t end, arrays...)` of a plgpu
/// kernel of `threads` threads per block: for each block, a zeroed arena
/// of `arenaBytes` (what its threads share) and one POSIX thread per Pallas
/// thread, each running `NAME_run_thread` for its work item (block x
/// threads + thread); the threads of a block run side by side, since they
/// wait on each other's barriers. A thread that cannot be started runs in
/// the caller once the others have started.
static void addThreadedRange(llvm::Module &m, StringRef name, unsigned numArgs, int64_t threads,
                             int64_t arenaBytes) {
  llvm::LLVMContext &c = m.getContext();
  llvm::Function *run = m.getFunction((name + "_run_thread").str());
  auto *i64 = llvm::Type::getInt64Ty(c);
  auto *i32 = llvm::Type::getInt32Ty(c);
  auto *ptr = llvm::PointerType::getUnqual(c);
  auto *voidTy = llvm::Type::getVoidTy(c);
  auto *ctxTy = llvm::StructType::get(c, {i64, ptr, ptr});

  // void *NAME_thread_entry(void *ctx): unpack and run one work item.
  auto *entry = llvm::Function::Create(llvm::FunctionType::get(ptr, {ptr}, false),
                                       llvm::GlobalValue::InternalLinkage,
                                       (name + "_thread_entry").str(), m);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", entry));
    llvm::Value *ctx = entry->getArg(0);
    llvm::Value *item = b.CreateLoad(i64, b.CreateStructGEP(ctxTy, ctx, 0));
    llvm::Value *args = b.CreateLoad(ptr, b.CreateStructGEP(ctxTy, ctx, 1));
    llvm::Value *arena = b.CreateLoad(ptr, b.CreateStructGEP(ctxTy, ctx, 2));
    SmallVector<llvm::Value *> callArgs{item, b.CreateAdd(item, b.getInt64(1))};
    for (unsigned i = 0; i < numArgs; ++i)
      callArgs.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, args, i)));
    callArgs.push_back(arena);
    b.CreateCall(run, callArgs);
    b.CreateRet(llvm::ConstantPointerNull::get(ptr));
  }

  llvm::FunctionCallee calloc =
      m.getOrInsertFunction("calloc", llvm::FunctionType::get(ptr, {i64, i64}, false));
  llvm::FunctionCallee freeFn =
      m.getOrInsertFunction("free", llvm::FunctionType::get(voidTy, {ptr}, false));
  llvm::FunctionCallee create = m.getOrInsertFunction(
      "pthread_create", llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr}, false));
  llvm::FunctionCallee join =
      m.getOrInsertFunction("pthread_join", llvm::FunctionType::get(i32, {i64, ptr}, false));

  SmallVector<llvm::Type *> params{i64, i64};
  params.append(numArgs, ptr);
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(voidTy, params, false),
                                    llvm::GlobalValue::ExternalLinkage,
                                    (name + "_run_range").str(), m);
  auto *entryBlock = llvm::BasicBlock::Create(c, "entry", fn);
  auto *loop = llvm::BasicBlock::Create(c, "block", fn);
  auto *body = llvm::BasicBlock::Create(c, "threads", fn);
  auto *exit = llvm::BasicBlock::Create(c, "exit", fn);
  llvm::IRBuilder<> b(entryBlock);
  llvm::Value *args = b.CreateAlloca(llvm::ArrayType::get(ptr, std::max(numArgs, 1u)));
  for (unsigned i = 0; i < numArgs; ++i)
    b.CreateStore(fn->getArg(2 + i), b.CreateConstGEP1_64(ptr, args, i));
  auto *idsTy = llvm::ArrayType::get(i64, threads);
  auto *startedTy = llvm::ArrayType::get(i32, threads);
  auto *ctxsTy = llvm::ArrayType::get(ctxTy, threads);
  llvm::Value *ids = b.CreateAlloca(idsTy);
  llvm::Value *started = b.CreateAlloca(startedTy);
  llvm::Value *ctxs = b.CreateAlloca(ctxsTy);
  b.CreateBr(loop);

  b.SetInsertPoint(loop);
  llvm::PHINode *blockIndex = b.CreatePHI(i64, 2);
  blockIndex->addIncoming(fn->getArg(0), entryBlock);
  b.CreateCondBr(b.CreateICmpSLT(blockIndex, fn->getArg(1)), body, exit);

  b.SetInsertPoint(body);
  llvm::Value *arena = b.CreateCall(calloc, {b.getInt64(std::max<int64_t>(arenaBytes, 1)),
                                             b.getInt64(1)});
  llvm::Value *first = b.CreateMul(blockIndex, b.getInt64(threads));
  for (int64_t t = 0; t < threads; ++t) {
    llvm::Value *ctx = b.CreateConstGEP2_64(ctxsTy, ctxs, 0, t);
    b.CreateStore(b.CreateAdd(first, b.getInt64(t)), b.CreateStructGEP(ctxTy, ctx, 0));
    b.CreateStore(args, b.CreateStructGEP(ctxTy, ctx, 1));
    b.CreateStore(arena, b.CreateStructGEP(ctxTy, ctx, 2));
    llvm::Value *rc = b.CreateCall(create, {b.CreateConstGEP2_64(idsTy, ids, 0, t),
                                            llvm::ConstantPointerNull::get(ptr), entry, ctx});
    b.CreateStore(b.CreateZExt(b.CreateICmpEQ(rc, b.getInt32(0)), i32),
                  b.CreateConstGEP2_64(startedTy, started, 0, t));
  }
  // Threads that could not start run here first (the started ones may be
  // waiting for them), then the started ones are joined.
  auto eachThread = [&](bool started_, auto emit) {
    for (int64_t t = 0; t < threads; ++t) {
      llvm::Value *ok = b.CreateICmpNE(
          b.CreateLoad(i32, b.CreateConstGEP2_64(startedTy, started, 0, t)), b.getInt32(0));
      auto *then = llvm::BasicBlock::Create(c, started_ ? "join" : "inline", fn);
      auto *next = llvm::BasicBlock::Create(c, "next", fn);
      b.CreateCondBr(started_ ? ok : b.CreateNot(ok), then, next);
      b.SetInsertPoint(then);
      emit(t);
      b.CreateBr(next);
      b.SetInsertPoint(next);
    }
  };
  eachThread(false, [&](int64_t t) { b.CreateCall(entry, {b.CreateConstGEP2_64(ctxsTy, ctxs, 0, t)}); });
  eachThread(true, [&](int64_t t) {
    b.CreateCall(join, {b.CreateLoad(i64, b.CreateConstGEP2_64(idsTy, ids, 0, t)),
                        llvm::ConstantPointerNull::get(ptr)});
  });
  b.CreateCall(freeFn, {arena});
  llvm::Value *nextBlock = b.CreateAdd(blockIndex, b.getInt64(1));
  blockIndex->addIncoming(nextBlock, b.GetInsertBlock());
  b.CreateBr(loop);

  b.SetInsertPoint(exit);
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

/// Writes `text` with every `$` replaced by `name`: the header's fixed pieces
/// read as the C they become.
static void writeNamed(llvm::raw_ostream &os, StringRef text, StringRef name) {
  SmallVector<StringRef> pieces;
  text.split(pieces, '$');
  for (size_t i = 0; i < pieces.size(); ++i)
    os << (i ? name : StringRef()) << pieces[i];
}

/// The state of the worker pool behind `NAME()`: the job a launch publishes
/// (its parameters, with symbolic sizes stored beside them), and the locks.
static void addPoolState(llvm::raw_ostream &os, StringRef name, size_t numSizes) {
  writeNamed(os, R"(/* The worker pool behind $(), one per program: its state is static in
 * the implementation, which $.o and $.so hold. Workers start on the first
 * launch that can use them and stay for the life of the process; a launch
 * publishes its job, wakes workers that sleep, and claims chunks of work
 * items beside them. */
#define $_MAX_THREADS 256
typedef struct $_pool_state {
  uint64_t job;  /* odd while a job is open; +1 at open and at close */
  int64_t items, chunk; /* the job's work items, claimed chunk by chunk */
  int helpers;   /* workers 0 .. helpers - 1 take part in the job */
  int threads;   /* threads a launch may use; 0 until first read */
  int workers;   /* workers started */
  int failed;    /* a worker failed to start: no more tries */
  int sleepers;  /* workers waiting on $_pool_wake */
  void *params[$_NUM_PARAMS];
)", name);
  if (numSizes)
    os << "  int64_t sizes[" << numSizes << "]; /* what params point to after the arrays */\n";
  writeNamed(os, R"(  /* What every thread of a job updates, each on a cache line of its own:
   * the line the idle workers poll (above) changes once per launch. */
  char pad0[64];
  int64_t next;  /* the first work item not claimed yet */
  char pad1[64];
  int active;    /* workers inside the job */
  char pad2[64];
} $_pool_state;
static $_pool_state $_pool;
/* Held by the launch that has the pool. */
static pthread_mutex_t $_pool_busy = PTHREAD_MUTEX_INITIALIZER;
/* Where idle workers sleep. */
static pthread_mutex_t $_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t $_pool_wake = PTHREAD_COND_INITIALIZER;

)", name);
}

/// `NAME_pool_cpus()`: PALLAS_HOST_THREADS, else the CPUs of the process's
/// affinity mask (Linux), else the online CPUs; and `NAME_pool_threads()`,
/// which reads it once and caps it for one launch.
static void addPoolThreads(llvm::raw_ostream &os, StringRef name) {
  writeNamed(os, R"(#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
/* sched_getaffinity, declared here so that the header needs no _GNU_SOURCE. */
extern int $_getaffinity(int pid, size_t size, void *mask) __asm__("sched_getaffinity");
#endif

/* PALLAS_HOST_THREADS if set (a whole number > 0), else the CPUs this
 * process may run on; at most $_MAX_THREADS. Another value is named on
 * stderr (once: the pool reads it once) and the CPUs used. */
static int $_pool_cpus(void) {
  const char *env = getenv("PALLAS_HOST_THREADS");
  long n = 0;
  if (env && *env) {
    char *end = 0;
    n = strtol(env, &end, 10);
    if (*end != '\0' || n <= 0) {
      static const char msg[] = "$: PALLAS_HOST_THREADS is not a whole number above 0; "
                                "running on this process's CPUs\n";
      if (write(2, msg, sizeof msg - 1) < 0) {}
      n = 0;
    }
  }
  if (n <= 0) {
#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
    unsigned long mask[128 / sizeof(unsigned long)] = {0}, bits;
    size_t i;
    if ($_getaffinity(0, sizeof mask, mask) == 0)
      for (i = 0; i < sizeof mask / sizeof mask[0]; ++i)
        for (bits = mask[i]; bits; bits &= bits - 1) ++n;
#endif
#if defined(_SC_NPROCESSORS_ONLN)
    if (n <= 0) n = (long)sysconf(_SC_NPROCESSORS_ONLN);
#endif
    if (n <= 0) n = 8;
  }
  return n > $_MAX_THREADS ? $_MAX_THREADS : (int)n;
}

/* Threads for a launch of `items` work items (read once, then kept): 1 where
 * there is one work item, which needs no pool. */
static inline int $_pool_threads(int64_t items) {
  int n;
  if (items < 2) return 1;
  n = __atomic_load_n(&$_pool.threads, __ATOMIC_RELAXED);
  if (n == 0) {
    n = $_pool_cpus();
    __atomic_store_n(&$_pool.threads, n, __ATOMIC_RELAXED);
  }
  return n > items ? (int)items : n;
}

)", name);
}

/// The workers and `NAME_pool_run`, which runs one job over them.
static void addPoolRun(llvm::raw_ostream &os, StringRef name) {
  writeNamed(os, R"(/* One step of a wait that polls: a pause, and every 64th step a sched_yield,
 * so that a thread waited for that shares this CPU gets to run (the
 * scheduler often puts a worker it wakes on the launching thread's CPU). */
static inline void $_pool_relax(unsigned *polls) {
  if (++*polls % 64 == 0) {
    sched_yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* The open job, if it is not `seen`; else 0. */
static inline uint64_t $_pool_new_job(uint64_t seen) {
  uint64_t job = __atomic_load_n(&$_pool.job, __ATOMIC_SEQ_CST);
  return (job & 1) && job != seen ? job : 0;
}

/* Waits for a job after `seen`: polls for about 50-100 us (200000 TSC ticks
 * on x86, a count of polls elsewhere), so that back-to-back launches find
 * the worker awake, then sleeps until a launch wakes it. */
static uint64_t $_pool_wait(uint64_t seen) {
  uint64_t job;
  unsigned polls = 0;
#if defined(__x86_64__) || defined(__i386__)
  uint64_t start = __builtin_ia32_rdtsc();
  while (__builtin_ia32_rdtsc() - start < 200000) {
#else
  while (polls < 20000) {
#endif
    if ((job = $_pool_new_job(seen))) return job;
    $_pool_relax(&polls);
  }
  pthread_mutex_lock(&$_pool_lock);
  /* Counted before the job is read again: a launch that opens a job either
   * sees this sleeper (and wakes it) or has its job seen here. */
  __atomic_fetch_add(&$_pool.sleepers, 1, __ATOMIC_SEQ_CST);
  while (!(job = $_pool_new_job(seen)))
    pthread_cond_wait(&$_pool_wake, &$_pool_lock);
  __atomic_fetch_sub(&$_pool.sleepers, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&$_pool_lock);
  return job;
}

/* Runs chunks of the job's work items until none is left. */
static void $_pool_claim(void) {
  int64_t items = $_pool.items, chunk = $_pool.chunk, begin, end;
  while ((begin = __atomic_fetch_add(&$_pool.next, chunk, __ATOMIC_RELAXED)) < items) {
    end = begin + chunk < items ? begin + chunk : items;
    $_run_packed(begin, end, $_pool.params);
  }
}

/* Worker number `arg`: takes part in each job that wants it. */
static void *$_pool_worker(void *arg) {
  int self = (int)(intptr_t)arg;
  uint64_t job = 0;
  for (;;) {
    job = $_pool_wait(job);
    /* Counted in before checking that the job is still open: the launch
     * closes it before waiting for `active` to drop to 0, so it either waits
     * for this worker or the check fails. */
    __atomic_fetch_add(&$_pool.active, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&$_pool.job, __ATOMIC_SEQ_CST) == job &&
        self < $_pool.helpers)
      $_pool_claim();
    __atomic_fetch_sub(&$_pool.active, 1, __ATOMIC_RELEASE);
  }
  return 0;
}

/* Runs the job whose params are set over `threads` threads: this one and
 * threads - 1 workers, started here as needed (fewer where they fail to
 * start). $_pool_busy is held. */
static void $_pool_run(int64_t items, int threads) {
  uint64_t job = __atomic_load_n(&$_pool.job, __ATOMIC_RELAXED) + 1;
  int64_t per_thread, chunks;
  unsigned polls = 0;
  while ($_pool.workers < threads - 1 && !$_pool.failed) {
    pthread_t worker;
    void *self = (void *)(intptr_t)$_pool.workers;
    if (pthread_create(&worker, 0, $_pool_worker, self) != 0) {
      $_pool.failed = 1;
      break;
    }
    pthread_detach(worker);
    ++$_pool.workers;
  }
  $_pool.helpers = threads - 1;
  if ($_pool.helpers > $_pool.workers) $_pool.helpers = $_pool.workers;
  /* Up to 4 chunks per thread, so that a thread that runs slower gets less
   * to do, but of about 4 work items or more: a claim costs about as much
   * as a small work item. Equal chunks keep the threads' shares even. */
  per_thread = (items / ($_pool.helpers + 1) + 3) / 4;
  if (per_thread > 4) per_thread = 4;
  if (per_thread < 1) per_thread = 1;
  chunks = per_thread * ($_pool.helpers + 1);
  $_pool.items = items;
  $_pool.chunk = (items + chunks - 1) / chunks;
  $_pool.next = 0;
  __atomic_store_n(&$_pool.job, job, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&$_pool.sleepers, __ATOMIC_SEQ_CST) > 0) {
    /* Taking the lock waits for a counted sleeper to be in
     * pthread_cond_wait; waking after unlocking spares it a wait on it. */
    pthread_mutex_lock(&$_pool_lock);
    pthread_mutex_unlock(&$_pool_lock);
    pthread_cond_broadcast(&$_pool_wake);
  }
  $_pool_claim();
  /* Closed, then every worker that joined is waited for (the last chunks
   * may still run). */
  __atomic_store_n(&$_pool.job, job + 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&$_pool.active, __ATOMIC_SEQ_CST) != 0)
    $_pool_relax(&polls);
}

)", name);
}

/// `int NAME(void *stream, ...)`, declared (the header's API) or, with
/// `definition`, opened for its body.
static void writeLaunchSignature(llvm::raw_ostream &os, StringRef name,
                                 ArrayRef<std::pair<std::string, std::string>> params,
                                 bool definition) {
  os << "int " << name << "(void *stream";
  for (auto &p : params)
    os << ", " << p.first;
  os << (definition ? ") {\n" : ");\n");
}

/// The declaration of `NAME()`, with what it does.
static void addLaunchDeclaration(llvm::raw_ostream &os, const LaunchSpec &spec,
                                 ArrayRef<std::pair<std::string, std::string>> params) {
  bool symbolic = spec.hasSymbolicSizes();
  os << "/* Runs the whole grid over up to PALLAS_HOST_THREADS threads (default:\n"
        " * the CPUs this process may run on; read at the first launch). `stream`\n"
        " * is unused on the host: the API has the shape of the CUDA one.\n"
        " * Returns 0"
     << (symbolic ? ", or 1 (running nothing) when the sizes break\n"
                    " * what the spec says of them or give a grid extent outside [1, 2^31)"
                  : "")
     << "; never prints or exits. */\n";
  writeLaunchSignature(os, spec.name, params, /*definition=*/false);
  os << "\n";
}

/// The definition of `NAME()`: the whole grid, over the pool where it has
/// more than one work item and more than one thread may run, else on the
/// calling thread (also while another launch has the pool).
static void addLaunch(llvm::raw_ostream &os, const LaunchSpec &spec,
                      ArrayRef<std::pair<std::string, std::string>> params, size_t numArrays,
                      StringRef items) {
  std::string name = spec.name;
  bool symbolic = spec.hasSymbolicSizes();
  writeLaunchSignature(os, name, params, /*definition=*/true);
  if (symbolic) {
    os << "  int64_t pallas_items = " << name << "_num_work_items(";
    for (size_t i = 0; i < spec.sizes.size(); ++i)
      os << (i ? ", " : "") << cheader::sizeParam(spec.sizes[i].name);
    os << ");\n";
  }
  os << "  int pallas_threads;\n  (void)stream;\n";
  if (symbolic)
    os << "  if (pallas_items == 0) return 1;\n";
  os << "  pallas_threads = " << name << "_pool_threads(" << items << ");\n";
  os << "  if (pallas_threads > 1 && pthread_mutex_trylock(&" << name << "_pool_busy) == 0) {\n";
  for (size_t i = 0; i < params.size(); ++i) {
    std::string slot = name + "_pool.params[" + std::to_string(i) + "]";
    if (i < numArrays) {
      os << "    " << slot << " = (void *)" << params[i].second << ";\n";
      continue;
    }
    std::string size = name + "_pool.sizes[" + std::to_string(i - numArrays) + "]";
    os << "    " << size << " = " << params[i].second << ";\n"
       << "    " << slot << " = &" << size << ";\n";
  }
  os << "    " << name << "_pool_run(" << items << ", pallas_threads);\n"
     << "    pthread_mutex_unlock(&" << name << "_pool_busy);\n"
     << "    return 0;\n  }\n"
     << "  /* One thread, or another launch has the pool: every work item here. */\n"
     << "  " << name << "_run_range(0, " << items;
  for (size_t i = 0; i < params.size(); ++i)
    os << ", " << (i < numArrays ? "(void *)" : "") << params[i].second;
  os << ");\n  return 0;\n}\n\n";
}

/// The macro that, defined before the header is included, brings in the
/// definition of `NAME()` and its pool (what NAME.o holds).
static std::string implementationMacro(StringRef name) {
  return "PALLAS_HOST_" + name.upper() + "_IMPLEMENTATION";
}

/// `workAxes`: the leading grid axes the work items span.
static std::string headerText(const LaunchSpec &spec, int64_t workItems, unsigned workAxes) {
  std::string name = spec.name, guard = "PALLAS_HOST_" + llvm::StringRef(name).upper() + "_H";
  std::string implementation = implementationMacro(name);
  std::string s;
  llvm::raw_string_ostream os(s);
  SmallVector<std::pair<std::string, std::string>> params; // (decl, name)
  os << "/* " << name << ".h: launch API of Pallas kernel '" << spec.kernel
     << "' for the host target.\n * Generated by pallasc " << PALLAS_VERSION
     << "; do not edit. Link with " << name << ".o (or " << name
     << ".so), -lpthread and -lm.\n * They hold " << name
     << "() and its worker pool: the section under\n * " << implementation
     << ", compiled.\n *\n"
     << " * Parameters, in spec order (row-major arrays):\n";
  auto describe = [&](const SpecOperand &op, StringRef role, bool isConst) {
    cheader::describeArray(os, op, role);
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
  cheader::describeSizes(os, spec);
  for (const SpecSize &size : spec.sizes)
    params.push_back({"int64_t " + cheader::sizeParam(size.name), cheader::sizeParam(size.name)});
  size_t numArrays = spec.inputs.size() + spec.outputs.size();
  bool symbolic = spec.hasSymbolicSizes();
  cheader::open(os, guard, {"stdint.h"});
  std::string workItemsExpr = name + "_NUM_WORK_ITEMS";
  if (!symbolic) {
    os << "/* Programs of the grid's leading parallel axes; the rest run in order "
          "inside each. */\n#define " << name << "_NUM_WORK_ITEMS " << workItems << "LL\n";
  } else {
    // Grid extents from the sizes; 0 where a size or an extent is out of
    // range (the launch then returns 1).
    os << "/* Programs of the grid's leading parallel axes (the rest run in order\n"
          " * inside each), or 0 where the sizes are invalid for this kernel. */\n";
    os << "static inline int64_t " << name << "_num_work_items("
       << cheader::sizeParams(spec) << ") {\n";
    os << "  int64_t items = 1;\n";
    cheader::checkSizes(os, spec, /*int32Offsets=*/false, "  ", "return 0;");
    for (unsigned a = 0; a < spec.grid.size(); ++a) {
      bool leading = a < workAxes;
      os << "  { int64_t n = " << cheader::gridExtent(spec, a) << ";\n"
         << "    if (n < 1 || n > 2147483647LL) return 0;\n";
      if (leading)
        os << "    if (items > (1LL << 40) / n) return 0;\n    items *= n; }\n";
      else
        os << "    (void)n; }\n";
    }
    os << "  return items;\n}\n";
    workItemsExpr = "pallas_items";
  }
  os << "#define " << name << "_NUM_PARAMS " << params.size() << "\n\n";
  os << "/* Runs work items [pallas_begin, pallas_end). Thread-safe for disjoint ranges. */\n";
  os << "void " << name << "_run_range(int64_t pallas_begin, int64_t pallas_end";
  for (size_t i = 0; i < params.size(); ++i)
    os << (i < numArrays ? ", void *" : ", int64_t ") << params[i].second;
  os << ");\n/* The same, with the parameters in an array"
     << (symbolic ? " (sizes as pointers to their int64_t)" : "") << ". */\n";
  os << "void " << name << "_run_packed(int64_t pallas_begin, int64_t pallas_end, void **pallas_params);\n\n";
  addLaunchDeclaration(os, spec, params);
  os << "#ifdef __cplusplus\n}\n#endif\n\n";
  os << "#ifdef " << implementation << "\n"
     << "#include <pthread.h>\n#include <sched.h>\n#include <stdlib.h>\n#include <unistd.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  addPoolState(os, name, spec.sizes.size());
  addPoolThreads(os, name);
  addPoolRun(os, name);
  addLaunch(os, spec, params, numArrays, workItemsExpr);
  os << "#ifdef __cplusplus\n}\n#endif\n#endif /* " << implementation << " */\n\n"
     << "#endif /* " << guard << " */\n";
  return s;
}

/// The C compiler that builds the launch's implementation and links the
/// shared library: $CC (a program name or path), else cc, else clang-22.
static FailureOr<std::string> findCCompiler(Location loc) {
  llvm::ErrorOr<std::string> cc = std::make_error_code(std::errc::no_such_file_or_directory);
  if (const char *env = std::getenv("CC"); env && *env) {
    cc = llvm::sys::findProgramByName(env);
    if (!cc)
      return emitError(loc) << "cannot build the host artifacts: $CC ('" << env
                            << "') is no program (a name on PATH or a path, without arguments)",
             failure();
  }
  if (!cc)
    cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    cc = llvm::sys::findProgramByName("clang-22");
  if (!cc)
    return emitError(loc) << "cannot build the host artifacts: no 'cc' on PATH (or set CC)",
           failure();
  return *cc;
}

/// A temporary file that is removed when this goes out of scope.
struct TemporaryFile {
  SmallString<128> path;
  ~TemporaryFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

/// Creates `file` (suffix `suffix`) holding `bytes`.
static LogicalResult writeTemporary(TemporaryFile &file, StringRef suffix, StringRef bytes) {
  int fd;
  if (llvm::sys::fs::createTemporaryFile("pallas-host", suffix, fd, file.path))
    return failure();
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << bytes;
  os.close();
  return failure(os.has_error());
}

/// Runs the C compiler `args[0]` (reading `input` as its stdin where given)
/// and returns the bytes it wrote to `output`.
static FailureOr<std::string> runCCompiler(ArrayRef<StringRef> args, std::optional<StringRef> input,
                                           StringRef output, StringRef what, Location loc,
                                           const CompileOptions &options) {
  reportCommand(options, args);
  std::string err;
  std::optional<StringRef> redirects[] = {input, std::nullopt, std::nullopt};
  int rc = llvm::sys::ExecuteAndWait(args[0], args, std::nullopt, redirects, 0, 0, &err);
  auto bytes = llvm::MemoryBuffer::getFile(output, /*IsText=*/false);
  if (rc != 0 || !bytes)
    return emitError(loc) << what << " failed" << (err.empty() ? "" : ": ") << err, failure();
  return (*bytes)->getBuffer().str();
}

/// What the C compiler builds of a host kernel: NAME.o and NAME.so.
struct HostBinaries {
  std::string object, shared;
};

/// NAME.o: the kernel's `object` and the launch's implementation (`header`
/// compiled as C with its implementation macro: `NAME()` and its pool) in
/// one relocatable object, and NAME.so linked from it (SONAME NAME.so).
/// The C source goes in on stdin, so that no temporary file's name reaches
/// the object.
static FailureOr<HostBinaries> buildBinaries(StringRef cc, StringRef object, StringRef header,
                                             StringRef name, Location loc,
                                             const CompileOptions &options) {
  TemporaryFile source, kernel, launch, combined, library;
  if (failed(writeTemporary(source, "c", header)) || failed(writeTemporary(kernel, "o", object)) ||
      failed(writeTemporary(launch, "o", "")) || failed(writeTemporary(combined, "o", "")) ||
      failed(writeTemporary(library, "so", "")))
    return emitError(loc) << "cannot create temporary files", failure();
  std::string define = "-D" + implementationMacro(name);
  StringRef compile[] = {cc, "-x", "c", "-std=gnu99", "-O2", "-fPIC", define, "-c", "-",
                         "-o", launch.path};
  if (failed(runCCompiler(compile, StringRef(source.path), launch.path,
                          "compiling the host launch", loc, options)))
    return failure();
  StringRef merge[] = {cc, "-r", "-nostdlib", "-o", combined.path, kernel.path, launch.path};
  FailureOr<std::string> merged =
      runCCompiler(merge, std::nullopt, combined.path, "combining the host object", loc, options);
  if (failed(merged))
    return failure();
  std::string sonameFlag = ("-Wl,-soname," + name + ".so").str();
  StringRef link[] = {cc, "-shared", sonameFlag, "-o", library.path, combined.path, "-lm", "-lpthread"};
  FailureOr<std::string> shared = runCCompiler(link, std::nullopt, library.path,
                                               "linking the host shared library", loc, options);
  if (failed(shared))
    return failure();
  return HostBinaries{std::move(*merged), std::move(*shared)};
}

static LogicalResult emitHost(const BackendInput &in, BackendResult &result) {
  auto [module, spec, targets, options] = in;
  if (failed(runPasses(module, options, buildHostPipeline)))
    return failure();
  const TargetDescription &target = targets.front();
  Location loc = module.getLoc();
  std::string name = spec.name;
  addMlirArtifact(result, options, name + ".host.mlir", module);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, llvmCtx, name);
  if (!llvmModule)
    return emitError(loc) << "translation to LLVM IR failed", failure();
  unsigned numParams = spec.inputs.size() + spec.outputs.size();
  if (auto threads = module->getAttrOfType<DenseI64ArrayAttr>(kHostThreadsAttrName))
    addThreadedRange(*llvmModule, name, numParams, threads[0], threads[1]);
  addPackedEntry(*llvmModule, name, numParams, spec.sizes.size());
  addBf16Truncation(*llvmModule);
  if (options.stopBeforeCodegen)
    return success();

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
  // --time-passes: the LLVM and C compiler stages by name (not "Rest").
  static char timerIds[3];
  TimingScope *timing = options.timing;
  auto stage = [timing](int id, const char *what) {
    return timing ? timing->nest(&timerIds[id], [what] { return std::string(what); })
                  : TimingScope();
  };
  // -O2, not -O3: O3's full unrolling of the kernels' constant-trip loops
  // doubles the time LLVM takes (decode_paged_s8192 1.5 s -> 0.6 s at O2)
  // for run times as good (conformance kernels, layernorm: the same within
  // noise, matmul_accumulate 1.8x faster, matmul_kloop 0-7 % slower).
  TimingScope optimizeTime = stage(0, "LLVM optimisation (host)");
  if (llvm::Error e = makeOptimizingTransformer(2, 0, tm.get())(llvmModule.get()))
    return emitError(loc) << "LLVM optimisation failed: " << llvm::toString(std::move(e)),
           failure();
  optimizeTime.stop();
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
    TimingScope codegenTime = stage(1, "LLVM code generation (host)");
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if (tm->addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      return emitError(loc) << "the LLVM backend cannot emit objects", failure();
    codegen.run(*llvmModule);
  }

  // Work items: the programs of the leading parallel axes (a product of
  // size expressions where the grid is symbolic: the launcher computes it),
  // as convert-pallas-to-host spread them.
  int64_t workItems = 1;
  unsigned outerAxes = spec.numLeadingParallelAxes();
  if (auto axes = module->getAttrOfType<IntegerAttr>(kHostWorkAxesAttrName))
    outerAxes = std::min<unsigned>(outerAxes, axes.getInt());
  for (unsigned a = 0; a < outerAxes; ++a)
    if (!ShapedType::isDynamic(spec.grid[a]))
      workItems *= spec.grid[a];
  std::string header = headerText(spec, workItems, outerAxes);
  FailureOr<std::string> cc = findCCompiler(loc);
  if (failed(cc))
    return failure();
  TimingScope ccTime = stage(2, "C compiler and linker (host)");
  FailureOr<HostBinaries> binaries = buildBinaries(*cc, object, header, name, loc, options);
  ccTime.stop();
  if (failed(binaries))
    return failure();
  result.artifacts.push_back({name + ".o", std::move(binaries->object), "object"});
  result.artifacts.push_back({name + ".so", std::move(binaries->shared), "shared_library"});
  result.artifacts.push_back({name + ".h", header, "header"});
  nlohmann::json items = workItems;
  if (!spec.gridSizes.empty()) {
    items = nlohmann::json::array();
    for (unsigned a = 0; a < outerAxes; ++a)
      items.push_back(gridExtentJson(spec, a));
  }
  result.launch = {{"entry", name + "_run_range"},
                   {"packed_entry", name + "_run_packed"},
                   {"work_items", items},
                   {"cpu", cpu},
                   {"sanitizer", options.sanitize.empty() ? "none" : options.sanitize},
                   {"triple", triple}};
  return success();
}

namespace mlir::pallas {
/// Adds this backend to the registry; pallas_add_backend(Host) lists it in
/// Backends.def, which the driver calls through.
void registerHostBackend();
} // namespace mlir::pallas

void mlir::pallas::registerHostBackend() {
  BackendInfo info{TargetKind::Host, emitHost};
  info.registerPasses = [] {
    registerHostPasses();
    registerHostPipeline();
  };
  info.symbolicSizes = true;
  info.plgpuKernels = true;
  registerBackend(info);
}
