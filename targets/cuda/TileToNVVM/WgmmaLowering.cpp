//===- WgmmaLowering.cpp - dots on Hopper's warpgroup MMA (sm_90a) --------===//
//
// A [M, K] and B [K, N] are read from shared memory in wgmmaOperandLayout:
// A K-major, B MN-major (as they are in memory; B with wgmma's transpose
// flag) or, when B is the transpose of a [N, K] tile (kMajorB), K-major
// like A; A the transpose of a [K, M] tile (mnMajorA) MN-major like B, with the 128-byte swizzle where rows are whole multiples of 128
// bytes, else as no-swizzle core matrices (8 rows x 16 bytes each). Either
// way the 16-byte pieces threads hold (or cp.async copies, when
// pallas-stage-loads staged the operands) land in one store. The descriptors
// give the layout's spacings. Each warpgroup (4 warps) computes 64 rows of
// C with one wgmma.mma_async m64nNk16 per 16 of K (m64nNk32 per 32 for f8,
// whose operands wgmma reads K-major only); C stays in registers in
// the "pallas.wgmma" layout, which is the wgmma accumulator layout.
//
//===----------------------------------------------------------------------===//
#include "TileToNVVM/DotLowering.h"
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/PatternBase.h"
#include "TileToNVVM/Patterns.h"
#include "TileToNVVM/SharedMemory.h"
#include "TileToNVVM/SimtState.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Passes/ExpandF8Conversions.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

/// The 64-bit wgmma shared-memory matrix descriptor of the operand at
/// `smemBase`.
static Value descriptor(OpBuilder &b, Location loc, Value smemBase, int64_t leading,
                        int64_t stride, bool swizzled) {
  Value base = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), smemBase);
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, base, constI64(b, loc, 4)),
      constI64(b, loc, 0x3FFF));
  uint64_t fixed = ((leading >> 4) & 0x3FFF) << 16 | (uint64_t((stride >> 4) & 0x3FFF) << 32);
  if (swizzled)
    fixed |= 1ull << 62; // 128-byte swizzle
  return arith::OrIOp::create(b, loc, start, constI64(b, loc, (int64_t)fixed));
}

/// The descriptor of the part `byteOffset` (a multiple of 16) into the
/// operand described by `first`: the start address field (bits 0-13,
/// address / 16) grows by byteOffset / 16 and never carries out, shared
/// memory being smaller than 2^18 bytes. One add per wgmma instead of the
/// whole computation.
static Value descriptorAt(OpBuilder &b, Location loc, Value first, int64_t byteOffset) {
  if (byteOffset == 0)
    return first;
  return arith::AddIOp::create(b, loc, first, constI64(b, loc, byteOffset / 16));
}

namespace {
/// How the wgmma steps (16 of K each) walk an operand in shared memory.
struct OperandWalk {
  int64_t leading, stride;
  bool swizzled;
  /// Bytes from the operand's start to step `ks`'s part.
  std::function<int64_t(int64_t)> step;
};

/// A [m, k], K-major. Swizzled: atoms of 8 rows x 128 bytes 1024 apart
/// along M (stride), a step is 32 bytes into a row. Core matrices: along K
/// the leading offset apart, 8-row groups the stride offset.
OperandWalk walkA(const OperandSmemLayout &l) {
  if (l.swizzled)
    return {16, 1024, true, [l](int64_t ks) {
              int64_t byte = ks * 32;
              return byte / 128 * l.atomColumnBytes + byte % 128;
            }};
  return {l.colGroupBytes, l.rowGroupBytes, false,
          [l](int64_t ks) { return ks * 2 * l.colGroupBytes; }};
}

/// B [k, n], MN-major. Swizzled: atoms 128 bytes wide along N (leading
/// offset apart), 8-row groups along K 1024 apart (stride). Core matrices:
/// along N the stride offset apart, 8-row groups along K the leading.
OperandWalk walkB(const OperandSmemLayout &l) {
  if (l.swizzled)
    return {l.atomColumnBytes, 1024, true, [](int64_t ks) { return ks * 16 * 128; }};
  return {l.rowGroupBytes, l.colGroupBytes, false,
          [l](int64_t ks) { return ks * 2 * l.rowGroupBytes; }};
}
} // namespace

