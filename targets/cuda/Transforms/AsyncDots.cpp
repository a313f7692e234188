//===- AsyncDots.cpp - wgmma dots run back to back ------------------------===//
//
// With pallas-defer-last-dot, a warpgroup's turn in attention's loop holds
// two dots, PV_{j-1} and QK^T_j. Waiting for each dot as it is issued
// drains the tensor cores between the two, and the refill of V's ring slot
// (pallas-stage-loads puts it after the slot's reader is done) waits for
// PV_{j-1} on the way. Issued without waiting, with one
// `pallas_gpu.dot_wait` after the turn, the two dots run back to back and
// the refills go out before them (measured +3-4 % on attention).
//
// Waiting for QK^T_j alone (one group left pending) so the softmax starts
// while PV_{j-1} runs, FA3's intra-warpgroup overlap, loses here. ptxas
// moves a plain wgmma.wait_group 0 up to the softmax's start (its
// scheduler places the wait as early as it may); pinned after the softmax
// by a branch on the softmax's last value, the softmax did run under
// PV_{j-1}, correct and without spills, but measured 539 against 600
// TFLOP/s (bf16; f16 533 against 585): with the warpgroups already taking
// turns, the later release of V's slot and the longer turn cost more than
// the overlap gains (bench/RESULTS.md).
//
// A dot taking A from the registers (P V) holds them until it is done: a
// turn's dots issued together hold their accumulators and those at once.
// Where that leaves a consumer less than kOtherRegisters of its budget,
// ptxas serializes every wgmma of the kernel (C7512, "insufficient
// register resources"), so such a dot is waited for as it is issued and
// the next issued after it: fp8 attention on 256-key blocks (S 128, O 64
// and P 32 registers a thread, of 240) ran 4-5 % faster with that wait
// (H200, its PTX so edited: 888-893 -> 930 TFLOP/s at S = 16384); fp8
// D = 256 (208 of 240) is left as it is.
//
// A GEMM's K loop keeps its dot in flight across iterations instead
// (keepInFlight below).
//
//===----------------------------------------------------------------------===//
#include "TileToNVVM/DotLowering.h"
#include "TileToNVVM/ProducerRegisters.h"
#include "Transforms/AsyncDots.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASASYNCDOTS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// The turns of `body` (from a turn_take dot to the next turn_pass dot),
/// with their dots in body order.
SmallVector<SmallVector<tt::DotOp>> turnsIn(Block *body) {
  SmallVector<SmallVector<tt::DotOp>> turns;
  bool open = false;
  for (tt::DotOp dot : body->getOps<tt::DotOp>()) {
    if (dot->hasAttr(pgpu::kTurnTakeAttrName)) {
      turns.emplace_back();
      open = true;
    }
    if (open)
      turns.back().push_back(dot);
    if (dot->hasAttr(pgpu::kTurnPassAttrName))
      open = false;
  }
  return turns;
}

/// A GEMM's K loop: one wgmma dot, accumulating the value the loop
/// carries for it alone. Its wait leaves it in flight (pending 1): the
/// next iteration's dot queues behind it on the same accumulator, so the
/// tensor cores never drain between iterations; after the loop, a wait for
/// all. pallas-stage-loads then refills the slot the last iteration read
/// after that wait, behind a CTA barrier. Only for dots 256 wide: at 128
/// the second barrier per iteration costs more than the drain (H100, bf16
/// 4096^3: 128x256 tiles 726 vs 642 TFLOP/s, 128x128 595 vs 624).
void keepInFlight(scf::ForOp loop) {
  SmallVector<tt::DotOp> dots(loop.getBody()->getOps<tt::DotOp>());
  if (dots.size() != 1)
    return;
  tt::DotOp dot = dots.front();
  auto type = cast<RankedTensorType>(dot.getType());
  if (!isa_and_nonnull<pgpu::WgmmaEncodingAttr>(type.getEncoding()) ||
      !type.getElementType().isF32() || dot->hasAttr(pgpu::kTurnTakeAttrName) ||
      type.getRank() != 2 || type.getShape()[1] < 256)
    return;
  auto acc = dyn_cast<BlockArgument>(dot.getC());
  if (!acc || acc.getOwner() != loop.getBody() || acc == loop.getInductionVar() ||
      !acc.hasOneUse() || !dot->hasOneUse())
    return;
  unsigned i = acc.getArgNumber() - 1;
  OpOperand &use = *dot->use_begin();
  if (use.getOwner() != loop.getBody()->getTerminator() || use.getOperandNumber() != i)
    return;
  dot->setAttr(pgpu::kAsyncDotAttrName, UnitAttr::get(dot->getContext()));
  OpBuilder b(dot);
  b.setInsertionPointAfter(dot);
  auto inFlight = pgpu::DotWaitOp::create(b, dot.getLoc(), TypeRange{type},
                                          ValueRange{dot.getResult()}, /*pending=*/1);
  use.set(inFlight.getResult(0));
  b.setInsertionPointAfter(loop);
  Value result = loop.getResult(i);
  auto all = pgpu::DotWaitOp::create(b, dot.getLoc(), TypeRange{type}, ValueRange{result},
                                     /*pending=*/0);
  result.replaceAllUsesExcept(all.getResult(0), all);
}

