//===- ConvertTileToNVVM.cpp - tile IR to per-thread GPU code -----------===//
//
// Each `tt.func` (one program = one CTA of 32 * num_warps threads) becomes a
// `gpu.func` kernel in a `gpu.module`; every tensor becomes a per-thread
// vector (Dialect/Layouts.h, TileToNVVM/TypeConverter.h). Global memory is
// addressed with i64 addresses; loads and stores of aligned, contiguous,
// unmasked chunks are vectorised (checked at run time, so edge blocks stay
// correct), the others are predicated per element.
//
//===----------------------------------------------------------------------===//
#include "Analysis/AxisInfo.h"
#include "Analysis/LoopSlice.h"
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/PatternBase.h"
#include "TileToNVVM/Patterns.h"
#include "TileToNVVM/ProducerRegisters.h"
#include "TileToNVVM/SharedMemory.h"
#include "TileToNVVM/SimtState.h"
#include "TileToNVVM/ThreadSlots.h"
#include "TileToNVVM/TypeConverter.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Passes/ExpandF8Conversions.h"

#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Tile/ProgramGrid.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_CONVERTTILETONVVM
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

namespace {

Type globalPtrType(MLIRContext *ctx) { return LLVM::LLVMPointerType::get(ctx, 1); }

Value toGlobalPtr(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(b, loc, globalPtrType(b.getContext()), address);
}

/// Global memory holds i1 as i8.
Type storedType(Type elem, OpBuilder &b) {
  return elem.isInteger(1) ? b.getI8Type() : elem;
}

Value loadScalar(OpBuilder &b, Location loc, Type elem, Value address,
                 bool isVolatile = false) {
  Type stored = storedType(elem, b);
  Value v = LLVM::LoadOp::create(b, loc, stored, toGlobalPtr(b, loc, address),
                                 smemElementBytes(elem), isVolatile);
  return stored != elem ? (Value)arith::TruncIOp::create(b, loc, elem, v) : v;
}

void storeScalar(OpBuilder &b, Location loc, Value value, Value address) {
  if (value.getType().isInteger(1))
    value = arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, toGlobalPtr(b, loc, address),
                        smemElementBytes(value.getType()));
}

/// `value` when `cond`, else `otherwise()`, as an scf.if.
Value select(OpBuilder &b, Location loc, Value cond, Type type,
             function_ref<Value(OpBuilder &, Location)> then,
             function_ref<Value(OpBuilder &, Location)> otherwise) {
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, cond, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, then(b, loc));
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, otherwise(b, loc));
  }
  return ifOp.getResult(0);
}

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
}

Value andAll(OpBuilder &b, Location loc, ArrayRef<Value> conds) {
  Value r = conds.front();
  for (Value c : conds.drop_front())
    r = arith::AndIOp::create(b, loc, r, c);
  return r;
}

/// True when the chunk's addresses are consecutive and the first is aligned
/// to the whole chunk, so one vector access can serve it.
Value chunkIsContiguous(OpBuilder &b, Location loc, ArrayRef<Value> addrs,
                        int64_t elemBytes) {
  SmallVector<Value> conds;
  int64_t bytes = elemBytes * addrs.size();
  Value low = arith::AndIOp::create(b, loc, addrs[0], constI64(b, loc, bytes - 1));
  conds.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                                        constI64(b, loc, 0)));
  for (size_t j = 1; j < addrs.size(); ++j) {
    Value expect = arith::AddIOp::create(b, loc, addrs[0], constI64(b, loc, j * elemBytes));
    conds.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, addrs[j], expect));
  }
  return andAll(b, loc, conds);
}

bool vectorisable(int64_t vec, int64_t elemBytes) {
  int64_t bytes = vec * elemBytes;
  return vec > 1 && bytes <= 16 && (bytes & (bytes - 1)) == 0;
}

// --- Kernel structure -------------------------------------------------------

struct ReturnLowering : SimtPattern<tt::ReturnOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::ReturnOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    // No CTA leaves while a TMA store still reads its shared memory, nor
    // while its cluster's CTAs may still write it or arrive on its barriers.
    if (state.deferTmaStoreWait)
      NVVM::CpAsyncBulkWaitGroupOp::create(rw, op.getLoc(), 0, rw.getUnitAttr());
    if (state.cluster > 1)
      clusterBarrier(rw, op.getLoc());
    rw.replaceOpWithNewOp<gpu::ReturnOp>(op);
    return success();
  }
};

struct ProgramIdLowering : SimtPattern<tt::GetProgramIdOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::GetProgramIdOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    unsigned axis = static_cast<unsigned>(op.getAxis());
    if (axis < state.programIds.size()) {
      rw.replaceOp(op, state.programIds[axis]);
      return success();
    }
    gpu::Dimension dim = op.getAxis() == tt::ProgramIDDim::X   ? gpu::Dimension::x
                         : op.getAxis() == tt::ProgramIDDim::Y ? gpu::Dimension::y
                                                               : gpu::Dimension::z;
    Value id = gpu::BlockIdOp::create(rw, op.getLoc(), dim);
    rw.replaceOpWithNewOp<arith::IndexCastUIOp>(op, rw.getI32Type(), id);
    return success();
  }
};

// --- Elementwise ------------------------------------------------------------

/// `one` on each element of `x` (f32 or a vector of f32).
Value perElement(OpBuilder &b, Location loc, Value x, function_ref<Value(Value)> one) {
  auto vt = dyn_cast<VectorType>(x.getType());
  if (!vt)
    return one(x);
  Value out = arith::ConstantOp::create(b, loc, vt, b.getZeroAttr(vt));
  for (int64_t i = 0; i < vt.getNumElements(); ++i)
    out = vector::InsertOp::create(b, loc, one(vector::ExtractOp::create(b, loc, x, i)), out, i);
  return out;
}

/// 2^x for each f32 of `x` (a vector or a scalar) by ex2.approx.ftz: a
/// single MUFU.EX2, subnormal results flushed to zero.
Value flushingExp2(OpBuilder &b, Location loc, Value x) {
  return perElement(b, loc, x, [&](Value e) -> Value {
    return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                         b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
                                         ValueRange{e})
        .getResult(0);
  });
}

/// tanh.approx.f32 (no LLVM intrinsic of its own).
Value approxTanh(OpBuilder &b, Location loc, Value x) {
  return perElement(b, loc, x, [&](Value e) {
    return inlinePtx(b, loc, b.getF32Type(), {e}, "tanh.approx.f32 $0, $1;", "=f,f");
  });
}

/// `v` as a constant of `type` (f32, or a vector of f32: every element).
Value f32Constant(OpBuilder &b, Location loc, Type type, float v) {
  TypedAttr attr = b.getF32FloatAttr(v);
  if (auto vt = dyn_cast<VectorType>(type))
    attr = DenseElementsAttr::get(vt, attr);
  return arith::ConstantOp::create(b, loc, type, attr);
}

/// erf of f32 `x` (a vector or a scalar) without branches: x P(x^2) /
/// Q(x^2) on x clamped to [-4, 4] (|erf| rounds to 1 beyond), a rational
/// minimax fit (within 6 ulp; libdevice's erff, within 2, branches around
/// an ex2 per element, which in a GEMM epilogue's 128 elements a thread
/// doubles the time LLVM and ptxas take). NaN stays NaN.
Value rationalErf(OpBuilder &b, Location loc, Value x) {
  static constexpr float kNumerator[] = {1.911061886517018e-08f, -1.942286417033756e-06f,
                                         0.0001472843869123608f, 0.003990526776760817f,
                                         0.05152478069067001f,   0.2071245312690735f,
                                         1.1283791065216064f};
  static constexpr float kDenominator[] = {0.0010210981126874685f, 0.01495799608528614f,
                                           0.11797044426202774f, 0.5168905854225159f, 1.0f};
  auto constant = [&](float v) { return f32Constant(b, loc, x.getType(), v); };
  auto horner = [&](ArrayRef<float> coefficients, Value s) {
    Value r = constant(coefficients.front());
    for (float c : coefficients.drop_front())
      r = math::FmaOp::create(b, loc, r, s, constant(c));
    return r;
  };
  Value clamped = arith::MinimumFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, constant(-4.0f)), constant(4.0f));
  Value s = arith::MulFOp::create(b, loc, clamped, clamped);
  Value numerator = arith::MulFOp::create(b, loc, clamped, horner(kNumerator, s));
  auto flags = arith::FastMathFlagsAttr::get(
      b.getContext(), arith::FastMathFlags::afn | arith::FastMathFlags::arcp);
  return arith::DivFOp::create(b, loc, numerator, horner(kDenominator, s), flags);
}

/// f32 exp, exp2 and division as the GPU's approximate instructions
/// (ex2.approx, div.approx; within 2 ulp), erf as a rational function;
/// null for other ops.
Value fastMath(Operation *op, ArrayRef<Value> operands, TypeRange types,
               ConversionPatternRewriter &rw) {
  if (types.size() != 1 || !getElementTypeOrSelf(types[0]).isF32())
    return {};
  Location loc = op->getLoc();
  auto flags = arith::FastMathFlagsAttr::get(
      rw.getContext(), arith::FastMathFlags::afn | arith::FastMathFlags::arcp);
  if (isa<math::ExpOp>(op)) {
    Value log2e = f32Constant(rw, loc, types[0], 1.4426950408889634f);
    Value x = arith::MulFOp::create(rw, loc, operands[0], log2e);
    return math::Exp2Op::create(rw, loc, x, flags);
  }
  if (isa<arith::DivFOp>(op))
    return arith::DivFOp::create(rw, loc, operands[0], operands[1], flags);
  // exp2 of f32 as Triton lowers `tl.math.exp2`, which JAX's Pallas
  // kernels on the GPU run: one ex2.approx.ftz (subnormal results flushed);
  // the exact form takes three more instructions an element to scale
  // around the subnormal range.
  if (isa<math::Exp2Op>(op))
    return flushingExp2(rw, loc, operands[0]);
  if (isa<math::TanhOp>(op) && op->hasAttr(pgpu::kApproxTanhAttrName))
    return approxTanh(rw, loc, operands[0]);
  if (isa<math::ErfOp>(op))
    return rationalErf(rw, loc, operands[0]);
  return {};
}

