//===- RingLowering.cpp - shared-memory rings and cp.async ----------------===//
//
// The pallas_gpu ops pallas-stage-loads adds, per thread: a ring is a byte
// offset in the rings' area at the start of dynamic shared memory (placed
// before the conversion, in the layout of the dot that reads it); an
// async_copy is one cp.async per contiguous, aligned piece of the thread's
// chunks (src-size 0 where masked off, which zero-fills), or plain loads and
// stores where nothing is known of the addresses; commit and wait are
// cp.async's groups, the wait followed by a CTA barrier. As in other
// cp.async-to-wgmma pipelines, the wait and barrier order the copies before
// the wgmma that reads them, with no proxy fence (whose memory barrier would
// also wait for the copies still in flight).
//
//===----------------------------------------------------------------------===//
#include "TileToNVVM/Patterns.h"
#include "TileToNVVM/RingAccess.h"
#include "Analysis/LoopSlice.h"
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/DotLowering.h"
#include "TileToNVVM/PatternBase.h"
#include "TileToNVVM/SharedMemory.h"
#include "TileToNVVM/SimtState.h"
#include "TileToNVVM/ThreadSlots.h"
#include "TileToNVVM/TypeConverter.h"
#include "pallas/Gpu/Gpu.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

int64_t cuda::cpAsyncPiece(pgpu::AsyncCopyOp op, const SimtState &state) {
  RankedTensorType tile = op.getRing().getType().getTile();
  int64_t eb = std::max<int64_t>(1, tile.getElementTypeBitWidth() / 8);
  int64_t cols = tile.getDimSize(1);
  BlockedLayout blocked(tile.getNumElements(), state.threads);
  // cp.async moves 4, 8 or 16 bytes: pieces of the chunks that are
  // contiguous and aligned in global memory, under one mask bit, and
  // within a row (and 16 bytes) in shared memory.
  int64_t piece = std::min<int64_t>(blocked.vec, 16 / eb);
  int64_t pieceBytes = piece * eb;
  auto it = state.access.find(op);
  if (it == state.access.end())
    return 0;
  auto [ptrInfo, maskInfo] = it->second;
  bool known = pieceBytes >= 4 && cols % piece == 0 && ptrInfo.contiguity >= piece &&
               ptrInfo.divisibility >= pieceBytes &&
               (!op.getMask() || maskInfo.constancy >= piece);
  return known ? piece : 0;
}

const RingPlacement *cuda::placementOf(Value ring, const SimtState &s) {
  auto alloc = ring.getDefiningOp<pgpu::AllocRingOp>();
  if (!alloc)
    return nullptr;
  auto it = s.rings.find(alloc);
  return it == s.rings.end() ? nullptr : &it->second;
}

void cuda::forEachBox(OpBuilder &b, Location loc, const KernelTensorMap &m, Value buffer,
                      const OperandSmemLayout &layout, std::pair<Value, Value> origin,
                      int64_t cols, bool clusterAddress,
                      function_ref<void(Value, ValueRange)> copy) {
  int64_t boxCols = m.map.getBoxCols();
  for (int64_t atom = 0; atom * boxCols < cols; ++atom) {
    Value smem = smemByteAddress(b, loc, buffer, constI32(b, loc, atom * layout.atomColumnBytes));
    if (clusterAddress)
      smem = LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7),
                                           smem);
    Value x = arith::AddIOp::create(b, loc, origin.first, constI32(b, loc, atom * boxCols));
    copy(smem, ValueRange{x, origin.second});
  }
}

Value cuda::slotAddress(OpBuilder &b, Location loc, const SimtState &s, Value ringOffset,
                        Value slot, const RingPlacement &p) {
  Value bytes = arith::AddIOp::create(
      b, loc, ringOffset, arith::MulIOp::create(b, loc, slot, constI32(b, loc, p.layout.bytes)));
  return smemByteAddress(b, loc, s.ringBase, bytes);
}

FailureOr<KernelTensorMap> cuda::kernelTensorMap(Operation *op, int64_t index,
                                                 const SimtState &state) {
  if (index < 0 || index >= (int64_t)state.tensorMaps.size())
    return op->emitError("internal error: tensor map ") << index << " is not the kernel's",
           failure();
  pgpu::TensorMapAttr map = state.tensorMaps[index];
  Value arrayBase = map.getParam() < (int64_t)state.paramAddresses.size()
                        ? state.paramAddresses[map.getParam()]
                        : Value();
  if (!arrayBase)
    return op->emitError("internal error: tensor map of a non-pointer parameter"), failure();
  return KernelTensorMap{map, state.tensorMapParams[index], arrayBase};
}

