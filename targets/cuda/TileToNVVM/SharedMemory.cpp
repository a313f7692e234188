//===- SharedMemory.cpp - shared-memory accesses, scratch area ------------===//
#include "TileToNVVM/SharedMemory.h"
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/SimtState.h"
#include "TileToNVVM/ThreadSlots.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

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

void cuda::reserveSmem(SimtState &s, int64_t bytes) {
  s.reservedBytes() = std::max(s.reservedBytes(), bytes);
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
  // In a warpgroup's own area (ScratchArea: a broadcast within
  // warpgroups), each warpgroup writes its own copy and meets only its
  // own threads.
  bool ownCopy = s.reserving == SimtState::Area::warpgroupCopies;
  auto meet = [&] { ownCopy ? warpgroupBarrier(b, loc, s) : barrier(b, loc); };
  meet();
  SmallVector<Value> idx = slotElementIndices(b, loc, s, type);
  auto write = [&](OpBuilder &w, Location l) {
    for (auto [i, index] : llvm::enumerate(idx))
      smemStore(w, l, s, offset, padded ? paddedIndex(w, l, index) : index,
                extractSlot(w, l, perThread, i));
  };
  Value owner;
  if (ownCopy) {
    // Thread t holds chunk t % chunks (a divisor of 128): the first chunks
    // threads of each warpgroup own its copy.
    Value inGroup = arith::AndIOp::create(b, loc, s.tid, constI32(b, loc, 127));
    owner = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, inGroup,
                                  constI32(b, loc, BlockedLayout(n, s.threads).chunks));
  } else if (hasSliceLayout(type)) {
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
  meet();
  return (bytes + 15) / 16 * 16;
}
