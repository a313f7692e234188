//===- TypeConverter.cpp - tile IR types to per-thread types --------------===//
#include "TileToNVVM/TypeConverter.h"
#include "Dialect/Layouts.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Passes/ExpandF8Conversions.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

SimtTypeConverter::SimtTypeConverter(MLIRContext *ctx, int64_t threads)
    : threads(threads) {
  addConversion([](Type t) { return t; });
  addConversion([ctx](tt::PointerType) -> Type { return IntegerType::get(ctx, 64); });
  // LLVM has no 8-bit floats: f8 data moves as bytes (wgmma reads it as f8).
  addConversion([ctx](Float8E4M3FNType) -> Type { return IntegerType::get(ctx, 8); });
  addConversion([ctx](Float8E5M2Type) -> Type { return IntegerType::get(ctx, 8); });
  // A ring is its byte offset in the rings' area.
  addConversion([ctx](pgpu::RingType) -> Type { return IntegerType::get(ctx, 32); });
  addConversion([ctx](pgpu::SlotBarriersType) -> Type { return IntegerType::get(ctx, 32); });
  addConversion([ctx](pgpu::MBarriersType) -> Type { return IntegerType::get(ctx, 32); });
  addConversion([this, ctx](RankedTensorType t) -> Type {
    Type elem = t.getElementType();
    if (isa<tt::PointerType>(elem))
      elem = IntegerType::get(ctx, 64);
    if (isF8(elem))
      elem = IntegerType::get(ctx, 8);
    if (hasMmaLayout(t)) {
      std::optional<MmaLayout> l = mmaLayoutOf(t);
      return VectorType::get({l ? l->perThread() : t.getNumElements()}, elem);
    }
    if (auto a = dyn_cast_or_null<pgpu::WgmmaF8AEncodingAttr>(t.getEncoding())) {
      // As many elements per thread as the accumulator layout's.
      std::optional<MmaLayout> l =
          mmaLayoutOf(t.cloneWithEncoding(pgpu::WgmmaEncodingAttr::get(ctx, a.getWarps(), 1)));
      return VectorType::get({l ? l->perThread() : t.getNumElements()}, elem);
    }
    if (hasSliceLayout(t)) {
      // Two rows per 16-row tile.
      std::optional<MmaLayout> l = sliceParentOf(t);
      return VectorType::get({l ? 2 * l->tilesM : t.getNumElements()}, elem);
    }
    return VectorType::get({BlockedLayout(t.getNumElements(), this->threads).perThread},
                           elem);
  });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs, Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs).getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

Type cuda::storageType(Type elem) {
  return isF8(elem) ? IntegerType::get(elem.getContext(), 8) : elem;
}
