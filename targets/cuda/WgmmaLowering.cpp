//===- WgmmaLowering.cpp - dots on Hopper's warpgroup MMA (sm_90a) --------===//
//
// A [M, K] and B [K, N] go to shared memory in the no-swizzle "core matrix"
// form wgmma reads: 8 rows x 16 bytes per core matrix, each stored
// contiguously (128 bytes); A K-major, B MN-major (as it is in memory, with
// wgmma's transpose flag), so that the chunks threads hold are single
// 16-byte stores. The descriptors give the spacing of core matrices along K
// (leading offset) and along M or N (stride offset). Each warpgroup (4
// warps) computes 64 rows of C with one wgmma.mma_async m64nNk16 per 16 of
// K; C stays in registers in the "pallas.wgmma" layout, which is the wgmma
// accumulator layout.
//
//===----------------------------------------------------------------------===//
#include "SimtLowering.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

/// Core matrices are 128 bytes apart plus 16: row r of the core matrices
/// next to each other along a row of the tile then falls in different banks
/// (plain 128-byte spacing would put them all in the same ones).
static constexpr int64_t kCoreSpacing = 144;

/// Writes a distributed [d0, d1] tensor into shared memory at `offset` as
/// core matrices of 8 rows x 16 bytes, the 16 bytes along d1: element
/// (i, j) is at (i / 8) * strideRows + (j / (16 / eb)) * strideCols +
/// (i % 8) * 16 + (j % (16 / eb)) * eb. Chunks of the blocked layout lie
/// along d1, so each is one store.
static void writeCoreMatrices(OpBuilder &b, Location loc, SimtState &s, int64_t offset,
                              Value perThread, RankedTensorType type, int64_t strideRows,
                              int64_t strideCols) {
  int64_t d1 = type.getDimSize(1);
  Type elem = type.getElementType();
  int64_t eb = smemElementBytes(elem);
  int64_t perCore = 16 / eb;
  BlockedLayout layout(type.getNumElements(), s.threads);
  SmallVector<Value> idx = slotElementIndices(b, loc, s, type.getNumElements());
  int64_t vec = perCore % layout.vec == 0 && d1 % layout.vec == 0 ? layout.vec : 1;
  for (int64_t i = 0; i < layout.perThread; i += vec) {
    Value row = arith::DivUIOp::create(b, loc, idx[i], constI32(b, loc, d1));
    Value col = arith::RemUIOp::create(b, loc, idx[i], constI32(b, loc, d1));
    auto term = [&](Value v, int64_t div, int64_t rem, int64_t scale) -> Value {
      Value x = div > 1 ? (Value)arith::DivUIOp::create(b, loc, v, constI32(b, loc, div)) : v;
      if (rem)
        x = arith::RemUIOp::create(b, loc, x, constI32(b, loc, rem));
      return arith::MulIOp::create(b, loc, x, constI32(b, loc, scale));
    };
    Value bytes = constI32(b, loc, offset);
    for (Value t : {term(row, 8, 0, strideRows), term(col, perCore, 0, strideCols),
                    term(row, 1, 8, 16), term(col, 1, perCore, eb)})
      bytes = arith::AddIOp::create(b, loc, bytes, t);
    Value ptr = smemByteAddress(b, loc, s.smem, bytes);
    SmallVector<Value> vals;
    for (int64_t j = 0; j < vec; ++j)
      vals.push_back(extractSlot(b, loc, perThread, i + j));
    LLVM::StoreOp::create(b, loc, vec == 1 ? vals[0] : buildVector(b, loc, vals), ptr,
                          vec * eb);
  }
}

/// The 64-bit wgmma shared-memory matrix descriptor (no swizzle).
static Value descriptor(OpBuilder &b, Location loc, Value smemBase, int64_t byteOffset,
                        int64_t leading, int64_t stride) {
  Value base = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), smemBase);
  Value addr = arith::AddIOp::create(b, loc, base, constI64(b, loc, byteOffset));
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, addr, constI64(b, loc, 4)),
      constI64(b, loc, 0x3FFF));
  int64_t fixed = ((leading >> 4) & 0x3FFF) << 16 | (int64_t((stride >> 4) & 0x3FFF) << 32);
  return arith::OrIOp::create(b, loc, start, constI64(b, loc, fixed));
}

