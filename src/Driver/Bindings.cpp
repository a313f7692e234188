//===- Bindings.cpp - what the PyTorch and XLA bindings share -------------===//
#include "pallas/Driver/Bindings.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::pallas;

StringRef bindings::numpyDType(StringRef dtype) {
  return llvm::StringSwitch<StringRef>(dtype)
      .Case("f64", "float64")
      .Case("f32", "float32")
      .Case("f16", "float16")
      .Case("bf16", "bfloat16")
      .Case("f8E4M3FN", "float8_e4m3fn")
      .Case("f8E5M2", "float8_e5m2")
      .Case("i1", "bool")
      .Case("i8", "int8")
      .Case("i16", "int16")
      .Case("i32", "int32")
      .Case("i64", "int64")
      .Default("");
}

std::string bindings::pythonTuple(ArrayRef<int64_t> values) {
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + (values.size() == 1 ? ",)" : ")");
}

std::string bindings::cxxList(ArrayRef<int64_t> values) {
  std::string s = "{";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "}";
}

LogicalResult bindings::checkBindable(Location loc, const LaunchSpec &spec, TargetKind kind,
                                      StringRef option, StringRef why, StringRef framework) {
  if (kind != TargetKind::Host && kind != TargetKind::Cuda)
    return emitError(loc) << option << " needs the host target or CUDA targets (" << why << ")",
           failure();
  return checkDTypes(loc, spec, option, framework);
}

LogicalResult bindings::checkDTypes(Location loc, const LaunchSpec &spec, StringRef option,
                                    StringRef framework) {
  for (const auto *list : {&spec.inputs, &spec.outputs})
    for (const SpecOperand &op : *list)
      if (numpyDType(op.dtype).empty())
        return emitError(loc) << option << ": " << op.path << " has dtype '" << op.dtype
                              << "', which " << framework << " has no type for",
               failure();
  return success();
}

void bindings::writeOperandTable(llvm::raw_ostream &os, StringRef name,
                                 ArrayRef<SpecOperand> operands,
                                 function_ref<std::string(StringRef)> dtypeExpr) {
  os << name << " = [";
  for (const SpecOperand &op : operands)
    os << "(\"" << op.name << "\", " << pythonTuple(op.shape) << ", "
       << dtypeExpr(numpyDType(op.dtype)) << "), ";
  os << "]\n";
}