FailureOr<std::pair<Value, Value>> cuda::boxOrigin(OpBuilder &b, Location loc, Operation *op,
                                                   const SimtState &state,
                                                   const KernelTensorMap &m, Value ptrs,
                                                   RankedTensorType tile) {
  int64_t cols = tile.getDimSize(1);
  int64_t eb = std::max<int64_t>(1, tile.getElementTypeBitWidth() / 8);
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) { return constI64(b, loc, v); };
  // A row length the launch gives (a symbolic size: parameter -1 - n).
  Value rowElements = c64(m.map.getRowElements());
  if (m.map.getRowElements() < 0) {
    size_t p = -1 - m.map.getRowElements();
    Value size = p < state.paramValues.size() ? state.paramValues[p] : Value();
    if (!size)
      return op->emitError("internal error: tensor map row length of a non-integer parameter"),
             failure();
    rowElements = arith::ExtUIOp::create(b, loc, i64, size);
  }
  // Element (row, col) of the tile lies (row * step + col) elements past
  // the first; the first lies `start` elements into the array.
  Value index0 = slotElementIndices(b, loc, state, tile.getNumElements())[0];
  Value index64 = arith::ExtUIOp::create(b, loc, i64, index0);
  Value row = arith::DivUIOp::create(b, loc, index64, c64(cols));
  Value col = arith::RemUIOp::create(b, loc, index64, c64(cols));
  Value back = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, row, rowElements), col);
  // Signed: a block may start above the array's first row (a slice of it
  // from a computed start), where the TMA reads zeros as the mask would.
  Value bytes = arith::SubIOp::create(b, loc, extractSlot(b, loc, ptrs, 0), m.arrayBase);
  Value start =
      arith::SubIOp::create(b, loc, arith::DivSIOp::create(b, loc, bytes, c64(eb)), back);
  auto i32 = [&](Value v) { return arith::TruncIOp::create(b, loc, b.getI32Type(), v); };
  // (Rounded down: start - (rowElements - 1) where negative.)
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, start, c64(0));
  Value down = arith::SelectOp::create(
      b, loc, negative,
      arith::SubIOp::create(b, loc, start,
                            arith::SubIOp::create(b, loc, rowElements, c64(1))),
      start);
  Value r0 = arith::DivSIOp::create(b, loc, down, rowElements);
  Value c0 = arith::SubIOp::create(b, loc, start, arith::MulIOp::create(b, loc, r0, rowElements));
  return std::make_pair(Value(i32(c0)), Value(i32(r0)));
}

namespace {

struct AllocRingLowering : SimtPattern<pgpu::AllocRingOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::AllocRingOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    auto it = state.rings.find(op);
    if (it == state.rings.end())
      return op.emitError("internal error: ring without a place in shared memory");
    // Rings sharing memory with the exchange area: whoever read an exchange
    // before (a loop earlier, or the last iteration of an enclosing loop)
    // is done before the first copy lands.
    if (!state.scratchAfterRings || it->second.reusesMemory || !state.scratchOverRings.empty())
      barrier(rw, op.getLoc());
    rw.replaceOp(op, constI32(rw, op.getLoc(), it->second.offset));
    return success();
  }
};

