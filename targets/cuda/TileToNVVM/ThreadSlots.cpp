//===- ThreadSlots.cpp - where a thread's slots lie in a tensor -----------===//
#include "TileToNVVM/ThreadSlots.h"
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/SimtState.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <functional>

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

std::pair<Value, Value> cuda::warpCoordinates(OpBuilder &b, Location loc, Value warp,
                                              const MmaLayout &l) {
  if (l.warpsAlongMFirst)
    return {arith::RemUIOp::create(b, loc, warp, constI32(b, loc, l.warpsM)),
            arith::DivUIOp::create(b, loc, warp, constI32(b, loc, l.warpsM))};
  return {arith::DivUIOp::create(b, loc, warp, constI32(b, loc, l.warpsN)),
          arith::RemUIOp::create(b, loc, warp, constI32(b, loc, l.warpsN))};
}

MmaThread cuda::mmaThread(OpBuilder &b, Location loc, const SimtState &s,
                         const MmaLayout &l) {
  MmaThread t;
  Value warp = arith::DivUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
  t.lane = arith::RemUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
  t.g = arith::DivUIOp::create(b, loc, t.lane, constI32(b, loc, 4));
  t.q = arith::RemUIOp::create(b, loc, t.lane, constI32(b, loc, 4));
  auto [wm, wn] = warpCoordinates(b, loc, warp, l);
  t.rowBase = arith::MulIOp::create(b, loc, wm, constI32(b, loc, l.warpRowStride()));
  t.colBase = arith::MulIOp::create(b, loc, wn, constI32(b, loc, l.n / l.warpsN));
  return t;
}

namespace {

/// This thread's slots of a tensor as row-major element indices `base +
/// offsets[i]`, and `baseOf(t)`, the base of thread t (known at compile
/// time; slotCoordinates checks with it which coordinates add without
/// carries).
struct SlotIndexParts {
  Value base;
  SmallVector<int64_t> offsets;
  std::function<int64_t(int64_t)> baseOf;
};

SlotIndexParts blockedSlotParts(OpBuilder &b, Location loc, const SimtState &s, int64_t n) {
  BlockedLayout l(n, s.threads);
  Value chunk = l.replicated()
                    ? (Value)arith::RemUIOp::create(b, loc, s.tid, constI32(b, loc, l.chunks))
                    : s.tid;
  SlotIndexParts p;
  p.base = arith::MulIOp::create(b, loc, chunk, constI32(b, loc, l.vec));
  for (int64_t i = 0; i < l.perThread; ++i)
    p.offsets.push_back((i / l.vec) * l.threads * l.vec + i % l.vec);
  p.baseOf = [l](int64_t t) { return (l.replicated() ? t % l.chunks : t) * l.vec; };
  return p;
}

/// Row and column of the first element of thread t in an mma layout (the
/// compile-time twin of mmaThread's rowBase + g and colBase + 2q).
std::pair<int64_t, int64_t> mmaThreadOrigin(const MmaLayout &l, int64_t t) {
  int64_t warp = t / 32, lane = t % 32;
  return {l.warpM(warp) * l.warpRowStride() + lane / 4,
          l.warpN(warp) * (l.n / l.warpsN) + 2 * (lane % 4)};
}

SlotIndexParts slotIndexParts(OpBuilder &b, Location loc, const SimtState &s,
                              RankedTensorType type) {
  if (std::optional<MmaLayout> rows = sliceParentOf(type)) {
    // Rows g and g + 8 of each of the warp's tiles; [M] and [M, 1] alike.
    MmaThread t = mmaThread(b, loc, s, *rows);
    SlotIndexParts p;
    p.base = arith::AddIOp::create(b, loc, t.rowBase, t.g);
    for (int64_t tm = 0; tm < rows->tilesM; ++tm)
      for (int64_t h = 0; h < 2; ++h)
        p.offsets.push_back(tm * rows->tileRowStride() + 8 * h);
    p.baseOf = [l = *rows](int64_t t) { return mmaThreadOrigin(l, t).first; };
    return p;
  }
  if (!hasMmaLayout(type))
    return blockedSlotParts(b, loc, s, type.getNumElements());
  MmaLayout l = *mmaLayoutOf(type);
  // Thread (warp w, lane = 4g + q) holds rows g, g + 8 and columns 2q,
  // 2q + 1 of each of its warp's tiles.
  MmaThread t = mmaThread(b, loc, s, l);
  Value row = arith::AddIOp::create(b, loc, t.rowBase, t.g);
  Value col = arith::AddIOp::create(b, loc, t.colBase,
                                    arith::MulIOp::create(b, loc, t.q, constI32(b, loc, 2)));
  SlotIndexParts p;
  p.base = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, constI32(b, loc, l.n)), col);
  for (int64_t tm = 0; tm < l.tilesM; ++tm)
    for (int64_t tn = 0; tn < l.tilesN; ++tn)
      for (int64_t r = 0; r < 4; ++r)
        p.offsets.push_back((tm * l.tileRowStride() + 8 * (r / 2)) * l.n + tn * 8 + r % 2);
  p.baseOf = [l](int64_t t) {
    auto [row, col] = mmaThreadOrigin(l, t);
    return row * l.n + col;
  };
  return p;
}