/// What a consumer thread holds besides the dots in flight in a turn
/// (row statistics, ring indices and phases, addresses), and the least
/// that must be left for it.
constexpr int64_t kOtherRegisters = 32;

/// The threads of `dot`'s warpgroups, where it has wgmma's layout.
std::optional<int64_t> wgmmaThreads(tt::DotOp dot) {
  auto d = cast<RankedTensorType>(dot.getType());
  auto wgmma = dyn_cast_or_null<pgpu::WgmmaEncodingAttr>(d.getEncoding());
  return wgmma ? std::optional<int64_t>(32 * wgmma.getWarps()) : std::nullopt;
}

/// The 32-bit registers a thread holds while `dot` runs: its accumulator,
/// and A where it reads A from the registers.
int64_t registersInFlight(tt::DotOp dot, int64_t threads) {
  auto d = cast<RankedTensorType>(dot.getType());
  int64_t bits = d.getNumElements() * d.getElementTypeBitWidth();
  if (Value a = cuda::registerA(dot)) {
    auto at = cast<RankedTensorType>(a.getType());
    bits += at.getNumElements() * at.getElementTypeBitWidth();
  }
  return bits / 32 / threads;
}

/// Whether a turn's dots issued together would hold more registers than a
/// consumer thread can give them.
bool overBudget(ArrayRef<tt::DotOp> turn) {
  std::optional<int64_t> threads = wgmmaThreads(turn.front());
  if (!threads)
    return false;
  // (The tightest budget: a producer warpgroup beside the consumers.)
  int64_t budget = cuda::ProducerRegisters(*threads, 128).consumer;
  int64_t inFlight = 0;
  for (tt::DotOp dot : turn) {
    if (wgmmaThreads(dot) != threads)
      return false;
    inFlight += registersInFlight(dot, *threads);
  }
  return inFlight + kOtherRegisters > budget;
}

/// A turn's dots issued together, or, over budget, each dot taking A from
/// the registers waited for as it is issued (before the next dot's issue).
void issueTurn(ArrayRef<tt::DotOp> turn) {
  if (!overBudget(turn)) {
    cuda::issueWithOneWait(turn);
    return;
  }
  SmallVector<tt::DotOp> together;
  for (tt::DotOp dot : turn) {
    together.push_back(dot);
    if (cuda::registerA(dot) || dot == turn.back()) {
      cuda::issueWithOneWait(together);
      together.clear();
    }
  }
}

struct AsyncDotsPass : pallas::impl::PallasAsyncDotsBase<AsyncDotsPass> {
  void runOnOperation() override {
    getOperation().walk([&](scf::ForOp loop) { keepInFlight(loop); });
    getOperation().walk([&](scf::ForOp loop) {
      for (ArrayRef<tt::DotOp> turn : turnsIn(loop.getBody())) {
        // dot_wait carries f32 accumulators (what wgmma produces).
        bool f32 = llvm::all_of(turn, [](tt::DotOp dot) {
          return cast<RankedTensorType>(dot.getType()).getElementType().isF32();
        });
        if (turn.size() >= 2 && f32)
          issueTurn(turn);
      }
    });
  }
};

} // namespace

void cuda::issueWithWaitAt(ArrayRef<tt::DotOp> dots, OpBuilder &at, int64_t pending) {
  SmallVector<Value> results;
  for (tt::DotOp dot : dots) {
    dot->setAttr(pgpu::kAsyncDotAttrName, UnitAttr::get(dot->getContext()));
    results.push_back(dot.getResult());
  }
  auto wait = pgpu::DotWaitOp::create(at, dots.back()->getLoc(), ValueRange(results).getTypes(),
                                      results, pending);
  for (auto [result, waited] : llvm::zip(results, wait.getResults()))
    result.replaceAllUsesExcept(waited, wait);
}

// A turn's dots (pallas-warpgroup-turns put nothing between them that reads
// one), or independent dots pallas-issue-dots-together put side by side.
void cuda::issueWithOneWait(ArrayRef<tt::DotOp> dots) {
  OpBuilder b(dots.back());
  b.setInsertionPointAfter(dots.back());
  issueWithWaitAt(dots, b);
}

bool cuda::inRing(Value v) {
  if (auto trans = v.getDefiningOp<tt::TransOp>())
    v = trans.getSrc();
  return v.getDefiningOp<pgpu::RingReadOp>() != nullptr;
}

bool cuda::readsNoScratch(tt::DotOp dot) {
  return inRing(dot.getB()) && (inRing(dot.getA()) || registerA(dot));
}
