//===- StageLoads.cpp - stream a loop's blocks ahead of their use ---------===//
//
// In tile IR, a loop that streams blocks from global memory
//
//   for k: a = load(p(k)); ... use(a)
//
// gets its loads issued ahead of the iteration that uses them, in one of
// two ways.
//
// Dot operands (a block whose only use is a tensor-core dot) are staged in
// shared memory: a ring of `num-stages` buffers per operand, filled by
// asynchronous copies (cp.async) num-stages - 1 iterations ahead:
//
//   copy p(lb + s) into slot s, s < num-stages - 1; commit
//   for k (slot):
//     wait until the copy into `slot` is done, CTA-wide
//     copy p(k + num-stages - 1) into the slot read last iteration; commit
//     a = ring_read slot; ... dot(a, ...)
//
// The dot then reads its operands where the copies put them, in the
// layout the tensor cores read (convert-tile-to-nvvm picks it), with no
// trip through registers. With the TMA (sm_90a, tma option), one thread
// copies each tile, every slot is filled before the loop, and the last
// warp done reading a slot refills it with the block num-stages on:
//
//   tma p(lb + s) into slot s, s < num-stages
//   for k (slot, phase):
//     wait for slot's filled barrier (phase)
//     a = ring_read slot; ... dot(a, ...)
//     count this warp done with slot; the last one: tma p(k + num-stages) into slot
//
// Other loads are issued one iteration ahead into registers:
//
//   a0 = load(p(lb))      (masked by lb < ub where the loop may run no trip)
//   for k (a = a0): a' = load(p(min(k + step, last))); ... use(a); yield a'
//
// Only loads whose addresses and masks depend on the induction variable
// and loop invariants through pure ops are moved, in loops that write no
// memory. Blocks beyond the loop's end are not needed: their copies read
// nothing (a false predicate), their register loads read a block inside
// the iteration space again, so indices stay in range and bounds checks
// that always hold still fold away.
//
//===----------------------------------------------------------------------===//
#include "Transforms/StageLoads.h"
#include "Analysis/AxisInfo.h"
#include "Analysis/IntegerRanges.h"
#include "Analysis/LoopSlice.h"
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Dialect/Pallas.h"
#include "pallas/Cuda/CudaPasses.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASSTAGELOADS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

bool cuda::writesMemory(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp>(inner) ? WalkResult::interrupt()
                                                                         : WalkResult::advance();
      })
      .wasInterrupted();
}

BlockArgument cuda::rootArgument(Value ptr) {
  while (Operation *def = ptr.getDefiningOp()) {
    if (auto add = dyn_cast<tt::AddPtrOp>(def))
      ptr = add.getPtr();
    else if (isa<tt::SplatOp, tt::BroadcastOp, tt::ExpandDimsOp>(def))
      ptr = def->getOperand(0);
    else
      return {};
  }
  auto arg = dyn_cast<BlockArgument>(ptr);
  return arg && isa<tt::FuncOp>(arg.getOwner()->getParentOp()) ? arg : BlockArgument();
}

bool cuda::isAliased(BlockArgument a) {
  auto fn = cast<tt::FuncOp>(a.getOwner()->getParentOp());
  return fn.getArgAttr(a.getArgNumber(), PallasDialect::kAliasedAttrName) != nullptr;
}

Value cuda::writtenPointer(Operation *op) {
  if (auto store = dyn_cast<tt::StoreOp>(op))
    return store.getPtr();
  if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op))
    return rmw.getPtr();
  if (auto cas = dyn_cast<tt::AtomicCASOp>(op))
    return cas.getPtr();
  return {};
}

bool cuda::mayShareMemory(BlockArgument a, BlockArgument b) {
  return !a || !b || a == b || (isAliased(a) && isAliased(b));
}

bool cuda::storesMayFeedLoads(Operation *op) {
  SmallVector<BlockArgument> stored, loaded;
  bool unknown = false;
  op->walk([&](Operation *inner) {
    Value ptr = writtenPointer(inner);
    if (auto load = dyn_cast<tt::LoadOp>(inner))
      loaded.push_back(rootArgument(load.getPtr()));
    if (!ptr)
      return;
    BlockArgument root = rootArgument(ptr);
    unknown |= !root;
    stored.push_back(root);
  });
  if (stored.empty())
    return false;
  if (unknown)
    return true;
  // Distinct arrays are distinct memory, except an input and the output
  // that shares its buffer.
  for (BlockArgument s : stored)
    for (BlockArgument l : loaded)
      if (mayShareMemory(s, l))
        return true;
  return false;
}

bool cuda::stageableLoad(tt::LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2 || load.getIsVolatile())
    return false;
  Value other = load.getOther();
  return !other || matchPattern(other, m_AnyZeroFloat()) || matchPattern(other, m_Zero());
}

/// The tensor map through which the TMA may copy the blocks `access` (a
/// tt.load or tt.store) reads or writes, to or from buffers of `tile`s:
/// an unmasked tile of whole rows of an array parameter whose shape is
/// known, each row contiguous and 16-byte aligned, rows a constant step
/// apart that is the array's last dimension (so a view of the array as
/// rows of that many elements holds the tile as a box), laid out with the
/// 128-byte swizzle. None otherwise.
std::optional<pgpu::TensorMapAttr> cuda::tmaView(Operation *access, RankedTensorType tile,
                                                 AxisInfoAnalysis &axis) {
  auto shared = dyn_cast_or_null<pgpu::SharedEncodingAttr>(tile.getEncoding());
  if (!shared || shared.getKind() != pgpu::SharedLayoutKind::swizzle_128b)
    return std::nullopt;
  Value ptr, mask;
  if (auto load = dyn_cast<tt::LoadOp>(access))
    ptr = load.getPtr(), mask = load.getMask();
  else if (auto store = dyn_cast<tt::StoreOp>(access))
    ptr = store.getPtr(), mask = store.getMask();
  else if (auto rmw = dyn_cast<tt::AtomicRMWOp>(access))
    ptr = rmw.getPtr(), mask = rmw.getMask();
  else
    return std::nullopt;
  // A mask that only keeps the block inside its array is what the TMA's
  // bounds do (loads read zeros outside, stores and reductions skip it).
  if (mask && !access->hasAttr(tt::kBoundsMaskAttrName))
    return std::nullopt;
  // An unmasked block lies inside its array, so it may be a box of a view
  // whose rows span the dims after the first (a head of q[b, s, h, :]):
  // no bounds of that view stand for the array's.
  return tmaViewOfPointers(ptr, tile, axis, /*interiorRows=*/!mask);
}