/// Bytes from B's start to the `window`-th run of `cols` columns (an i32;
/// null where the layout cannot start a descriptor there). K-major B: `cols`
/// rows down. MN-major B, swizzled, a window narrower than an atom column
/// (32 bf16 columns of 64): the descriptor starts inside the atom's rows,
/// as K-major operands' k steps do, wgmma swizzling the absolute address.
static Value columnWindowOffset(OpBuilder &b, Location loc, const OperandSmemLayout &l,
                                bool kMajor, int64_t cols, Value window) {
  int64_t bytes = cols * l.elemBytes;
  bool insideAtoms = !kMajor && l.swizzled && bytes % 16 == 0 && bytes < l.swizzleBytes &&
                     l.swizzleBytes % bytes == 0;
  if (!insideAtoms) {
    std::optional<int64_t> shift = kMajor ? l.shiftBytes(cols, 0) : l.shiftBytes(0, cols);
    return shift ? (Value)arith::MulIOp::create(b, loc, window, constI32(b, loc, *shift))
                 : Value();
  }
  Value start = arith::MulIOp::create(b, loc, window, constI32(b, loc, bytes));
  Value atom = arith::DivUIOp::create(b, loc, start, constI32(b, loc, l.swizzleBytes));
  Value inAtom = arith::RemUIOp::create(b, loc, start, constI32(b, loc, l.swizzleBytes));
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, atom, constI32(b, loc, l.atomColumnBytes)), inAtom);
}

/// Four 32-bit registers of `regs`, `width` elements each, from slot
/// `start` on.
static SmallVector<Value> registerWords(OpBuilder &b, Location loc, Value regs, int64_t start,
                                        int64_t width) {
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i) {
    Value part = vector::ExtractStridedSliceOp::create(
        b, loc, regs, ArrayRef<int64_t>{start + width * i}, ArrayRef<int64_t>{width},
        ArrayRef<int64_t>{1});
    out.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), part));
  }
  return out;
}

/// The four 32-bit registers of A's fragment for k step `ks` from A held in
/// the accumulator layout (per thread, 8-column tiles of four: rows g and
/// g + 8, columns 2q and 2q + 1): tiles 2 ks and 2 ks + 1, as pairs, of
/// the m64 block whose slots start at `first`.
static SmallVector<Value> aFragment(OpBuilder &b, Location loc, Value regs, int64_t ks,
                                    int64_t first) {
  return registerWords(b, loc, regs, first + ks * 8, 2);
}

/// The four registers of f8 A already in fragment order
/// (#pallas_gpu.wgmma_f8_a): step `ks`'s 16 bytes of the m64 block whose
/// slots start at `first`, four a register.
static SmallVector<Value> fragmentWords(OpBuilder &b, Location loc, Value regs, int64_t ks,
                                        int64_t first) {
  return registerWords(b, loc, regs, first + ks * 16, 4);
}