struct AsyncCopyLowering : SimtPattern<pgpu::AsyncCopyOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::AsyncCopyOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto buffer = bufferOf(op, a, state, rw);
    if (failed(buffer))
      return failure();
    const RingPlacement *p = buffer->first;
    Value base = buffer->second;
    RankedTensorType tile = op.getRing().getType().getTile();
    const OperandSmemLayout &layout = p->layout;
    int64_t eb = layout.elemBytes, cols = tile.getDimSize(1);
    BlockedLayout blocked(tile.getNumElements(), state.threads);

    int64_t piece = cpAsyncPiece(op, state);
    bool known = piece > 0;
    if (!known)
      piece = 1;
    int64_t pieceBytes = piece * eb;

    // A thread's chunks lie whole rows apart (threads * vec elements); when
    // the pointers and the buffer's layout step by constants from row to
    // row, chunk i's addresses are chunk 0's plus constants (one address
    // computation per copy, the rest immediate offsets).
    auto stepIt = state.copyRowStep.find(op);
    int64_t rowsPerChunk = blocked.threads * blocked.vec / cols;
    bool fromFirst = known && piece == blocked.vec && !blocked.replicated() &&
                     (blocked.threads * blocked.vec) % cols == 0 &&
                     stepIt != state.copyRowStep.end() &&
                     layout.rowShiftBytes(rowsPerChunk).has_value();
    auto globalPtr = LLVM::LLVMPointerType::get(rw.getContext(), 1);

    auto emit = [&](OpBuilder &b, Location l) {
      SmallVector<Value> dsts =
          layout.slotAddresses(b, l, base, slotCoordinates(b, l, state, tile.getShape()), piece,
                               state.shiftedAddresses);
      Value dst0, src0;
      for (int64_t i = 0; i < blocked.perThread; i += piece) {
        Value dst, src;
        int64_t chunk = i / blocked.vec;
        if (fromFirst && chunk > 0) {
          Type i8 = b.getI8Type();
          dst = LLVM::GEPOp::create(
              b, l, dst0.getType(), i8, dst0,
              ArrayRef<LLVM::GEPArg>{*layout.rowShiftBytes(chunk * rowsPerChunk)});
          src = LLVM::GEPOp::create(
              b, l, globalPtr, i8, src0,
              ArrayRef<LLVM::GEPArg>{chunk * rowsPerChunk * stepIt->second * eb});
        } else {
          dst = dsts[i / piece];
          src = LLVM::IntToPtrOp::create(b, l, globalPtr, extractSlot(b, l, a.getPtr(), i));
        }
        if (i == 0) {
          dst0 = dst;
          src0 = src;
        }
        Value valid = a.getPred();
        if (a.getMask()) {
          Value m = extractSlot(b, l, a.getMask(), i);
          valid = valid ? (Value)arith::AndIOp::create(b, l, valid, m) : m;
        }
        if (known) {
          Value srcSize;
          if (valid)
            srcSize = arith::SelectOp::create(b, l, valid, constI32(b, l, pieceBytes),
                                              constI32(b, l, 0));
          NVVM::CpAsyncOp::create(b, l, dst, src, static_cast<uint32_t>(pieceBytes),
                                  pieceBytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                                   : NVVM::LoadCacheModifierKind::CA,
                                  srcSize);
          continue;
        }
        // Nothing known of the addresses: one element at a time, now.
        Type elem = storageType(tile.getElementType());
        Value v;
        if (valid) {
          auto ifOp = scf::IfOp::create(b, l, elem, valid, /*withElse=*/true);
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          scf::YieldOp::create(b, l, ValueRange{LLVM::LoadOp::create(b, l, elem, src, eb)});
          b.setInsertionPointToStart(ifOp.elseBlock());
          scf::YieldOp::create(
              b, l, ValueRange{arith::ConstantOp::create(b, l, elem, b.getZeroAttr(elem))});
          v = ifOp.getResult(0);
        } else {
          v = LLVM::LoadOp::create(b, l, elem, src, eb);
        }
        LLVM::StoreOp::create(b, l, v, dst, eb);
      }
    };
    // wgmma reads through the async proxy: plain stores (unlike cp.async,
    // whose completion the wait observes) need a proxy fence before it. A
    // fence here would also wait for the copies in flight.
    auto fenceStores = [&](OpBuilder &b, Location l) {
      if (!known && p->feedsWgmma)
        fenceAsyncShared(b, l);
    };
    if (blocked.replicated()) {
      // Replicas would copy the same elements again: only owners copy.
      auto ifOp = scf::IfOp::create(rw, loc, isOwner(rw, loc, state, tile.getNumElements()),
                                    /*withElse=*/false);
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(ifOp.thenBlock());
      emit(rw, loc);
    } else {
      emit(rw, loc);
    }
    fenceStores(rw, loc);
    rw.eraseOp(op);
    return success();
  }
};

struct AsyncCommitLowering : SimtPattern<pgpu::AsyncCommitOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::AsyncCommitOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    NVVM::CpAsyncCommitGroupOp::create(rw, op.getLoc());
    rw.eraseOp(op);
    return success();
  }
};

struct AsyncWaitLowering : SimtPattern<pgpu::AsyncWaitOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::AsyncWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    NVVM::CpAsyncWaitGroupOp::create(rw, loc, op.getPending());
    barrier(rw, loc);
    rw.eraseOp(op);
    return success();
  }
};