/// Whether f32 `v` reaches anything but arithmetic only through a
/// truncation to bf16 (a GEMM epilogue's activation stored as bf16).
bool narrowedToBF16(Value v) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (seen.size() > 64)
      return false;
    for (Operation *user : x.getUsers()) {
      if (auto trunc = dyn_cast<arith::TruncFOp>(user)) {
        if (!getElementTypeOrSelf(trunc.getType()).isBF16())
          return false;
        continue;
      }
      if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp, math::FmaOp,
               arith::SelectOp, arith::MaximumFOp, arith::MinimumFOp>(user))
        return false;
      work.push_back(user->getResult(0));
    }
  }
  return true;
}

/// Pairs of int8 (a vector of an even count) to bf16 in the bf16 pipe,
/// two per instruction: each byte goes under the exponent of 2^7 (one
/// permute for both), where its low 7 bits count in units of 1 and its
/// sign bit lands on the exponent's low bit, making 2^8 of the 2^7; the
/// value is then (2^7 + low bits) - (2^7 or 2^8), exact.
Value pairsOfInt8ToBF16(OpBuilder &b, Location loc, Value bytes) {
  auto in = cast<VectorType>(bytes.getType());
  Type i32 = b.getI32Type(), pair = VectorType::get({2}, b.getBF16Type());
  SmallVector<Value> out;
  for (int64_t i = 0; i < in.getNumElements(); i += 2) {
    Value two = vector::ExtractStridedSliceOp::create(b, loc, bytes, ArrayRef<int64_t>{i},
                                                      ArrayRef<int64_t>{2}, ArrayRef<int64_t>{1});
    // The two bytes as the low half of a word (vector.bitcast keeps the
    // rank: one i16, extracted).
    Value half = vector::ExtractOp::create(
        b, loc, vector::BitCastOp::create(b, loc, VectorType::get({1}, b.getI16Type()), two), 0);
    Value word = arith::ExtUIOp::create(b, loc, i32, half);
    Value bf = inlinePtx(b, loc, i32, {word},
                         "{\n.reg .b32 s<3>;\nprmt.b32 s0, $1, 0x43, 0x4140;\n"
                         "and.b32 s1, s0, 0xff7fff7f;\nand.b32 s2, s0, 0xff80ff80;\n"
                         "sub.bf16x2 $0, s1, s2;\n}",
                         "=r,r");
    Value v = LLVM::BitcastOp::create(b, loc, pair, bf);
    out.push_back(vector::ExtractOp::create(b, loc, v, 0));
    out.push_back(vector::ExtractOp::create(b, loc, v, 1));
  }
  return buildVector(b, loc, out);
}

/// 8-bit integers to floats without the GPU's conversion unit (I2F runs at
/// a quarter of the ALU's rate; an int8 operand converted per k step of a
/// matmul would wait on it). Signed to bf16, pairs at once
/// (pairsOfInt8ToBF16); else the byte, biased to unsigned, becomes the low
/// mantissa bits of 2^23 (an OR), and subtracting 2^23 (+ 128 for the
/// bias) leaves its value, exact in f32, bf16 and f16 alike. Null for
/// other ops.
Value byteToFloat(Operation *op, ArrayRef<Value> operands, TypeRange types,
                  ConversionPatternRewriter &rw) {
  bool isSigned = isa<arith::SIToFPOp>(op);
  if ((!isSigned && !isa<arith::UIToFPOp>(op)) || types.size() != 1 ||
      !getElementTypeOrSelf(operands[0].getType()).isInteger(8))
    return {};
  Type to = getElementTypeOrSelf(types[0]);
  if (!to.isF32() && !to.isBF16() && !to.isF16())
    return {};
  Location loc = op->getLoc();
  if (auto vt = dyn_cast<VectorType>(operands[0].getType());
      vt && isSigned && to.isBF16() && vt.getRank() == 1 && vt.getNumElements() % 2 == 0)
    return pairsOfInt8ToBF16(rw, loc, operands[0]);
  auto like = [&](Type elem) -> Type {
    auto vt = dyn_cast<VectorType>(operands[0].getType());
    return vt ? (Type)VectorType::get(vt.getShape(), elem) : elem;
  };
  auto splat = [&](Type t, TypedAttr scalar) -> Value {
    auto vt = dyn_cast<VectorType>(t);
    return arith::ConstantOp::create(
        rw, loc, t, vt ? (TypedAttr)DenseElementsAttr::get(vt, scalar) : scalar);
  };
  Type i32 = like(rw.getI32Type()), f32 = like(rw.getF32Type());
  Value bits = arith::ExtUIOp::create(rw, loc, i32, operands[0]);
  if (isSigned)
    bits = arith::XOrIOp::create(rw, loc, bits, splat(i32, rw.getI32IntegerAttr(0x80)));
  bits = arith::OrIOp::create(rw, loc, bits, splat(i32, rw.getI32IntegerAttr(0x4B000000)));
  Value f = arith::BitcastOp::create(rw, loc, f32, bits);
  f = arith::SubFOp::create(rw, loc, f,
                            splat(f32, rw.getF32FloatAttr(isSigned ? 8388736.0f : 8388608.0f)));
  return to.isF32() ? f : (Value)arith::TruncFOp::create(rw, loc, types[0], f);
}

/// f8 conversions on sm_89 and later (f8 data is i8 here): to f8 two
/// values a cvt (cvt.rn.satfinite: a finite value past the type's largest
/// rounds to it, as Triton's casts and the GPU's f8 kernels do; ml_dtypes,
/// and so the host, gives NaN there), from f8 through f16, which holds
/// every f8 value exactly. Null for other ops.
Value f8Conversion(Operation *op, ArrayRef<Value> operands, TypeRange types,
                   ConversionPatternRewriter &rw) {
  if (!isa<arith::TruncFOp, arith::ExtFOp>(op) || types.size() != 1)
    return {};
  Type from = getElementTypeOrSelf(op->getOperand(0).getType());
  Type to = getElementTypeOrSelf(op->getResult(0).getType());
  if (!isF8(from) && !isF8(to))
    return {};
  Location loc = op->getLoc();
  auto vt = dyn_cast<VectorType>(operands[0].getType());
  int64_t count = vt ? vt.getNumElements() : 1;
  auto element = [&](int64_t i) -> Value {
    return vt ? (Value)vector::ExtractOp::create(rw, loc, operands[0], i) : operands[0];
  };
  SmallVector<Value> out;
  Type f32 = rw.getF32Type();
  if (isF8(to)) {
    auto asF32 = [&](Value v) -> Value {
      return v.getType().isF32() ? v : (Value)arith::ExtFOp::create(rw, loc, f32, v);
    };
    // The pairs as 16-bit words, the vector of words then read as bytes:
    // LLVM then joins adjacent pairs with one byte permute where a word of
    // four is wanted (wgmma's f8 A fragments), not byte by byte.
    SmallVector<Value> words;
    for (int64_t i = 0; i < count; i += 2) {
      Value lo = asF32(element(i));
      Value hi = i + 1 < count ? asF32(element(i + 1)) : lo;
      // The first operand lands in the upper byte.
      words.push_back(NVVM::ConvertF32x2ToF8x2Op::create(
          rw, loc, rw.getI16Type(), hi, lo, NVVM::FPRoundingMode::RN,
          NVVM::SaturationMode::SATFINITE, /*relu=*/false, to));
    }
    if (vt && count % 2 == 0)
      return vector::BitCastOp::create(rw, loc, VectorType::get({count}, rw.getI8Type()),
                                       buildVector(rw, loc, words));
    auto pair = VectorType::get({2}, rw.getI8Type());
    for (int64_t i = 0; i < count; i += 2) {
      Value two = LLVM::BitcastOp::create(rw, loc, pair, words[i / 2]);
      out.push_back(vector::ExtractOp::create(rw, loc, two, 0));
      if (i + 1 < count)
        out.push_back(vector::ExtractOp::create(rw, loc, two, 1));
    }
  } else {
    auto pair = VectorType::get({2}, rw.getI8Type());
    auto halves = VectorType::get({2}, rw.getF16Type());
    for (int64_t i = 0; i < count; i += 2) {
      Value hi = i + 1 < count ? element(i + 1) : element(i);
      Value two = vector::FromElementsOp::create(rw, loc, pair, ValueRange{element(i), hi});
      Value h = NVVM::ConvertF8x2ToF16x2Op::create(rw, loc, halves, two, /*relu=*/false,
                                                    from);
      for (int64_t j = 0; j < 2 && i + j < count; ++j) {
        Value v = vector::ExtractOp::create(rw, loc, h, j);
        if (!to.isF16())
          v = arith::ExtFOp::create(rw, loc, f32, v);
        if (to.isBF16())
          v = arith::TruncFOp::create(rw, loc, to, v);
        out.push_back(v);
      }
    }
  }
  return vt ? buildVector(rw, loc, out) : out.front();
}