SmallVector<Value> addOffsets(OpBuilder &b, Location loc, const SlotIndexParts &p) {
  SmallVector<Value> out;
  for (int64_t off : p.offsets)
    out.push_back(off ? (Value)arith::AddIOp::create(b, loc, p.base, constI32(b, loc, off))
                      : p.base);
  return out;
}

} // namespace

SmallVector<Value> cuda::slotElementIndices(OpBuilder &b, Location loc,
                                            const SimtState &s, int64_t n) {
  return addOffsets(b, loc, blockedSlotParts(b, loc, s, n));
}

SmallVector<Value> cuda::slotElementIndices(OpBuilder &b, Location loc,
                                            const SimtState &s, RankedTensorType type) {
  return addOffsets(b, loc, slotIndexParts(b, loc, s, type));
}

namespace {

SlotCoordinates coordinatesOf(OpBuilder &b, Location loc, const SimtState &s,
                              const SlotIndexParts &p, ArrayRef<int64_t> shape) {
  // base + offset splits into coordinates digit by digit when no digit
  // carries into the next: for each suffix product P of the shape, the
  // largest base and the largest offset (every thread holds every offset)
  // stay below P in their sum modulo P.
  int64_t maxBase[8] = {}, maxOffset[8] = {};
  bool carryFree = shape.size() <= 8 && llvm::all_of(shape, [](int64_t d) { return d > 0; });
  for (int64_t t = 0; carryFree && t < s.threads; ++t) {
    int64_t base = p.baseOf(t), stride = 1;
    for (int64_t d = shape.size() - 1; d >= 1; --d) {
      stride *= shape[d];
      maxBase[d] = std::max(maxBase[d], base % stride);
    }
  }
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; carryFree && d >= 1; --d) {
    stride *= shape[d];
    for (int64_t off : p.offsets)
      maxOffset[d] = std::max(maxOffset[d], off % stride);
    carryFree = maxBase[d] + maxOffset[d] < stride;
  }
  SlotCoordinates out;
  if (!carryFree) {
    for (Value index : addOffsets(b, loc, p))
      out.coords.push_back(unravel(b, loc, index, shape));
    return out;
  }
  // Coordinates of the base once, plus each offset's constant coordinates.
  out.origin = unravel(b, loc, p.base, shape);
  for (int64_t off : p.offsets) {
    SmallVector<Value> coords(shape.size());
    SmallVector<int64_t> shift(shape.size());
    int64_t rest = off;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      shift[d] = d == 0 ? rest : rest % shape[d];
      rest = d == 0 ? 0 : rest / shape[d];
      coords[d] = shift[d] ? (Value)arith::AddIOp::create(b, loc, out.origin[d],
                                                          constI32(b, loc, shift[d]))
                           : out.origin[d];
    }
    out.coords.push_back(std::move(coords));
    out.shifts.push_back(std::move(shift));
  }
  return out;
}

} // namespace

SlotCoordinates cuda::slotCoordinates(OpBuilder &b, Location loc, const SimtState &s,
                                      RankedTensorType type) {
  return coordinatesOf(b, loc, s, slotIndexParts(b, loc, s, type), type.getShape());
}

SlotCoordinates cuda::slotCoordinates(OpBuilder &b, Location loc, const SimtState &s,
                                      ArrayRef<int64_t> shape) {
  return coordinatesOf(b, loc, s, blockedSlotParts(b, loc, s, ShapedType::getNumElements(shape)),
                       shape);
}

Value cuda::isOwner(OpBuilder &b, Location loc, const SimtState &s, int64_t n) {
  BlockedLayout l(n, s.threads);
  if (!l.replicated())
    return arith::ConstantIntOp::create(b, loc, 1, 1);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, s.tid,
                               constI32(b, loc, l.chunks));
}