/// The tile into registers (blocked layout, or a tensor-core layout: a
/// dot's A converted in registers). A dot reading the buffer in place
/// leaves these loads unused, and they are dropped.
struct RingReadLowering : SimtPattern<pgpu::RingReadOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::RingReadOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto buffer = bufferOf(op, a, state, rw);
    if (failed(buffer))
      return failure();
    auto [p, base] = *buffer;
    auto tile = cast<RankedTensorType>(op.getType());
    int64_t cols = tile.getDimSize(1);
    OperandSmemLayout l = p->layout;
    if (op.getCol()) {
      base = columnAddress(rw, loc, base, a.getCol(), *p);
      l = operandSmemLayout(tile, pgpu::SharedLayoutKind::swizzle_128b);
    }
    Type elem = storageType(tile.getElementType());
    // A chunk of a thread's elements is one vector load (as writeOperand
    // stores chunks); in a tensor-core layout, pairs of adjacent columns.
    if (tile.getEncoding() && !hasMmaLayout(tile))
      return op.emitError("reads a tile into layout ")
             << tile.getEncoding() << ", which this target does not yet";
    int64_t vec = l.accessElements(
        hasMmaLayout(tile) ? 2 : BlockedLayout(tile.getNumElements(), state.threads).vec, cols);
    SlotCoordinates coords = slotCoordinates(rw, loc, state, tile);
    SmallVector<Value> addresses =
        l.slotAddresses(rw, loc, base, coords, vec, state.shiftedAddresses);
    SmallVector<Value> elems;
    for (int64_t i = 0; i < static_cast<int64_t>(coords.size()); i += vec) {
      Value ptr = addresses[i / vec];
      if (vec == 1) {
        elems.push_back(LLVM::LoadOp::create(rw, loc, elem, ptr, l.elemBytes));
        continue;
      }
      Value v = LLVM::LoadOp::create(rw, loc, VectorType::get({vec}, elem), ptr,
                                     l.accessAlignment(vec));
      for (int64_t j = 0; j < vec; ++j)
        elems.push_back(vector::ExtractOp::create(rw, loc, v, j));
    }
    rw.replaceOp(op, buildVector(rw, loc, elems));
    return success();
  }
};

/// The mbarrier of `slot` (i32) among slot barriers at `offset` (i32):
/// filled ones first, then released ones.
Value slotBarrierAddress(OpBuilder &b, Location loc, const SimtState &s, Value offset,
                         Value slot, int64_t stages, bool released) {
  Value index = released ? arith::AddIOp::create(b, loc, slot, constI32(b, loc, stages)) : slot;
  Value bytes =
      arith::AddIOp::create(b, loc, offset, arith::MulIOp::create(b, loc, index, constI32(b, loc, 8)));
  return smemByteAddress(b, loc, s.ringBase, bytes);
}

/// The filled (or `released`) mbarrier of the slot an op on slot barriers
/// names (its `barriers` and `slot` operands, converted in `a`).
template <typename Op, typename Adaptor>
Value barrierOfSlot(OpBuilder &b, Location loc, const SimtState &s, Op op, Adaptor a,
                    bool released) {
  return slotBarrierAddress(b, loc, s, a.getBarriers(), a.getSlot(),
                            op.getBarriers().getType().getStages(), released);
}

struct AllocSlotBarriersLowering : SimtPattern<pgpu::AllocSlotBarriersOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::AllocSlotBarriersOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto it = state.slotBarriers.find(op);
    if (it == state.slotBarriers.end())
      return op.emitError("internal error: slot barriers without a place in shared memory");
    Value offset = constI32(rw, loc, it->second);
    int64_t stages = op.getType().getStages();
    // (The CTA's thread 0: with a producer, its threads run this too.)
    Value first = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, state.ctaTid,
                                        constI32(rw, loc, 0));
    // Filled: an arrival per thread (its copies), or the one of the thread
    // issuing the TMA copies; released: one per warp (not the producer's),
    // of every CTA of the cluster where multicast copies fill the slots.
    int64_t fillers = op.getTma() ? 1 : state.threads;
    int64_t ctas = state.releasingCtas(op);
    int64_t releasers = state.threads / 32 * ctas;
    for (int64_t i = 0; i < 2 * stages; ++i) {
      Value at = slotBarrierAddress(rw, loc, state, offset, constI32(rw, loc, i), stages, false);
      if (op.getTma() && !op.getProducer() && i >= stages) {
        // A counter of the warps done with the slot (TmaCopyLowering).
        auto ifOp = scf::IfOp::create(rw, loc, first, /*withElse=*/false);
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPointToStart(ifOp.thenBlock());
        LLVM::StoreOp::create(rw, loc, constI32(rw, loc, 0), at, 8);
        continue;
      }
      NVVM::MBarrierInitOp::create(rw, loc, at,
                                   constI32(rw, loc, i < stages ? fillers : releasers), first);
    }
    // The TMA completes the barriers through the async proxy, and writes
    // memory that plain stores may have used before.
    if (op.getTma())
      fenceAsyncShared(rw, loc);
    // Initialized before anyone arrives or waits (and whoever used the
    // memory before is done with it); where multicast copies fill the
    // slots, before the cluster's other CTAs' copies and releases reach them.
    if (ctas > 1) {
      NVVM::FenceMbarrierInitOp::create(rw, loc);
      clusterBarrier(rw, loc);
    } else {
      barrier(rw, loc);
    }
    rw.replaceOp(op, offset);
    return success();
  }
};

