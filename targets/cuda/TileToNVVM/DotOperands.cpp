//===- DotOperands.cpp - tensor-core dot operands in shared memory --------===//
//
// Both tensor-core lowerings read A and B from shared memory, each in its
// own layout (Dialect/SharedLayouts.h); pallas-stage-loads's copies put
// staged operands straight into that layout. The layout's addresses serve
// the writers (from registers, or cp.async from global memory) and the
// readers alike.
//
//===----------------------------------------------------------------------===//
#include "TileToNVVM/DotLowering.h"
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/SharedMemory.h"
#include "TileToNVVM/SimtState.h"
#include "TileToNVVM/ThreadSlots.h"
#include "pallas/Passes/ExpandF8Conversions.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

Value cuda::registerA(tt::DotOp dot) {
  auto leave = dot.getA().getDefiningOp<tensor::CastOp>();
  if (!leave)
    return {};
  // mma.sync: where each warp holds whole rows, the accumulator of two
  // 16x8 tiles side by side is the A fragment of one k16 step.
  auto mma = dyn_cast_or_null<pgpu::MmaEncodingAttr>(
      cast<RankedTensorType>(dot.getType()).getEncoding());
  if (!hasWgmmaLayout(dot.getType()) && !(mma && mma.getWarpsN() == 1))
    return {};
  // Warpgroups splitting the columns each hold part of A's rows' columns;
  // their dot reads all of them, from shared memory.
  if (hasColumnSplitWgmmaLayout(dot.getType()))
    return {};
  auto src = dyn_cast<RankedTensorType>(leave.getSource().getType());
  auto d = cast<RankedTensorType>(dot.getType());
  if (!src)
    return {};
  Type e = src.getElementType();
  bool inLayout = src.getEncoding() == d.getEncoding();
  if (isF8(e) && hasWgmmaLayout(d)) {
    // f8 on wgmma: in the dot's own layout (its fragments gathered across
    // each quad) or already in the f8 A-fragment order of its warps.
    auto a = dyn_cast_or_null<pgpu::WgmmaF8AEncodingAttr>(src.getEncoding());
    inLayout = inLayout ||
               (a && a.getWarps() == cast<pgpu::WgmmaEncodingAttr>(d.getEncoding()).getWarps());
    return inLayout ? leave.getSource() : Value();
  }
  return inLayout && (e.isBF16() || e.isF16()) ? leave.getSource() : Value();
}

Value cuda::mnAccumulatorA(tt::DotOp dot) {
  tt::TransOp trans = mnMajorA(dot);
  auto leave = trans ? trans.getSrc().getDefiningOp<tensor::CastOp>() : tensor::CastOp();
  if (!leave || cast<RankedTensorType>(leave.getType()).getEncoding())
    return {};
  auto src = cast<RankedTensorType>(leave.getSource().getType());
  return hasMmaLayout(src) && src.getRank() == 2 && src.getElementTypeBitWidth() == 16
             ? leave.getSource()
             : Value();
}

void cuda::writeAccumulatorPairs(OpBuilder &b, Location loc, SimtState &s, Value base,
                                 Value perThread, RankedTensorType accumulator,
                                 const OperandSmemLayout &layout) {
  // Slots 2k and 2k + 1 of a tensor-core layout are adjacent columns, in
  // one 16-byte unit of any operand layout.
  SlotCoordinates slots = slotCoordinates(b, loc, s, accumulator);
  SmallVector<Value> addresses = layout.slotAddresses(b, loc, base, slots, 2, s.shiftedAddresses);
  Type elem = accumulator.getElementType();
  auto pair = VectorType::get({2}, elem);
  // 32-bit pairs in the 128-byte swizzle: a row's four lanes write two
  // 16-byte units, and rows r and r ^ 1 (one half-warp's store) land on
  // the same two, a 2-way bank conflict. Threads of odd rows store their
  // 8-column tile tn ^ 2 where the others store tn (both in one 128-byte
  // row): the half-warp's four rows then fill distinct units.
  std::optional<MmaLayout> mma = mmaLayoutOf(accumulator);
  bool staggered = layout.swizzled && layout.swizzleBytes == 128 &&
                   elem.getIntOrFloatBitWidth() == 32 && mma && mma->tilesN % 4 == 0 &&
                   (int64_t)slots.size() == mma->tilesM * mma->tilesN * 4;
  Value oddRow;
  if (staggered) {
    Value lane = arith::RemUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
    Value row = arith::DivUIOp::create(b, loc, lane, constI32(b, loc, 4));
    oddRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                   arith::AndIOp::create(b, loc, row, constI32(b, loc, 1)),
                                   constI32(b, loc, 0));
  }
  auto pairAt = [&](size_t i) {
    return vector::FromElementsOp::create(
        b, loc, pair,
        ValueRange{extractSlot(b, loc, perThread, i), extractSlot(b, loc, perThread, i + 1)});
  };
  for (size_t i = 0; i + 1 < slots.size(); i += 2) {
    Value v = pairAt(i), address = addresses[i / 2];
    if (staggered) {
      // Slot i = ((tm * tilesN + tn) * 4 + r): the same tm and r of tn ^ 2.
      int64_t tn = (i / 4) % mma->tilesN;
      size_t partner = i + ((tn ^ 2) - tn) * 4;
      v = arith::SelectOp::create(b, loc, oddRow, pairAt(partner), v);
      address = arith::SelectOp::create(b, loc, oddRow, addresses[partner / 2], address);
    }
    LLVM::StoreOp::create(b, loc, v, address, 2 * elem.getIntOrFloatBitWidth() / 8);
  }
}

