//===- MmaLowering.cpp - dots on tensor cores (mma.sync) ------------------===//
//
// A and B go to shared memory: A row-major, B transposed (so both feed
// 32-bit fragment loads along K), rows padded by 16 bytes so that the eight
// rows a fragment load touches fall in different banks. Each warp then
// walks K in steps of 16 (bf16, f16) or 8 (tf32), loading its A and B
// fragments and issuing one mma.sync per 16x8 tile of its part of C, which
// stays in registers in the mma layout.
//
//===----------------------------------------------------------------------===//
#include "SimtLowering.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

/// 32 bits of shared memory at element (`row`, `col`) of a padded
/// row-major array of `elem` with `stride` elements per row.
static Value loadWord(OpBuilder &b, Location loc, SimtState &s, int64_t offset,
                      int64_t stride, Type elem, Value row, int64_t rowOffset,
                      Value col, int64_t colOffset) {
  int64_t eb = smemElementBytes(elem);
  Value r = arith::AddIOp::create(b, loc, row, constI32(b, loc, rowOffset));
  Value c = arith::AddIOp::create(b, loc, col, constI32(b, loc, colOffset));
  Value index = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, r, constI32(b, loc, stride)), c);
  Value bytes = arith::AddIOp::create(
      b, loc, constI32(b, loc, offset),
      arith::MulIOp::create(b, loc, index, constI32(b, loc, eb)));
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value ptr = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), s.smem, ValueRange{bytes});
  return LLVM::LoadOp::create(b, loc, b.getI32Type(), ptr, /*alignment=*/4);
}

FailureOr<Value> cuda::lowerDotToMma(OpBuilder &b, tt::DotOp op, Value aVec, Value bVec,
                                     Value cVec, SimtState &s) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto dType = cast<RankedTensorType>(op.getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1), n = bType.getDimSize(1);
  Type elem = aType.getElementType();
  std::optional<MmaLayout> layout = MmaLayout::forShape(m, n, s.threads);
  if (!layout)
    return failure();
  bool tf32 = elem.isF32();
  NVVM::MMATypes ptxType = tf32 ? NVVM::MMATypes::tf32
                           : elem.isBF16() ? NVVM::MMATypes::bf16
                                           : NVVM::MMATypes::f16;
  int64_t kStep = tf32 ? 8 : 16;
  int64_t eb = smemElementBytes(elem);
  int64_t stride = k + 16 / eb;

  // A row-major and B transposed, both with padded rows.
  int64_t bOffset = smemWriteTensor(
      b, loc, s, 0, aVec, aType,
      [&](Value idx) -> Value {
        Value row = arith::DivUIOp::create(b, loc, idx, constI32(b, loc, k));
        Value col = arith::RemUIOp::create(b, loc, idx, constI32(b, loc, k));
        return arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, row, constI32(b, loc, stride)), col);
      },
      m * stride);
  smemWriteTensor(
      b, loc, s, bOffset, bVec, bType,
      [&](Value idx) -> Value {
        Value kk = arith::DivUIOp::create(b, loc, idx, constI32(b, loc, n));
        Value col = arith::RemUIOp::create(b, loc, idx, constI32(b, loc, n));
        return arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, col, constI32(b, loc, stride)), kk);
      },
      n * stride);

  Value warp = arith::DivUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
  Value lane = arith::RemUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
  Value g = arith::DivUIOp::create(b, loc, lane, constI32(b, loc, 4));
  Value q = arith::RemUIOp::create(b, loc, lane, constI32(b, loc, 4));
  Value wm = arith::DivUIOp::create(b, loc, warp, constI32(b, loc, layout->warpsN));
  Value wn = arith::RemUIOp::create(b, loc, warp, constI32(b, loc, layout->warpsN));
  Value rowBase = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, wm, constI32(b, loc, m / layout->warpsM)), g);
  Value colBase = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, wn, constI32(b, loc, n / layout->warpsN)), g);
  // Fragment columns: pairs 2q (16-bit types) or single q (tf32).
  Value kLane = tf32 ? q : (Value)arith::MulIOp::create(b, loc, q, constI32(b, loc, 2));

  auto loop = scf::ForOp::create(b, loc, constI32(b, loc, 0), constI32(b, loc, k),
                                 constI32(b, loc, kStep), ValueRange{cVec});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value ks = arith::AddIOp::create(b, loc, loop.getInductionVar(), kLane);
    Value acc = loop.getRegionIterArgs()[0];
    int64_t half = kStep / 2;
    SmallVector<SmallVector<Value>> aFrags, bFrags;
    for (int64_t tm = 0; tm < layout->tilesM; ++tm) {
      int64_t r0 = tm * 16;
      aFrags.push_back({loadWord(b, loc, s, 0, stride, elem, rowBase, r0, ks, 0),
                        loadWord(b, loc, s, 0, stride, elem, rowBase, r0 + 8, ks, 0),
                        loadWord(b, loc, s, 0, stride, elem, rowBase, r0, ks, half),
                        loadWord(b, loc, s, 0, stride, elem, rowBase, r0 + 8, ks, half)});
    }
    for (int64_t tn = 0; tn < layout->tilesN; ++tn)
      bFrags.push_back({loadWord(b, loc, s, bOffset, stride, elem, colBase, tn * 8, ks, 0),
                        loadWord(b, loc, s, bOffset, stride, elem, colBase, tn * 8, ks, half)});
    Type f32 = b.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    SmallVector<Value> out;
    for (int64_t tm = 0; tm < layout->tilesM; ++tm)
      for (int64_t tn = 0; tn < layout->tilesN; ++tn) {
        int64_t slot = (tm * layout->tilesN + tn) * 4;
        SmallVector<Value> c;
        for (int64_t r = 0; r < 4; ++r)
          c.push_back(extractSlot(b, loc, acc, slot + r));
        Value d = NVVM::MmaOp::create(
            b, loc, resultType, aFrags[tm], bFrags[tn], c, {16, 8, kStep},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
        for (int64_t r = 0; r < 4; ++r)
          out.push_back(LLVM::ExtractValueOp::create(b, loc, d, r));
      }
    scf::YieldOp::create(b, loc, buildVector(b, loc, out));
  }
  (void)dType;
  return loop.getResult(0);
}