std::optional<int64_t> cuda::tmaReductionDataType(Type elem, StringRef kind) {
  enum : int64_t { kInt32 = 3, kUint64 = 4, kInt64 = 5, kFloat16 = 6, kFloat32 = 7, kBfloat16 = 9 };
  int64_t bits = elem.getIntOrFloatBitWidth();
  bool isInt = isa<IntegerType>(elem);
  if (kind == "add") {
    if (elem.isF16())
      return kFloat16;
    if (elem.isBF16())
      return kBfloat16;
    if (elem.isF32())
      return kFloat32;
    if (isInt && bits == 32)
      return kInt32;
    if (isInt && bits == 64) // (two's complement: the same sum)
      return kUint64;
    return std::nullopt;
  }
  if (kind == "min" || kind == "max") {
    if (elem.isF16())
      return kFloat16;
    if (elem.isBF16())
      return kBfloat16;
    if (isInt && bits == 32)
      return kInt32;
    return std::nullopt;
  }
  if (kind == "and" || kind == "or" || kind == "xor") {
    if (isInt && (bits == 32 || bits == 64))
      return bits == 32 ? kInt32 : kInt64;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<pgpu::TensorMapAttr> cuda::tmaViewOfPointers(Value ptr, RankedTensorType tile,
                                                           AxisInfoAnalysis &axis,
                                                           bool interiorRows) {
  auto shared = dyn_cast_or_null<pgpu::SharedEncodingAttr>(tile.getEncoding());
  bool rowMajor = shared && shared.getKind() == pgpu::SharedLayoutKind::row_major;
  bool swizzle64 = shared && shared.getKind() == pgpu::SharedLayoutKind::swizzle_64b;
  if (!shared || (shared.getKind() != pgpu::SharedLayoutKind::swizzle_128b && !rowMajor &&
                  !swizzle64))
    return std::nullopt;
  BlockArgument arg = rootArgument(ptr);
  auto func = arg ? cast<tt::FuncOp>(arg.getOwner()->getParentOp()) : tt::FuncOp();
  if (!func || arg.getOwner() != &func.getBody().front())
    return std::nullopt;
  auto shapeAttr = func.getArgAttrOfType<DenseI64ArrayAttr>(arg.getArgNumber(), tt::kShapeAttrName);
  std::optional<RowStep> step = symbolicRowStep(ptr);
  if (!shapeAttr || shapeAttr.empty() || !step)
    return std::nullopt;
  ArrayRef<int64_t> shape = shapeAttr.asArrayRef();
  bool symbolic = llvm::any_of(shape, [](int64_t d) { return d < 0; });
  // A window of one row has no step of its own (0): the array's rows' is
  // as good as any.
  if (tile.getDimSize(0) == 1 && !symbolic && step->constant == 0 && !step->factor)
    step->constant = shape.back();
  int64_t eb = std::max<int64_t>(1, tile.getElementTypeBitWidth() / 8);
  int64_t rows = tile.getDimSize(0), cols = tile.getDimSize(1);
  // Swizzled: a box per atom column (128 or 64 bytes). Dense rows: one
  // box of whole rows (the TMA's boxes are at most 256 elements wide).
  int64_t swizzle = rowMajor ? 0 : swizzle64 ? 64 : 128;
  int64_t boxCols = rowMajor ? cols : swizzle / eb;
  AxisInfo info = axis.get(ptr);
  if (info.contiguity < cols || info.divisibility < 16 || cols % boxCols || rows > 256 ||
      boxCols > 256 || (boxCols * eb) % 16)
    return std::nullopt;
  if (symbolic) {
    // A 2-D array of symbolic size (-1 - p: function argument p): rows of
    // its last dim. (The TMA's bounds are the view's: a deeper array would
    // let a block overhang one matrix into the next.) A symbolic row length
    // is the row step itself, which must keep rows 16-byte aligned: the
    // size's divisibility says so.
    if (shape.size() != 2)
      return std::nullopt;
    int64_t rowElements = shape[1];
    if (rowElements < 0) {
      auto size = step->factor ? dyn_cast<BlockArgument>(step->factor) : BlockArgument();
      auto divisibility =
          size ? func.getArgAttrOfType<IntegerAttr>(size.getArgNumber(), "tt.divisibility")
               : IntegerAttr();
      if (!size || size.getOwner() != arg.getOwner() || step->constant != 1 ||
          -1 - rowElements != static_cast<int64_t>(size.getArgNumber()) || !divisibility ||
          (divisibility.getInt() * eb) % 16)
        return std::nullopt;
    } else if (step->factor || step->constant != rowElements || rowElements < cols ||
               (rowElements * eb) % 16) {
      return std::nullopt;
    }
    return pgpu::TensorMapAttr::get(ptr.getContext(), arg.getArgNumber(), shape[0], rowElements,
                                    eb, rows, boxCols, swizzle, /*data_type=*/-1,
                                    /*fragment_rows=*/false);
  }
  // Rows of the last dim, or (`interiorRows`) of the dims from some d on:
  // a window [rows, cols] of one index of the dims between (a head of
  // q[b, s, h, :]) is then a box of that view, at column h * D.
  int64_t trailing = 1;
  bool stepIsTrailing = false;
  for (int64_t d = shape.size() - 1; d >= 0 && trailing <= step->constant; --d) {
    trailing *= shape[d];
    stepIsTrailing |= trailing == step->constant && (interiorRows || d + 1 == (int64_t)shape.size());
  }
  if (step->factor || !stepIsTrailing || step->constant < cols || (step->constant * eb) % 16)
    return std::nullopt;
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  // Box coordinates are signed 32-bit.
  if (elements / step->constant > std::numeric_limits<int32_t>::max())
    return std::nullopt;
  return pgpu::TensorMapAttr::get(ptr.getContext(), arg.getArgNumber(),
                                  elements / step->constant, step->constant, eb, rows, boxCols,
                                  swizzle, /*data_type=*/-1, /*fragment_rows=*/false);
}

/// The index of `map` in `func`'s tensor maps, added if new.
int64_t cuda::tensorMapIndex(tt::FuncOp func, pgpu::TensorMapAttr map) {
  SmallVector<Attribute> maps;
  if (auto old = func->getAttrOfType<ArrayAttr>(pgpu::kTensorMapsAttrName))
    maps.assign(old.begin(), old.end());
  auto it = llvm::find(maps, map);
  if (it != maps.end())
    return it - maps.begin();
  maps.push_back(map);
  func->setAttr(pgpu::kTensorMapsAttrName, ArrayAttr::get(func.getContext(), maps));
  return maps.size() - 1;
}

namespace {

/// The induction variable's last value, lb + (ub - lb - 1) / step * step
/// (the loop runs at least once where it is used): the block an unrolled
/// body reads at iv + step - 1 stays inside the iteration space too, where
/// ub - 1 would not.
Value lastIteration(OpBuilder &b, Location loc, Value lb, Value ub, Value step) {
  Type t = lb.getType();
  Value one = arith::ConstantIntOp::create(b, loc, t, 1);
  if (matchPattern(step, m_One()))
    return arith::SubIOp::create(b, loc, ub, one);
  Value span = arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb), one);
  Value trips = arith::DivSIOp::create(b, loc, span, step);
  return arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, trips, step));
}

/// Clones the loads' slices and the loads with the induction variable
/// replaced by `iv`.
SmallVector<Value> cloneLoads(OpBuilder &b, ArrayRef<tt::LoadOp> loads,
                              ArrayRef<Operation *> slice, scf::ForOp loop, Value iv) {
  IRMapping map;
  map.map(loop.getInductionVar(), iv);
  for (Operation *op : slice)
    b.clone(*op, map);
  SmallVector<Value> out;
  for (tt::LoadOp load : loads)
    out.push_back(b.clone(*load, map)->getResult(0));
  return out;
}

/// How a staged block's buffer is laid out for `use`: as the tensor-core
/// dot in `block` that reads it (as operand A or B, or as B through the
/// transpose the dot reads K-major, kMajorB). None when that is not the use.
std::optional<pgpu::SharedLayoutKind> stagedLayoutForUse(OpOperand &use, Block *block) {
  auto type = cast<RankedTensorType>(use.get().getType());
  if (auto trans = dyn_cast<tt::TransOp>(use.getOwner()); trans && trans->hasOneUse()) {
    auto dot = dyn_cast<tt::DotOp>(*trans->getUsers().begin());
    if (dot && dot->getBlock() == block && kMajorB(dot) == trans &&
        dot.getA() != trans.getResult())
      return hasWgmmaLayout(dot.getType()) ? wgmmaOperandKind(type)
                                           : pgpu::SharedLayoutKind::padded_rows;
    return std::nullopt;
  }
  auto dot = dyn_cast<tt::DotOp>(use.getOwner());
  if (!dot || dot->getBlock() != block || use.getOperandNumber() > 1 ||
      !hasMmaLayout(dot.getType()))
    return std::nullopt;
  return dotOperandKind(dot, use.getOperandNumber());
}

/// How a block loaded in `loop`'s body and used only by tensor-core dots
/// there is staged (stagedLayoutForUse, the same for every use: attention
/// backward's Q block is dQ's A operand and dK's B operand), or none.
std::optional<pgpu::SharedLayoutKind> stagedLayout(tt::LoadOp load, scf::ForOp loop) {
  if (!stageableLoad(load) || load->use_empty())
    return std::nullopt;
  std::optional<pgpu::SharedLayoutKind> kind;
  for (OpOperand &use : load->getUses()) {
    std::optional<pgpu::SharedLayoutKind> k = stagedLayoutForUse(use, loop.getBody());
    if (!k || (kind && *kind != *k))
      return std::nullopt;
    kind = k;
  }
  return kind;
}

/// How a block loaded before `loop` is staged once for the dots reading
/// it: one in `loop`'s body, others in the bodies of loops beside it (a
/// scan split into parts: the trips before a bound, the rest) or in their
/// block (the first iteration's dot pallas-defer-last-dot peels), all in
/// the same layout. None otherwise.
std::optional<pgpu::SharedLayoutKind> invariantStagedLayout(tt::LoadOp load, scf::ForOp loop) {
  if (!stageableLoad(load) || load->getBlock() != loop->getBlock())
    return std::nullopt;
  std::optional<pgpu::SharedLayoutKind> kind;
  bool inLoop = false;
  for (OpOperand &use : load->getUses()) {
    Operation *user = use.getOwner();
    // (A transpose hoisted out of the loop reads for a dot inside it.)
    Operation *reader = user;
    if (isa<tt::TransOp>(user) && user->hasOneUse())
      reader = *user->getUsers().begin();
    bool inBody = reader->getBlock() == loop.getBody();
    auto sibling = dyn_cast<scf::ForOp>(reader->getParentOp());
    bool inSibling = sibling && sibling->getBlock() == loop->getBlock() &&
                     (user->getBlock() == sibling.getBody() || user->getBlock() == loop->getBlock());
    if (!inBody && !inSibling &&
        !(user->getBlock() == loop->getBlock() && reader->getBlock() == loop->getBlock()))
      return std::nullopt;
    std::optional<pgpu::SharedLayoutKind> k = stagedLayoutForUse(use, reader->getBlock());
    if (!k || (kind && *kind != *k))
      return std::nullopt;
    kind = k;
    inLoop |= inBody;
  }
  return inLoop ? kind : std::nullopt;
}

