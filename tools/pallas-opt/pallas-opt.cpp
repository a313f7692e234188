//===- pallas-opt.cpp - the pallas dialect and passes in mlir-opt form ----===//
#include "pallas/Driver/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // The version of the compiler these passes are, not only LLVM's.
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "pallas-opt (pallasc " << PALLAS_VERSION << ", LLVM/MLIR " << LLVM_VERSION_STRING
       << ")\n";
  });
  mlir::DialectRegistry registry;
  mlir::pallas::registerPallasDialects(registry);
  mlir::pallas::registerAllPallasPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "pallas optimizer driver\n", registry));
}
