//===- MmaLowering.cpp - dots on tensor cores (mma.sync) ------------------===//
//
// A and B are read from shared memory row-major, rows padded by 16 bytes
// (paddedRowLayout) so that the eight rows a fragment load touches fall in
// different banks; operands pallas-stage-loads staged are there already. Each warp
// then walks K in steps of 16 (bf16, f16: fragments by ldmatrix, B through
// its .trans form, or without it where B is the transpose of a K-major
// tile) or 8 (tf32: 32-bit loads), issuing one mma.sync per 16x8 tile of
// its part of C, which stays in registers in the mma layout.
//
//===----------------------------------------------------------------------===//
#include "TileToNVVM/DotLowering.h"
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/SharedMemory.h"
#include "TileToNVVM/SimtState.h"
#include "TileToNVVM/ThreadSlots.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

/// 32 bits of shared memory at element (`row` + `rowOffset`, `col` +
/// `colOffset`) of an operand at `base` in `layout`.
static Value loadWord(OpBuilder &b, Location loc, Value base, const OperandSmemLayout &layout,
                      Value row, int64_t rowOffset, Value col, int64_t colOffset) {
  Value r = arith::AddIOp::create(b, loc, row, constI32(b, loc, rowOffset));
  Value c = arith::AddIOp::create(b, loc, col, constI32(b, loc, colOffset));
  Value ptr = smemByteAddress(b, loc, base, layout.offsetOf(b, loc, r, c));
  return LLVM::LoadOp::create(b, loc, b.getI32Type(), ptr, /*alignment=*/4);
}

/// ldmatrix.x4 (`trans`: .trans) from an operand at `base` in `layout`:
/// each lane gives the address of row `row`, column `col`.
static SmallVector<Value> ldmatrix4(OpBuilder &b, Location loc, Value base,
                                    const OperandSmemLayout &layout, Value row, Value col,
                                    bool trans) {
  Value ptr = smemByteAddress(b, loc, base, layout.offsetOf(b, loc, row, col));
  Type i32 = b.getI32Type();
  auto result = LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32, i32, i32});
  Value m = NVVM::LdMatrixOp::create(
      b, loc, result, ptr, 4, trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8), NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> regs;
  for (int64_t i = 0; i < 4; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, m, i));
  return regs;
}