/// cp.async.mbarrier.arrive.noinc: this thread's arrival, once its cp.async
/// copies land. Copies made of plain stores are covered by a plain arrive
/// (release) instead, the wait's acquire making them visible.
struct ArriveFilledLowering : SimtPattern<pgpu::ArriveFilledOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::ArriveFilledOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto emit = [&](OpBuilder &b) {
      Value bar = barrierOfSlot(b, loc, state, op, a, false);
      if (state.ringsCopiedByStores.contains(op.getRing().getDefiningOp()))
        NVVM::MBarrierArriveOp::create(b, loc, Type(), bar, Value());
      else
        NVVM::CpAsyncMBarrierArriveOp::create(b, loc, bar, /*noinc=*/true);
    };
    if (a.getPred()) {
      auto ifOp = scf::IfOp::create(rw, loc, a.getPred(), /*withElse=*/false);
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(ifOp.thenBlock());
      emit(rw);
    } else {
      emit(rw);
    }
    rw.eraseOp(op);
    return success();
  }
};

/// One thread (when `pred` holds: thread 0 or, with `last_reader`, a lane
/// of the warp completing the slot's count) expects the tile's bytes on
/// the slot's filled barrier and issues one 2-D bulk tensor copy per
/// 128-byte atom column of the swizzled buffer. The tile's first element, and so the
/// box coordinates, follow from the thread's first pointer: rows are
/// contiguous and a constant step apart (pallas-stage-loads checked).
struct TmaCopyLowering : SimtPattern<pgpu::TmaCopyOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::TmaCopyOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    FailureOr<KernelTensorMap> kmap = kernelTensorMap(op, op.getTensorMap(), state);
    if (failed(kmap))
      return failure();
    pgpu::TensorMapAttr map = kmap->map;
    auto buffer = bufferOf(op, a, state, rw);
    if (failed(buffer))
      return failure();
    auto [p, base] = *buffer;
    RankedTensorType tile = op.getRing().getType().getTile();
    int64_t cols = tile.getDimSize(1), eb = p->layout.elemBytes;

    // The issuing thread is chosen by predicates where the copy sits between
    // a K loop's wgmma and the wait for it (a branch there makes ptxas
    // serialize the wgmma: C7514, accumulators read in the pipeline stage),
    // elsewhere by a branch (the others skip the address arithmetic).
    auto andPred = [&](Value x) {
      return a.getPred() ? (Value)arith::AndIOp::create(rw, loc, x, a.getPred()) : x;
    };
    auto isZero = [&](Value v) {
      return arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, v, constI32(rw, loc, 0));
    };
    Value issue;
    if (op.getProducer()) {
      // The one thread executing the op.
      issue = a.getPred();
    } else if (op.getLastReader()) {
      // Lane 0 of each warp counts the warp done (its reads ordered before
      // by the warp barrier, and before the copy by the fences around the
      // atomic); the warp completing a multiple of the warp count issues it.
      NVVM::SyncWarpOp::create(rw, loc, constI32(rw, loc, -1));
      Value counts = andPred(isZero(arith::AndIOp::create(rw, loc, state.tid, constI32(rw, loc, 31))));
      Value counter = barrierOfSlot(rw, loc, state, op, a, true);
      Value old = inlinePtx(
          rw, loc, rw.getI32Type(),
          ValueRange{arith::ExtUIOp::create(rw, loc, rw.getI32Type(), counts),
                     LLVM::PtrToIntOp::create(rw, loc, rw.getI64Type(), counter)},
          "{\n.reg .pred p;\nsetp.ne.b32 p, $1, 0;\nmov.b32 $0, 0;\n@p fence.acq_rel.cta;\n"
          "@p atom.shared.add.u32 $0, [$2], 1;\n@p fence.acq_rel.cta;\n}",
          "=r,r,l");
      int64_t warps = state.threads / 32;
      Value last = isZero(arith::AndIOp::create(
          rw, loc, arith::AddIOp::create(rw, loc, old, constI32(rw, loc, 1)),
          constI32(rw, loc, warps - 1)));
      issue = arith::AndIOp::create(rw, loc, counts, last);
    } else {
      issue = andPred(isZero(state.tid));
    }
    OpBuilder::InsertionGuard guard(rw);
    if (issue && !state.predicatedCopies.contains(op)) {
      auto ifOp = scf::IfOp::create(rw, loc, issue, /*withElse=*/false);
      rw.setInsertionPointToStart(ifOp.thenBlock());
      issue = Value();
    }
    FailureOr<std::pair<Value, Value>> origin =
        boxOrigin(rw, loc, op, state, *kmap, a.getPtr(), tile);
    if (failed(origin))
      return failure();
    auto [c0, r0] = *origin;
    // A map of rows permuted within each 16 (fragment_rows) views the
    // array in five dimensions: the row's elements, then rows by strides
    // of 1, 4, 2 and 16; the box starts at row group r0 / 16.
    SmallVector<Value> rowCoords{r0};
    if (map.getFragmentRows()) {
      Value zero = constI32(rw, loc, 0);
      rowCoords = {zero, zero, zero, arith::ShRSIOp::create(rw, loc, r0, constI32(rw, loc, 4))};
    }

    // The whole tile's bytes land in this CTA's slot, multicast ones too.
    Value bar = barrierOfSlot(rw, loc, state, op, a, false);
    NVVM::MBarrierArriveExpectTxOp::create(rw, loc, Type(), bar,
                                           constI32(rw, loc, tile.getNumElements() * eb),
                                           NVVM::MemScopeKindAttr(), BoolAttr(), issue);
    int64_t atoms = llvm::divideCeil(cols, map.getBoxCols());
    // A multicast's boxes go round the cluster's CTAs: this one issues
    // boxes rank, rank + n, ... to all of them (where the boxes do not
    // divide evenly, the first CTA issues them all).
    int64_t n = op.getMulticast() ? state.cluster : 1;
    int64_t mine = atoms % n == 0 ? atoms / n : atoms;
    Value mask, first, copyIssue = issue;
    if (n > 1) {
      mask = arith::ConstantIntOp::create(rw, loc, rw.getI16Type(), (1 << n) - 1);
      Value rank = NVVM::ClusterId::create(rw, loc, rw.getI32Type());
      if (mine < atoms) {
        first = rank;
      } else {
        Value rank0 = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, rank,
                                            constI32(rw, loc, 0));
        copyIssue = issue ? (Value)arith::AndIOp::create(rw, loc, issue, rank0) : rank0;
      }
    }
    for (int64_t j = 0; j < mine; ++j) {
      // Box j of this CTA's: atom j * n + rank, or j.
      Value atom = first ? arith::AddIOp::create(rw, loc, constI32(rw, loc, j * n), first)
                         : constI32(rw, loc, j);
      // The CTA's own shared memory, addressed as the cluster's (the
      // copy's destination state space; a multicast's lands at the same
      // offset in each CTA).
      Value dst = LLVM::AddrSpaceCastOp::create(
          rw, loc, LLVM::LLVMPointerType::get(rw.getContext(), 7),
          smemByteAddress(rw, loc, base,
                          arith::MulIOp::create(rw, loc, atom,
                                                constI32(rw, loc, p->layout.atomColumnBytes))));
      Value x = arith::AddIOp::create(
          rw, loc, c0, arith::MulIOp::create(rw, loc, atom, constI32(rw, loc, map.getBoxCols())));
      SmallVector<Value> coords{x};
      llvm::append_range(coords, rowCoords);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rw, loc, dst, kmap->param, coords, bar, ValueRange{}, mask, Value(),
          NVVM::TMALoadModeAttr(), BoolAttr(), NVVM::CTAGroupKindAttr(), copyIssue);
    }
    rw.eraseOp(op);
    return success();
  }
};

