//===- GpuDialect.cpp - tile IR ops for staging blocks in shared memory ---===//
#include "pallas/Gpu/Gpu.h"
#include "pallas/Tile/Tile.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::pgpu;

#include "pallas/Gpu/GpuDialect.cpp.inc"
#include "pallas/Gpu/GpuEnums.cpp.inc"
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

LogicalResult SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                        int64_t dim, Attribute parent) {
  if (dim != 1)
    return emitError() << "only row slices (dim = 1) are supported";
  if (auto mma = dyn_cast<MmaEncodingAttr>(parent); mma && mma.getWarpsN() == 1)
    return success();
  if (isa<WgmmaEncodingAttr>(parent))
    return success();
  return emitError() << "the parent of a slice is a #pallas_gpu.wgmma or a "
                        "#pallas_gpu.mma<warps = [WM, 1]>, not "
                     << parent;
}

LogicalResult LaunchConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       int64_t threads, DenseI64ArrayAttr grid,
                                       int64_t sharedBytes, int64_t cluster, bool persistent,
                                       StringAttr clusterUnused, ArrayAttr tensorMaps) {
  if (threads < 1)
    return emitError() << "#pallas_gpu.launch_config threads must be at least 1, got "
                       << threads;
  if (grid && (grid.size() != 3 ||
               llvm::any_of(grid.asArrayRef(), [](int64_t n) { return n < 1; })))
    return emitError() << "#pallas_gpu.launch_config grid must be three sizes of at least 1";
  if (sharedBytes < 0)
    return emitError() << "#pallas_gpu.launch_config shared_bytes must not be negative";
  if (cluster < 1)
    return emitError() << "#pallas_gpu.launch_config cluster must be at least 1";
  if (tensorMaps && !llvm::all_of(tensorMaps, llvm::IsaPred<TensorMapAttr>))
    return emitError()
           << "#pallas_gpu.launch_config tensor_maps must hold #pallas_gpu.tensor_map";
  return success();
}

LogicalResult RingType::verify(function_ref<InFlightDiagnostic()> emitError, int64_t stages,
                               RankedTensorType tile) {
  if (stages < 1)
    return emitError() << "a ring needs at least one buffer";
  if (tile.getRank() != 2)
    return emitError() << "a ring holds 2-d tiles, not " << tile;
  Attribute encoding = tile.getEncoding();
  if (encoding && !isa<SharedEncodingAttr>(encoding))
    return emitError() << "a ring's tile is encoded with #pallas_gpu.shared, not " << encoding;
  auto shared = dyn_cast_or_null<SharedEncodingAttr>(encoding);
  if (shared && (shared.getKind() == SharedLayoutKind::swizzle_128b ||
                 shared.getKind() == SharedLayoutKind::swizzle_64b)) {
    int64_t bits = std::max<int64_t>(8, tile.getElementTypeBitWidth());
    int64_t atom = shared.getKind() == SharedLayoutKind::swizzle_64b ? 64 : 128;
    if (tile.getDimSize(1) * bits % (8 * atom) || tile.getDimSize(0) % 8)
      return emitError() << "the " << atom << "-byte swizzle needs rows of a multiple of "
                         << atom << " bytes and a multiple of 8 rows, not " << tile;
  }
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  RankedTensorType tile = getRing().getType().getTile();
  auto ptr = cast<RankedTensorType>(getPtr().getType());
  if (!isa<tt::PointerType>(ptr.getElementType()) ||
      tt::getPointeeType(ptr) != tile.cloneWithEncoding(nullptr))
    return emitOpError("copies ") << ptr << " into a ring of " << tile;
  if (getMask() && cast<RankedTensorType>(getMask().getType()).getShape() != tile.getShape())
    return emitOpError("mask shape differs from the tile's");
  return success();
}

LogicalResult RingReadOp::verify() {
  RankedTensorType tile = getRing().getType().getTile();
  auto result = cast<RankedTensorType>(getType());
  if (getCol()) {
    auto shared = dyn_cast_or_null<SharedEncodingAttr>(tile.getEncoding());
    int64_t atom = 1024 / std::max<int64_t>(8, tile.getElementTypeBitWidth());
    if (!shared || shared.getKind() != SharedLayoutKind::swizzle_128b ||
        result.getElementType() != tile.getElementType() ||
        result.getDimSize(0) != tile.getDimSize(0) || result.getDimSize(1) % atom ||
        result.getDimSize(1) > tile.getDimSize(1))
      return emitOpError("reads columns ")
             << result << " of a ring of " << tile
             << "; a column read takes whole atom columns of a 128-byte-swizzled tile";
    return success();
  }
  if (result.getShape() != tile.getShape() || result.getElementType() != tile.getElementType())
    return emitOpError("reads ") << result << " from a ring of " << tile;
  return success();
}

