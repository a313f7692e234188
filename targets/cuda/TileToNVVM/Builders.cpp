//===- Builders.cpp - small IR and PTX builders of the conversion ---------===//
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/SimtState.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

Value cuda::constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}
Value cuda::constI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
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

void cuda::barrier(OpBuilder &b, Location loc) { gpu::BarrierOp::create(b, loc); }

void cuda::fenceAsyncShared(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}

void cuda::predicatedArrive(OpBuilder &b, Location loc, Value pred, Value bar) {
  Value p = arith::ExtUIOp::create(b, loc, b.getI32Type(), pred);
  inlinePtx(b, loc, Type(), ValueRange{p, LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), bar)},
            "{\n.reg .pred p;\n.reg .b64 s;\nsetp.ne.b32 p, $0, 0;\n"
            "@p mbarrier.arrive.shared::cta.b64 s, [$1];\n}",
            "r,l");
}

Value cuda::fromLaneZero(OpBuilder &b, Location loc, Value v) {
  return NVVM::ShflOp::create(b, loc, b.getI32Type(), constI32(b, loc, -1), v, constI32(b, loc, 0),
                              constI32(b, loc, 31), NVVM::ShflKind::idx, UnitAttr());
}

void cuda::clusterBarrier(OpBuilder &b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
}

/// `bar.<op> <id(g)>, <count>` on warpgroup g's threads, as inline PTX:
/// predicated on %tid.x read in place, the ids constants. (No registers
/// live across the loop for the ids, which spilled on causal attention,
/// and no branches, which measured slower.)
static void barrierPerWarpgroup(OpBuilder &b, Location loc, const SimtState &s, StringRef op,
                                function_ref<int64_t(int64_t)> id, int64_t count) {
  int64_t groups = s.threads / 128;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n.reg .u32 t;\n.reg .pred p;\nmov.u32 t, %tid.x;\nshr.u32 t, t, 7;\n";
  for (int64_t g = 0; g < groups; ++g)
    os << "setp.eq.u32 p, t, " << g << ";\n@p bar." << op << " " << id(g) << ", " << count
       << ";\n";
  os << "}";
  inlinePtx(b, loc, Type(), ValueRange(), text, /*constraints=*/"");
}

/// Warpgroup g's turn barrier shifted by `shift`: 1 + (g + shift) % groups,
/// between two warpgroups (256 threads).
static void turnBarrier(OpBuilder &b, Location loc, const SimtState &s, StringRef op,
                        int64_t shift) {
  int64_t groups = s.threads / 128;
  barrierPerWarpgroup(b, loc, s, op, [&](int64_t g) { return 1 + (g + shift) % groups; }, 256);
}

Value cuda::inlinePtx(OpBuilder &b, Location loc, Type resultType, ValueRange operands,
                      StringRef text, StringRef constraints) {
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resultType ? TypeRange(resultType) : TypeRange(), operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
  return resultType ? op.getResult(0) : Value();
}

void cuda::warpgroupBarrier(OpBuilder &b, Location loc, const SimtState &s) {
  int64_t groups = s.threads / 128;
  barrierPerWarpgroup(b, loc, s, "sync", [&](int64_t g) { return 2 + groups + g; }, 128);
}

void cuda::takeTurn(OpBuilder &b, Location loc, const SimtState &s) {
  turnBarrier(b, loc, s, "sync", 0);
}

void cuda::passTurn(OpBuilder &b, Location loc, const SimtState &s) {
  turnBarrier(b, loc, s, "arrive", 1);
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

void cuda::predicatedRemoteArrive(OpBuilder &b, Location loc, Value pred, Value bar, Value rank) {
  Value p = arith::ExtUIOp::create(b, loc, b.getI32Type(), pred);
  inlinePtx(b, loc, Type(),
            ValueRange{p, LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), bar), rank},
            "{\n.reg .pred p;\n.reg .b32 r;\nsetp.ne.b32 p, $0, 0;\n"
            "@p mapa.shared::cluster.u32 r, $1, $2;\n"
            "@p mbarrier.arrive.shared::cluster.b64 _, [r];\n}",
            "r,r,r");
}

void cuda::waitAtClusterScope(OpBuilder &b, Location loc, Value bar, Value phase) {
  inlinePtx(b, loc, Type(),
            ValueRange{LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), bar), phase},
            "{\n.reg .pred p;\nwait_released:\n"
            "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [$0], $1, 10000000;\n"
            "@!p bra wait_released;\n}",
            "r,r");
}
