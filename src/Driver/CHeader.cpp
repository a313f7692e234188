//===- CHeader.cpp - pieces every C launch header shares ------------------===//
#include "pallas/Driver/CHeader.h"
#include "pallas/Spec/SizeExpr.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::pallas;

void cheader::describeArray(llvm::raw_ostream &os, const SpecOperand &op,
                            StringRef role) {
  os << " *   " << op.name << ": " << op.dtype << "[";
  llvm::interleave(llvm::seq<size_t>(0, op.shape.size()), os,
                   [&](size_t d) {
                     if (op.isSymbolic() && !op.sizeNames[d].empty())
                       os << op.sizeNames[d];
                     else
                       os << op.shape[d];
                   },
                   ", ");
  os << "] " << role << "\n";
}

void cheader::forEachDeviceArray(
    const LaunchSpec &spec, function_ref<void(const SpecOperand &, StringRef)> describe) {
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    describe(spec.inputs[i],
             static_cast<int64_t>(i) < spec.numScalarPrefetch ? "scalar prefetch" : "input");
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    std::optional<int64_t> alias = spec.aliasedInput(i);
    describe(spec.outputs[i],
             alias ? "output (aliases input " + std::to_string(*alias) + ")" : "output");
  }
}

void cheader::open(llvm::raw_ostream &os, StringRef guard,
                   ArrayRef<StringRef> headers) {
  os << " */\n#ifndef " << guard << "\n#define " << guard << "\n\n";
  for (StringRef h : headers)
    os << "#include <" << h << ">\n";
  os << "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
}

void cheader::close(llvm::raw_ostream &os, StringRef guard) {
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
}

void cheader::cudaLookupLoaded(llvm::raw_ostream &os, StringRef n) {
  os << "  pthread_mutex_lock(&" << n << "_state.lock);\n"
     << "  for (i = 0; i < " << n << "_state.count; ++i)\n"
     << "    if (" << n << "_state.loaded[i].context == context) {\n"
     << "      *function = " << n << "_state.loaded[i].function;\n"
     << "      pthread_mutex_unlock(&" << n << "_state.lock);\n"
     << "      return CUDA_SUCCESS;\n    }\n";
}

void cheader::cudaRecordLoaded(llvm::raw_ostream &os, StringRef n, StringRef in) {
  os << in << "if (r == CUDA_SUCCESS) {\n"
     << in << "  " << n << "_state.loaded[" << n << "_state.count].context = context;\n"
     << in << "  " << n << "_state.loaded[" << n << "_state.count].module = module;\n"
     << in << "  " << n << "_state.loaded[" << n << "_state.count].function = *function;\n"
     << in << "  ++" << n << "_state.count;\n"
     << in << "} else {\n" << in << "  cuModuleUnload(module);\n" << in << "}\n";
}

void cheader::cudaUnload(llvm::raw_ostream &os, StringRef n, bool forgetImage) {
  os << "/* Unloads the module from every context that loaded it. */\n"
     << "static inline CUresult " << n << "_unload(void) {\n"
     << "  CUresult result = CUDA_SUCCESS, r;\n  int i;\n"
     << "  pthread_mutex_lock(&" << n << "_state.lock);\n"
     << "  for (i = 0; i < " << n << "_state.count; ++i) {\n"
     << "    CUcontext previous;\n"
     << "    r = cuCtxPushCurrent(" << n << "_state.loaded[i].context);\n"
     << "    if (r == CUDA_SUCCESS) {\n"
     << "      r = cuModuleUnload(" << n << "_state.loaded[i].module);\n"
     << "      cuCtxPopCurrent(&previous);\n    }\n"
     << "    if (r != CUDA_SUCCESS) result = r;\n  }\n"
     << "  " << n << "_state.count = 0;\n";
  if (forgetImage)
    os << "  " << n << "_state.image = 0;\n";
  os << "  pthread_mutex_unlock(&" << n << "_state.lock);\n  return result;\n}\n\n";
}

void cheader::describeSizes(llvm::raw_ostream &os, const LaunchSpec &spec) {
  for (const SpecSize &size : spec.sizes) {
    os << " *   " << sizeParam(size.name) << ": symbolic size " << size.name << " (int64_t";
    if (size.multipleOf > 1)
      os << ", a multiple of " << size.multipleOf;
    if (size.max != kMaxArrayDim)
      os << ", at most " << size.max;
    os << ")\n";
  }
}

std::string cheader::sizeParam(StringRef name) { return ("size_" + name).str(); }

std::string cheader::sizeParams(const LaunchSpec &spec) {
  std::string out;
  for (const SpecSize &size : spec.sizes)
    out += (out.empty() ? "" : ", ") + std::string("int64_t ") + sizeParam(size.name);
  return out;
}

void cheader::checkSizes(llvm::raw_ostream &os, const LaunchSpec &spec, bool int32Offsets,
                         StringRef indent, StringRef onError) {
  for (const SpecSize &size : spec.sizes) {
    std::string p = sizeParam(size.name);
    os << indent << "if (" << p << " < 1 || " << p << " > " << size.max << "LL";
    if (size.multipleOf > 1)
      os << " || " << p << " % " << size.multipleOf << " != 0";
    os << ") " << onError << "\n";
  }
  if (!int32Offsets)
    return;
  // Each size is below 2^31: the running product stays in int64_t.
  for (const std::vector<SpecOperand> *list : {&spec.inputs, &spec.outputs})
    for (const SpecOperand &op : *list) {
      if (!op.isSymbolic())
        continue;
      os << indent << "if (";
      for (auto [d, n] : llvm::enumerate(op.shape)) {
        if (d)
          os << " * ";
        if (op.sizeNames[d].empty())
          os << n << "LL";
        else
          os << "(double)" << sizeParam(op.sizeNames[d]);
      }
      os << " >= 2147483648.0) " << onError << "\n";
    }
}

std::string cheader::gridExtent(const LaunchSpec &spec, unsigned axis) {
  if (spec.gridSizes.empty() || spec.gridSizes[axis].empty())
    return std::to_string(spec.grid[axis]) + "LL";
  std::string error;
  size_t column;
  std::optional<pallas_size::SizeExpr> e =
      pallas_size::SizeExpr::parse(spec.gridSizes[axis], error, column);
  return e->c([](const std::string &n) { return sizeParam(n); });
}

void cheader::cudaSizedGrid(llvm::raw_ostream &os, const LaunchSpec &spec) {
  for (const SpecSize &size : spec.sizes)
    os << "  int32_t pallas_arg_" << size.name << " = (int32_t)" << sizeParam(size.name) << ";\n";
  unsigned axes = std::min(spec.numLeadingParallelAxes(), 3u);
  for (unsigned a = 0; a < 3; ++a)
    os << "  int64_t pallas_grid" << a << " = " << (a < axes ? gridExtent(spec, a) : "1") << ";\n";
  checkSizes(os, spec, /*int32Offsets=*/true, "  ", "return CUDA_ERROR_INVALID_VALUE;");
  // Sequential axes run as loops of i32 trip counts.
  for (unsigned a = axes; a < spec.grid.size(); ++a)
    os << "  { int64_t steps = " << gridExtent(spec, a)
       << "; if (steps < 1 || steps > 2147483647LL) return CUDA_ERROR_INVALID_VALUE; }\n";
  const char *limits[] = {"2147483647LL", "65535LL", "65535LL"};
  for (unsigned a = 0; a < 3; ++a)
    os << "  if (pallas_grid" << a << " < 1 || pallas_grid" << a << " > " << limits[a]
       << ") return CUDA_ERROR_INVALID_VALUE;\n";
}