/// arith/math ops on tensors: the same op on the per-thread vectors.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rw) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions())
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    if (Value fast = fastMath(op, operands, types, rw)) {
      rw.replaceOp(op, fast);
      return success();
    }
    if (Value converted = f8Conversion(op, operands, types, rw)) {
      rw.replaceOp(op, converted);
      return success();
    }
    if (Value converted = byteToFloat(op, operands, types, rw)) {
      rw.replaceOp(op, converted);
      return success();
    }
    OperationState state(op->getLoc(), op->getName().getStringRef(), operands,
                         types, op->getAttrs());
    rw.replaceOp(op, rw.create(state)->getResults());
    return success();
  }
};

struct ConstantLowering : SimtPattern<arith::ConstantOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense)
      return failure();
    auto vt = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    if (dense.isSplat()) {
      rw.replaceOpWithNewOp<arith::ConstantOp>(
          op, vt, DenseElementsAttr::get(vt, dense.getSplatValue<Attribute>()));
      return success();
    }
    // A non-uniform constant: each thread picks its elements from a vector
    // of all of them (small tensors only).
    auto all = VectorType::get({dense.getNumElements()}, vt.getElementType());
    if (dense.getNumElements() > 4096)
      return op.emitError("tensor constants of more than 4096 distinct elements "
                          "are not supported on CUDA targets");
    Location loc = op.getLoc();
    Value table = arith::ConstantOp::create(
        rw, loc, all,
        DenseElementsAttr::get(all, llvm::to_vector(dense.getValues<Attribute>())));
    SmallVector<Value> elems;
    for (Value idx : slotElementIndices(rw, loc, state, cast<RankedTensorType>(op.getType()))) {
      Value i = arith::IndexCastOp::create(rw, loc, rw.getIndexType(), idx);
      elems.push_back(vector::ExtractOp::create(rw, loc, table, ArrayRef<OpFoldResult>{i}));
    }
    rw.replaceOp(op, buildVector(rw, loc, elems));
    return success();
  }
};

struct SplatLowering : SimtPattern<tt::SplatOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::SplatOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Type t = getTypeConverter()->convertType(op.getType());
    rw.replaceOpWithNewOp<vector::BroadcastOp>(op, t, a.getSrc());
    return success();
  }
};

struct MakeRangeLowering : SimtPattern<tt::MakeRangeOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::MakeRangeOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    // broadcast(first index of the thread) + per-slot constants: in vector
    // form, so that range analysis sees the bounds of every element.
    Location loc = op.getLoc();
    BlockedLayout l(op.getType().getNumElements(), state.threads);
    Value chunk = l.replicated() ? (Value)arith::RemUIOp::create(rw, loc, state.tid,
                                                               constI32(rw, loc, l.chunks))
                                 : state.tid;
    Value base = arith::MulIOp::create(rw, loc, chunk, constI32(rw, loc, l.vec));
    auto vt = VectorType::get({l.perThread}, rw.getI32Type());
    SmallVector<int32_t> offsets;
    for (int64_t i = 0; i < l.perThread; ++i)
      offsets.push_back((i / l.vec) * l.threads * l.vec + i % l.vec + op.getStart());
    Value splat = vector::BroadcastOp::create(rw, loc, vt, base);
    Value cst = arith::ConstantOp::create(rw, loc, vt, DenseIntElementsAttr::get(vt, offsets));
    rw.replaceOpWithNewOp<arith::AddIOp>(op, splat, cst);
    return success();
  }
};

/// Reshapes keep the row-major order, and so every element where it is.
template <typename Op>
struct KeepElementsLowering : SimtPattern<Op> {
  using SimtPattern<Op>::SimtPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor a,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, a.getSrc());
    return success();
  }
};

struct AddPtrLowering : SimtPattern<tt::AddPtrOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::AddPtrOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type pointee = cast<tt::PointerType>(getElementTypeOrSelf(op.getPtr().getType()))
                       .getPointeeType();
    Type addrType = a.getPtr().getType();
    Value off = a.getOffset();
    if (getElementTypeOrSelf(off.getType()).getIntOrFloatBitWidth() < 64)
      off = arith::ExtSIOp::create(rw, loc, addrType, off);
    Value bytes = constI64(rw, loc, smemElementBytes(pointee));
    if (isa<VectorType>(addrType))
      bytes = vector::BroadcastOp::create(rw, loc, addrType, bytes);
    Value scaled = arith::MulIOp::create(rw, loc, off, bytes);
    rw.replaceOpWithNewOp<arith::AddIOp>(op, a.getPtr(), scaled);
    return success();
  }
};

// --- Global memory ----------------------------------------------------------

/// How a chunk of a load or store is accessed: `piece` elements per vector
/// access (up to 16 bytes), and whether the pieces are known contiguous and
/// aligned and the mask uniform over each (no run-time checks then).
struct AccessPlan {
  int64_t piece = 1;
  bool known = false;
};

AccessPlan planAccess(SimtState &state, Operation *op, Value ptr, Value mask,
                      int64_t vec, int64_t elemBytes) {
  AccessPlan plan;
  plan.piece = std::max<int64_t>(1, std::min<int64_t>(vec, 16 / elemBytes));
  if (!vectorisable(plan.piece, elemBytes)) {
    plan.piece = 1;
    return plan;
  }
  auto type = cast<RankedTensorType>(ptr.getType());
  if (type.getShape().back() < vec)
    return plan;
  auto it = state.access.find(op);
  if (it == state.access.end())
    return plan;
  auto [p, m] = it->second;
  plan.known = p.contiguity >= vec && p.divisibility >= plan.piece * elemBytes &&
               (!mask || m.constancy >= vec);
  return plan;
}

struct LoadLowering : SimtPattern<tt::LoadOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::LoadOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    Type elem = getElementTypeOrSelf(resultType);
    bool isVolatile = op.getIsVolatile();
    auto vt = dyn_cast<VectorType>(resultType);
    if (!vt) {
      Value addr = a.getPtr();
      if (!a.getMask()) {
        rw.replaceOp(op, loadScalar(rw, loc, elem, addr, isVolatile));
        return success();
      }
      Value other = a.getOther() ? a.getOther() : zeroOf(rw, loc, elem);
      rw.replaceOp(op, select(rw, loc, a.getMask(), elem,
                              [&](OpBuilder &b, Location l) {
                                return loadScalar(b, l, elem, addr, isVolatile);
                              },
                              [&](OpBuilder &, Location) { return other; }));
      return success();
    }
    int64_t n = cast<RankedTensorType>(op.getType()).getNumElements();
    BlockedLayout layout(n, state.threads);
    int64_t eb = smemElementBytes(elem);
    AccessPlan plan = isVolatile ? AccessPlan() : planAccess(state, op, op.getPtr(), op.getMask(),
                                                             layout.vec, eb);
    int64_t piece = plan.piece;
    auto pieceType = VectorType::get({piece}, elem);
    auto vectorLoad = [&](OpBuilder &b, Location l, Value addr) -> Value {
      auto stored = VectorType::get({piece}, storedType(elem, b));
      Value v = LLVM::LoadOp::create(b, l, stored, toGlobalPtr(b, l, addr), eb * piece);
      return stored != pieceType ? (Value)arith::TruncIOp::create(b, l, pieceType, v) : v;
    };
    SmallVector<Value> values;
    for (int64_t c = 0; c < layout.perThread; c += piece) {
      SmallVector<Value> addrs, masks, others;
      for (int64_t j = 0; j < piece; ++j) {
        addrs.push_back(extractSlot(rw, loc, a.getPtr(), c + j));
        if (a.getMask())
          masks.push_back(extractSlot(rw, loc, a.getMask(), c + j));
        others.push_back(a.getOther() ? extractSlot(rw, loc, a.getOther(), c + j)
                                      : zeroOf(rw, loc, elem));
      }
      Value chunk;
      if (piece == 1) {
        chunk = masks.empty() ? loadScalar(rw, loc, elem, addrs[0], isVolatile)
                              : select(rw, loc, masks[0], elem,
                                       [&](OpBuilder &b, Location l) {
                                         return loadScalar(b, l, elem, addrs[0], isVolatile);
                                       },
                                       [&](OpBuilder &, Location) { return others[0]; });
        values.push_back(chunk);
        continue;
      }
      if (plan.known) {
        // Contiguous and aligned by construction; one mask bit per piece.
        chunk = masks.empty()
                    ? vectorLoad(rw, loc, addrs[0])
                    : select(rw, loc, masks[0], pieceType,
                             [&](OpBuilder &b, Location l) { return vectorLoad(b, l, addrs[0]); },
                             [&](OpBuilder &b, Location l) { return buildVector(b, l, others); });
      } else {
        auto slow = [&](OpBuilder &b, Location l) {
          SmallVector<Value> elems;
          for (int64_t j = 0; j < piece; ++j)
            elems.push_back(masks.empty()
                                ? loadScalar(b, l, elem, addrs[j], isVolatile)
                                : select(b, l, masks[j], elem,
                                         [&](OpBuilder &b2, Location l2) {
                                           return loadScalar(b2, l2, elem, addrs[j], isVolatile);
                                         },
                                         [&](OpBuilder &, Location) { return others[j]; }));
          return buildVector(b, l, elems);
        };
        SmallVector<Value> conds = masks;
        conds.push_back(chunkIsContiguous(rw, loc, addrs, eb));
        chunk = select(rw, loc, andAll(rw, loc, conds), pieceType,
                       [&](OpBuilder &b, Location l) { return vectorLoad(b, l, addrs[0]); },
                       slow);
      }
      for (int64_t j = 0; j < piece; ++j)
        values.push_back(extractSlot(rw, loc, chunk, j));
    }
    rw.replaceOp(op, buildVector(rw, loc, values));
    return success();
  }
};