/// The loads of `loop`'s body that `accept` takes and whose addresses and
/// masks can be computed ahead (collectIndexSlice, index tables' loads
/// included: the loop writes no memory its loads read), with the ops
/// computing them.
void collectLoadsAhead(scf::ForOp loop, function_ref<bool(tt::LoadOp)> accept,
                       SmallVectorImpl<tt::LoadOp> &loads,
                       SetVector<Operation *> &slice) {
  for (Operation &op : *loop.getBody()) {
    auto load = dyn_cast<tt::LoadOp>(op);
    SetVector<Operation *> s;
    if (!load || !accept(load) ||
        !collectIndexSlice(loop, load->getOperands(), s, /*tableLoads=*/true))
      continue;
    loads.push_back(load);
    slice.insert(s.begin(), s.end());
  }
}

/// The pallas_gpu.dot_wait taking an asynchronous dot's result, if any.
pgpu::DotWaitOp dotWaitOf(tt::DotOp dot) {
  if (!dot->hasAttr(pgpu::kAsyncDotAttrName))
    return {};
  for (Operation *user : dot->getUsers())
    if (auto wait = dyn_cast<pgpu::DotWaitOp>(user))
      return wait;
  return {};
}

/// Where the read of a staged block is done: after its reader or, when
/// that is asynchronous (pallas-async-dots), after the wait for it.
Operation *stagedReadDone(tt::DotOp reader) {
  if (pgpu::DotWaitOp wait = dotWaitOf(reader))
    return wait;
  return reader;
}

/// The dot whose read of a staged block is done last (the block's uses
/// are dots, directly or through the transpose wgmma reads K-major): its
/// slot is free once that one is.
tt::DotOp stagedReader(tt::LoadOp load) {
  tt::DotOp last;
  for (Operation *user : load->getUsers()) {
    if (isa<tt::TransOp>(user))
      user = *user->getUsers().begin();
    auto dot = cast<tt::DotOp>(user);
    if (!last || stagedReadDone(last)->isBeforeInBlock(stagedReadDone(dot)))
      last = dot;
  }
  return last;
}

/// The first op of the body reading a staged block.
Operation *firstUser(tt::LoadOp load) {
  Operation *first = nullptr;
  for (Operation *user : load->getUsers())
    if (!first || user->isBeforeInBlock(first))
      first = user;
  return first;
}

/// Whether the first copies of a ring may be issued before `op` instead of
/// after it: it writes no memory those copies read, and reads nothing they
/// write (ops of other rings write only their own buffers).
bool prologueMayPass(Operation *op) {
  if (isa<tt::LoadOp, tt::DotOp, pgpu::AllocRingOp, pgpu::AsyncCopyOp, pgpu::TmaCopyOp,
          pgpu::AsyncCommitOp,
          pgpu::AsyncWaitOp, pgpu::RingReadOp, pgpu::TurnsBeginOp, pgpu::DotWaitOp>(op))
    return true;
  if (isMemoryEffectFree(op))
    return true;
  if (op->getNumRegions() == 0 || !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  // Every region-less op inside must pass.
  return !op->walk([&](Operation *inner) {
             if (inner == op || inner->getNumRegions())
               return WalkResult::advance();
             return prologueMayPass(inner) ? WalkResult::advance() : WalkResult::interrupt();
           }).wasInterrupted();
}

/// Moves a ring loop's prologue (the ops right before `loop` from `first`
/// on: its rings, their barriers and the first copies) up to just before
/// an earlier cp.async wait, so that its copies go out beside the earlier
/// ones (attention's Q, waited for by the dot peeled off the loop) rather
/// than after the work in between, and are in flight while it runs. Pure
/// ops it needs from in between (the loop's bounds) move with it. The
/// wait's pending count grows by the prologue's groups: they are newer
/// than the ones it waits for. Not past the wait after an earlier loop
/// (its rings' memory is free for this loop's from there on).
void hoistPrologue(Operation *first, scf::ForOp loop) {
  if (!first || first == loop.getOperation())
    return;
  Block *block = loop->getBlock();
  SmallVector<Operation *> prologue;
  for (Operation *op = first; op != loop.getOperation(); op = op->getNextNode())
    prologue.push_back(op);
  // The ops to move above `wait`: the prologue and the pure ops between
  // that it needs; none if some operand is computed in between otherwise.
  auto opsToMove = [&](Operation *wait) -> std::optional<SetVector<Operation *>> {
    SetVector<Operation *> moving(prologue.begin(), prologue.end());
    SmallVector<Operation *> worklist(prologue.begin(), prologue.end());
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      bool ok = true;
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands()) {
          Operation *def = v.getDefiningOp();
          def = def ? block->findAncestorOpInBlock(*def) : nullptr;
          if (!def || def->isBeforeInBlock(wait) || moving.contains(def) || def == op)
            continue;
          if (!isMemoryEffectFree(def) || def->getNumRegions()) {
            ok = false;
            continue;
          }
          moving.insert(def);
          worklist.push_back(def);
        }
      });
      if (!ok)
        return std::nullopt;
    }
    return moving;
  };
  // The earliest wait with nothing after it the prologue may not pass.
  pgpu::AsyncWaitOp wait;
  SetVector<Operation *> moving;
  for (Operation *op = first->getPrevNode(); op && prologueMayPass(op); op = op->getPrevNode()) {
    // Not above the wait that ends an earlier loop: until it, that loop's
    // last copies may still land in its rings, which this ring could
    // otherwise reuse (placeRings). JAX's causal attention backward,
    // merged into five loops: 180 KB of shared memory and one CTA an SM
    // with the prologues moved up, 112 KB and two without, 1.4x faster.
    if (isa<pgpu::AsyncWaitOp>(op) && isa_and_nonnull<scf::ForOp>(op->getPrevNode()))
      break;
    if (auto w = dyn_cast<pgpu::AsyncWaitOp>(op))
      if (std::optional<SetVector<Operation *>> m = opsToMove(w)) {
        wait = w;
        moving = std::move(*m);
      }
  }
  if (!wait)
    return;
  SmallVector<Operation *> ordered(moving.begin(), moving.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    op->moveBefore(wait);
  wait.setPending(wait.getPending() + llvm::count_if(prologue, [](Operation *op) {
                    return isa<pgpu::AsyncCommitOp>(op);
                  }));
}

/// The slot after `slot` in a ring of `stages` and its parity: `phase`,
/// flipped where the slot index wraps around (null without one).
std::pair<Value, Value> nextSlot(OpBuilder &b, Location loc, Value slot, Value phase,
                                 int64_t stages) {
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  Value next = arith::AddIOp::create(b, loc, slot, c(1));
  Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next, c(stages));
  Value nextPhase =
      phase ? (Value)arith::SelectOp::create(b, loc, wraps, arith::XOrIOp::create(b, loc, phase, c(1)),
                                             phase)
            : Value();
  return {arith::SelectOp::create(b, loc, wraps, c(0), next), nextPhase};
}

/// The ops outside `loop` that its bounds and `slice` (its staged blocks'
/// addresses) need, in block order, for a producer to compute them at the
/// kernel's start; none when one of them cannot be recomputed there (it
/// has effects or regions, or the loop is not in the function's entry
/// block).
/// Whether `op` reads one element of an array the kernel never writes (a
/// scalar-prefetch table a data-dependent index map reads): reading it
/// again gives the same value, so a producer may recompute it.
bool isReadOnlyScalarLoad(Operation *op, tt::FuncOp func) {
  auto load = dyn_cast<tt::LoadOp>(op);
  if (!load || isa<RankedTensorType>(load.getType()) || load.getIsVolatile())
    return false;
  BlockArgument array = rootArgument(load.getPtr());
  if (!array)
    return false;
  bool written = false;
  func.walk([&](Operation *inner) {
    Value ptr = writtenPointer(inner);
    if (isa<pgpu::TmaStoreOp>(inner) || isa<CallOpInterface>(inner))
      written = true; // (conservatively: a write through another path)
    if (!ptr)
      return;
    // (A write to an input's aliasing output may change it.)
    written |= mayShareMemory(rootArgument(ptr), array);
  });
  return !written;
}