/// The same for f8 (k steps of 32): the fragment's register r holds row g
/// (r even) or g + 8 (r odd), columns 4q .. 4q + 3 of the step's half r / 2,
/// while the accumulator layout left each thread two columns of each 8-column
/// tile. Each thread's tile (both rows' pairs, one word) goes to the two
/// threads of its quad that need it: two shuffles a half, in which every
/// thread sends the tile one receiver wants (even q: the half's first tile
/// in round one, odd q its second; the other way round in round two), and
/// the receiver joins the two pairs of each row.
SmallVector<Value> cuda::f8AFragment(OpBuilder &b, Location loc, Value regs, int64_t ks,
                                     int64_t first, Value tid) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return constI32(b, loc, v); };
  Value lane = arith::AndIOp::create(b, loc, tid, c(31));
  Value q = arith::AndIOp::create(b, loc, lane, c(3));
  Value quad = arith::SubIOp::create(b, loc, lane, q);
  Value qOdd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                     arith::AndIOp::create(b, loc, q, c(1)), c(0));
  Value qHigh = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, q, c(2));
  Value pairBase = arith::AddIOp::create(b, loc, quad,
                                         arith::ShLIOp::create(b, loc, arith::AndIOp::create(b, loc, q, c(1)), c(1)));
  Value qHalf = arith::ShRUIOp::create(b, loc, q, c(1));
  Value from1 = arith::AddIOp::create(b, loc, pairBase, qHalf);
  Value from2 = arith::AddIOp::create(b, loc, pairBase, arith::SubIOp::create(b, loc, c(1), qHalf));
  // Each 8-column tile of the step (both rows' pairs) as one word.
  SmallVector<Value> tiles = fragmentWords(b, loc, regs, ks, first);
  auto shuffle = [&](Value v, Value from) -> Value {
    return NVVM::ShflOp::create(b, loc, i32, c(-1), v, from, c(31), NVVM::ShflKind::idx,
                                UnitAttr());
  };
  // Columns 4q, 4q + 1 come from thread 2 (q % 2) of the quad: round one
  // for q < 2, round two for the others. One byte permute per register
  // joins the rounds' pairs (bytes 0-3 round one's, 4-7 round two's): row
  // g from the words' low halves, row g + 8 from their high halves.
  Value rowG = arith::SelectOp::create(b, loc, qHigh, c(0x1054), c(0x5410));
  Value rowG8 = arith::SelectOp::create(b, loc, qHigh, c(0x3276), c(0x7632));
  auto permute = [&](Value r1, Value r2, Value selector) -> Value {
    return NVVM::PermuteOp::create(b, loc, i32, r1, r2, selector,
                                   NVVM::PermuteModeAttr::get(b.getContext(),
                                                              NVVM::PermuteMode::DEFAULT));
  };
  SmallVector<Value> out(4);
  for (int64_t half = 0; half < 2; ++half) {
    Value x0 = tiles[2 * half], x1 = tiles[2 * half + 1];
    Value r1 = shuffle(arith::SelectOp::create(b, loc, qOdd, x1, x0), from1);
    Value r2 = shuffle(arith::SelectOp::create(b, loc, qOdd, x0, x1), from2);
    out[2 * half] = permute(r1, r2, rowG);
    out[2 * half + 1] = permute(r1, r2, rowG8);
  }
  return out;
}

/// Each 8-column tile's slots hold row g's pair (0, 1) and row g + 8's
/// (2, 3); with the keys permuted, a half's first tile holds keys 4q,
/// 4q + 1 of the thread's fragment and its second 4q + 2, 4q + 3. Each
/// register joins two pairs as they were rounded (f8x2 conversions that
/// ptxas writes into the halves of the register: no permute).
SmallVector<Value> cuda::f8AFragmentOfPermutedKeys(OpBuilder &b, Location loc, Value regs,
                                                   int64_t ks, int64_t first) {
  auto pair = [&](int64_t slot) -> Value {
    return vector::ExtractStridedSliceOp::create(b, loc, regs, ArrayRef<int64_t>{slot},
                                                 ArrayRef<int64_t>{2}, ArrayRef<int64_t>{1});
  };
  Type word = b.getI32Type();
  SmallVector<Value> out;
  for (int64_t half = 0; half < 2; ++half) {
    int64_t lo = first + ks * 16 + 8 * half, hi = lo + 4;
    for (int64_t row : {0, 2}) {
      Value bytes = vector::ShuffleOp::create(b, loc, pair(lo + row), pair(hi + row),
                                              ArrayRef<int64_t>{0, 1, 2, 3});
      out.push_back(LLVM::BitcastOp::create(b, loc, word, bytes));
    }
  }
  return out;
}

