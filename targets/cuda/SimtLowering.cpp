//===- SimtLowering.cpp - layouts, shared memory and small builders -------===//
#include "SimtLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

BlockedLayout::BlockedLayout(int64_t n, int64_t t) : numElements(n), threads(t) {
  vec = std::min<int64_t>(4, std::max<int64_t>(1, n / t));
  chunks = n / vec;
  perThread = chunks >= t ? n / t : vec;
}

SimtTypeConverter::SimtTypeConverter(MLIRContext *ctx, int64_t threads)
    : threads(threads) {
  addConversion([](Type t) { return t; });
  addConversion([ctx](tt::PointerType) -> Type { return IntegerType::get(ctx, 64); });
  addConversion([this, ctx](RankedTensorType t) -> Type {
    Type elem = t.getElementType();
    if (isa<tt::PointerType>(elem))
      elem = IntegerType::get(ctx, 64);
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

SmallVector<Value> cuda::slotElementIndices(OpBuilder &b, Location loc,
                                            const SimtState &s, int64_t n) {
  BlockedLayout l(n, s.threads);
  Value chunk = l.replicated()
                    ? (Value)arith::RemUIOp::create(b, loc, s.tid, constI32(b, loc, l.chunks))
                    : s.tid;
  Value base = arith::MulIOp::create(b, loc, chunk, constI32(b, loc, l.vec));
  SmallVector<Value> out;
  for (int64_t i = 0; i < l.perThread; ++i) {
    int64_t offset = (i / l.vec) * l.threads * l.vec + i % l.vec;
    out.push_back(offset ? (Value)arith::AddIOp::create(b, loc, base, constI32(b, loc, offset))
                         : base);
  }
  return out;
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
  auto type = VectorType::get({(int64_t)elems.size()}, elems.front().getType());
  return vector::FromElementsOp::create(b, loc, type, elems);
}

int64_t cuda::smemElementBytes(Type elem) {
  if (elem.isInteger(1))
    return 1;
  return std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
}

static Value smemAddress(OpBuilder &b, Location loc, SimtState &s, Type stored,
                         int64_t offset, Value index) {
  Value bytes = arith::AddIOp::create(
      b, loc, constI32(b, loc, offset),
      arith::MulIOp::create(b, loc, index, constI32(b, loc, smemElementBytes(stored))));
  auto ptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), s.smem, ValueRange{bytes});
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

void cuda::reserveSmem(SimtState &s, int64_t bytes) {
  s.smemBytes = std::max(s.smemBytes, bytes);
}

int64_t cuda::smemWriteTensor(OpBuilder &b, Location loc, SimtState &s,
                              int64_t offset, Value perThread, int64_t n) {
  auto vt = cast<VectorType>(perThread.getType());
  Type elem = vt.getElementType();
  int64_t bytes = n * smemElementBytes(elem);
  reserveSmem(s, offset + bytes);
  barrier(b, loc);
  SmallVector<Value> idx = slotElementIndices(b, loc, s, n);
  auto write = [&](OpBuilder &w, Location l) {
    for (auto [i, index] : llvm::enumerate(idx))
      smemStore(w, l, s, offset, index, extractSlot(w, l, perThread, i));
  };
  if (BlockedLayout(n, s.threads).replicated()) {
    // Replicas hold the same values: only owners write.
    auto ifOp = scf::IfOp::create(b, loc, isOwner(b, loc, s, n), /*withElse=*/false);
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