std::optional<SmallVector<Operation *>> producerInputs(scf::ForOp loop,
                                                       ArrayRef<Operation *> slice) {
  auto func = loop->getParentOfType<tt::FuncOp>();
  Block *entry = &func.getBody().front();
  if (loop->getBlock() != entry)
    return std::nullopt;
  DenseSet<Operation *> inSlice(slice.begin(), slice.end());
  SetVector<Operation *> inputs;
  SmallVector<Value> worklist{loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
  for (Operation *op : slice)
    worklist.append(op->operand_begin(), op->operand_end());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def) {
      auto arg = cast<BlockArgument>(v);
      if (arg.getOwner() != entry && arg != loop.getInductionVar())
        return std::nullopt;
      continue;
    }
    if (inSlice.contains(def) || inputs.contains(def))
      continue;
    if (def->getBlock() != entry || def->getNumRegions() ||
        !(isMemoryEffectFree(def) || isReadOnlyScalarLoad(def, func)))
      return std::nullopt;
    inputs.insert(def);
    worklist.append(def->operand_begin(), def->operand_end());
  }
  SmallVector<Operation *> ordered(inputs.begin(), inputs.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// The producer of `loop`'s rings (pallas_gpu.produce, at `b`): it
/// recomputes `inputs` and, for each iteration, the blocks' addresses
/// (`slice`), waits until the consumers released the slot, and fills it
/// by TMA. Its slot and parity advance as the consumers' do; it starts a
/// parity ahead on the released barriers (a fresh barrier counts as
/// released), so the first round of slots fills at once.
void buildProducer(OpBuilder &b, Location loc, scf::ForOp loop, ArrayRef<Operation *> inputs,
                   ArrayRef<Operation *> slice, ArrayRef<tt::LoadOp> loads,
                   ArrayRef<Value> rings, ArrayRef<Value> barriers,
                   ArrayRef<int64_t> tensorMaps, int64_t stages) {
  auto produce = pgpu::ProduceOp::create(b, loc);
  OpBuilder pb = OpBuilder::atBlockBegin(&produce.getBody().emplaceBlock());
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(pb, loc, pb.getI32Type(), v); };
  IRMapping map;
  for (Operation *op : inputs)
    pb.clone(*op, map);
  auto fill = scf::ForOp::create(pb, loc, map.lookupOrDefault(loop.getLowerBound()),
                                 map.lookupOrDefault(loop.getUpperBound()),
                                 map.lookupOrDefault(loop.getStep()), ValueRange{c(0), c(0)});
  fill->setAttr(pgpu::kRingSlotAttrName, pb.getI64IntegerAttr(0));
  fill->setAttr(pgpu::kPipelinedLoopAttrName, pb.getUnitAttr());
  pb.setInsertionPointToStart(fill.getBody());
  Value slot = fill.getRegionIterArgs()[0], phase = fill.getRegionIterArgs()[1];
  map.map(loop.getInductionVar(), fill.getInductionVar());
  for (Operation *op : slice)
    pb.clone(*op, map);
  Value released = arith::XOrIOp::create(pb, loc, phase, c(1));
  for (size_t i = 0; i < loads.size(); ++i) {
    pgpu::WaitReleasedOp::create(pb, loc, barriers[i], slot, released);
    tt::LoadOp load = loads[i];
    pgpu::TmaCopyOp::create(pb, loc, map.lookupOrDefault(load.getPtr()), rings[i], slot,
                            barriers[i], Value(), tensorMaps[i], /*last_reader=*/false,
                            /*producer=*/true);
  }
  auto [nextSlotIndex, nextPhase] = nextSlot(pb, loc, slot, phase, stages);
  scf::YieldOp::create(pb, loc, ValueRange{nextSlotIndex, nextPhase});
}

/// The addresses of iteration `iv`'s blocks: `ordered` (the loads'
/// address computations, in the body) cloned at `b` into `map`, with
/// `inductionVar` -> min(iv, last), an index inside the iteration space.
/// Returns whether the copies are to happen: `iv` is an iteration
/// (iv < ub) and `also`, where given, holds.
Value cloneBlockAddresses(OpBuilder &b, Location loc, ArrayRef<Operation *> ordered,
                          Value inductionVar, Value iv, Value ub, Value last, Value also,
                          IRMapping &map) {
  Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, ub);
  if (also)
    valid = arith::AndIOp::create(b, loc, valid, also);
  map.map(inductionVar, arith::MinSIOp::create(b, loc, iv, last));
  for (Operation *op : ordered)
    b.clone(*op, map);
  return valid;
}

/// A cp.async copy of `load`'s block, at the addresses `map` holds, into
/// `slot` of `ring` (none where `valid` is false).
void asyncCopyBlock(OpBuilder &b, Location loc, tt::LoadOp load, const IRMapping &map,
                    Value ring, Value slot, Value valid) {
  pgpu::AsyncCopyOp::create(b, loc, map.lookupOrDefault(load.getPtr()), ring, slot,
                            load.getMask() ? map.lookupOrDefault(load.getMask()) : Value(),
                            valid);
}

/// Whether `loop`'s dots do little arithmetic per byte of the blocks
/// staged for them (`slotBytes` an iteration): fewer than 32 flops a byte,
/// where a GEMM's or attention's tiles do 80 or more. Decode attention's
/// one query row per head (16-row dots) does 15: its time is the loads'.
bool memoryBound(scf::ForOp loop, int64_t slotBytes) {
  int64_t flops = 0;
  for (tt::DotOp dot : loop.getBody()->getOps<tt::DotOp>()) {
    auto a = cast<RankedTensorType>(dot.getA().getType());
    auto c = cast<RankedTensorType>(dot.getType());
    flops += 2 * c.getNumElements() * a.getShape().back();
  }
  return flops < 32 * slotBytes;
}

/// A buffer of mma.sync's padded rows (16-bit elements, rows a multiple of
/// 128 bytes, a multiple of 8 of them) as the 128-byte swizzle instead,
/// where one buffer a block was chosen for more CTAs per SM: the swizzle
/// needs no padding (decode attention's 128x128 K and V blocks: 2 x 2 KB
/// less, three CTAs an SM where two were) and keeps ldmatrix's eight rows
/// in different banks as well. Other tiles as they are.
RankedTensorType unpaddedWhereSwizzlable(RankedTensorType tile) {
  auto shared = dyn_cast_or_null<pgpu::SharedEncodingAttr>(tile.getEncoding());
  if (!shared || shared.getKind() != pgpu::SharedLayoutKind::padded_rows || tile.getRank() != 2 ||
      !tile.getElementType().isIntOrFloat() || tile.getElementTypeBitWidth() != 16 ||
      tile.getDimSize(0) % 8 || (tile.getDimSize(1) * 2) % 128)
    return tile;
  return tile.cloneWithEncoding(
      pgpu::SharedEncodingAttr::get(tile.getContext(), pgpu::SharedLayoutKind::swizzle_128b));
}

/// Stages `loads` (in the order their first users come, each read before
/// the next one's first use) in rings of one buffer each: iteration iv's
/// blocks are copied in before the loop or, for later iterations, once
/// the last iteration's reader of that buffer is done, behind a barrier;
/// each is waited for just before its first use. With one group of copies
/// per block in the order of their reads, n - 1 groups are newer than the
/// one a read waits for, at its first use as at the refill after its
/// reader (where no thread waits: n - 1 groups may stay in flight, the
/// wait is the barrier). Half the shared memory of two buffers, so that
/// twice the CTAs fit on an SM: in flight, the next iteration's blocks of
/// every CTA, where a loop that mostly loads needs bytes in flight.
scf::ForOp stageOneSlot(scf::ForOp loop, ArrayRef<tt::LoadOp> loads,
                        ArrayRef<Operation *> ordered, ArrayRef<RankedTensorType> tiles) {
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  Operation *beforePrologue = loop->getPrevNode();
  OpBuilder b(loop);
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  Value last = lastIteration(b, loc, lb, ub, step);
  int64_t n = loads.size();
  Value slot = c(0);
  SmallVector<Value> rings;
  for (RankedTensorType tile : tiles)
    rings.push_back(pgpu::AllocRingOp::create(b, loc, pgpu::RingType::get(ctx, 1, tile)));
  // Copies the block of iteration `iv` of load `i` into its buffer (none
  // past the end; the addresses use an index inside the iteration space).
  auto copyBlock = [&](Value iv, size_t i) {
    IRMapping map;
    Value valid = cloneBlockAddresses(b, loc, ordered, loop.getInductionVar(), iv, ub, last,
                                      Value(), map);
    asyncCopyBlock(b, loc, loads[i], map, rings[i], slot, valid);
    pgpu::AsyncCommitOp::create(b, loc);
  };
  for (int64_t i = 0; i < n; ++i)
    copyBlock(lb, i);
  hoistPrologue(beforePrologue ? beforePrologue->getNextNode() : &loop->getBlock()->front(),
                loop);
  loop->setAttr(pgpu::kPipelinedLoopAttrName, b.getUnitAttr());
  Value iv = loop.getInductionVar();
  for (int64_t i = 0; i < n; ++i) {
    tt::LoadOp load = loads[i];
    Operation *readDone = stagedReadDone(stagedReader(load));
    b.setInsertionPoint(firstUser(load));
    pgpu::AsyncWaitOp::create(b, loc, n - 1);
    load.getResult().replaceAllUsesWith(
        pgpu::RingReadOp::create(b, loc, load.getType(), rings[i], slot));
    b.setInsertionPointAfter(readDone);
    pgpu::AsyncWaitOp::create(b, loc, n - 1);
    copyBlock(arith::AddIOp::create(b, loc, iv, step), i);
  }
  // (The copies above clone the loads' address computations.)
  for (tt::LoadOp load : loads)
    load.erase();
  // The last iteration's copies (of no block) end before the shared memory
  // may be used for anything else.
  b.setInsertionPointAfter(loop);
  pgpu::AsyncWaitOp::create(b, loc, 0);
  return loop;
}