/// Whether a store's chunks of `vec` 32-bit elements (one 32-byte sector
/// each, written as two 16-byte pieces) may trade halves with the
/// neighbouring lane's chunk, so that each store instruction writes whole
/// sectors: no mask, every thread owning its elements, and each lane
/// pair's chunks one run of memory. (Written half a sector per
/// instruction, L2 takes every sector in two partial writes: a zero fill
/// of f32 blocks ran at half the bandwidth of torch's fill.)
bool tradesHalfSectors(SimtState &state, tt::StoreOp op, Type elem, int64_t vec,
                       int64_t piece, bool masked) {
  if (masked || !(elem.isF32() || elem.isInteger(32)) || piece * 2 != vec || piece != 4)
    return false;
  auto type = cast<RankedTensorType>(op.getValue().getType());
  if (type.getShape().back() % (2 * vec) || type.getNumElements() % (2 * vec * state.threads))
    return false;
  auto it = state.access.find(op);
  if (it == state.access.end())
    return false;
  // (Whole sectors where the arrays are 32-byte aligned, as allocators
  // give them; correct, 16-byte aligned pieces, either way.)
  return it->second.first.contiguity >= 2 * vec;
}

struct StoreLowering : SimtPattern<tt::StoreOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::StoreOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto vt = dyn_cast<VectorType>(a.getValue().getType());
    if (!vt) {
      // A scalar store: every thread would store the same value; one does.
      Value cond = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, state.tid,
                                         constI32(rw, loc, 0));
      if (a.getMask())
        cond = arith::AndIOp::create(rw, loc, cond, a.getMask());
      auto ifOp = scf::IfOp::create(rw, loc, cond, false);
      rw.setInsertionPointToStart(ifOp.thenBlock());
      storeScalar(rw, loc, a.getValue(), a.getPtr());
      rw.eraseOp(op);
      return success();
    }
    Type elem = vt.getElementType();
    int64_t n = cast<RankedTensorType>(op.getValue().getType()).getNumElements();
    BlockedLayout layout(n, state.threads);
    int64_t eb = smemElementBytes(elem);
    AccessPlan plan = planAccess(state, op, op.getPtr(), op.getMask(), layout.vec, eb);
    int64_t piece = plan.piece;
    Value owner = layout.replicated() ? isOwner(rw, loc, state, n) : Value();
    auto vectorStore = [&](OpBuilder &b, Location l, ArrayRef<Value> vals, Value addr) {
      Value v = buildVector(b, l, vals);
      if (elem.isInteger(1))
        v = arith::ExtUIOp::create(b, l, VectorType::get({piece}, b.getI8Type()), v);
      LLVM::StoreOp::create(b, l, v, toGlobalPtr(b, l, addr), eb * piece);
    };
    auto guarded = [&](OpBuilder &b, Location l, Value cond,
                       function_ref<void(OpBuilder &, Location)> body) {
      if (!cond)
        return body(b, l);
      auto ifOp = scf::IfOp::create(b, l, cond, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      body(b, l);
    };
    if (plan.known && tradesHalfSectors(state, op, elem, layout.vec, piece,
                                        a.getMask() || owner)) {
      // Lane 2k's chunk is the sector the pair writes first, lane 2k+1's
      // the second: each lane sends the half its neighbour writes.
      Value odd = arith::CmpIOp::create(
          rw, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(rw, loc, state.tid, constI32(rw, loc, 1)), constI32(rw, loc, 0));
      auto pick = [&](Value cond, Value ifTrue, Value ifFalse) {
        return arith::SelectOp::create(rw, loc, cond, ifTrue, ifFalse).getResult();
      };
      for (int64_t c = 0; c < layout.perThread; c += layout.vec) {
        SmallVector<Value> first, second;
        for (int64_t j = 0; j < piece; ++j) {
          Value low = extractSlot(rw, loc, a.getValue(), c + j);
          Value high = extractSlot(rw, loc, a.getValue(), c + piece + j);
          Value got = gpu::ShuffleOp::create(rw, loc, pick(odd, low, high), constI32(rw, loc, 1),
                                             constI32(rw, loc, 32), gpu::ShuffleMode::XOR)
                          .getShuffleResult();
          first.push_back(pick(odd, got, low));
          second.push_back(pick(odd, high, got));
        }
        Value base = extractSlot(rw, loc, a.getPtr(), c);
        auto offset = [&](int64_t bytes) {
          return arith::AddIOp::create(rw, loc, base, constI64(rw, loc, bytes)).getResult();
        };
        vectorStore(rw, loc, first, pick(odd, offset(-16), base));
        vectorStore(rw, loc, second, pick(odd, offset(16), offset(32)));
      }
      rw.eraseOp(op);
      return success();
    }
    for (int64_t c = 0; c < layout.perThread; c += piece) {
      SmallVector<Value> addrs, masks, vals;
      for (int64_t j = 0; j < piece; ++j) {
        addrs.push_back(extractSlot(rw, loc, a.getPtr(), c + j));
        vals.push_back(extractSlot(rw, loc, a.getValue(), c + j));
        Value m = a.getMask() ? extractSlot(rw, loc, a.getMask(), c + j) : owner;
        if (a.getMask() && owner)
          m = arith::AndIOp::create(rw, loc, m, owner);
        if (m)
          masks.push_back(m);
      }
      auto slow = [&](OpBuilder &b, Location l) {
        for (int64_t j = 0; j < piece; ++j)
          guarded(b, l, masks.empty() ? Value() : masks[j],
                  [&](OpBuilder &b2, Location l2) { storeScalar(b2, l2, vals[j], addrs[j]); });
      };
      if (piece == 1) {
        slow(rw, loc);
        continue;
      }
      if (plan.known) {
        guarded(rw, loc, masks.empty() ? Value() : masks[0],
                [&](OpBuilder &b, Location l) { vectorStore(b, l, vals, addrs[0]); });
        continue;
      }
      SmallVector<Value> conds = masks;
      conds.push_back(chunkIsContiguous(rw, loc, addrs, eb));
      auto ifOp = scf::IfOp::create(rw, loc, andAll(rw, loc, conds), true);
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(ifOp.thenBlock());
      vectorStore(rw, loc, vals, addrs[0]);
      rw.setInsertionPointToStart(ifOp.elseBlock());
      slow(rw, loc);
    }
    rw.eraseOp(op);
    return success();
  }
};

LLVM::AtomicOrdering ordering(tt::MemSemantic sem) {
  switch (sem) {
  case tt::MemSemantic::RELAXED: return LLVM::AtomicOrdering::monotonic;
  case tt::MemSemantic::ACQUIRE: return LLVM::AtomicOrdering::acquire;
  case tt::MemSemantic::RELEASE: return LLVM::AtomicOrdering::release;
  case tt::MemSemantic::ACQUIRE_RELEASE: return LLVM::AtomicOrdering::acq_rel;
  }
  return LLVM::AtomicOrdering::acq_rel;
}

/// The LLVM synchronization scope of a tt memory scope ("" is the system).
StringRef syncScope(tt::MemSyncScope scope) {
  switch (scope) {
  case tt::MemSyncScope::CTA: return "block";
  case tt::MemSyncScope::GPU: return "device";
  case tt::MemSyncScope::SYSTEM: return "";
  }
  return "";
}

std::optional<LLVM::AtomicBinOp> binOp(tt::RMWOp kind, Type elem) {
  bool isFloat = isa<FloatType>(elem);
  switch (kind) {
  case tt::RMWOp::AND: return LLVM::AtomicBinOp::_and;
  case tt::RMWOp::OR: return LLVM::AtomicBinOp::_or;
  case tt::RMWOp::XOR: return LLVM::AtomicBinOp::_xor;
  case tt::RMWOp::ADD: return LLVM::AtomicBinOp::add;
  case tt::RMWOp::FADD: return LLVM::AtomicBinOp::fadd;
  case tt::RMWOp::MAX: return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case tt::RMWOp::MIN: return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  case tt::RMWOp::UMAX: return LLVM::AtomicBinOp::umax;
  case tt::RMWOp::UMIN: return LLVM::AtomicBinOp::umin;
  case tt::RMWOp::XCHG: return LLVM::AtomicBinOp::xchg;
  }
  return std::nullopt;
}