FailureOr<Value> cuda::lowerDotToMma(OpBuilder &b, tt::DotOp op, DotOperand aIn,
                                     DotOperand bIn, Value cVec, SimtState &s) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  int64_t k = aType.getDimSize(1);
  Type elem = aType.getElementType();
  std::optional<MmaLayout> layout = mmaLayoutOf(cast<RankedTensorType>(op.getType()));
  if (!layout)
    return failure();
  bool tf32 = elem.isF32();
  NVVM::MMATypes ptxType = tf32 ? NVVM::MMATypes::tf32
                           : elem.isBF16() ? NVVM::MMATypes::bf16
                                           : NVVM::MMATypes::f16;
  int64_t kStep = tf32 ? 8 : 16;
  // Rows padded by 16 bytes: the eight rows a fragment load touches fall in
  // different banks. Staged operands are in their rings' layout (padded, or
  // swizzled where pallas-stage-loads saved the padding: the same 16-byte
  // pieces, permuted within each 8 rows, conflict-free too).
  // B given K-major ([N, K], kMajorB) stays that way: its rows are the
  // fragments' K pairs.
  auto layoutOf = [](const DotOperand &o, RankedTensorType tile) {
    return o.smem && o.smemLayout ? *o.smemLayout : paddedRowLayout(tile);
  };
  OperandSmemLayout aLayout = layoutOf(aIn, aType), bLayout = layoutOf(bIn, bIn.tile);
  auto [aPlaced, bPlaced] = placeDotOperands(b, loc, s, aIn, bIn, aLayout, bLayout,
                                             /*asyncProxy=*/false);
  Value aBase = aPlaced, bBase = bPlaced;
  bool pairedB = !tf32 && layout->tilesN % 2 == 0;

  MmaThread t = mmaThread(b, loc, s, *layout);
  Value lane = t.lane, g = t.g, q = t.q, rowBase = t.rowBase, colBase = t.colBase;
  // ldmatrix: lane l addresses row l % 8 of matrix l / 8.
  Value lr = arith::RemUIOp::create(b, loc, lane, constI32(b, loc, 8));
  Value li = arith::DivUIOp::create(b, loc, lane, constI32(b, loc, 8));
  Value liLow = arith::RemUIOp::create(b, loc, li, constI32(b, loc, 2));
  Value liHigh = arith::DivUIOp::create(b, loc, li, constI32(b, loc, 2));
  Value aRow = arith::AddIOp::create(
      b, loc, rowBase,
      arith::AddIOp::create(b, loc, lr, arith::MulIOp::create(b, loc, liLow, constI32(b, loc, 8))));
  Value aCol = arith::MulIOp::create(b, loc, liHigh, constI32(b, loc, 8));
  Value bRow = arith::AddIOp::create(b, loc, lr,
                                     arith::MulIOp::create(b, loc, liLow, constI32(b, loc, 8)));
  Value bCol = arith::AddIOp::create(b, loc, colBase,
                                     arith::MulIOp::create(b, loc, liHigh, constI32(b, loc, 8)));

  // One k step: `kIndex` is the step's number where A comes from the
  // registers (the K loop is then unrolled: fragments are picked by
  // position), else -1 and `k0` runs in an scf.for.
  auto step = [&](Value k0, Value acc, int64_t kIndex) -> Value {
    SmallVector<SmallVector<Value>> aFrags, bFrags(layout->tilesN);
    if (aIn.inAccumulatorLayout) {
      // A's 16x8 tiles 2j and 2j + 1 of each 16-row tile, pairs of
      // neighbouring columns packed into 32 bits (PTX ISA, m16n8k16 A
      // fragments: a0 (g, 2q), a1 (g + 8, 2q), a2 (g, 2q + 8), a3 (g + 8, 2q + 8)).
      int64_t aTilesN = k / 8;
      auto pair = [&](int64_t slot) -> Value {
        Value lo = extractSlot(b, loc, aIn.regs, slot);
        Value hi = extractSlot(b, loc, aIn.regs, slot + 1);
        Value v = buildVector(b, loc, {lo, hi});
        return elem.isF16() ? v : LLVM::BitcastOp::create(b, loc, b.getI32Type(), v).getResult();
      };
      for (int64_t tm = 0; tm < layout->tilesM; ++tm) {
        int64_t left = (tm * aTilesN + 2 * kIndex) * 4, right = left + 4;
        aFrags.push_back({pair(left), pair(left + 2), pair(right), pair(right + 2)});
      }
    }
    if (tf32) {
      // tf32 fragments: single 32-bit elements at (g, q) and (g, q + 4).
      Value ks = arith::AddIOp::create(b, loc, k0, q);
      Value rowG = arith::AddIOp::create(b, loc, rowBase, g);
      Value colG = arith::AddIOp::create(b, loc, colBase, g);
      for (int64_t tm = 0; tm < layout->tilesM; ++tm) {
        int64_t r0 = tm * 16;
        aFrags.push_back({loadWord(b, loc, aBase, aLayout, rowG, r0, ks, 0),
                          loadWord(b, loc, aBase, aLayout, rowG, r0 + 8, ks, 0),
                          loadWord(b, loc, aBase, aLayout, rowG, r0, ks, 4),
                          loadWord(b, loc, aBase, aLayout, rowG, r0 + 8, ks, 4)});
      }
      for (int64_t tn = 0; tn < layout->tilesN; ++tn)
        bFrags[tn] = {loadWord(b, loc, bBase, bLayout, ks, 0, colG, tn * 8),
                      loadWord(b, loc, bBase, bLayout, ks, 4, colG, tn * 8)};
    } else {
      Value col = arith::AddIOp::create(b, loc, aCol, k0);
      for (int64_t tm = 0; !aIn.inAccumulatorLayout && tm < layout->tilesM; ++tm)
        aFrags.push_back(ldmatrix4(
            b, loc, aBase, aLayout,
            arith::AddIOp::create(b, loc, aRow, constI32(b, loc, tm * 16)), col, false));
      if (bIn.kMajor) {
        // ldmatrix (no .trans) of [N, K] rows: matrices (n, k), (n, k + 8),
        // (n + 8, k), (n + 8, k + 8) give b0, b1 of 8-wide tiles tn and
        // tn + 1; with an odd count the last tile's pair is read twice.
        Value kCol = arith::AddIOp::create(
            b, loc, k0, arith::MulIOp::create(b, loc, liLow, constI32(b, loc, 8)));
        Value nHigh = arith::MulIOp::create(b, loc, liHigh, constI32(b, loc, 8));
        for (int64_t tn = 0; tn < layout->tilesN; tn += 2) {
          bool pair = tn + 1 < layout->tilesN;
          Value nRow = arith::AddIOp::create(
              b, loc, arith::AddIOp::create(b, loc, colBase, constI32(b, loc, tn * 8)), lr);
          if (pair)
            nRow = arith::AddIOp::create(b, loc, nRow, nHigh);
          SmallVector<Value> r = ldmatrix4(b, loc, bBase, bLayout, nRow, kCol, false);
          bFrags[tn] = {r[0], r[1]};
          if (pair)
            bFrags[tn + 1] = {r[2], r[3]};
        }
      }
      Value row = arith::AddIOp::create(b, loc, bRow, k0);
      for (int64_t tn = 0; !bIn.kMajor && tn < layout->tilesN; tn += 2) {
        if (pairedB) {
          SmallVector<Value> r = ldmatrix4(
              b, loc, bBase, bLayout, row,
              arith::AddIOp::create(b, loc, bCol, constI32(b, loc, tn * 8)), true);
          bFrags[tn] = {r[0], r[1]};
          bFrags[tn + 1] = {r[2], r[3]};
          continue;
        }
        // An odd number of 8-wide tiles: one at a time (matrices 0 and 1
        // of the x4 form re-read for 2 and 3).
        for (int64_t t = tn; t < std::min(tn + 2, layout->tilesN); ++t) {
          Value c = arith::AddIOp::create(
              b, loc, colBase, constI32(b, loc, t * 8));
          SmallVector<Value> r = ldmatrix4(b, loc, bBase, bLayout, row, c, true);
          bFrags[t] = {r[0], r[1]};
        }
      }
    }
    // ldmatrix gives 32-bit registers; mma.sync takes f16 pairs as
    // vector<2xf16> (bf16 and tf32 as i32).
    if (elem.isF16()) {
      Type pair = VectorType::get({2}, b.getF16Type());
      for (auto *frags : {&aFrags, &bFrags})
        for (SmallVector<Value> &regs : *frags)
          for (Value &r : regs)
            if (r.getType() != pair)
              r = LLVM::BitcastOp::create(b, loc, pair, r);
    }
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
    return buildVector(b, loc, out);
  };

  if (aIn.inAccumulatorLayout) {
    Value acc = cVec;
    for (int64_t j = 0; j < k / kStep; ++j)
      acc = step(constI32(b, loc, j * kStep), acc, j);
    return acc;
  }
  auto loop = scf::ForOp::create(b, loc, constI32(b, loc, 0), constI32(b, loc, k),
                                 constI32(b, loc, kStep), ValueRange{cVec});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  scf::YieldOp::create(b, loc,
                       step(loop.getInductionVar(), loop.getRegionIterArgs()[0], -1));
  return loop.getResult(0);
}