/// A load of [P, R, C] whose one use reshapes it to [P * R, C] (paged
/// attention's pages gathered into one block of rows) becomes a load of
/// the reshaped pointers and mask: the same elements (the blocked layout
/// keeps every element where it is across a reshape), now a 2-D block a
/// dot reads, which may be staged.
void loadReshaped(Operation *root) {
  SmallVector<tt::ReshapeOp> reshapes;
  root->walk([&](tt::ReshapeOp r) { reshapes.push_back(r); });
  for (tt::ReshapeOp reshape : reshapes) {
    auto load = reshape.getSrc().getDefiningOp<tt::LoadOp>();
    if (!load || !load->hasOneUse() || load.getIsVolatile())
      continue;
    auto in = cast<RankedTensorType>(load.getType());
    auto out = cast<RankedTensorType>(reshape.getType());
    if (in.getEncoding() || out.getEncoding() || in.getRank() < 3 || out.getRank() != 2 ||
        in.getShape().back() != out.getShape().back() ||
        !isa<RankedTensorType>(load.getPtr().getType()))
      continue;
    DenseElementsAttr other;
    if (load.getOther() && !matchPattern(load.getOther(), m_Constant(&other)))
      continue;
    OpBuilder b(load);
    Location loc = load.getLoc();
    auto reshaped = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      return tt::ReshapeOp::create(b, loc, RankedTensorType::get(out.getShape(), t.getElementType()),
                                   v);
    };
    Value mask = load.getMask() ? reshaped(load.getMask()) : Value();
    Value otherValue;
    if (other)
      otherValue = arith::ConstantOp::create(b, loc, other.reshape(out));
    auto flat = tt::LoadOp::create(b, loc, out, reshaped(load.getPtr()), mask, otherValue);
    flat.setCache(load.getCache());
    flat.setEvict(load.getEvict());
    flat->setDiscardableAttrs(load->getDiscardableAttrDictionary());
    reshape.getResult().replaceAllUsesWith(flat.getResult());
    reshape.erase();
    load.erase();
  }
}

/// The most trips `loop` can run, where integer range analysis bounds its
/// bounds (a constant step, a lower bound's minimum and an upper bound's
/// maximum).
std::optional<int64_t> maxTripCount(DataFlowSolver &solver, scf::ForOp loop) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  std::optional<ConstantIntRanges> lb = knownRange(solver, loop.getLowerBound()),
                                   ub = knownRange(solver, loop.getUpperBound());
  if (!step || *step <= 0 || !lb || !ub)
    return std::nullopt;
  int64_t span = ub->smax().getSExtValue() - lb->smin().getSExtValue();
  return span <= 0 ? 0 : (span + *step - 1) / *step;
}