/// The threads write the accumulator into scratch in the swizzle the
/// tensor map's boxes have; after a proxy fence (the TMA reads through the
/// async proxy) and a barrier, thread 0 stores (or, `reduce_add`, adds) one
/// box per 128-byte column
/// and waits until the copies have read shared memory, so that whatever
/// uses scratch next (after a barrier, as every user does) finds it free.
/// Where scratch overlaps no ring (`deferTmaStoreWait`), that wait comes
/// before the next writes to scratch instead (the next store's, another
/// op's: waitForTmaStoresBeforeScratch) and before the kernel returns: a
/// persistent CTA starts its next program while the copies run. (Every
/// thread waits; only thread 0 has copies to wait for.)
struct TmaStoreLowering : SimtPattern<pgpu::TmaStoreOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::TmaStoreOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Location loc = op.getLoc();
    FailureOr<KernelTensorMap> kmap = kernelTensorMap(op, op.getTensorMap(), state);
    if (failed(kmap))
      return failure();
    auto type = cast<RankedTensorType>(op.getValue().getType());
    int64_t cols = type.getDimSize(1);
    // In an innermost loop (a main loop, not the loop over a persistent
    // CTA's programs), a tile wider than two boxes goes out two boxes of
    // columns at a time through one area of scratch, each part's copies
    // done reading it before the next part is written: scratch the size
    // of the whole tile would sit beside the loop's rings and leave room
    // for fewer CTAs an SM (attention backward's f32 dQ tile: 32 KB,
    // 132 KB in all and one CTA, against 16 KB, 113 KB and two).
    int64_t part = cols;
    int64_t twoBoxes = 2 * kmap->map.getBoxCols();
    std::optional<MmaLayout> whole = mmaLayoutOf(type);
    if (inInnermostLoop(op) && whole && whole->warpsN == 1 && cols > twoBoxes &&
        cols % twoBoxes == 0 && twoBoxes % 8 == 0)
      part = twoBoxes;
    bool reduce = op.getReduceAdd();
    for (int64_t first = 0; first < cols; first += part) {
      Value values = a.getValue();
      RankedTensorType partType = type;
      if (part < cols) {
        // The part's 8-column tiles: the threads' slots of those columns
        // (as a static slice of them takes them).
        partType = RankedTensorType::get({type.getDimSize(0), part}, type.getElementType(),
                                         type.getEncoding());
        std::optional<MmaLayout> to = mmaLayoutOf(partType);
        if (!to)
          return op.emitError("internal error: no tensor-core layout for a part of a TMA store");
        values = sliceMmaTiles(rw, loc, values, *whole, *to, 0, first / 8);
      }
      // The previous copies' reads done (only thread 0 has any to wait for).
      if (state.deferTmaStoreWait)
        NVVM::CpAsyncBulkWaitGroupOp::create(rw, loc, 0, rw.getUnitAttr());
      OperandSmemLayout layout = writeAccumulatorSwizzled(rw, loc, state, values, partType);
      fenceAsyncShared(rw, loc);
      barrier(rw, loc);
      Value thread0 = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, state.tid,
                                            constI32(rw, loc, 0));
      auto ifOp = scf::IfOp::create(rw, loc, thread0, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(ifOp.thenBlock());
      FailureOr<std::pair<Value, Value>> origin =
          boxOrigin(rw, loc, op, state, *kmap, a.getPtr(), type);
      if (failed(origin))
        return failure();
      origin->first = arith::AddIOp::create(rw, loc, origin->first, constI32(rw, loc, first));
      forEachBox(rw, loc, *kmap, state.smem, layout, *origin, part,
                 /*clusterAddress=*/false, [&](Value src, ValueRange coords) {
                   if (reduce)
                     NVVM::CpAsyncBulkTensorReduceOp::create(rw, loc, kmap->param, src,
                                                             NVVM::TMAReduxKind::ADD,
                                                             NVVM::TMAStoreMode::TILE, coords,
                                                             Value());
                   else
                     NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                         rw, loc, kmap->param, src, coords, Value(), NVVM::TMAStoreMode::TILE,
                         Value());
                 });
      NVVM::CpAsyncBulkCommitGroupOp::create(rw, loc);
      // (Parts after the first wait before writing scratch again.)
      if (!state.deferTmaStoreWait)
        NVVM::CpAsyncBulkWaitGroupOp::create(rw, loc, 0, rw.getUnitAttr());
      rw.setInsertionPointAfter(ifOp);
    }
    rw.eraseOp(op);
    return success();
  }
};