Value OperandSmemLayout::offsetOf(OpBuilder &b, Location loc, Value row, Value col) const {
  auto mul = [&](Value v, int64_t k) { return arith::MulIOp::create(b, loc, v, constI32(b, loc, k)); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); };
  if (swizzled) {
    // Byte b of row r (atoms W = swizzleBytes wide): atom column b / W,
    // chunk (b % W) / 16 stored at chunk ((b % W) / 16) ^ (r % 8) (W 128)
    // or ^ ((r / 2) % 4) (W 64) of the row: the address bits 7 and up
    // flip bits 4 and up.
    int64_t w = swizzleBytes;
    Value byte = mul(col, elemBytes);
    auto div = [&](Value v, int64_t k) { return arith::DivUIOp::create(b, loc, v, constI32(b, loc, k)); };
    auto rem = [&](Value v, int64_t k) { return arith::RemUIOp::create(b, loc, v, constI32(b, loc, k)); };
    Value in = div(rem(byte, w), 16);
    Value flip = w == 128 ? rem(row, 8) : rem(div(row, 128 / w), w / 16);
    Value chunk = arith::XOrIOp::create(b, loc, in, flip);
    return add(add(mul(div(byte, w), atomColumnBytes), mul(row, w)),
               add(mul(chunk, 16), rem(byte, 16)));
  }
  if (!coreMatrices)
    return add(mul(row, rowBytes), mul(col, elemBytes));
  int64_t perCore = 16 / elemBytes;
  auto div = [&](Value v, int64_t k) { return arith::DivUIOp::create(b, loc, v, constI32(b, loc, k)); };
  auto rem = [&](Value v, int64_t k) { return arith::RemUIOp::create(b, loc, v, constI32(b, loc, k)); };
  return add(add(mul(div(row, 8), rowGroupBytes), mul(div(col, perCore), colGroupBytes)),
             add(mul(rem(row, 8), 16), mul(rem(col, perCore), elemBytes)));
}

SmallVector<Value> OperandSmemLayout::slotAddresses(OpBuilder &b, Location loc, Value base,
                                                    const SlotCoordinates &slots,
                                                    int64_t step, bool shifted) const {
  SmallVector<Value> out;
  // Slots whose address was computed in full: (slot, address).
  SmallVector<std::pair<size_t, Value>> full;
  bool shiftable = shifted && !slots.origin.empty();
  for (size_t i = 0; i < slots.size(); i += step) {
    Value address;
    for (auto [j, at] : shiftable ? ArrayRef(full) : ArrayRef<std::pair<size_t, Value>>()) {
      std::optional<int64_t> shift =
          shiftBytes(slots.shifts[i][0] - slots.shifts[j][0], slots.shifts[i][1] - slots.shifts[j][1]);
      if (!shift)
        continue;
      address = *shift ? (Value)LLVM::GEPOp::create(b, loc, at.getType(), b.getI8Type(), at,
                                                    ArrayRef<LLVM::GEPArg>{*shift})
                       : at;
      break;
    }
    if (!address) {
      address = addressOf(b, loc, base, slots[i]);
      full.push_back({i, address});
    }
    out.push_back(address);
  }
  return out;
}

Value OperandSmemLayout::addressOf(OpBuilder &b, Location loc, Value base,
                                   ArrayRef<Value> coords) const {
  return smemByteAddress(b, loc, base, offsetOf(b, loc, coords[0], coords[1]));
}

void cuda::writeOperand(OpBuilder &b, Location loc, SimtState &s, Value base, Value perThread,
                        RankedTensorType type, const OperandSmemLayout &layout,
                        RankedTensorType regsLayout) {
  if (regsLayout)
    return writeAccumulatorPairs(b, loc, s, base, perThread, regsLayout, layout);
  int64_t cols = type.getDimSize(1);
  BlockedLayout blocked(type.getNumElements(), s.threads);
  int64_t vec = layout.accessElements(blocked.vec, cols);
  SmallVector<Value> addresses =
      layout.slotAddresses(b, loc, base, slotCoordinates(b, loc, s, type.getShape()), vec,
                           s.shiftedAddresses);
  for (int64_t i = 0; i < blocked.perThread; i += vec) {
    Value ptr = addresses[i / vec];
    SmallVector<Value> vals;
    for (int64_t j = 0; j < vec; ++j)
      vals.push_back(extractSlot(b, loc, perThread, i + j));
    LLVM::StoreOp::create(b, loc, vec == 1 ? vals[0] : buildVector(b, loc, vals), ptr,
                          layout.accessAlignment(vec));
  }
}

std::pair<Value, Value> cuda::placeDotOperands(OpBuilder &b, Location loc, SimtState &s,
                                               DotOperand a, DotOperand bOperand,
                                               const OperandSmemLayout &aLayout,
                                               const OperandSmemLayout &bLayout,
                                               bool asyncProxy) {
  Value aBase = a.smem, bBase = bOperand.smem;
  bool writeA = !aBase && !a.inAccumulatorLayout;
  if (!writeA && bBase)
    return {aBase, bBase};
  RankedTensorType aType = a.tile, bType = bOperand.tile;
  int64_t bOffset = writeA ? aLayout.bytes : 0;
  if (asyncProxy)
    bOffset = (bOffset + 1023) / 1024 * 1024; // where the swizzle repeats
  reserveSmem(s, bOffset + (bBase ? 0 : bLayout.bytes));
  barrier(b, loc);
  if (writeA) {
    aBase = s.smem;
    writeOperand(b, loc, s, aBase, a.regs, aType, aLayout, a.regsLayout);
  }
  if (!bBase) {
    bBase = smemByteAddress(b, loc, s.smem, constI32(b, loc, bOffset));
    writeOperand(b, loc, s, bBase, bOperand.regs, bType, bLayout);
  }
  if (asyncProxy)
    fenceAsyncShared(b, loc);
  barrier(b, loc);
  return {aBase, bBase};
}
