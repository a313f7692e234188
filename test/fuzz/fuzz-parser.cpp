//===- fuzz-parser.cpp - libFuzzer target for the MLIR parser + verifiers -===//
//
// Parses the input as MLIR with every dialect pallasc registers, verifies it
// and, when it verifies, prints it back in the custom and the generic form.
// Parse and verifier errors are ordinary diagnostics and are swallowed; the
// target must never crash, abort or hang.
//
//===----------------------------------------------------------------------===//
#include "FuzzContext.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

// LLVM's BumpPtrAllocator, inlined into the instrumented code, poisons each
// new slab for ASan and unpoisons the pieces it hands out; the uninstrumented
// copy inside libMLIR hands out pieces of the same slabs without unpoisoning
// them, which ASan would report as use-after-poison.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = fuzzContext();
  ScopedDiagnosticHandler swallow(&ctx, [](Diagnostic &) { return success(); });

  // The MLIR lexer expects a null terminator after the buffer, as files
  // read through MemoryBuffer have; the fuzzer's bytes have none.
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&ctx, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, "fuzz.mlir");
  if (!module)
    return 0;
  if (failed(verify(*module)))
    return 0;

  // Verified IR must print without crashing, in both forms.
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os);
  module->print(os, OpPrintingFlags().printGenericOpForm());
  return 0;
}