template <typename Op, bool Released>
struct WaitSlotLowering : SimtPattern<Op> {
  using SimtPattern<Op>::SimtPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value bar = barrierOfSlot(rw, loc, this->state, op, a, Released);
    if (Released && this->state.releasingCtas(op.getBarriers().getDefiningOp()) > 1) {
      // Released by the cluster's CTAs: their reads happen before the
      // copies this thread issues next into their shared memory.
      waitAtClusterScope(rw, loc, bar, a.getPhase());
      rw.eraseOp(op);
      return success();
    }
    // The suspend-time hint CUDA's own pipelines use (ns).
    NVVM::MBarrierTryWaitParityOp::create(rw, loc, bar, a.getPhase(),
                                          constI32(rw, loc, 0x989680));
    rw.eraseOp(op);
    return success();
  }
};

/// mbarrier.test_wait.parity 0 holds once a phase of parity 0 completed
/// and the barrier is in the next one (parity 1); until then it is in
/// phase 0, and so on.
struct FilledPhaseLowering : SimtPattern<pgpu::FilledPhaseOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::FilledPhaseOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value bar = barrierOfSlot(rw, loc, state, op, a, false);
    Value zeroDone = NVVM::MBarrierTestWaitOp::create(rw, loc, rw.getI1Type(), bar,
                                                      constI32(rw, loc, 0));
    rw.replaceOp(op, arith::ExtUIOp::create(rw, loc, rw.getI32Type(), zeroDone));
    return success();
  }
};

