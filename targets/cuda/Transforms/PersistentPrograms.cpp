//===- PersistentPrograms.cpp - CTAs that loop over the programs ----------===//
//
// A kernel whose ring loop is fed by a producer warpgroup (pallas-stage-
// loads) spends the start and the end of each program with its tensor
// cores idle: the first slots fill only once the CTA runs, and the
// epilogue runs after the last dot. When the grid has more programs than
// the chip has SMs, each CTA instead runs programs linear = blockIdx.x,
// blockIdx.x + gridDim.x, ... in a loop, and the producer, looping over
// the same programs, fills the next program's slots while the consumers
// run this one's epilogue. The ring slot and its parity run on from
// program to program in both loops (pallas_gpu.ring_slot marks where they
// are carried), so the producer and the consumers agree on them.
//
// The launch starts `ctas` CTAs (the function's pallas_gpu.persistent_ctas);
// any grid of at least one CTA computes the same, as the loop reads
// gridDim.x. In clusters of n CTAs (pallas_gpu.cluster), a multiple of n:
// CTA c of a cluster then runs the c-th of n consecutive programs, as the
// multicast copies need.
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Tile/ProgramGrid.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASPERSISTENTPROGRAMS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// The loop marked as a ring loop directly in `block`, if exactly one.
scf::ForOp ringLoopIn(Block &block) {
  scf::ForOp found;
  for (auto loop : block.getOps<scf::ForOp>()) {
    if (!loop->hasAttr(pgpu::kRingSlotAttrName))
      continue;
    if (found)
      return {};
    found = loop;
  }
  return found;
}

/// The program id of each axis the IR reads (tt.get_program_id x, y, z)
/// for linear program index `linear`, as the non-persistent launch numbers
/// its blocks.
SmallVector<Value> programIdsOf(OpBuilder &b, Location loc, Value linear, LaunchAttr launch) {
  ProgramGrid grid = programGridOf(launch);
  if (grid.ordered)
    return orderedProgramIds(b, loc, linear, launch);
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  SmallVector<Value> ids;
  Value rest = linear;
  for (unsigned a = 0; a < 3; ++a) {
    bool last = a == 2 || llvm::all_of(ArrayRef<int64_t>(grid.launch).drop_front(a + 1),
                                       [](int64_t n) { return n == 1; });
    ids.push_back(last ? rest : b.createOrFold<arith::RemUIOp>(loc, rest, i32(grid.launch[a])));
    if (last) {
      ids.resize(3, i32(0));
      break;
    }
    rest = b.createOrFold<arith::DivUIOp>(loc, rest, i32(grid.launch[a]));
  }
  return ids;
}

/// Moves the ops [first, end) of their block into a loop over the programs
/// this CTA runs, carrying the slot and parity of `ring` (a loop among the
/// moved ops, marked pallas_gpu.ring_slot) from program to program, and
/// reading the program ids of each. With `barrier`, the threads meet at the
/// end of each program (the next one's exchanges reuse shared memory).
void loopOverPrograms(OpBuilder &b, Location loc, Block::iterator first, Block::iterator end,
                      scf::ForOp ring, LaunchAttr launch, int64_t programs, bool barrier) {
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  Block *block = first->getBlock();
  b.setInsertionPoint(block, first);
  Value cta = arith::IndexCastUIOp::create(b, loc, b.getI32Type(),
                                           gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value ctas = arith::IndexCastUIOp::create(b, loc, b.getI32Type(),
                                            gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  auto loop = scf::ForOp::create(b, loc, cta, i32(programs), ctas, ValueRange{i32(0), i32(0)});
  Block *body = loop.getBody();
  body->getOperations().splice(body->begin(), block->getOperations(), first, end);
  // The ring's slot and parity run on from the last program's.
  int64_t at = ring->getAttrOfType<IntegerAttr>(pgpu::kRingSlotAttrName).getInt();
  unsigned initBase = ring.getNumControlOperands() + at;
  ring->setOperand(initBase, loop.getRegionIterArgs()[0]);
  ring->setOperand(initBase + 1, loop.getRegionIterArgs()[1]);
  b.setInsertionPointToEnd(body);
  if (barrier)
    gpu::BarrierOp::create(b, loc);
  scf::YieldOp::create(b, loc, ValueRange{ring.getResult(at), ring.getResult(at + 1)});
  // Program ids from the loop's linear index.
  b.setInsertionPointToStart(body);
  SmallVector<Value> ids = programIdsOf(b, loc, loop.getInductionVar(), launch);
  body->walk([&](tt::GetProgramIdOp pid) {
    pid.getResult().replaceAllUsesWith(ids[static_cast<unsigned>(pid.getAxis())]);
    pid.erase();
  });
}

struct PersistentProgramsPass
    : pallas::impl::PallasPersistentProgramsBase<PersistentProgramsPass> {
  using PallasPersistentProgramsBase::PallasPersistentProgramsBase;

  void runOnOperation() override {
    if (ctas <= 0)
      return;
    getOperation().walk([&](tt::FuncOp func) {
      LaunchAttr launch = getLaunch(func);
      if (!launch || !llvm::hasSingleElement(func.getBody()))
        return;
      ProgramGrid grid = programGridOf(launch);
      int64_t programs = grid.launch[0] * grid.launch[1] * grid.launch[2];
      // Clusters of n CTAs run n consecutive programs at a time: the CTAs
      // are a multiple of n (as the programs are).
      int64_t launched = ctas;
      if (auto cluster = func->getAttrOfType<IntegerAttr>(pgpu::kClusterAttrName))
        launched = ctas / cluster.getInt() * cluster.getInt();
      if (launched <= 0 || programs <= launched ||
          programs > std::numeric_limits<int32_t>::max())
        return;
      // The kernel's start holds the rings, their barriers and then the
      // producer; the consumers' code follows, with one ring loop.
      Block &entry = func.getBody().front();
      auto producers = llvm::to_vector(entry.getOps<pgpu::ProduceOp>());
      if (producers.size() != 1)
        return;
      pgpu::ProduceOp produce = producers.front();
      for (Operation &op : entry) {
        if (&op == produce.getOperation())
          break;
        if (!isa<pgpu::AllocRingOp, pgpu::AllocSlotBarriersOp>(op))
          return;
      }
      Operation *consumersStart = produce->getNextNode();
      Operation *terminator = entry.getTerminator();
      bool allocsLater = false;
      for (Operation *op = consumersStart; op != terminator; op = op->getNextNode())
        allocsLater |= isa<pgpu::AllocRingOp, pgpu::AllocSlotBarriersOp, pgpu::ProduceOp>(op);
      Block &produceBody = produce.getBody().front();
      scf::ForOp consumerRing = ringLoopIn(entry), fill = ringLoopIn(produceBody);
      if (allocsLater || !consumerRing || !fill || consumersStart == terminator)
        return;

      Location loc = func.getLoc();
      OpBuilder b(func.getContext());
      loopOverPrograms(b, loc, produceBody.begin(), produceBody.end(), fill, launch, programs,
                       /*barrier=*/false);
      loopOverPrograms(b, loc, consumersStart->getIterator(), terminator->getIterator(),
                       consumerRing, launch, programs, /*barrier=*/true);
      func->setAttr(pgpu::kPersistentCtasAttrName, b.getI64IntegerAttr(launched));
    });
  }
};

} // namespace