/// Stages the dot operands of `loop` in shared-memory rings of `stages`
/// buffers (fewer when they would take more than `smemBudget` bytes), their
/// slots handed over by CTA-wide barriers or, with `slotBarriers`, by
/// per-slot mbarriers, and then, with `tma`, filled by the TMA where
/// tmaView allows, by a producer warpgroup with `producer` where it can
/// compute the addresses itself (producerInputs). Returns the new loop, or
/// `loop` when nothing was staged.
scf::ForOp stageDotOperands(scf::ForOp loop, int64_t stages, int64_t smemBudget,
                            int64_t smSharedBytes, bool slotBarriers, bool tma, bool producer,
                            std::optional<int64_t> maxTrips) {
  SmallVector<tt::LoadOp> loads;
  SetVector<Operation *> slice;
  collectLoadsAhead(
      loop, [&](tt::LoadOp load) { return stagedLayout(load, loop).has_value(); }, loads,
      slice);
  // Each buffer is laid out as the dot reading it wants (Dialect/SharedLayouts.cpp).
  auto bufferBytes = [&](tt::LoadOp load) {
    auto kind = *stagedLayout(load, loop);
    return operandSmemLayout(cast<RankedTensorType>(load.getType()), kind).bytes;
  };
  int64_t slotBytes = 0;
  for (tt::LoadOp load : loads)
    slotBytes += bufferBytes(load);
  // Where two buffers of every block do not fit, the blocks that still
  // fit, taken in order, get rings and the others stay loads into
  // registers (attention's K and V on sm_80: K gets a ring).
  if (loads.size() > 1 && 2 * slotBytes > smemBudget) {
    SmallPtrSet<Operation *, 4> kept;
    int64_t keptBytes = 0;
    for (tt::LoadOp load : loads)
      if (2 * (keptBytes + bufferBytes(load)) <= smemBudget) {
        kept.insert(load);
        keptBytes += bufferBytes(load);
      }
    loads.clear();
    slice.clear();
    collectLoadsAhead(
        loop, [&](tt::LoadOp load) { return kept.contains(load); }, loads, slice);
    slotBytes = 0;
    for (tt::LoadOp load : loads)
      slotBytes += bufferBytes(load);
  }
  SmallVector<RankedTensorType> tiles;
  for (tt::LoadOp load : loads)
    tiles.push_back(cast<RankedTensorType>(load.getType())
                        .cloneWithEncoding(pgpu::SharedEncodingAttr::get(
                            loop.getContext(), *stagedLayout(load, loop))));
  // A buffer more than the loop has trips is never filled: a loop of at
  // most one trip (decode attention's split of 64 keys walked 64 at a
  // time) gets one buffer a block, below.
  bool oneTrip = maxTrips && *maxTrips <= 1;
  if (maxTrips && *maxTrips >= 2)
    stages = std::min(stages, *maxTrips);
  while (stages >= 2 && stages * slotBytes > smemBudget)
    --stages;
  if (loads.empty() || (stages < 2 && !(oneTrip && slotBytes <= smemBudget)))
    return loop;
  // All of a loop's blocks go by TMA or none (cp.async): the tensor map
  // (an index into the function's) each load's copies use, empty for none.
  // The TMA signals mbarriers, so a loop without slot barriers (a GEMM's K
  // loop) gets them.
  SmallVector<int64_t> tensorMaps;
  // A producer warpgroup (and with it the TMA) where two CTAs would not
  // share an SM anyway: two of the kernel's CTAs with their producers
  // would not have registers enough for the dots, and the TMA without a
  // producer measured slower than cp.async. (An SM's shared memory is a
  // CTA's most and 1 KB reserved per CTA.)
  auto func = loop->getParentOfType<tt::FuncOp>();
  int64_t warps = launchOf(loop).getNumWarps();
  if (tma && producer &&
      2 * (stages * slotBytes + 1024) <= smSharedBytes &&
      2 * 32 * warps * loopRegisterEstimate(func, 32 * warps) <= 65536)
    tma = false;
  if (tma) {
    AxisInfoAnalysis axis;
    SmallVector<std::optional<pgpu::TensorMapAttr>> views;
    for (auto [i, load] : llvm::enumerate(loads))
      views.push_back(tmaView(load, tiles[i], axis));
    if (llvm::all_of(views, [](auto &v) { return v.has_value(); })) {
      for (const std::optional<pgpu::TensorMapAttr> &view : views)
        tensorMaps.push_back(tensorMapIndex(func, *view));
    }
  }
  bool byTma = !tensorMaps.empty();
  slotBarriers |= byTma;
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  // A loop that mostly loads, where one buffer a block leaves room for
  // more CTAs per SM than rings do: one buffer each (stageOneSlot), so
  // that the SM has more CTAs' copies in flight and one CTA's start and
  // end overlap another's loop.
  auto ctasBySharedMemory = [&](int64_t bytes) { return smSharedBytes / (bytes + 1024); };
  if (!slotBarriers &&
      (oneTrip || (memoryBound(loop, slotBytes) &&
                   ctasBySharedMemory(slotBytes) > ctasBySharedMemory(stages * slotBytes)))) {
    SmallVector<tt::LoadOp> byFirstUse(loads);
    llvm::sort(byFirstUse, [](tt::LoadOp x, tt::LoadOp y) {
      return firstUser(x)->isBeforeInBlock(firstUser(y));
    });
    // (Waits are barriers: each read and refill lies in the body itself,
    // which every thread runs, not in a branch.)
    bool inTurn = llvm::all_of(byFirstUse, [&](tt::LoadOp load) {
      Operation *done = stagedReadDone(stagedReader(load));
      return done->getBlock() == loop.getBody() &&
             firstUser(load)->getBlock() == loop.getBody() && !dotWaitOf(stagedReader(load));
    });
    for (size_t i = 0; inTurn && i + 1 < byFirstUse.size(); ++i)
      inTurn = stagedReadDone(stagedReader(byFirstUse[i]))
                   ->isBeforeInBlock(firstUser(byFirstUse[i + 1]));
    if (inTurn) {
      SmallVector<RankedTensorType> inOrder;
      for (tt::LoadOp load : byFirstUse)
        inOrder.push_back(unpaddedWhereSwizzlable(tiles[llvm::find(loads, load) - loads.begin()]));
      if (memoryBound(loop, slotBytes))
        func->setAttr(pgpu::kMemoryBoundAttrName, UnitAttr::get(func.getContext()));
      return stageOneSlot(loop, byFirstUse, ordered, inOrder);
    }
  }
  if (stages < 2)
    return loop;
  // One producer per kernel, for a warpgroup-sized multiple of consumers.
  std::optional<SmallVector<Operation *>> inputs;
  if (byTma && producer && (warps == 4 || warps == 8 || warps == 16) &&
      func.getOps<pgpu::ProduceOp>().empty())
    inputs = producerInputs(loop, ordered);
  // A dot left in flight by its wait (pallas-async-dots' K loops) reads
  // its slot until the next iteration's wait: without slot barriers, the
  // slot the last iteration read is refilled after this iteration's wait
  // (which leaves only this iteration's dot running), behind a CTA
  // barrier, instead of at the top of the body.
  pgpu::DotWaitOp inFlightWait;
  if (!slotBarriers)
    for (tt::LoadOp load : loads)
      if (auto wait = dotWaitOf(stagedReader(load)); wait && wait.getPending() > 0) {
        if (inFlightWait && inFlightWait != wait)
          wait.setPending(0);
        else
          inFlightWait = wait;
      }
  if (inFlightWait && inFlightWait.getPending() != 1)
    inFlightWait.setPending(0), inFlightWait = {};

  // Which slots a producer's consumers release an iteration late (readers left in
  // flight): the last one after the loop.
  SmallVector<bool> releasedLate = llvm::map_to_vector(loads, [](tt::LoadOp load) {
    pgpu::DotWaitOp wait = dotWaitOf(stagedReader(load));
    return wait && wait.getPending() == 1;
  });

  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  Operation *beforePrologue = loop->getPrevNode();
  OpBuilder b(loop);
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  Value last = lastIteration(b, loc, lb, ub, step);
  SmallVector<Value> rings, barriers;
  for (RankedTensorType tile : tiles) {
    rings.push_back(pgpu::AllocRingOp::create(b, loc, pgpu::RingType::get(ctx, stages, tile)));
    if (slotBarriers)
      barriers.push_back(pgpu::AllocSlotBarriersOp::create(
          b, loc, pgpu::SlotBarriersType::get(ctx, stages), /*tma=*/byTma,
          /*producer=*/inputs.has_value()));
  }
  if (inputs) {
    // The rings, their barriers and their producer go to the kernel's
    // start: the producer fills them from there on, while the consumers
    // run what comes before the loop.
    Block &entry = func.getBody().front();
    Operation *start = &entry.front();
    for (auto [ring, bars] : llvm::zip(rings, barriers)) {
      ring.getDefiningOp()->moveBefore(start);
      bars.getDefiningOp()->moveBefore(start);
    }
    OpBuilder pb(start);
    buildProducer(pb, loc, loop, *inputs, ordered, loads, rings, barriers, tensorMaps, stages);
  }
  // Copies the blocks of iteration `iv` of the loads `which` into `slot`
  // (none past the end, nor where `also` is false; the addresses use an
  // index inside the iteration space regardless): by TMA (issued by
  // thread 0 or, with `lastReader`, by the last warp done with the slot),
  // or by cp.async, then closing the group or arriving on the slot's
  // filled barrier.
  auto copyBlocks = [&](Value iv, Value slot, Value inductionVar, ArrayRef<size_t> which,
                        bool lastReader = false, Value also = Value()) {
    IRMapping map;
    Value valid = cloneBlockAddresses(b, loc, ordered, inductionVar, iv, ub, last, also, map);
    if (byTma) {
      for (size_t i : which)
        pgpu::TmaCopyOp::create(b, loc, map.lookupOrDefault(loads[i].getPtr()), rings[i], slot,
                                barriers[i], valid, tensorMaps[i], lastReader);
      return;
    }
    for (size_t i : which)
      asyncCopyBlock(b, loc, loads[i], map, rings[i], slot, valid);
    pgpu::AsyncCommitOp::create(b, loc);
    if (slotBarriers)
      for (size_t i : which)
        pgpu::ArriveFilledOp::create(b, loc, barriers[i], slot, rings[i], valid);
  };
  SmallVector<size_t> all = llvm::to_vector(llvm::seq<size_t>(0, loads.size()));
  // (TMA rings fill every slot ahead: a slot's refill follows its last
  // read, not the next iteration's start. A producer fills them itself.)
  for (int64_t s = 0; !inputs && s + (byTma ? 0 : 1) < stages; ++s)
    copyBlocks(arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, step, c(s))),
               c(s), loop.getInductionVar(), all);
  if (!inputs)
    hoistPrologue(beforePrologue ? beforePrologue->getNextNode() : &loop->getBlock()->front(),
                  loop);

  // Carried: the slot this iteration reads and, with slot barriers, the
  // parity of its fill (flips each time the slot index wraps around).
  SmallVector<Value> inits(loop.getInitArgs());
  inits.push_back(c(0));
  if (slotBarriers)
    inits.push_back(c(0));
  auto newLoop = scf::ForOp::create(b, loc, lb, ub, step, inits);
  newLoop->setAttr(pgpu::kPipelinedLoopAttrName, b.getUnitAttr());
  Block *newBody = newLoop.getBody();
  newBody->getOperations().splice(newBody->end(), loop.getBody()->getOperations());
  loop.getInductionVar().replaceAllUsesWith(newLoop.getInductionVar());
  for (auto [o, n] : llvm::zip(loop.getRegionIterArgs(), newLoop.getRegionIterArgs()))
    o.replaceAllUsesWith(n);
  size_t numOld = loop.getNumRegionIterArgs();
  Value iv = newLoop.getInductionVar();
  Value slot = newLoop.getRegionIterArgs()[numOld];
  Value phase = slotBarriers ? newLoop.getRegionIterArgs()[numOld + 1] : Value();

  b.setInsertionPointToStart(newBody);
  if (!slotBarriers)
    pgpu::AsyncWaitOp::create(b, loc, stages - 2);
  // The slot the last iteration read (and its phase), refilled with the
  // blocks stages - 1 iterations ahead.
  Value atStart = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slot, c(0));
  Value previous = arith::SelectOp::create(b, loc, atStart, c(stages - 1),
                                           arith::SubIOp::create(b, loc, slot, c(1)));
  Value ahead =
      arith::AddIOp::create(b, loc, iv, arith::MulIOp::create(b, loc, step, c(stages - 1)));
  Value previousPhase;
  if (slotBarriers) {
    previousPhase = arith::SelectOp::create(
        b, loc, atStart, arith::XOrIOp::create(b, loc, phase, c(1)), phase);
  } else if (inFlightWait) {
    // Every thread is past its wait: the dot that read `previous` is done.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(inFlightWait);
    pgpu::AsyncWaitOp::create(b, loc, stages - 2);
    copyBlocks(ahead, previous, iv, all);
  } else {
    copyBlocks(ahead, previous, iv, all);
  }
  for (auto [i, load] : llvm::enumerate(loads)) {
    tt::DotOp reader = stagedReader(load);
    if (!slotBarriers) {
      b.setInsertionPoint(load);
      load.getResult().replaceAllUsesWith(
          pgpu::RingReadOp::create(b, loc, load.getType(), rings[i], slot));
      continue;
    }
    // A thread waits for the slot just before reading it (the later
    // operands of an iteration have longer to land). Once its reader is
    // done, it releases the slot, and refills the one the last iteration
    // read as soon as every thread released that (which a thread up to an
    // iteration behind has: threads drift apart by up to an iteration
    // without waiting for each other). The refill does not need this
    // iteration's release: before an asynchronous reader, it goes out
    // ahead of the dots instead of after waiting for them.
    b.setInsertionPoint(firstUser(load));
    auto filled = pgpu::WaitFilledOp::create(b, loc, barriers[i], slot, phase);
    load.getResult().replaceAllUsesWith(
        pgpu::RingReadOp::create(b, loc, load.getType(), rings[i], slot));
    Operation *readDone = stagedReadDone(reader);
    b.setInsertionPointAfter(readDone);
    if (inputs) {
      // The producer refills the slot once every consumer warp released
      // it: at once or, for a reader left in flight past its wait (a K
      // loop's dot), the slot the last iteration read, from the second
      // iteration on (a predicate, not a branch: see TmaCopyLowering).
      pgpu::DotWaitOp wait = dotWaitOf(reader);
      if (wait && wait.getPending() == 1)
        pgpu::ReleaseSlotOp::create(
            b, loc, barriers[i], previous,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, iv, lb));
      else
        pgpu::ReleaseSlotOp::create(b, loc, barriers[i], slot, Value());
      continue;
    }
    if (pgpu::DotWaitOp wait = dotWaitOf(reader);
        wait && wait.getPending() == 1 && byTma) {
      // The reader is left in flight past its wait (a K loop's dot): the
      // wait leaves the last iteration's dot done, so the slot it read is
      // released (from the second iteration on) and refilled here.
      // (A predicate, not a branch: see TmaCopyLowering.)
      Value notFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, iv, lb);
      copyBlocks(ahead, previous, iv, {i}, /*lastReader=*/true, notFirst);
      continue;
    }
    if (byTma) {
      // The last warp done reading the slot refills it, stages blocks on.
      Value next = arith::AddIOp::create(b, loc, iv, arith::MulIOp::create(b, loc, step, c(stages)));
      copyBlocks(next, slot, iv, {i}, /*lastReader=*/true);
      continue;
    }
    pgpu::ReleaseSlotOp::create(b, loc, barriers[i], slot, Value());
    if (readDone != reader)
      b.setInsertionPointAfter(filled);
    pgpu::WaitReleasedOp::create(b, loc, barriers[i], previous, previousPhase);
    copyBlocks(ahead, previous, iv, {i});
  }
  // (The refills above clone the loads' address computations.)
  for (tt::LoadOp load : loads)
    load.erase();
  auto yield = cast<scf::YieldOp>(newBody->getTerminator());
  b.setInsertionPoint(yield);
  auto [nextSlotIndex, nextPhase] = nextSlot(b, loc, slot, phase, stages);
  SmallVector<Value> yielded(yield.getOperands());
  yielded.push_back(nextSlotIndex);
  if (slotBarriers)
    yielded.push_back(nextPhase);
  scf::YieldOp::create(b, yield.getLoc(), yielded);
  yield.erase();
  // Copies still in flight (into buffers no one reads) end before the
  // shared memory may be used for anything else (after the loop's
  // warpgroup turns end, if it has them: every named barrier settles
  // before the CTA barrier; and after the wait for dots left in flight,
  // which ptxas wants to see before any barrier).
  b.setInsertionPointAfter(newLoop);
  for (Operation *next = loop->getNextNode();
       next && isa<pgpu::TurnsEndOp, pgpu::DotWaitOp>(next); next = next->getNextNode())
    b.setInsertionPointAfter(next);
  pgpu::AsyncWaitOp::create(b, loc, 0);
  if (inputs) {
    // A slot whose reader the loop left in flight is released in the next
    // iteration; the last iteration's slot is released here, once its dot
    // is done, so that the ring can run on (a persistent kernel's next tile).
    Value end = newLoop.getResult(numOld);
    Value lastSlot = arith::SelectOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, end, c(0)),
        c(stages - 1), arith::SubIOp::create(b, loc, end, c(1)));
    Value ran = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
    for (size_t i = 0; i < loads.size(); ++i)
      if (releasedLate[i])
        pgpu::ReleaseSlotOp::create(b, loc, barriers[i], lastSlot, ran);
    newLoop->setAttr(pgpu::kRingSlotAttrName, b.getI64IntegerAttr(numOld));
  }
  for (auto [o, n] : llvm::zip(loop.getResults(), newLoop.getResults()))
    o.replaceAllUsesWith(n);
  loop.erase();
  return newLoop;
}

