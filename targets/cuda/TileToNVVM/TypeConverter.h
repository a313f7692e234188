//===- TypeConverter.h - tile IR types to per-thread types ------*- C++ -*-===//
//
// A tensor becomes, per thread, the vector of the elements its layout
// (Dialect/Layouts.h) gives the thread; pointers become i64 addresses,
// f8 elements bytes, rings and slot barriers their i32 offset in shared
// memory.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_TYPECONVERTER_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_TYPECONVERTER_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::pallas::cuda {

/// Tensors become vector<R x elem> per thread; pointers become i64
/// addresses.
class SimtTypeConverter : public TypeConverter {
public:
  SimtTypeConverter(MLIRContext *ctx, int64_t threads);
  int64_t threads;
};

/// The type registers and memory hold an element of type `elem` in: f8 as
/// i8 (LLVM has no 8-bit floats), others as themselves.
Type storageType(Type elem);

} // namespace mlir::pallas::cuda

#endif