/// wgmma.mma_async with A from registers (the NVVM op takes A from shared
/// memory only): inline PTX, the accumulator tied in and out.
static Value wgmmaRegisterA(OpBuilder &b, Location loc, Value acc, int64_t regs,
                            ArrayRef<Value> a, Value descB, int64_t n, int64_t k,
                            StringRef type, bool transposeB) {
  std::string text, constraints;
  llvm::raw_string_ostream os(text), cs(constraints);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << 2 * regs + 5 << ", 0;\n"
     << "wgmma.mma_async.sync.aligned.m64n" << n << "k" << k << ".f32." << type << "." << type << " {";
  for (int64_t i = 0; i < regs; ++i)
    os << (i ? ", $" : "$") << i;
  os << "}, {$" << 2 * regs << ", $" << 2 * regs + 1 << ", $" << 2 * regs + 2 << ", $"
     << 2 * regs + 3 << "}, $" << 2 * regs + 4 << ", p, 1, 1";
  // The transpose flags exist for 16-bit types only (f8 is K-major).
  if (k == 16)
    os << ", " << (transposeB ? 1 : 0);
  os << ";\n}";
  SmallVector<Value> operands;
  for (int64_t i = 0; i < regs; ++i) {
    cs << "=f,";
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  }
  for (int64_t i = 0; i < regs; ++i)
    cs << i << ",";
  cs << "r,r,r,r,l,r";
  operands.append(a.begin(), a.end());
  operands.push_back(descB);
  operands.push_back(constI32(b, loc, 1));
  return inlinePtx(b, loc, acc.getType(), operands, text, constraints);
}

/// `vec`'s elements copied into registers of their own, here
/// (pallas_gpu.own_registers): inline PTX, kept in place.
static Value copyIntoOwnRegisters(OpBuilder &b, Location loc, Value vec) {
  int64_t n = cast<VectorType>(vec.getType()).getNumElements();
  std::string text, constraints;
  llvm::raw_string_ostream os(text), cs(constraints);
  SmallVector<Value> operands;
  for (int64_t i = 0; i < n; ++i) {
    os << "mov.b32 $" << i << ", $" << n + i << ";\n";
    cs << (i ? ",=f" : "=f");
    operands.push_back(extractSlot(b, loc, vec, i));
  }
  for (int64_t i = 0; i < n; ++i)
    cs << ",f";
  auto type = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                               SmallVector<Type>(n, b.getF32Type()));
  Value copied = inlinePtx(b, loc, type, operands, text, constraints);
  SmallVector<Value> elems;
  for (int64_t i = 0; i < n; ++i)
    elems.push_back(LLVM::ExtractValueOp::create(b, loc, copied, i));
  return buildVector(b, loc, elems);
}