/// Runs `atomic` for each owned, unmasked element; a scalar atomic runs on
/// thread 0 and its result is shared through shared memory.
template <typename Op>
LogicalResult lowerAtomic(Op op, Value ptrs, Value mask, Type resultType,
                          SimtState &state, ConversionPatternRewriter &rw,
                          function_ref<Value(OpBuilder &, Location, Value, int64_t)> atomic) {
  Location loc = op.getLoc();
  auto vt = dyn_cast<VectorType>(resultType);
  if (!vt) {
    Type elem = resultType;
    Value cond = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, state.tid,
                                       constI32(rw, loc, 0));
    if (mask)
      cond = arith::AndIOp::create(rw, loc, cond, mask);
    reserveSmem(state, 16);
    barrier(rw, loc);
    auto ifOp = scf::IfOp::create(rw, loc, cond, false);
    {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(ifOp.thenBlock());
      Value old = atomic(rw, loc, ptrs, -1);
      smemStore(rw, loc, state, 0, constI32(rw, loc, 0), old);
    }
    barrier(rw, loc);
    rw.replaceOp(op, smemLoad(rw, loc, state, elem, 0, constI32(rw, loc, 0)));
    return success();
  }
  Type elem = vt.getElementType();
  int64_t n = cast<RankedTensorType>(op.getType()).getNumElements();
  Value owner = isOwner(rw, loc, state, n);
  SmallVector<Value> results;
  for (int64_t i = 0; i < vt.getNumElements(); ++i) {
    Value cond = owner;
    if (mask)
      cond = arith::AndIOp::create(rw, loc, cond, extractSlot(rw, loc, mask, i));
    Value addr = extractSlot(rw, loc, ptrs, i);
    results.push_back(select(rw, loc, cond, elem,
                             [&](OpBuilder &b, Location l) { return atomic(b, l, addr, i); },
                             [&](OpBuilder &b, Location l) { return zeroOf(b, l, elem); }));
  }
  rw.replaceOp(op, buildVector(rw, loc, results));
  return success();
}

struct AtomicRMWLowering : SimtPattern<tt::AtomicRMWOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::AtomicRMWOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Type resultType = getTypeConverter()->convertType(op.getType());
    Type elem = getElementTypeOrSelf(resultType);
    std::optional<LLVM::AtomicBinOp> kind = binOp(op.getAtomicRmwOp(), elem);
    if (!kind)
      return op.emitError("unsupported atomic operation on CUDA targets");
    LLVM::AtomicOrdering order = ordering(op.getSem());
    StringRef scope = syncScope(op.getScope());
    Value val = a.getVal();
    bool scalar = !isa<VectorType>(resultType);
    // LLVM's NVPTX backend emits every atomicrmw as a relaxed `atom`,
    // whatever its ordering: the ordering goes into fences around the
    // thread's atomics instead (release before, acquire after; one pair
    // for all of a tile's elements, which are unordered among themselves),
    // as `atom.acq_rel.gpu` (Triton's lowering) orders them.
    bool releases = order == LLVM::AtomicOrdering::release ||
                    order == LLVM::AtomicOrdering::acq_rel;
    bool acquires = order == LLVM::AtomicOrdering::acquire ||
                    order == LLVM::AtomicOrdering::acq_rel;
    if (!scalar && releases)
      LLVM::FenceOp::create(rw, op.getLoc(), LLVM::AtomicOrdering::release, scope);
    LogicalResult lowered = lowerAtomic(
        op, a.getPtr(), a.getMask(), resultType, state, rw,
        [&](OpBuilder &b, Location l, Value addr, int64_t i) -> Value {
          Value v = scalar ? val : extractSlot(b, l, val, i);
          // (A scalar atomic runs in thread 0 alone: its fences with it.)
          if (scalar && releases)
            LLVM::FenceOp::create(b, l, LLVM::AtomicOrdering::release, scope);
          Value old = LLVM::AtomicRMWOp::create(b, l, *kind, toGlobalPtr(b, l, addr), v,
                                                LLVM::AtomicOrdering::monotonic, scope);
          if (scalar && acquires)
            LLVM::FenceOp::create(b, l, LLVM::AtomicOrdering::acquire, scope);
          return old;
        });
    if (succeeded(lowered) && !scalar && acquires)
      LLVM::FenceOp::create(rw, op.getLoc(), LLVM::AtomicOrdering::acquire, scope);
    return lowered;
  }
};

struct AtomicCASLowering : SimtPattern<tt::AtomicCASOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::AtomicCASOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Type resultType = getTypeConverter()->convertType(op.getType());
    Type elem = getElementTypeOrSelf(resultType);
    LLVM::AtomicOrdering order = ordering(op.getSem());
    if (order == LLVM::AtomicOrdering::release || order == LLVM::AtomicOrdering::acq_rel)
      order = LLVM::AtomicOrdering::acq_rel;
    LLVM::AtomicOrdering failOrder = order == LLVM::AtomicOrdering::monotonic
                                         ? LLVM::AtomicOrdering::monotonic
                                         : LLVM::AtomicOrdering::acquire;
    bool scalar = !isa<VectorType>(resultType);
    Type intType = IntegerType::get(rw.getContext(), elem.getIntOrFloatBitWidth());
    return lowerAtomic(op, a.getPtr(), Value(), resultType, state, rw,
                       [&](OpBuilder &b, Location l, Value addr, int64_t i) -> Value {
                         Value cmp = scalar ? a.getCmp() : extractSlot(b, l, a.getCmp(), i);
                         Value val = scalar ? a.getVal() : extractSlot(b, l, a.getVal(), i);
                         if (intType != elem) {
                           cmp = arith::BitcastOp::create(b, l, intType, cmp);
                           val = arith::BitcastOp::create(b, l, intType, val);
                         }
                         Value pair = LLVM::AtomicCmpXchgOp::create(
                             b, l, toGlobalPtr(b, l, addr), cmp, val, order, failOrder);
                         Value old = LLVM::ExtractValueOp::create(b, l, pair, 0);
                         return intType != elem ? (Value)arith::BitcastOp::create(b, l, elem, old)
                                                : old;
                       });
  }
};

// --- The pass ---------------------------------------------------------------

/// Moves `func` into `gpuModule` as a kernel taking global pointers; the
/// body still sees `!tt.ptr` values (through casts the conversion removes).
FailureOr<gpu::GPUFuncOp> makeKernel(tt::FuncOp func, gpu::GPUModuleOp gpuModule,
                                     SimtState &state) {
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  SmallVector<Type> argTypes;
  for (Type t : func.getArgumentTypes()) {
    if (isa<tt::PointerType>(t))
      argTypes.push_back(globalPtrType(ctx));
    else if (t.isIntOrIndexOrFloat())
      argTypes.push_back(t);
    else
      return func.emitError("kernel argument of type ") << t
             << " is not supported on CUDA targets", failure();
  }
  // After the arrays, one CUtensorMap per tensor map, passed by value
  // (the CUDA backend marks them __grid_constant__ once the kernel is an
  // LLVM function: the TMA reads them where the launch put them).
  size_t numArgs = argTypes.size();
  auto maps = func->getAttrOfType<ArrayAttr>(pgpu::kTensorMapsAttrName);
  auto genericPtr = LLVM::LLVMPointerType::get(ctx);
  if (maps)
    for (Attribute map : maps) {
      state.tensorMaps.push_back(cast<pgpu::TensorMapAttr>(map));
      argTypes.push_back(genericPtr);
    }
  b.setInsertionPointToEnd(gpuModule.getBody());
  auto kernel = gpu::GPUFuncOp::create(b, func.getLoc(), func.getName(),
                                       b.getFunctionType(argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int64_t threads = state.threads * state.warpgroups + state.producerThreads;
  kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({(int32_t)threads, 1, 1}));
  // Launched in clusters: the PTX's .reqnctapercluster.
  if (state.cluster > 1)
    kernel->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                    b.getDenseI32ArrayAttr({(int32_t)state.cluster, 1, 1}));
  if (func->hasAttr(pgpu::kMemoryBoundAttrName))
    kernel->setAttr(pgpu::kMemoryBoundAttrName, b.getUnitAttr());
  // The launch grid bounds the block ids, which lets range analysis drop
  // bounds checks that always hold.
  DenseI64ArrayAttr grid;
  bool persistent = false;
  if (auto ctas = func->getAttrOfType<IntegerAttr>(pgpu::kPersistentCtasAttrName)) {
    // The CTAs loop over the programs, stepping by gridDim.x: any grid
    // computes the same, so the kernel claims no known grid size (which
    // would fold gridDim.x); the backend launches `ctas`.
    grid = b.getDenseI64ArrayAttr({ctas.getInt(), 1, 1});
    persistent = true;
  } else if (LaunchAttr launch = getLaunch(func); launch && !launch.hasSymbolicGrid()) {
    SmallVector<int64_t, 3> programs = programGridOf(launch).launch;
    kernel.setKnownGridSizeAttr(b.getDenseI32ArrayAttr(
        {(int32_t)programs[0], (int32_t)programs[1], (int32_t)programs[2]}));
    grid = b.getDenseI64ArrayAttr(programs);
  }
  // What the backend launches the kernel with; its shared memory is known
  // once the kernel is converted (runOnOperation sets it then).
  kernel->setAttr(pgpu::kLaunchConfigAttrName,
                  pgpu::LaunchConfigAttr::get(
                      ctx, threads, grid, /*shared_bytes=*/0, state.cluster, persistent,
                      func->getAttrOfType<StringAttr>(pgpu::kClusterUnusedAttrName), maps));
  // Replace the generated entry block by the function's body.
  kernel.getBody().front().erase();
  kernel.getBody().takeBody(func.getBody());
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  state.paramAddresses.assign(numArgs, Value());
  state.paramValues.assign(numArgs, Value());
  for (BlockArgument arg : entry.getArguments()) {
    Type old = arg.getType();
    if (old.isInteger())
      state.paramValues[arg.getArgNumber()] = arg;
    if (!isa<tt::PointerType>(old))
      continue;
    arg.setType(globalPtrType(ctx));
    Value addr = LLVM::PtrToIntOp::create(b, func.getLoc(), b.getI64Type(), arg);
    auto cast = UnrealizedConversionCastOp::create(b, func.getLoc(), old, addr);
    arg.replaceAllUsesExcept(cast.getResult(0), addr.getDefiningOp());
    state.paramAddresses[arg.getArgNumber()] = addr;
  }
  for (size_t i = numArgs; i < argTypes.size(); ++i)
    state.tensorMapParams.push_back(entry.addArgument(genericPtr, func.getLoc()));
  Value tid = gpu::ThreadIdOp::create(b, func.getLoc(), gpu::Dimension::x);
  state.ctaTid = arith::IndexCastUIOp::create(b, func.getLoc(), b.getI32Type(), tid);
  state.tid = state.producerThreads || state.warpgroups > 1
                  ? (Value)arith::AndIOp::create(b, func.getLoc(), state.ctaTid,
                                                 constI32(b, func.getLoc(), state.threads - 1))
                  : state.ctaTid;
  if (state.warpgroups > 1) {
    // Read through a shuffle from lane 0, so that ptxas knows it is the
    // same in every lane (branches on it keep warps converged).
    Location loc = func.getLoc();
    state.warpgroup = fromLaneZero(
        b, loc, arith::ShRUIOp::create(b, loc, state.ctaTid, constI32(b, loc, 7)));
  }
  if (LaunchAttr launch = getLaunch(func); launch && programGridOf(launch).ordered) {
    Value block = gpu::BlockIdOp::create(b, func.getLoc(), gpu::Dimension::x);
    Value linear = arith::IndexCastUIOp::create(b, func.getLoc(), b.getI32Type(), block);
    state.programIds = orderedProgramIds(b, func.getLoc(), linear, launch);
  }
  state.ringBase = LLVM::AddressOfOp::create(b, func.getLoc(),
                                             LLVM::LLVMPointerType::get(ctx, 3), "__pallas_smem");
  state.smem = state.scratchAfterRings
                   ? smemByteAddress(b, func.getLoc(), state.ringBase,
                                     constI32(b, func.getLoc(), state.scratchOffset()))
                   : state.ringBase;
  if (state.tmaStoreArea) {
    auto offset = arith::ConstantIntOp::create(b, func.getLoc(), 0, 32);
    state.tmaStoreAreaOffset = offset;
    state.tmaStoreSmem = smemByteAddress(b, func.getLoc(), state.ringBase, offset.getResult());
  }
  if (state.warpgroupCopies) {
    // This thread's warpgroup's area: offset + (tid / 128) * stride.
    Location loc = func.getLoc();
    auto offset = arith::ConstantIntOp::create(b, loc, 0, 32);
    auto stride = arith::ConstantIntOp::create(b, loc, 0, 32);
    state.warpgroupCopyOffset = offset;
    state.warpgroupCopyStride = stride;
    Value group = arith::ShRUIOp::create(b, loc, state.tid, constI32(b, loc, 7));
    state.warpgroupCopySmem = smemByteAddress(
        b, loc, state.ringBase,
        arith::AddIOp::create(b, loc, offset.getResult(),
                              arith::MulIOp::create(b, loc, group, stride.getResult())));
  }
  if (state.warpgroups > 1) {
    auto stride = arith::ConstantIntOp::create(b, func.getLoc(), 0, 32);
    state.scratchStride = stride;
    state.smem = smemByteAddress(
        b, func.getLoc(), state.smem,
        arith::MulIOp::create(b, func.getLoc(), state.warpgroup, stride.getResult()));
  }
  func.erase();
  return kernel;
}

