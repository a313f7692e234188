//===- SharedLayouts.cpp - tiles in shared memory on CUDA -----------------===//
#include "Dialect/SharedLayouts.h"
#include "Dialect/Layouts.h"
#include "pallas/Passes/ExpandF8Conversions.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

int64_t cuda::smemElementBytes(Type elem) {
  if (elem.isInteger(1))
    return 1;
  return std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
}

/// Core matrices are 128 bytes apart plus 16: row r of the core matrices
/// next to each other along a row of the tile then falls in different banks
/// (plain 128-byte spacing would put them all in the same ones).
static constexpr int64_t kCoreSpacing = 144;

static int64_t roundUp16(int64_t bytes) { return (bytes + 15) / 16 * 16; }

pgpu::SharedLayoutKind cuda::wgmmaOperandKind(RankedTensorType tile) {
  // 128-byte swizzle where rows are a multiple of 128 bytes: 16-byte pieces
  // of a row that are neighbours in global memory stay neighbours here (so
  // cp.async requests coalesce), and the 8 rows wgmma reads at once fall in
  // different banks.
  int64_t rowBytes = tile.getDimSize(1) * smemElementBytes(tile.getElementType());
  return rowBytes % 128 == 0 && tile.getDimSize(0) % 8 == 0
             ? pgpu::SharedLayoutKind::swizzle_128b
             : pgpu::SharedLayoutKind::core_matrices;
}

OperandSmemLayout cuda::operandSmemLayout(RankedTensorType tile, pgpu::SharedLayoutKind kind) {
  OperandSmemLayout l;
  l.elemBytes = smemElementBytes(tile.getElementType());
  int64_t rowBytes = tile.getDimSize(1) * l.elemBytes;
  switch (kind) {
  case pgpu::SharedLayoutKind::swizzle_128b:
  case pgpu::SharedLayoutKind::swizzle_64b:
    l.swizzled = true;
    l.swizzleBytes = kind == pgpu::SharedLayoutKind::swizzle_64b ? 64 : 128;
    l.atomColumnBytes = tile.getDimSize(0) * l.swizzleBytes;
    l.bytes = l.atomColumnBytes * (rowBytes / l.swizzleBytes);
    return l;
  case pgpu::SharedLayoutKind::core_matrices: {
    l.coreMatrices = true;
    int64_t perCore = 16 / l.elemBytes;
    l.colGroupBytes = kCoreSpacing;
    l.rowGroupBytes = (tile.getDimSize(1) + perCore - 1) / perCore * kCoreSpacing;
    l.bytes = roundUp16((tile.getDimSize(0) + 7) / 8 * l.rowGroupBytes);
    return l;
  }
  case pgpu::SharedLayoutKind::padded_rows:
    l.rowBytes = rowBytes + 16;
    l.bytes = roundUp16(tile.getDimSize(0) * l.rowBytes);
    return l;
  case pgpu::SharedLayoutKind::row_major:
    // Slots 128 bytes apart at least: where the TMA copies them.
    l.rowBytes = rowBytes;
    l.bytes = (tile.getDimSize(0) * rowBytes + 127) / 128 * 128;
    return l;
  }
  llvm_unreachable("unknown shared layout kind");
}

OperandSmemLayout cuda::wgmmaOperandLayout(RankedTensorType tile) {
  return operandSmemLayout(tile, wgmmaOperandKind(tile));
}

OperandSmemLayout cuda::paddedRowLayout(RankedTensorType tile) {
  return operandSmemLayout(tile, pgpu::SharedLayoutKind::padded_rows);
}

tt::TransOp cuda::kMajorB(tt::DotOp dot) {
  auto trans = dot.getB().getDefiningOp<tt::TransOp>();
  bool wgmma = hasWgmmaLayout(dot.getType());
  if (!trans || !(wgmma || hasMmaLayout(dot.getType())))
    return {};
  auto src = cast<RankedTensorType>(trans.getSrc().getType());
  Type e = src.getElementType();
  // mma.sync's B fragments are pairs along K: rows of a K-major tile, as
  // ldmatrix (without .trans) reads them (16-bit elements; tf32 has its own
  // fragment loads).
  return src.getRank() == 2 && (e.isBF16() || e.isF16() || (wgmma && isF8(e))) ? trans
                                                                              : tt::TransOp();
}

tt::TransOp cuda::mnMajorA(tt::DotOp dot) {
  auto trans = dot.getA().getDefiningOp<tt::TransOp>();
  if (!trans || !hasWgmmaLayout(dot.getType()))
    return {};
  auto src = cast<RankedTensorType>(trans.getSrc().getType());
  Type e = src.getElementType();
  return src.getRank() == 2 && (e.isBF16() || e.isF16()) ? trans : tt::TransOp();
}

pgpu::SharedLayoutKind cuda::dotOperandKind(tt::DotOp dot, unsigned index) {
  auto tile = cast<RankedTensorType>(index == 0 ? dot.getA().getType() : dot.getB().getType());
  return hasWgmmaLayout(dot.getType()) ? wgmmaOperandKind(tile)
                                       : pgpu::SharedLayoutKind::padded_rows;
}

OperandSmemLayout cuda::sharedLayoutOf(RankedTensorType tile) {
  auto encoding = dyn_cast_or_null<pgpu::SharedEncodingAttr>(tile.getEncoding());
  return operandSmemLayout(tile, encoding ? encoding.getKind()
                                          : pgpu::SharedLayoutKind::padded_rows);
}

int64_t OperandSmemLayout::accessElements(int64_t vec, int64_t cols) const {
  bool inRow = cols % vec == 0;
  bool inGranule = !(coreMatrices || swizzled) || vec * elemBytes <= 16;
  return inRow && inGranule ? vec : 1;
}

std::optional<int64_t> OperandSmemLayout::shiftBytes(int64_t rows, int64_t cols) const {
  int64_t bytes = cols * elemBytes;
  // (Either swizzle repeats every 8 rows.)
  if (swizzled)
    return rows % 8 || bytes % swizzleBytes
               ? std::nullopt
               : std::optional<int64_t>(rows * swizzleBytes +
                                        bytes / swizzleBytes * atomColumnBytes);
  if (coreMatrices)
    return rows % 8 || bytes % 16
               ? std::nullopt
               : std::optional<int64_t>(rows / 8 * rowGroupBytes + bytes / 16 * colGroupBytes);
  return rows * rowBytes + bytes;
}

bool cuda::swizzlableAccumulator(RankedTensorType src) {
  if (!hasMmaLayout(src) || src.getRank() != 2 || !src.getElementType().isIntOrFloat())
    return false;
  int64_t bits = src.getElementTypeBitWidth();
  return (bits == 16 || bits == 32) && (src.getDimSize(1) * bits / 8) % 128 == 0;
}