FailureOr<Value> cuda::lowerDotToWgmma(OpBuilder &b, tt::DotOp op, DotOperand aIn,
                                       DotOperand bIn, Value cVec, SimtState &s) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  int64_t k = aType.getDimSize(1), n = bType.getDimSize(1);
  std::optional<MmaLayout> layout = mmaLayoutOf(cast<RankedTensorType>(op.getType()));
  Type elem = aType.getElementType();
  // One wgmma takes 32 bytes of K per row: 16 of bf16/f16, 32 of f8.
  int64_t kStep = isF8(elem) ? 32 : 16;
  if (!layout || k % kStep)
    return failure();
  NVVM::WGMMATypes type = elem.isBF16()                   ? NVVM::WGMMATypes::bf16
                          : elem.isF16()                  ? NVVM::WGMMATypes::f16
                          : isa<Float8E4M3FNType>(elem)   ? NVVM::WGMMATypes::e4m3
                                                          : NVVM::WGMMATypes::e5m2;
  // wgmma reads f8 operands K-major only (pallas-assign-layouts checked).
  if (isF8(elem) && !bIn.kMajor)
    return failure();
  // B given K-major ([N, K], kMajorB) is laid out and walked as A is; A
  // given MN-major ([K, M], mnMajorA) as B is.
  bool bKMajor = bIn.kMajor, aMNMajor = aIn.mnMajor;
  OperandSmemLayout aLayout = wgmmaOperandLayout(aMNMajor ? aIn.tile : aType),
                    bLayout = wgmmaOperandLayout(bIn.tile);
  OperandWalk aWalk = aMNMajor ? walkB(aLayout) : walkA(aLayout),
              bWalk = bKMajor ? walkA(bLayout) : walkB(bLayout);

  // wgmma reads through the async proxy.
  auto [aBase, bBase] = placeDotOperands(b, loc, s, aIn, bIn, aLayout, bLayout,
                                         /*asyncProxy=*/true);

  // Each warpgroup computes tilesM blocks of 64 rows (MmaLayout: block t of
  // warpgroup g is rows 16 warps t + 64 g), one wgmma chain each, into
  // its slots [t regs, (t + 1) regs).
  int64_t regs = layout->perThread() / layout->tilesM;
  Type f32 = b.getF32Type();
  auto accType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  SmallVector<Type>(regs, f32));
  SmallVector<Value> accs;
  for (int64_t t = 0; t < layout->tilesM; ++t) {
    Value acc = LLVM::UndefOp::create(b, loc, accType);
    for (int64_t i = 0; i < regs; ++i)
      acc = LLVM::InsertValueOp::create(b, loc, acc, extractSlot(b, loc, cVec, t * regs + i), i);
    accs.push_back(acc);
  }

  // Warpgroup `group` computes m64 blocks groupM, groupM + groups, ... of
  // the rows and (where the warpgroups split the columns too) the
  // groupN-th nPer columns: B's descriptor starts that many columns on.
  int64_t groups = layout->warpsM / 4;
  int64_t nPer = n / layout->warpsN;
  Value group = arith::DivUIOp::create(b, loc, s.tid, constI32(b, loc, 128));
  if (layout->warpsN > 1) {
    if (aIn.inAccumulatorLayout)
      return failure();
    Value groupN = arith::DivUIOp::create(b, loc, group, constI32(b, loc, groups));
    Value offset = columnWindowOffset(b, loc, bLayout, bKMajor, nPer, groupN);
    if (!offset)
      return failure();
    bBase = smemByteAddress(b, loc, bBase, offset);
    group = arith::RemUIOp::create(b, loc, group, constI32(b, loc, groups));
  }
  // 64 rows of A: 64 K-major rows, or (MN-major) 128 bytes across, one
  // atom column or eight core matrices.
  int64_t rows64 = aMNMajor ? (aLayout.swizzled ? aLayout.atomColumnBytes : 8 * aLayout.colGroupBytes)
                   : aLayout.swizzled ? 64 * 128
                                      : 8 * aLayout.rowGroupBytes;
  SmallVector<Value> aBlocks;
  for (int64_t t = 0; !aIn.inAccumulatorLayout && t < layout->tilesM; ++t) {
    Value block =
        t ? (Value)arith::AddIOp::create(b, loc, group, constI32(b, loc, t * groups)) : group;
    Value offset = arith::MulIOp::create(b, loc, block, constI32(b, loc, rows64));
    aBlocks.push_back(smemByteAddress(b, loc, aBase, offset));
  }
  if (op->hasAttr(pgpu::kTurnTakeAttrName))
    takeTurn(b, loc, s);
  Value firstB = descriptor(b, loc, bBase, bWalk.leading, bWalk.stride, bWalk.swizzled);
  SmallVector<Value> firstA;
  for (Value block : aBlocks)
    firstA.push_back(descriptor(b, loc, block, aWalk.leading, aWalk.stride, aWalk.swizzled));
  // A from registers: every fragment before the fence (f8's are computed),
  // so that no register a wgmma reads is written once they are issued.
  // A's m64 block t: its slots [t k / 2, (t + 1) k / 2), as the
  // accumulator's block t holds its rows.
  SmallVector<SmallVector<Value>> fragments;
  for (int64_t ks = 0; aIn.inAccumulatorLayout && ks < k / kStep; ++ks)
    for (int64_t t = 0; t < layout->tilesM; ++t)
      fragments.push_back(!isF8(elem)          ? aFragment(b, loc, aIn.regs, ks, t * k / 2)
                          : aIn.inFragmentOrder ? fragmentWords(b, loc, aIn.regs, ks, t * k / 2)
                                                : f8AFragment(b, loc, aIn.regs, ks, t * k / 2, s.tid));
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t ks = 0; ks < k / kStep; ++ks) {
    if (aIn.inAccumulatorLayout) {
      Value descB = descriptorAt(b, loc, firstB, bWalk.step(ks));
      for (int64_t t = 0; t < layout->tilesM; ++t)
        accs[t] = wgmmaRegisterA(b, loc, accs[t], regs, fragments[ks * layout->tilesM + t],
                                 descB, nPer, kStep, stringifyWGMMATypes(type),
                                 /*transposeB=*/!bKMajor);
      continue;
    }
    Value descB;
    for (int64_t t = 0; t < layout->tilesM; ++t) {
      Value descA = descriptorAt(b, loc, firstA[t], aWalk.step(ks));
      if (!descB)
        descB = descriptorAt(b, loc, firstB, bWalk.step(ks));
      accs[t] = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, accType, accs[t], descA, descB,
          NVVM::MMAShapeAttr::get(b.getContext(), 64, nPer, kStep),
          NVVM::WGMMATypesAttr::get(b.getContext(), type),
          NVVM::WGMMATypesAttr::get(b.getContext(), type),
          NVVM::WGMMATypesAttr::get(b.getContext(), NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(b.getContext(), NVVM::WGMMAScaleOut::one),
          NVVM::WGMMAScaleInAttr::get(b.getContext(), NVVM::WGMMAScaleIn::one),
          NVVM::WGMMAScaleInAttr::get(b.getContext(), NVVM::WGMMAScaleIn::one),
          NVVM::MMALayoutAttr::get(b.getContext(),
                                   aMNMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row),
          NVVM::MMALayoutAttr::get(b.getContext(),
                                   bKMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row),
          NVVM::MMAIntOverflowAttr());
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // Issued: the next warpgroup may issue while these run.
  if (op->hasAttr(pgpu::kTurnPassAttrName))
    passTurn(b, loc, s);
  // An asynchronous dot's results are read through a pallas_gpu.dot_wait.
  if (!op->hasAttr(pgpu::kAsyncDotAttrName))
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> out;
  for (Value acc : accs)
    for (int64_t i = 0; i < regs; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  return buildVector(b, loc, out);
}

namespace {
/// wgmma.wait_group as inline PTX with every waited value tied in and out:
/// LLVM and ptxas see the values defined by the wait, so nothing reads an
/// accumulator while its dot runs (the NVVM op takes no values).
struct DotWaitLowering : SimtPattern<pgpu::DotWaitOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::DotWaitOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    SmallVector<Value> scalars;
    SmallVector<int64_t> sizes;
    std::string constraints;
    llvm::raw_string_ostream cs(constraints);
    for (Value v : a.getValues()) {
      auto vt = dyn_cast<VectorType>(v.getType());
      if (!vt || !vt.getElementType().isF32())
        return op.emitError("internal error: pallas_gpu.dot_wait takes f32 accumulators");
      sizes.push_back(vt.getNumElements());
      for (int64_t i = 0; i < vt.getNumElements(); ++i)
        scalars.push_back(extractSlot(rw, loc, v, i));
    }
    for (size_t i = 0; i < scalars.size(); ++i)
      cs << (i ? ",=f" : "=f");
    for (size_t i = 0; i < scalars.size(); ++i)
      cs << "," << i;
    auto structType = LLVM::LLVMStructType::getLiteral(
        rw.getContext(), SmallVector<Type>(scalars.size(), rw.getF32Type()));
    std::string text = "wgmma.wait_group.sync.aligned " + std::to_string(op.getPending()) + ";";
    Value waited = inlinePtx(rw, loc, structType, scalars, text, constraints);
    SmallVector<Value> results;
    int64_t next = 0;
    for (int64_t size : sizes) {
      SmallVector<Value> elems;
      for (int64_t i = 0; i < size; ++i)
        elems.push_back(LLVM::ExtractValueOp::create(rw, loc, waited, next++));
      results.push_back(buildVector(rw, loc, elems));
    }
    rw.replaceOp(op, results);
    return success();
  }
};

/// pallas_gpu.own_registers: the copies.
struct OwnRegistersLowering : SimtPattern<pgpu::OwnRegistersOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::OwnRegistersOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    auto vec = dyn_cast<VectorType>(a.getSource().getType());
    if (!vec || !vec.getElementType().isF32())
      return op.emitError("internal error: pallas_gpu.own_registers takes f32 tiles in registers");
    rw.replaceOp(op, copyIntoOwnRegisters(rw, op.getLoc(), a.getSource()));
    return success();
  }
};
} // namespace

void cuda::populateWgmmaPatterns(const TypeConverter &tc, RewritePatternSet &patterns,
                                 SimtState &state) {
  patterns.add<DotWaitLowering, OwnRegistersLowering>(tc, patterns.getContext(), state);
}