/// Whether lowering `op` may use the scratch area of shared memory (the
/// ops that exchange values between threads; a dot unless both operands
/// are staged in rings).
bool mayUseScratch(Operation *op) {
  if (auto dot = dyn_cast<tt::DotOp>(op))
    return !dot.getA().getDefiningOp<pgpu::RingReadOp>() ||
           !dot.getB().getDefiningOp<pgpu::RingReadOp>();
  if (auto bcast = dyn_cast<tt::BroadcastOp>(op))
    return broadcastUsesScratch(bcast);
  if (auto cast = dyn_cast<tensor::CastOp>(op))
    return layoutCastUsesScratch(cast);
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return !hasMmaLayout(slice.getType());
  return isa<tt::TransOp, tt::JoinOp, tt::ReduceOp, tt::ScanOp, tt::AtomicRMWOp,
             tt::AtomicCASOp, pgpu::TmaStoreOp>(op);
}

/// Whether `later` may run after `earlier` in one thread: it follows it in
/// their common block, or a loop holds both (its next iteration).
bool mayRunAfter(Operation *earlier, Operation *later) {
  for (Operation *loop = earlier->getParentOp(); loop; loop = loop->getParentOp())
    if (isa<LoopLikeOpInterface>(loop) && loop->isAncestor(later))
      return true;
  Region *common = earlier->getParentRegion();
  while (common && !common->isAncestor(later->getParentRegion()))
    common = common->getParentOp() ? common->getParentOp()->getParentRegion() : nullptr;
  if (!common)
    return false;
  Operation *a = common->findAncestorOpInRegion(*earlier);
  Operation *b = common->findAncestorOpInRegion(*later);
  return a && b && a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
}

/// With TMA stores' waits for their reads of scratch deferred
/// (deferTmaStoreWait), every other op that may write scratch after one
/// first waits for those reads (only the thread that issued the stores has
/// any): its lowering's leading barrier then tells every thread that the
/// stores are done with scratch. (The next TMA store waits itself.) The
/// wait goes before the outermost loop around the op that issues no TMA
/// store (attention's softmax reductions: once a program, not once an
/// iteration).
void waitForTmaStoresBeforeScratch(gpu::GPUFuncOp kernel) {
  SmallVector<Operation *> stores, users;
  kernel.walk([&](Operation *op) {
    if (isa<pgpu::TmaStoreOp>(op))
      stores.push_back(op);
    else if (mayUseScratch(op))
      users.push_back(op);
  });
  auto holdsStore = [&](Operation *op) {
    return llvm::any_of(stores, [&](Operation *store) { return op->isAncestor(store); });
  };
  SetVector<Operation *> waitsBefore;
  for (Operation *user : users) {
    if (llvm::none_of(stores, [&](Operation *store) { return mayRunAfter(store, user); }))
      continue;
    Operation *at = user;
    for (Operation *loop = user->getParentOp(); loop && !holdsStore(loop);
         loop = loop->getParentOp())
      if (isa<LoopLikeOpInterface>(loop))
        at = loop;
    waitsBefore.insert(at);
  }
  for (Operation *at : waitsBefore) {
    OpBuilder b(at);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, at->getLoc(), 0, b.getUnitAttr());
  }
}

/// The op of `alloc`'s block holding its last reader: its users and the
/// readers of what a ring_read returns (a view of the buffer: a dot reads
/// it where it stands, maybe through a transpose hoisted out of the loop
/// the dot is in). Null where a reader lies outside the block.
Operation *lastReaderInBlock(Operation *alloc) {
  Block *block = alloc->getBlock();
  Operation *last = alloc;
  SmallVector<Operation *> users(alloc->getUsers().begin(), alloc->getUsers().end());
  for (size_t i = 0; i < users.size(); ++i) {
    Operation *user = users[i];
    if (isa<pgpu::RingReadOp, tt::TransOp, tensor::CastOp>(user))
      users.append(user->getUsers().begin(), user->getUsers().end());
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock)
      return nullptr;
    if (last->isBeforeInBlock(inBlock))
      last = inBlock;
  }
  return last;
}