LogicalResult MBarriersType::verify(function_ref<InFlightDiagnostic()> emitError, int64_t count,
                                    int64_t arrivals, int64_t ctas) {
  // (A cluster has at most 16 CTAs.)
  if (ctas < 1 || ctas > 16)
    return emitError() << "mbarriers shared by 1 to 16 CTAs, got " << ctas;
  if (count < 1)
    return emitError() << "mbarriers need a count of at least 1, got " << count;
  // (An mbarrier's pending count is 20 bits.)
  if (arrivals < 1 || arrivals >= (int64_t{1} << 20))
    return emitError() << "mbarrier arrivals must be from 1 to 2^20 - 1, got " << arrivals;
  return success();
}

/// A TMA copy's tile pointers address the ring's tile (with `rowOffset`,
/// as many of its rows as they have from some row on), 128-byte swizzled
/// or dense rows the TMA copies as one box.
static LogicalResult verifyTmaTile(Operation *op, Value ptr, RingType ring,
                                   bool rowOffset = false) {
  RankedTensorType tile = ring.getTile();
  auto ptrs = cast<RankedTensorType>(ptr.getType());
  auto shared = dyn_cast_or_null<SharedEncodingAttr>(tile.getEncoding());
  bool rowMajor = shared && shared.getKind() == SharedLayoutKind::row_major;
  auto ptrType = dyn_cast<tt::PointerType>(ptrs.getElementType());
  auto pointee = ptrType ? RankedTensorType::get(ptrs.getShape(), ptrType.getPointeeType())
                         : RankedTensorType();
  bool fits = pointee && pointee.getElementType() == tile.getElementType() &&
              (rowOffset ? pointee.getDimSize(1) == tile.getDimSize(1) &&
                               pointee.getDimSize(0) <= tile.getDimSize(0)
                         : pointee.getShape() == tile.getShape());
  if (!fits)
    return op->emitOpError("copies ") << ptrs << " to or from a ring of " << tile;
  if (rowOffset && !rowMajor)
    return op->emitOpError("copies rows from some row on of a tile with dense rows only, not ")
           << tile;
  if (rowMajor) {
    int64_t rowBytes = tile.getDimSize(1) * std::max<int64_t>(1, tile.getElementTypeBitWidth() / 8);
    if (rowBytes % 16 || tile.getDimSize(1) > 256 || tile.getDimSize(0) > 256)
      return op->emitOpError("copies with the TMA tiles of dense rows of a multiple of 16 bytes "
                             "and at most 256 elements, at most 256 rows, not ")
             << tile;
    return success();
  }
  if (!shared || (shared.getKind() != SharedLayoutKind::swizzle_128b &&
                  shared.getKind() != SharedLayoutKind::swizzle_64b))
    return op->emitOpError("copies with the TMA into or out of tiles with the 128- or 64-byte "
                           "swizzle or dense rows only, not ")
           << tile;
  return success();
}

LogicalResult TmaLoadOp::verify() { return verifyTmaTile(*this, getPtr(), getRing().getType()); }

LogicalResult TmaStoreBufferOp::verify() {
  return verifyTmaTile(*this, getPtr(), getRing().getType(), /*rowOffset=*/(bool)getRow());
}

LogicalResult RingWriteOp::verify() {
  RankedTensorType tile = getRing().getType().getTile();
  auto value = cast<RankedTensorType>(getValue().getType());
  if (value.getShape() != tile.getShape() || value.getElementType() != tile.getElementType())
    return emitOpError("writes ") << value << " into a ring of " << tile;
  return success();
}

LogicalResult RingWriteOp::canonicalize(RingWriteOp op, PatternRewriter &rewriter) {
  auto cast = op.getValue().getDefiningOp<tensor::CastOp>();
  if (!cast || cast.getSource().getType().getShape() != op.getValue().getType().getShape())
    return failure();
  rewriter.modifyOpInPlace(op, [&] { op.getValueMutable().set(cast.getSource()); });
  return success();
}
