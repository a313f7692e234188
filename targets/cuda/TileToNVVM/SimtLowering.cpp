//===- SimtLowering.cpp - layouts, shared memory and small builders -------===//
#include "TileToNVVM/SimtLowering.h"

#include "pallas/Gpu/Gpu.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>

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

Value cuda::constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}
Value cuda::constI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

MmaThread cuda::mmaThread(OpBuilder &b, Location loc, const SimtState &s,
                         const MmaLayout &l) {
  MmaThread t;
  Value warp = arith::DivUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
  t.lane = arith::RemUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
  t.g = arith::DivUIOp::create(b, loc, t.lane, constI32(b, loc, 4));
  t.q = arith::RemUIOp::create(b, loc, t.lane, constI32(b, loc, 4));
  Value wm = arith::DivUIOp::create(b, loc, warp, constI32(b, loc, l.warpsN));
  Value wn = arith::RemUIOp::create(b, loc, warp, constI32(b, loc, l.warpsN));
  t.rowBase = arith::MulIOp::create(b, loc, wm, constI32(b, loc, l.m / l.warpsM));
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
  return {warp / l.warpsN * (l.m / l.warpsM) + lane / 4,
          warp % l.warpsN * (l.n / l.warpsN) + 2 * (lane % 4)};
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
        p.offsets.push_back(tm * 16 + 8 * h);
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
        p.offsets.push_back((tm * 16 + 8 * (r / 2)) * l.n + tn * 8 + r % 2);
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

SmallVector<Value> cuda::unravel(OpBuilder &b, Location loc, Value index,
                                 ArrayRef<int64_t> shape) {
  SmallVector<Value> coords(shape.size());
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value q = stride == 1 ? index
                          : (Value)arith::DivUIOp::create(b, loc, index, constI32(b, loc, stride));
    coords[d] = d == 0 ? q : (Value)arith::RemUIOp::create(b, loc, q, constI32(b, loc, shape[d]));
    stride *= shape[d];
  }
  return coords;
}

Value cuda::ravel(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                  ArrayRef<int64_t> shape) {
  Value index = constI32(b, loc, 0);
  for (auto [c, d] : llvm::zip(coords, shape))
    index = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, index, constI32(b, loc, d)), c);
  return index;
}

Value cuda::extractSlot(OpBuilder &b, Location loc, Value vec, int64_t i) {
  return vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{i});
}

Value cuda::buildVector(OpBuilder &b, Location loc, ArrayRef<Value> elems) {
  // An insert chain rather than from_elements: range analysis sees through
  // vector.insert, so bounds checks on indices built here can fold.
  auto type = VectorType::get({(int64_t)elems.size()}, elems.front().getType());
  Value v = vector::BroadcastOp::create(b, loc, type, elems.front());
  for (size_t i = 1; i < elems.size(); ++i)
    v = vector::InsertOp::create(b, loc, elems[i], v, ArrayRef<int64_t>{(int64_t)i});
  return v;
}

Type cuda::storageType(Type elem) {
  return isF8(elem) ? IntegerType::get(elem.getContext(), 8) : elem;
}

Value cuda::smemByteAddress(OpBuilder &b, Location loc, Value base, Value bytes) {
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
                             b.getI8Type(), base, ValueRange{bytes});
}

static Value smemAddress(OpBuilder &b, Location loc, SimtState &s, Type stored,
                         int64_t offset, Value index) {
  Value bytes = arith::AddIOp::create(
      b, loc, constI32(b, loc, offset),
      arith::MulIOp::create(b, loc, index, constI32(b, loc, smemElementBytes(stored))));
  return smemByteAddress(b, loc, s.smem, bytes);
}

Value cuda::smemLoad(OpBuilder &b, Location loc, SimtState &s, Type elem,
                     int64_t offset, Value index) {
  bool isBool = elem.isInteger(1);
  Type stored = isBool ? b.getI8Type() : elem;
  Value v = LLVM::LoadOp::create(b, loc, stored, smemAddress(b, loc, s, stored, offset, index));
  return isBool ? (Value)arith::TruncIOp::create(b, loc, elem, v) : v;
}

void cuda::smemStore(OpBuilder &b, Location loc, SimtState &s, int64_t offset,
                     Value index, Value value) {
  if (value.getType().isInteger(1))
    value = arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value,
                        smemAddress(b, loc, s, value.getType(), offset, index));
}