/// Calls `fn` on each op that may use scratch (nested ones included)
/// from `alloc` through `last` in `alloc`'s block (to the block's end
/// where `last` is null), until `fn` returns true; whether it did.
bool anyScratchUserUntil(Operation *alloc, Operation *last,
                         function_ref<bool(Operation *)> fn) {
  for (Operation *op = alloc; op; op = op->getNextNode()) {
    bool found = false;
    op->walk([&](Operation *inner) {
      if (mayUseScratch(inner) && fn(inner)) {
        found = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (found)
      return true;
    if (op == last)
      break;
  }
  return false;
}

/// Whether an op between `alloc` (of a ring or slot barriers) and its last
/// reader may use scratch.
bool scratchWhileLive(Operation *alloc) {
  return anyScratchUserUntil(alloc, lastReaderInBlock(alloc), [](Operation *) { return true; });
}

/// Where a ring is live: from its allocation to the last op of the
/// allocation's block that uses it, and the waits right after (the copies
/// still in flight after a loop end there: pallas-stage-loads).
struct RingLiveRange {
  Block *block;
  Operation *first, *last;
  int64_t begin, end; ///< [begin, end) bytes
  /// Whether it is live where `other` is (rings of different blocks may
  /// be; rings in a loop's body are live again in its next iteration).
  bool overlaps(const RingLiveRange &other) const {
    if (!block || block != other.block || !isa<tt::FuncOp>(block->getParentOp()))
      return true;
    return !(last->isBeforeInBlock(other.first) || other.last->isBeforeInBlock(first));
  }
};

RingLiveRange liveRange(pgpu::AllocRingOp alloc) {
  Block *block = alloc->getBlock();
  RingLiveRange always = {nullptr, alloc, alloc, 0, 0};
  // Only the rings pallas-stage-loads fills (cp.async, the TMA) and reads:
  // a kernel's own buffers (Pallas:MGPU scopes) are read and written by
  // copies that end at waits of their own (bulk stores, TMA loads).
  bool cpAsync = false;
  for (Operation *user : alloc->getUsers()) {
    if (!isa<pgpu::AsyncCopyOp, pgpu::RingReadOp, pgpu::TmaCopyOp>(user))
      return always;
    cpAsync |= isa<pgpu::AsyncCopyOp>(user);
  }
  Operation *last = lastReaderInBlock(alloc);
  if (!last)
    return always;
  while (Operation *next = last->getNextNode()) {
    if (!isa<pgpu::AsyncWaitOp, pgpu::TurnsEndOp, pgpu::DotWaitOp>(next))
      break;
    last = next;
  }
  // The copies a cp.async loop issues past its end (zero-filling, with a
  // false predicate) land by the first wait for all of them, which a later
  // ring's hoisted prologue may have moved down past other ops.
  if (cpAsync) {
    while (last) {
      auto wait = dyn_cast<pgpu::AsyncWaitOp>(last);
      if (wait && wait.getPending() == 0)
        break;
      last = last->getNextNode();
    }
    if (!last)
      return always;
  }
  return {block, alloc, last, 0, 0};
}

/// Places the function's rings at the start of shared memory, each buffer
/// in the layout its tile's #pallas_gpu.shared encoding says
/// (pallas-stage-loads chose it for the dot that reads it): one after
/// another, except that a ring allocated after an earlier one is done may
/// take its memory (the second loop of attention backward streams into
/// the first's). The scratch area overlaps them unless something may use
/// it while a ring is live (pallas-stage-loads waits for every copy after
/// the loop; a barrier comes before the first copy).
void placeRings(tt::FuncOp func, SimtState &state) {
  SmallVector<RingLiveRange> placed;
  func->walk([&](pgpu::AllocRingOp alloc) {
    pgpu::RingType ring = alloc.getType();
    RingPlacement p;
    p.layout = sharedLayoutOf(ring.getTile());
    // wgmma reads the swizzled and core-matrix layouts (through the async
    // proxy); mma.sync the padded rows.
    p.feedsWgmma = p.layout.swizzled || p.layout.coreMatrices;
    int64_t bytes = ring.getStages() * p.layout.bytes;
    RingLiveRange range = liveRange(alloc);
    // The lowest offset (swizzled buffers start on 1024 bytes: the swizzle
    // repeats there) clear of every ring live at the same time.
    auto clearAt = [&](int64_t offset) {
      return llvm::none_of(placed, [&](const RingLiveRange &r) {
        return r.overlaps(range) && offset < r.end && r.begin < offset + bytes;
      });
    };
    SmallVector<int64_t> candidates = {0};
    for (const RingLiveRange &r : placed)
      candidates.push_back((r.end + 1023) / 1024 * 1024);
    llvm::sort(candidates);
    p.offset = *llvm::find_if(candidates, clearAt);
    p.reusesMemory = llvm::any_of(placed, [&](const RingLiveRange &r) {
      return p.offset < r.end && r.begin < p.offset + bytes;
    });
    range.begin = p.offset;
    range.end = p.offset + bytes;
    placed.push_back(range);
    state.rings[alloc] = p;
    state.ringBytes = std::max(state.ringBytes, range.end);
    state.scratchAfterRings |= scratchWhileLive(alloc);
  });
  // Slot barriers (8-byte mbarriers, filled then released ones) after them.
  func->walk([&](pgpu::AllocSlotBarriersOp alloc) {
    int64_t offset = (state.ringBytes + 7) / 8 * 8;
    state.slotBarriers[alloc] = offset;
    state.ringBytes = offset + 2 * 8 * alloc.getType().getStages();
    state.scratchAfterRings |= scratchWhileLive(alloc);
  });
  // A kernel's own mbarriers (8 bytes each) after those.
  func->walk([&](pgpu::AllocMBarriersOp alloc) {
    int64_t offset = (state.ringBytes + 7) / 8 * 8;
    state.mbarriers[alloc] = offset;
    state.ringBytes = offset + 8 * alloc.getType().getCount();
    state.scratchAfterRings |= scratchWhileLive(alloc);
  });
}

/// Where the scratch area follows the rings (some op uses it while a ring
/// is live), the ops that use it where no ring is (a kernel's epilogue:
/// its tiles converted for their stores) share one over the rings instead,
/// as every op does in a kernel with none beside them; only what runs
/// beside the rings then adds to the kernel's shared memory (the
/// conformance matmul_relu on sm_80: its epilogue's 64 KB exchange after
/// its K loop's 102 KB ring overflowed the chip, and the loop streamed
/// through registers instead). The conditions that make this safe as
/// there: every ring copy has landed by the end of the ring's live range
/// (liveRange), the ring's allocation has a barrier before its first copy,
/// and each scratch user a barrier before its writes. Not where the
/// rings' end is not known exactly: kernels with wgmma (a dot may read its
/// ring past its last reader, until a later wait), a producer warpgroup
/// (its copies are not ordered by the consumers' barriers), several warpgroups or a
/// cluster (scratch after the rings for other reasons), rings the kernel
/// fills itself. TMA stores keep the area after the rings (their reads
/// of it may be in flight when a ring's next copies land).
void chooseScratchAreas(tt::FuncOp func, SimtState &state) {
  if (!state.scratchAfterRings || state.warpgroups > 1 || state.cluster > 1 ||
      state.producerThreads || !state.shiftedAddresses)
    return;
  llvm::DenseSet<Operation *> besideRings;
  bool known = true;
  auto collect = [&](Operation *alloc, Operation *last) {
    known = known && last;
    if (last)
      anyScratchUserUntil(alloc, last, [&](Operation *user) {
        besideRings.insert(user);
        return false;
      });
  };
  func->walk([&](pgpu::AllocRingOp alloc) {
    RingLiveRange range = liveRange(alloc);
    collect(alloc, range.block ? range.last : nullptr);
  });
  func->walk([&](pgpu::AllocSlotBarriersOp alloc) { collect(alloc, lastReaderInBlock(alloc)); });
  func->walk([&](pgpu::AllocMBarriersOp alloc) { collect(alloc, lastReaderInBlock(alloc)); });
  if (!known)
    return;
  func->walk([&](Operation *op) {
    if (mayUseScratch(op) && !isa<pgpu::TmaStoreOp>(op) && !besideRings.contains(op))
      state.scratchOverRings.insert(op);
  });
}

/// Warp specialization: the kernel's threads from `state.threads` on (the
/// producer warpgroup) branch off at the pallas_gpu.produce op, give
/// registers up, and the first of them runs its region; the others run
/// the rest of the kernel with the registers.
LogicalResult splitProducer(gpu::GPUFuncOp kernel, SimtState &state) {
  SmallVector<pgpu::ProduceOp> produces;
  kernel.walk([&](pgpu::ProduceOp op) { produces.push_back(op); });
  if (produces.empty())
    return success();
  Block *entry = &kernel.getBody().front();
  pgpu::ProduceOp produce = produces.front();
  if (produces.size() > 1 || produce->getBlock() != entry)
    return produce.emitError("internal error: a kernel's one producer must be in its entry block"),
           failure();
  Location loc = produce.getLoc();
  MLIRContext *ctx = kernel.getContext();
  Block *consumers = entry->splitBlock(produce->getNextNode());
  OpBuilder b(ctx);
  ProducerRegisters regs(state.threads, state.producerThreads);
  Block *producer = b.createBlock(consumers);
  NVVM::SetMaxRegisterOp::create(b, loc, regs.producer, NVVM::SetMaxRegisterAction::decrease);
  auto first = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, state.ctaTid,
                            constI32(b, loc, state.threads)),
      /*withElse=*/false);
  Block *then = first.thenBlock();
  then->getOperations().splice(then->begin(), produce.getBody().front().getOperations());
  // (The consumers' return meets the cluster too.)
  if (state.cluster > 1)
    clusterBarrier(b, loc);
  gpu::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(consumers);
  // (Besides the registers, a setmaxnreg on the consumers' path tells
  // ptxas the path is warpgroup-uniform: without one, one consumer
  // warpgroup's wgmma were serialized, C7518, for a dependence in a
  // divergent path.)
  if (regs.consumer > regs.launch)
    NVVM::SetMaxRegisterOp::create(b, loc, regs.consumer, NVVM::SetMaxRegisterAction::increase);
  b.setInsertionPoint(produce);
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, state.ctaTid,
                                           constI32(b, loc, state.threads));
  cf::CondBranchOp::create(b, loc, isProducer, producer, consumers);
  produce.erase();
  return success();
}

/// With a producer, the consumers' CTA-wide barriers (all but those
/// before the branch, which every thread reaches) count the consumers
/// only: named barrier 1 + warpgroups (warpgroup turns use 1 to
/// warpgroups).
void consumerBarriers(gpu::GPUFuncOp kernel, const SimtState &state) {
  if (!state.producerThreads)
    return;
  Block *entry = &kernel.getBody().front();
  SmallVector<gpu::BarrierOp> barriers;
  kernel.walk([&](gpu::BarrierOp op) {
    if (op->getBlock() != entry)
      barriers.push_back(op);
  });
  for (gpu::BarrierOp op : barriers) {
    OpBuilder b(op);
    NVVM::BarrierOp::create(b, op.getLoc(), Type(),
                            constI32(b, op.getLoc(), 1 + state.threads / 128),
                            constI32(b, op.getLoc(), state.threads), {}, Value());
    op.erase();
  }
}

/// With several warpgroups, each runs the function on its own: the CTA
/// barriers of the conversion's patterns become named barrier 1 + its
/// index, counting its threads (barrier 0 stays the CTA's).
void warpgroupBarriers(gpu::GPUFuncOp kernel, const SimtState &state) {
  if (state.warpgroups == 1)
    return;
  SmallVector<gpu::BarrierOp> barriers;
  kernel.walk([&](gpu::BarrierOp op) { barriers.push_back(op); });
  for (gpu::BarrierOp op : barriers) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    NVVM::BarrierOp::create(b, loc, Type(),
                            arith::AddIOp::create(b, loc, state.warpgroup, constI32(b, loc, 1)),
                            constI32(b, loc, state.threads), {}, Value());
    op.erase();
  }
}

