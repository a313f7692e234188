//===- DTypes.cpp - spec dtypes and MLIR element types --------------------===//
#include "pallas/Spec/LaunchSpec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::pallas;

Type mlir::pallas::parseDType(StringRef dtype, MLIRContext *ctx) {
  Builder b(ctx);
  return llvm::StringSwitch<Type>(dtype)
      .Case("f64", b.getF64Type())
      .Case("f32", b.getF32Type())
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Case("f8E4M3FN", b.getType<Float8E4M3FNType>())
      .Case("f8E5M2", b.getType<Float8E5M2Type>())
      .Case("i1", b.getI1Type())
      .Case("i8", b.getI8Type())
      .Case("i16", b.getI16Type())
      .Case("i32", b.getI32Type())
      .Case("i64", b.getI64Type())
      .Default(Type());
}

std::string mlir::pallas::dtypeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return parseDType(s, type.getContext()) == type ? s : "";
}

int64_t mlir::pallas::dtypeBytes(Type type) {
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
  return 4; // semaphores
}