void cuda::barrier(OpBuilder &b, Location loc) { gpu::BarrierOp::create(b, loc); }

void cuda::clusterBarrier(OpBuilder &b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
}

/// `bar.<op> <1 + (g + shift) % groups>, 256` on warpgroup g's threads, as
/// inline PTX: predicated on %tid.x read in place, the ids constants. (No
/// registers live across the loop for the ids, which spilled on causal
/// attention, and no branches, which measured slower.)
static void turnBarrier(OpBuilder &b, Location loc, const SimtState &s, StringRef op,
                        int64_t shift) {
  int64_t groups = s.threads / 128;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n.reg .u32 t;\n.reg .pred p;\nmov.u32 t, %tid.x;\nshr.u32 t, t, 7;\n";
  for (int64_t g = 0; g < groups; ++g)
    os << "setp.eq.u32 p, t, " << g << ";\n@p bar." << op << " " << 1 + (g + shift) % groups
       << ", 256;\n";
  os << "}";
  inlinePtx(b, loc, Type(), ValueRange(), text, /*constraints=*/"");
}

Value cuda::inlinePtx(OpBuilder &b, Location loc, Type resultType, ValueRange operands,
                      StringRef text, StringRef constraints) {
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resultType ? TypeRange(resultType) : TypeRange(), operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
  return resultType ? op.getResult(0) : Value();
}

void cuda::takeTurn(OpBuilder &b, Location loc, const SimtState &s) {
  turnBarrier(b, loc, s, "sync", 0);
}

void cuda::passTurn(OpBuilder &b, Location loc, const SimtState &s) {
  turnBarrier(b, loc, s, "arrive", 1);
}

void cuda::reserveSmem(SimtState &s, int64_t bytes) {
  s.smemBytes = std::max(s.smemBytes, bytes);
}

int64_t cuda::smemWriteTensor(OpBuilder &b, Location loc, SimtState &s,
                              int64_t offset, Value perThread, int64_t n) {
  auto type = RankedTensorType::get({n}, cast<VectorType>(perThread.getType()).getElementType());
  return smemWriteTensor(b, loc, s, offset, perThread, type);
}

Value cuda::paddedIndex(OpBuilder &b, Location loc, Value index) {
  return arith::AddIOp::create(b, loc, index,
                               arith::DivUIOp::create(b, loc, index, constI32(b, loc, 32)));
}

int64_t cuda::smemWriteTensor(OpBuilder &b, Location loc, SimtState &s,
                              int64_t offset, Value perThread, RankedTensorType type,
                              bool padded) {
  Type elem = cast<VectorType>(perThread.getType()).getElementType();
  int64_t n = type.getNumElements();
  int64_t bytes = (padded ? n + n / 32 : n) * smemElementBytes(elem);
  reserveSmem(s, offset + bytes);
  barrier(b, loc);
  SmallVector<Value> idx = slotElementIndices(b, loc, s, type);
  auto write = [&](OpBuilder &w, Location l) {
    for (auto [i, index] : llvm::enumerate(idx))
      smemStore(w, l, s, offset, padded ? paddedIndex(w, l, index) : index,
                extractSlot(w, l, perThread, i));
  };
  Value owner;
  if (hasSliceLayout(type)) {
    // The four lanes of a row hold the same value: lane q = 0 writes it.
    Value q = arith::RemUIOp::create(b, loc, s.tid, constI32(b, loc, 4));
    owner = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, q, constI32(b, loc, 0));
  } else if (!hasMmaLayout(type) && BlockedLayout(n, s.threads).replicated()) {
    // Replicas hold the same values: only owners write.
    owner = isOwner(b, loc, s, n);
  }
  if (owner) {
    auto ifOp = scf::IfOp::create(b, loc, owner, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    write(b, loc);
  } else {
    write(b, loc);
  }
  barrier(b, loc);
  return (bytes + 15) / 16 * 16;
}

SmallVector<Value> cuda::combine(OpBuilder &b, Location loc, Region &region,
                                 ValueRange acc, ValueRange x) {
  Block &body = region.front();
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(acc))
    map.map(body.getArgument(i), v);
  for (auto [i, v] : llvm::enumerate(x))
    map.map(body.getArgument(acc.size() + i), v);
  SmallVector<Value> out;
  for (Operation &op : body.without_terminator())
    b.clone(op, map);
  for (Value v : body.getTerminator()->getOperands())
    out.push_back(map.lookupOrDefault(v));
  return out;
}