/// Dot operands loaded inside `loop` from a block that no iteration
/// changes (`k_ref[k_slice, cols]` in a loop over query blocks) move before
/// it, where stageInvariantOperands copies them into shared memory once.
/// Only loads read by dots alone move: any other value hoisted would hold
/// registers across the loop.
void hoistInvariantDotOperands(scf::ForOp loop) {
  for (Operation &op : llvm::make_early_inc_range(*loop.getBody())) {
    auto load = dyn_cast<tt::LoadOp>(op);
    if (!load || load.getIsVolatile() ||
        !llvm::all_of(load->getOperands(),
                      [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }))
      continue;
    bool dotsOnly = llvm::all_of(load->getUsers(), [](Operation *user) {
      if (isa<tt::TransOp>(user) && user->hasOneUse())
        user = *user->getUsers().begin();
      return isa<tt::DotOp>(user);
    });
    if (dotsOnly && !load->use_empty())
      load->moveBefore(loop);
  }
}

/// The shared memory rings may take: the rest is for the kernel's
/// scratch (reductions, layout exchanges, TMA stores' tiles).
int64_t ringBudget(int64_t sharedBytes) { return sharedBytes * 3 / 4; }

/// The loads whose blocks the dots of `loop`'s body read as operand A or
/// B (through a transpose), each once, in the dots' order.
SmallVector<tt::LoadOp> dotOperandLoads(scf::ForOp loop) {
  SmallVector<tt::LoadOp> loads;
  DenseSet<Operation *> seen;
  for (tt::DotOp dot : loop.getBody()->getOps<tt::DotOp>())
    for (Value operand : {dot.getA(), dot.getB()}) {
      if (auto trans = operand.getDefiningOp<tt::TransOp>())
        operand = trans.getSrc();
      auto load = operand.getDefiningOp<tt::LoadOp>();
      if (load && seen.insert(load).second)
        loads.push_back(load);
    }
  return loads;
}

/// Whether a dot of `loop` reads a block loaded into registers (one the
/// rings had no room for: D = 256 attention's K beside Q and V): wgmma
/// takes it through shared memory, behind a barrier every consumer warp
/// meets each iteration.
bool readsOperandThroughRegisters(scf::ForOp loop) { return !dotOperandLoads(loop).empty(); }

/// Undoes pallas-warpgroup-turns on `loop`: warpgroups staggered by turns
/// would meet that barrier at different points of their turns and wait
/// for each other forever (the kernel hung).
void dropTurns(scf::ForOp loop) {
  for (tt::DotOp dot : loop.getBody()->getOps<tt::DotOp>()) {
    dot->removeAttr(pgpu::kTurnTakeAttrName);
    dot->removeAttr(pgpu::kTurnPassAttrName);
  }
  for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
    if (isa<pgpu::TurnsBeginOp>(op)) {
      op->erase();
      break;
    }
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
    if (isa<pgpu::TurnsEndOp>(op)) {
      op->erase();
      break;
    }
}

/// Dot operands loaded before `loop` and read by a dot in every iteration
/// (flash attention's Q) are copied once into a one-buffer ring, which the
/// dot reads in place: no registers held across the loop, no copy into
/// shared memory per iteration. Returns the shared-memory bytes taken.
int64_t stageInvariantOperands(scf::ForOp loop, int64_t smemBudget) {
  SmallVector<std::pair<tt::LoadOp, pgpu::SharedLayoutKind>> loads;
  int64_t bytes = 0;
  for (tt::LoadOp load : dotOperandLoads(loop))
    if (std::optional<pgpu::SharedLayoutKind> kind = invariantStagedLayout(load, loop)) {
      int64_t size = operandSmemLayout(cast<RankedTensorType>(load.getType()), *kind).bytes;
      if (bytes + size > smemBudget / 2)
        continue;
      bytes += size;
      loads.push_back({load, *kind});
    }
  if (loads.empty())
    return 0;
  MLIRContext *ctx = loop.getContext();
  for (auto [load, kind] : loads) {
    // Copied just before its first reader: the loop, or a dot peeled off
    // before it. (Copied where it was loaded instead, causal attention ran
    // 6 % slower.)
    Operation *first = loop;
    for (Operation *user : load->getUsers()) {
      Operation *at = loop->getBlock()->findAncestorOpInBlock(*user);
      if (at->isBeforeInBlock(first))
        first = at;
    }
    OpBuilder b(first);
    Location loc = load.getLoc();
    Value slot = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    auto tile = cast<RankedTensorType>(load.getType())
                    .cloneWithEncoding(pgpu::SharedEncodingAttr::get(ctx, kind));
    Value ring = pgpu::AllocRingOp::create(b, loc, pgpu::RingType::get(ctx, 1, tile));
    pgpu::AsyncCopyOp::create(b, loc, load.getPtr(), ring, slot, load.getMask(), Value());
    pgpu::AsyncCommitOp::create(b, loc);
    pgpu::AsyncWaitOp::create(b, loc, 0);
    for (OpOperand *use : llvm::to_vector(llvm::make_pointer_range(load->getUses()))) {
      OpBuilder at(use->getOwner());
      use->set(pgpu::RingReadOp::create(at, loc, load.getType(), ring, slot));
    }
    load.erase();
  }
  return bytes;
}

