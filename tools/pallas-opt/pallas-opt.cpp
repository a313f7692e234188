//===- pallas-opt.cpp - the pallas dialect and passes in mlir-opt form ----===//
#include "pallas/Driver/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::pallas::registerPallasDialects(registry);
  mlir::pallas::registerAllPallasPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "pallas optimizer driver\n", registry));
}