struct ReleaseSlotLowering : SimtPattern<pgpu::ReleaseSlotOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::ReleaseSlotOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    // The warp's reads are ordered before its first lane's arrival (or,
    // where multicast copies fill the slot, lane r's on the slot's barrier
    // in the cluster's CTA r), which is predicated rather than branched to
    // (it may sit between a wgmma and its wait: see TmaCopyLowering). The
    // remote arrival keeps the default (release at CTA scope), as the
    // wgmma reads it follows are complete: release at cluster scope made
    // the 4096^3 GEMM 0.63x as fast (bench/RESULTS.md).
    NVVM::SyncWarpOp::create(rw, loc, constI32(rw, loc, -1));
    int64_t n = state.releasingCtas(op.getBarriers().getDefiningOp());
    Value lane = arith::AndIOp::create(rw, loc, state.tid, constI32(rw, loc, 31));
    Value arrives =
        n > 1 ? arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult, lane,
                                      constI32(rw, loc, n))
            : arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, lane, constI32(rw, loc, 0));
    if (a.getPred())
      arrives = arith::AndIOp::create(rw, loc, arrives, a.getPred());
    Value bar = barrierOfSlot(rw, loc, state, op, a, true);
    if (n > 1) {
      predicatedRemoteArrive(rw, loc, arrives, bar, lane);
    } else {
      predicatedArrive(rw, loc, arrives, bar);
    }
    rw.eraseOp(op);
    return success();
  }
};

/// Inserts an scf.if that only warpgroup `group`'s threads enter, and
/// moves the insertion point into it.
void onlyInWarpgroup(ConversionPatternRewriter &rw, Location loc, const SimtState &s,
                     int64_t group) {
  Value mine = arith::DivUIOp::create(rw, loc, s.tid, constI32(rw, loc, 128));
  auto ifOp = scf::IfOp::create(
      rw, loc, arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, mine, constI32(rw, loc, group)),
      /*withElse=*/false);
  rw.setInsertionPointToStart(ifOp.thenBlock());
}

/// Warpgroup 0 goes first: the last warpgroup passes it the turn.
struct TurnsBeginLowering : SimtPattern<pgpu::TurnsBeginOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::TurnsBeginOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    onlyInWarpgroup(rw, loc, state, state.threads / 128 - 1);
    passTurn(rw, loc, state);
    rw.eraseOp(op);
    return success();
  }
};

/// The turn the last warpgroup passed on at its last dot goes back to
/// warpgroup 0, leaving every named barrier as it was.
struct TurnsEndLowering : SimtPattern<pgpu::TurnsEndOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::TurnsEndOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    onlyInWarpgroup(rw, loc, state, 0);
    takeTurn(rw, loc, state);
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

Value cuda::stagedOperandAddress(ConversionPatternRewriter &rw, Location loc, Value v,
                                 const SimtState &state) {
  auto read = v.getDefiningOp<pgpu::RingReadOp>();
  if (!read)
    return {};
  const RingPlacement *p = placementOf(read.getRing(), state);
  if (!p)
    return {};
  Value slot = rw.getRemappedValue(read.getSlot());
  Value address = slotAddress(rw, loc, state, constI32(rw, loc, p->offset), slot, *p);
  return read.getCol() ? columnAddress(rw, loc, address, rw.getRemappedValue(read.getCol()), *p)
                       : address;
}

const OperandSmemLayout *cuda::stagedOperandLayout(Value v, const SimtState &state) {
  auto read = v.getDefiningOp<pgpu::RingReadOp>();
  if (!read || read.getCol())
    return nullptr;
  const RingPlacement *p = placementOf(read.getRing(), state);
  return p ? &p->layout : nullptr;
}

Value cuda::columnAddress(OpBuilder &b, Location loc, Value buffer, Value col,
                          const RingPlacement &p) {
  int64_t atom = 128 / p.layout.elemBytes;
  Value atoms = arith::DivUIOp::create(b, loc, col, constI32(b, loc, atom));
  return smemByteAddress(b, loc, buffer,
                         arith::MulIOp::create(b, loc, atoms,
                                               constI32(b, loc, p.layout.atomColumnBytes)));
}

void cuda::populateRingPatterns(const TypeConverter &tc, RewritePatternSet &patterns,
                                SimtState &state) {
  patterns.add<AllocRingLowering, AsyncCopyLowering, AsyncCommitLowering, AsyncWaitLowering,
               RingReadLowering, AllocSlotBarriersLowering, ArriveFilledLowering, TmaCopyLowering,
               TmaStoreLowering,
               WaitSlotLowering<pgpu::WaitFilledOp, false>,
               WaitSlotLowering<pgpu::WaitReleasedOp, true>, FilledPhaseLowering,
               ReleaseSlotLowering,
               TurnsBeginLowering, TurnsEndLowering>(
      tc, patterns.getContext(), state);
}
