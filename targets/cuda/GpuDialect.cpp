//===- GpuDialect.cpp - tile IR ops for staging blocks in shared memory ---===//
#include "pallas/Gpu/Gpu.h"
#include "pallas/Triton/Triton.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::pgpu;

#include "pallas/Gpu/GpuDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "pallas/Gpu/GpuTypes.cpp.inc"
#define GET_OP_CLASSES
#include "pallas/Gpu/GpuOps.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/Gpu/GpuAttrs.cpp.inc"

void PallasGpuDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pallas/Gpu/GpuAttrs.cpp.inc"
      >();
}

void PallasGpuDialect::initialize() {
  registerAttributes();
  addTypes<
#define GET_TYPEDEF_LIST
#include "pallas/Gpu/GpuTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pallas/Gpu/GpuOps.cpp.inc"
      >();
}

LogicalResult AsyncCopyOp::verify() {
  RankedTensorType tile = getRing().getType().getTile();
  auto ptr = cast<RankedTensorType>(getPtr().getType());
  if (!isa<tt::PointerType>(ptr.getElementType()) || tt::getPointeeType(ptr) != tile)
    return emitOpError("copies ") << ptr << " into a ring of " << tile;
  if (getMask() && cast<RankedTensorType>(getMask().getType()).getShape() != tile.getShape())
    return emitOpError("mask shape differs from the tile's");
  return success();
}

LogicalResult RingReadOp::verify() {
  RankedTensorType tile = getRing().getType().getTile();
  auto result = cast<RankedTensorType>(getType());
  if (result.getShape() != tile.getShape() || result.getElementType() != tile.getElementType())
    return emitOpError("reads ") << result << " from a ring of " << tile;
  return success();
}