FailureOr<Value> cuda::lowerDotToWgmma(OpBuilder &b, tt::DotOp op, Value aVec, Value bVec,
                                       Value cVec, SimtState &s) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1), n = bType.getDimSize(1);
  std::optional<MmaLayout> layout = wgmmaLayout(m, n, s.threads);
  if (!layout || k % 16)
    return failure();
  Type elem = aType.getElementType();
  NVVM::WGMMATypes type = elem.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  int64_t eb = smemElementBytes(elem);
  // A [m, k] K-major: core matrices along K kCoreSpacing apart (the
  // descriptor's leading offset), 8-row groups k / 8 of them apart (its
  // stride offset). B [k, n] MN-major (the 16 bytes along N): core matrices
  // along N kCoreSpacing apart (stride offset), 8-row groups along K n / 8
  // of them apart (leading offset).
  int64_t perCore = 16 / eb;
  int64_t aLeading = kCoreSpacing, aStride = k / perCore * kCoreSpacing;
  int64_t bLeading = n / perCore * kCoreSpacing, bStride = kCoreSpacing;
  int64_t aBytes = (m / 8) * aStride, bBytes = (k / 8) * bLeading;
  reserveSmem(s, aBytes + bBytes);

  // Readers of the previous contents (the last dot's wgmma) are done.
  barrier(b, loc);
  writeCoreMatrices(b, loc, s, 0, aVec, aType, aStride, aLeading);
  writeCoreMatrices(b, loc, s, aBytes, bVec, bType, bLeading, bStride);
  // wgmma reads through the async proxy: order the writes before it.
  NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                             NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  barrier(b, loc);

  int64_t regs = layout->perThread();
  Type f32 = b.getF32Type();
  auto accType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  SmallVector<Type>(regs, f32));
  Value acc = LLVM::UndefOp::create(b, loc, accType);
  for (int64_t i = 0; i < regs; ++i)
    acc = LLVM::InsertValueOp::create(b, loc, acc, extractSlot(b, loc, cVec, i), i);

  // Warpgroup g computes rows 64g .. 64g + 63: 8-row groups 8g.. of A.
  Value group = arith::DivUIOp::create(b, loc, s.tid, constI32(b, loc, 128));
  Value groupOffset = arith::MulIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), group),
      constI64(b, loc, 8 * aStride));
  Value aBase = smemByteAddress(b, loc, s.smem, groupOffset);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t ks = 0; ks < k / 16; ++ks) {
    // 16 of K: two core matrices along K for A (16-bit types), two 8-row
    // groups for B.
    Value descA = descriptor(b, loc, aBase, ks * 2 * aLeading, aLeading, aStride);
    Value descB = descriptor(b, loc, s.smem, aBytes + ks * 2 * bLeading, bLeading, bStride);
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accType, acc, descA, descB,
        NVVM::MMAShapeAttr::get(b.getContext(), 64, n, 16),
        NVVM::WGMMATypesAttr::get(b.getContext(), type),
        NVVM::WGMMATypesAttr::get(b.getContext(), type),
        NVVM::WGMMATypesAttr::get(b.getContext(), NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(b.getContext(), NVVM::WGMMAScaleOut::one),
        NVVM::WGMMAScaleInAttr::get(b.getContext(), NVVM::WGMMAScaleIn::one),
        NVVM::WGMMAScaleInAttr::get(b.getContext(), NVVM::WGMMAScaleIn::one),
        NVVM::MMALayoutAttr::get(b.getContext(), NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(b.getContext(), NVVM::MMALayout::row),
        NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> out;
  for (int64_t i = 0; i < regs; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  return buildVector(b, loc, out);
}