/// Whether `loop` runs at least once: constant bounds, or bounds integer
/// range analysis keeps apart.
bool runsOnce(DataFlowSolver &solver, scf::ForOp loop) {
  std::optional<ConstantIntRanges> lb = knownRange(solver, loop.getLowerBound()),
                                   ub = knownRange(solver, loop.getUpperBound());
  return lb && ub && lb->smax().slt(ub->smin());
}

void pipeline(scf::ForOp loop, int64_t threads, int64_t registerBudget, bool mayBeEmpty) {
  // A loop that writes memory may write what a later iteration reads:
  // loading that early would read the old value.
  if (storesMayFeedLoads(loop))
    return;
  SmallVector<tt::LoadOp> loads;
  SetVector<Operation *> slice;
  collectLoadsAhead(
      loop,
      [](tt::LoadOp load) {
        return !load.getIsVolatile() && isa<RankedTensorType>(load.getType());
      },
      loads, slice);
  if (loads.empty())
    return;
  // Two blocks of each load live at once: leave loops alone whose blocks
  // and carried values would not fit the registers of a thread.
  auto regs = [&](Type t) -> int64_t {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return 0;
    int64_t bits = isa<tt::PointerType>(tensor.getElementType())
                       ? 64
                       : tensor.getElementType().getIntOrFloatBitWidth();
    return tensor.getNumElements() * std::max<int64_t>(bits, 32) / 32 / threads;
  };
  int64_t loaded = 0, carried = 0;
  for (tt::LoadOp load : loads)
    loaded += regs(load.getType());
  for (Value v : loop.getRegionIterArgs())
    carried += regs(v.getType());
  if (2 * loaded + carried > registerBudget)
    return;
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  Value runs = mayBeEmpty ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub)
                          : Value();
  SmallVector<Value> initial = cloneLoads(b, loads, ordered, loop, lb);
  // A loop that may run no trip may have no block in range to read
  // first: the first loads then read nothing.
  if (runs) {
    OpBuilder m(b.getContext());
    for (Value v : initial) {
      auto load = v.getDefiningOp<tt::LoadOp>();
      auto ptrType = dyn_cast<RankedTensorType>(load.getPtr().getType());
      if (!ptrType)
        continue;
      m.setInsertionPoint(load);
      Value all = tt::SplatOp::create(
          m, loc, RankedTensorType::get(ptrType.getShape(), m.getI1Type(), ptrType.getEncoding()),
          runs);
      Value mask = load.getMask() ? arith::AndIOp::create(m, loc, load.getMask(), all) : all;
      load.getMaskMutable().assign(mask);
    }
  }

  SmallVector<Value> inits(loop.getInitArgs());
  inits.append(initial);
  auto newLoop = scf::ForOp::create(b, loc, lb, ub, step, inits);
  Block *newBody = newLoop.getBody();
  Block *oldBody = loop.getBody();
  // Move the old body over; old iter args map to the first new ones.
  newBody->getOperations().splice(newBody->end(), oldBody->getOperations());
  loop.getInductionVar().replaceAllUsesWith(newLoop.getInductionVar());
  for (auto [o, n] : llvm::zip(loop.getRegionIterArgs(), newLoop.getRegionIterArgs()))
    o.replaceAllUsesWith(n);
  auto yield = cast<scf::YieldOp>(newBody->getTerminator());
  // The next iteration's loads, issued first thing in the body.
  b.setInsertionPointToStart(newBody);
  Value iv = newLoop.getInductionVar();
  // The last iteration loads a block inside the iteration space again
  // (min(iv + step, last)) rather than one past its end: no extra mask,
  // and the index stays in the loop's range, so bounds checks that always
  // hold still fold away.
  Value next = arith::MinSIOp::create(b, loc, arith::AddIOp::create(b, loc, iv, step),
                                      lastIteration(b, loc, lb, ub, step));
  // The slice ops now live in the new body; clone from them with iv -> next.
  SmallVector<Value> prefetched = cloneLoads(b, loads, ordered, newLoop, next);
  size_t numOld = loop.getNumRegionIterArgs();
  for (auto [i, load] : llvm::enumerate(loads)) {
    load.getResult().replaceAllUsesWith(newLoop.getRegionIterArgs()[numOld + i]);
    load.erase();
  }
  SmallVector<Value> yielded(yield.getOperands());
  yielded.append(prefetched);
  b.setInsertionPoint(yield);
  scf::YieldOp::create(b, yield.getLoc(), yielded);
  yield.erase();
  for (auto [o, n] : llvm::zip(loop.getResults(), newLoop.getResults()))
    o.replaceAllUsesWith(n);
  loop.erase();
}

struct StageLoadsPass : pallas::impl::PallasStageLoadsBase<StageLoadsPass> {
  using PallasStageLoadsBase::PallasStageLoadsBase;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      bool innermost = true;
      loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
      if (innermost && loop.getInductionVar().getType().isInteger(32))
        loops.push_back(loop);
    });
    loadReshaped(getOperation());
    // What integer range analysis bounds each loop's trips by (JAX's
    // fori_loop bounds clamp with a minimum), before any loop is rewritten.
    DataFlowSolver solver;
    if (failed(runIntegerRangeAnalysis(solver, getOperation())))
      return signalPassFailure();
    DenseMap<Operation *, int64_t> maxTrips;
    DenseSet<Operation *> mayBeEmpty;
    for (scf::ForOp loop : loops) {
      if (std::optional<int64_t> n = maxTripCount(solver, loop))
        maxTrips[loop] = *n;
      if (!runsOnce(solver, loop))
        mayBeEmpty.insert(loop);
    }
    for (scf::ForOp loop : loops) {
      bool empty = mayBeEmpty.contains(loop);
      LaunchAttr launch = launchOf(loop);
      if (!launch) {
        loop.emitOpError("is in a function without a pallas.launch (its num_warps "
                         "and num_stages)");
        return signalPassFailure();
      }
      // One stage is no pipelining.
      if (launch.getNumStages() < 2)
        continue;
      // (A store only to arrays the loop does not read, as a sequential
      // grid axis's last program writes its output, lets loads move ahead.)
      if (!storesMayFeedLoads(loop)) {
        int64_t budget = ringBudget(sharedBytes);
        hoistInvariantDotOperands(loop);
        budget -= stageInvariantOperands(loop, budget);
        // Warpgroups taking turns must not be held in step by CTA barriers.
        bool slotBarriers = false;
        loop.getBody()->walk([&](tt::DotOp dot) {
          slotBarriers |= dot->hasAttr(pgpu::kTurnTakeAttrName);
        });
        auto trips = maxTrips.find(loop);
        loop = stageDotOperands(loop, launch.getNumStages(), budget, sharedBytes + 1024,
                                slotBarriers, tma, producer,
                                trips == maxTrips.end() ? std::nullopt
                                                        : std::optional(trips->second));
        if (slotBarriers && readsOperandThroughRegisters(loop))
          dropTurns(loop);
      }
      pipeline(loop, 32 * launch.getNumWarps(), /*registerBudget=*/200, empty);
    }
    // A dot left in flight past its wait must read rings whose refills
    // know it (stageDotOperands); any other is waited for at once.
    getOperation().walk([](pgpu::DotWaitOp wait) {
      if (wait.getPending() == 0)
        return;
      for (Value v : wait.getValues()) {
        auto dot = v.getDefiningOp<tt::DotOp>();
        auto fromRing = [](Value operand) {
          if (auto trans = operand.getDefiningOp<tt::TransOp>())
            operand = trans.getSrc();
          return operand.getDefiningOp<pgpu::RingReadOp>() != nullptr;
        };
        if (!dot || !fromRing(dot.getA()) || !fromRing(dot.getB()))
          wait.setPending(0);
      }
    });
  }
};

} // namespace

bool cuda::dotBlocksFitRings(scf::ForOp loop, int64_t sharedBytes) {
  // As stageInvariantOperands and stageDotOperands count them: blocks
  // loaded before the loop once (up to half the budget), the loop's own
  // in two buffers each.
  int64_t budget = ringBudget(sharedBytes), invariant = 0, perIteration = 0;
  for (tt::LoadOp load : dotOperandLoads(loop)) {
    auto type = cast<RankedTensorType>(load.getType());
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    if (!loop->isAncestor(load))
      invariant += bytes <= budget / 2 - invariant ? bytes : 0;
    else
      perIteration += bytes;
  }
  return 2 * perIteration <= budget - invariant;
}