struct ConvertTileToNVVMPass
    : pallas::impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  using ConvertTileToNVVMBase::ConvertTileToNVVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<tt::FuncOp> funcs(module.getOps<tt::FuncOp>());
    if (funcs.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(ctx));
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "pallas_kernels");
    b.setInsertionPointToStart(gpuModule.getBody());
    LLVM::GlobalOp::create(b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External, "__pallas_smem",
                           Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
    for (tt::FuncOp func : funcs) {
      LaunchAttr launch = getLaunch(func);
      if (!launch) {
        func.emitOpError("has no pallas.launch (its num_warps)");
        return signalPassFailure();
      }
      // (#pallas.launch holds num_warps to a power of two up to 32.)
      int64_t numWarps = launch.getNumWarps();
      SimtState state;
      state.threads = 32 * numWarps;
      state.shiftedAddresses = !func->walk([](tt::DotOp dot) {
                                      return hasWgmmaLayout(dot.getType()) ? WalkResult::interrupt()
                                                                           : WalkResult::advance();
                                    }).wasInterrupted();
      if (auto groups = func->getAttrOfType<IntegerAttr>(pgpu::kWarpgroupsAttrName)) {
        state.warpgroups = groups.getInt();
        // Each warpgroup's scratch area of its own lies after the rings.
        state.scratchAfterRings = true;
        if (numWarps != 4 || state.warpgroups < 1 || state.warpgroups > 15) {
          func.emitError("internal error: a function of ")
              << state.warpgroups << " warpgroups needs num_warps 4, got " << numWarps;
          return signalPassFailure();
        }
      }
      if (!func.getOps<pgpu::ProduceOp>().empty()) {
        if (numWarps < 4 || 32 * numWarps + 128 > 1024) {
          func.emitError("a producer warpgroup needs num_warps from 4 to 28, got ") << numWarps;
          return signalPassFailure();
        }
        state.producerThreads = 128;
      }
      {
        AxisInfoAnalysis axis;
        func->walk([&](Operation *op) {
          if (auto load = dyn_cast<tt::LoadOp>(op))
            state.access[op] = {axis.get(load.getPtr()),
                                load.getMask() ? axis.get(load.getMask()) : AxisInfo()};
          if (auto store = dyn_cast<tt::StoreOp>(op))
            state.access[op] = {axis.get(store.getPtr()),
                                store.getMask() ? axis.get(store.getMask()) : AxisInfo()};
          if (auto copy = dyn_cast<pgpu::AsyncCopyOp>(op)) {
            state.access[op] = {axis.get(copy.getPtr()),
                                copy.getMask() ? axis.get(copy.getMask()) : AxisInfo()};
            if (std::optional<int64_t> step = rowStep(copy.getPtr()))
              state.copyRowStep[op] = *step;
          }
        });
      }
      func->walk([&](pgpu::TmaCopyOp copy) {
        bool inFlight = false;
        copy->getBlock()->walk([&](pgpu::DotWaitOp wait) { inFlight |= wait.getPending() > 0; });
        if (inFlight)
          state.predicatedCopies.insert(copy);
      });
      func->walk([&](pgpu::AsyncCopyOp copy) {
        if (!cpAsyncPiece(copy, state))
          state.ringsCopiedByStores.insert(copy.getRing().getDefiningOp());
      });
      if (auto cluster = func->getAttrOfType<IntegerAttr>(pgpu::kClusterAttrName)) {
        state.cluster = cluster.getInt();
        // The cluster's other CTAs may still arrive on this CTA's released
        // barriers after its own consumers are done with the rings: no
        // scratch user may overlap them.
        state.scratchAfterRings = true;
      }
      func->walk([&](pgpu::TmaCopyOp copy) {
        if (copy.getMulticast())
          state.clusterSlotBarriers.insert(copy.getBarriers().getDefiningOp());
      });
      placeRings(func, state);
      chooseScratchAreas(func, state);
      state.deferTmaStoreWait =
          func->walk([](pgpu::TmaStoreOp) { return WalkResult::interrupt(); }).wasInterrupted() &&
          (state.rings.empty() || state.scratchAfterRings);
      state.tmaStoreArea = tmaStoreArea && state.deferTmaStoreWait && state.warpgroups <= 1 &&
                           state.cluster == 1 &&
                           func->walk([](pgpu::TmaStoreOp store) {
                                 return inInnermostLoop(store) ? WalkResult::interrupt()
                                                               : WalkResult::advance();
                               })
                               .wasInterrupted();
      // (Warpgroup turns give each warpgroup a scratch area of its own.)
      state.warpgroupCopies =
          state.warpgroups == 1 &&
          func->walk([&](tt::BroadcastOp op) {
                return broadcastsWithinWarpgroups(op, state.threads) ? WalkResult::interrupt()
                                                                    : WalkResult::advance();
              })
              .wasInterrupted();
      FailureOr<gpu::GPUFuncOp> kernel = makeKernel(func, gpuModule, state);
      if (failed(kernel) || failed(splitProducer(*kernel, state)))
        return signalPassFailure();
      if (state.deferTmaStoreWait && !state.tmaStoreArea)
        waitForTmaStoresBeforeScratch(*kernel);

      // Activations stored as bf16 take the GPU's approximate tanh.
      kernel->walk([&](math::TanhOp tanh) {
        if (getElementTypeOrSelf(tanh.getType()).isF32() && narrowedToBF16(tanh.getResult()))
          tanh->setAttr(pgpu::kApproxTanhAttrName, UnitAttr::get(ctx));
      });
      SimtTypeConverter tc(ctx, state.threads);
      ConversionTarget target(*ctx);
      target.addIllegalDialect<tt::TTDialect, pgpu::PallasGpuDialect>();
      target.addLegalDialect<gpu::GPUDialect, LLVM::LLVMDialect, vector::VectorDialect,
                             NVVM::NVVMDialect>();
      target.markUnknownOpDynamicallyLegal([&](Operation *op) { return tc.isLegal(op); });
      target.addLegalOp<UnrealizedConversionCastOp>();
      RewritePatternSet patterns(ctx);
      patterns.add<ReturnLowering, ProgramIdLowering, ConstantLowering, SplatLowering,
                   MakeRangeLowering, KeepElementsLowering<tt::ExpandDimsOp>,
                   KeepElementsLowering<tt::ReshapeOp>, AddPtrLowering, LoadLowering,
                   StoreLowering, AtomicRMWLowering, AtomicCASLowering>(tc, ctx, state);
      patterns.add<ElementwiseLowering>(tc, ctx);
      populateSimtDataMovementPatterns(tc, patterns, state);
      populateRingPatterns(tc, patterns, state);
      populateUserSchedulePatterns(tc, patterns, state);
      populateWgmmaPatterns(tc, patterns, state);
      scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);
      if (failed(applyPartialConversion(*kernel, target, std::move(patterns))))
        return signalPassFailure();
      consumerBarriers(*kernel, state);
      warpgroupBarriers(*kernel, state);
      int64_t bytes = state.scratchAfterRings ? state.scratchOffset() + state.smemBytes
                                              : std::max(state.ringBytes, state.smemBytes);
      if (!state.scratchOverRings.empty())
        bytes = std::max(state.smemBytes ? bytes : state.ringBytes, state.smemOverRingsBytes);
      if (auto stride = dyn_cast_or_null<arith::ConstantIntOp>(state.scratchStride)) {
        int64_t perGroup = (state.smemBytes + 127) / 128 * 128;
        stride.setValueAttr(IntegerAttr::get(stride.getType(), perGroup));
        bytes = state.scratchOffset() + state.warpgroups * perGroup;
      }
      if (auto offset = dyn_cast_or_null<arith::ConstantIntOp>(state.tmaStoreAreaOffset)) {
        // (On 1024 bytes: the stores' tiles are in the 128-byte swizzle.)
        int64_t at = (bytes + 1023) / 1024 * 1024;
        offset.setValueAttr(IntegerAttr::get(offset.getType(), at));
        bytes = at + state.tmaStoreBytes;
        (*kernel)->setAttr(pgpu::kTmaStoreAreaAttrName, UnitAttr::get(ctx));
      }
      if (state.warpgroupCopies && state.warpgroupCopyBytes) {
        int64_t at = (bytes + 15) / 16 * 16;
        int64_t stride = (state.warpgroupCopyBytes + 15) / 16 * 16;
        auto offset = cast<arith::ConstantIntOp>(state.warpgroupCopyOffset);
        offset.setValueAttr(IntegerAttr::get(offset.getType(), at));
        auto strideOp = cast<arith::ConstantIntOp>(state.warpgroupCopyStride);
        strideOp.setValueAttr(IntegerAttr::get(strideOp.getType(), stride));
        bytes = at + state.threads / 128 * stride;
      }
      auto config = (*kernel)->getAttrOfType<pgpu::LaunchConfigAttr>(pgpu::kLaunchConfigAttrName);
      (*kernel)->setAttr(pgpu::kLaunchConfigAttrName,
                         pgpu::LaunchConfigAttr::get(
                             ctx, config.getThreads(), config.getGrid(), bytes,
                             config.getCluster(), config.getPersistent(),
                             config.getClusterUnused(), config.getTensorMaps()));
    }
  }
};

} // namespace
