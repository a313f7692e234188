//===- MgpuOps.cpp - verifiers of the plgpu ops ---------------------------===//
//
// Each verifier reports one precise message per mistake at the op. Ops
// inside a pallas.kernel require the kernel to be a plgpu kernel (to carry
// a #plgpu.mesh); outside one (lowered IR) only their own operands are
// checked.
//
//===----------------------------------------------------------------------===//
#include "pallas/Mgpu/Mgpu.h"
#include "pallas/Dialect/OperandSegments.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::plgpu;

#define GET_OP_CLASSES
#include "pallas/Mgpu/MgpuOps.cpp.inc"

/// Fails unless `op` is outside any pallas.kernel or in one with a mesh.
static LogicalResult verifyInMgpuKernel(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && !getMesh(kernel))
    return op->emitOpError("is only valid in a plgpu kernel (a pallas.kernel with a "
                           "'plgpu.mesh' attribute)");
  return success();
}

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// Barrier `index` is required unless the array holds one barrier; a
/// constant index must lie in it.
static LogicalResult verifyBarrierIndex(Operation *op, BarrierType type, Value index) {
  if (!index) {
    if (type.getNumBarriers() != 1)
      return op->emitOpError("needs an index into the ")
             << type.getNumBarriers() << " barriers of " << type;
    return success();
  }
  APInt value;
  if (matchPattern(index, m_ConstantInt(&value))) {
    int64_t i = value.getSExtValue();
    if (i < 0 || i >= type.getNumBarriers())
      return op->emitOpError("barrier index ")
             << i << " is out of range for " << type.getNumBarriers() << " barriers";
  }
  return success();
}

/// A ClusterBarrier's axes are cluster axes of the kernel's mesh.
static LogicalResult verifyBarrierAxes(Operation *op, BarrierType type) {
  MeshAttr mesh = getKernelMesh(op);
  if (!type.getCollectiveAxes() || !mesh)
    return success();
  for (Attribute a : type.getCollectiveAxes()) {
    auto axis = mesh.lookupAxis(cast<StringAttr>(a).getValue());
    if (!axis || axis->first != MeshAttr::AxisKind::cluster)
      return op->emitOpError("uses a cluster barrier over ")
             << a << ", which is not a cluster axis of " << mesh;
  }
  return success();
}

static LogicalResult verifySameWindow(Operation *op, RefType src, RefType dst) {
  if (src.getShape() != dst.getShape())
    return op->emitOpError("copies a ")
           << shapeText(src.getShape()) << " source into a " << shapeText(dst.getShape())
           << " destination (shapes must match)";
  if (src.getElementType() != dst.getElementType())
    return op->emitOpError("copies ") << src.getElementType() << " into "
                                      << dst.getElementType() << " (element types must match)";
  return success();
}

static bool isGlobal(RefType ref) {
  MemorySpace s = ref.getMemorySpace();
  return s == MemorySpace::gmem || s == MemorySpace::any || s == MemorySpace::none;
}

LogicalResult AxisIndexOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return success();
  MeshAttr mesh = getMesh(kernel);
  if (!mesh)
    return emitOpError("is only valid in a plgpu kernel (a pallas.kernel with a "
                       "'plgpu.mesh' attribute)");
  if (!mesh.lookupAxis(getAxis()))
    return emitOpError("axis '") << getAxis() << "' is not an axis of the kernel's mesh "
                                 << mesh;
  return success();
}

LogicalResult CopyGmemToSmemOp::verify() {
  if (failed(verifyRequiredSegments(*this, {{0, "src"}, {1, "dst"}})) ||
      failed(verifyInMgpuKernel(*this)))
    return failure();
  auto src = cast<RefType>(getSrc().getType());
  auto dst = cast<RefType>(getDst().getType());
  if (!isGlobal(src))
    return emitOpError("source must be a GMEM ref, got ") << src;
  if (dst.getMemorySpace() != MemorySpace::smem)
    return emitOpError("destination must be an SMEM ref, got ") << dst;
  if (!getPartitionedAttr() && failed(verifySameWindow(*this, src, dst)))
    return failure();
  if (getBarrierIndex() && !getBarrier())
    return emitOpError("has a barrier index but no barrier");
  if (getBarrier() &&
      (failed(verifyBarrierAxes(*this, cast<BarrierType>(getBarrier().getType()))) ||
       failed(verifyBarrierIndex(*this, cast<BarrierType>(getBarrier().getType()),
                                 getBarrierIndex()))))
    return failure();
  MeshAttr mesh = getKernelMesh(*this);
  if (auto axes = getCollectiveAxesAttr()) {
    if (!getBarrier())
      return emitOpError("a collective copy needs a barrier");
    for (Attribute a : axes) {
      StringRef name = cast<StringAttr>(a).getValue();
      auto axis = mesh ? mesh.lookupAxis(name) : std::nullopt;
      if (mesh && (!axis || axis->first != MeshAttr::AxisKind::cluster))
        return emitOpError("collective axis '") << name << "' is not a cluster axis of "
                                                << mesh;
    }
  }
  if (auto attr = getPartitionedAttr()) {
    int64_t p = attr.getInt();
    if (!getCollectiveAxesAttr() || getCollectiveAxesAttr().size() != 1)
      return emitOpError("a partitioned copy needs one collective axis");
    if (p < 0 || p >= static_cast<int64_t>(dst.getShape().size()))
      return emitOpError("partitioned dimension ") << p << " is out of range for rank "
                                                   << dst.getShape().size();
    // Block r of the n along the axis receives slice r of the source.
    auto axis = mesh ? mesh.lookupAxis(cast<StringAttr>(getCollectiveAxesAttr()[0]).getValue())
                     : std::nullopt;
    if (axis) {
      int64_t n = mesh.getCluster()[axis->second];
      SmallVector<int64_t> part(src.getShape());
      part[p] = part[p] % n == 0 ? part[p] / n : -1;
      if (part[p] < 0 || ArrayRef<int64_t>(part) != dst.getShape() ||
          src.getElementType() != dst.getElementType())
        return emitOpError("partitions a ")
               << shapeText(src.getShape()) << " source over " << n
               << " blocks along dimension " << p << ": each block's destination must be "
               << (part[p] < 0 ? std::string("a whole share (the dimension does not divide)")
                               : shapeText(part) + " of the source's element type")
               << ", got " << dst;
    }
  }
  return success();
}

LogicalResult CopySmemToGmemOp::verify() {
  if (failed(verifyInMgpuKernel(*this)))
    return failure();
  auto src = cast<RefType>(getSrc().getType());
  auto dst = cast<RefType>(getDst().getType());
  if (src.getMemorySpace() != MemorySpace::smem)
    return emitOpError("source must be an SMEM ref, got ") << src;
  if (!isGlobal(dst))
    return emitOpError("destination must be a GMEM ref, got ") << dst;
  if (failed(verifySameWindow(*this, src, dst)))
    return failure();
  if (auto r = getReduction())
    if (!llvm::is_contained({"add", "min", "max", "inc", "dec", "and", "or", "xor"}, *r))
      return emitOpError("unknown reduction '")
             << *r << "' (expected add, min, max, inc, dec, and, or or xor)";
  return success();
}

template <typename BarrierOpT>
static LogicalResult verifyBarrierOp(BarrierOpT op) {
  if (failed(verifyInMgpuKernel(op)))
    return failure();
  auto type = cast<BarrierType>(op.getBarrier().getType());
  if (failed(verifyBarrierAxes(op, type)))
    return failure();
  return verifyBarrierIndex(op, type, op.getIndex());
}
LogicalResult BarrierArriveOp::verify() { return verifyBarrierOp(*this); }
LogicalResult BarrierWaitOp::verify() { return verifyBarrierOp(*this); }
LogicalResult BarrierTestOp::verify() { return verifyBarrierOp(*this); }

/// The wgmma element types of A and B, and the accumulators each allows
/// (PTX ISA, wgmma.mma_async: .f16/.bf16 into f32 (f16 too for .f16), tf32
/// into f32, e4m3/e5m2 into f32 or f16, s8 into s32).
static bool isWgmmaAccumulator(Type in, Type acc) {
  if (in.isF16())
    return acc.isF32() || acc.isF16();
  if (in.isBF16() || in.isF32())
    return acc.isF32();
  if (isa<Float8E4M3FNType, Float8E5M2Type>(in))
    return acc.isF32() || acc.isF16();
  if (in.isInteger(8))
    return acc.isInteger(32);
  return false;
}

LogicalResult WgmmaOp::verify() {
  if (failed(verifyInMgpuKernel(*this)))
    return failure();
  auto acc = cast<RefType>(getAcc().getType());
  if (acc.getMemorySpace() != MemorySpace::regs || acc.getShape().size() != 2)
    return emitOpError("accumulator must be a 2-D regs ref (plgpu.ACC), got ") << acc;
  auto b = cast<RefType>(getB().getType());
  if (b.getMemorySpace() != MemorySpace::smem || b.getShape().size() != 2)
    return emitOpError("B must be a 2-D SMEM ref, got ") << b;
  ArrayRef<int64_t> aShape;
  Type aElement;
  if (auto aRef = dyn_cast<RefType>(getA().getType())) {
    if (aRef.getMemorySpace() != MemorySpace::smem)
      return emitOpError("A must be an SMEM ref or a tensor in registers, got ") << aRef;
    aShape = aRef.getShape();
    aElement = aRef.getElementType();
  } else if (auto aTensor = dyn_cast<RankedTensorType>(getA().getType())) {
    if (getTransposeA())
      return emitOpError("A in registers cannot be transposed");
    aShape = aTensor.getShape();
    aElement = aTensor.getElementType();
  } else {
    return emitOpError("A must be an SMEM ref or a tensor in registers, got ")
           << getA().getType();
  }
  if (aShape.size() != 2)
    return emitOpError("A must be 2-D, got ") << shapeText(aShape);
  int64_t m = getTransposeA() ? aShape[1] : aShape[0];
  int64_t ka = getTransposeA() ? aShape[0] : aShape[1];
  int64_t kb = getTransposeB() ? b.getShape()[1] : b.getShape()[0];
  int64_t n = getTransposeB() ? b.getShape()[0] : b.getShape()[1];
  if (aElement != b.getElementType())
    return emitOpError("A is ") << aElement << " but B is " << b.getElementType();
  if (ka != kb)
    return emitOpError("contracts A's K = ") << ka << " with B's K = " << kb;
  if (acc.getShape()[0] != m || acc.getShape()[1] != n)
    return emitOpError("accumulator is ")
           << shapeText(acc.getShape()) << " but A @ B is " << shapeText({m, n});
  if (!isWgmmaAccumulator(aElement, acc.getElementType()))
    return emitOpError("cannot accumulate ")
           << aElement << " products in " << acc.getElementType()
           << " (f16: f32 or f16; bf16, tf32: f32; f8: f32 or f16; i8: i32)";
  if (m % 64 != 0)
    return emitOpError("M = ") << m << " is not a multiple of 64 (one wgmma row block)";
  if (n % 8 != 0 || n > 256)
    return emitOpError("N = ") << n << " must be a multiple of 8 and at most 256";
  int64_t kStep = 32 / std::max<int64_t>(1, aElement.getIntOrFloatBitWidth() / 8);
  if (ka % kStep != 0)
    return emitOpError("K = ") << ka << " is not a multiple of " << kStep << " for "
                               << aElement;
  return success();
}

LogicalResult SetMaxRegistersOp::verify() {
  if (failed(verifyInMgpuKernel(*this)))
    return failure();
  if (getIncrease() == getDecrease())
    return emitOpError("needs exactly one of 'increase' or 'decrease'");
  // setmaxnreg takes 24..256 registers in steps of 8 (PTX ISA).
  int64_t n = getCount();
  if (n < 24 || n > 256 || n % 8 != 0)
    return emitOpError("register count must be a multiple of 8 in [24, 256], got ") << n;
  return success();
}

LogicalResult LayoutCastOp::verify() {
  if (!llvm::is_contained({"wgmma", "wgmma_transposed", "wgmma_row", "wgmma_col",
                           "wg_splat", "wg_strided", "tiled"},
                          getLayout()))
    return emitOpError("unknown layout '")
           << getLayout()
           << "' (expected wgmma, wgmma_transposed, wgmma_row, wgmma_col, wg_splat, "
              "wg_strided or tiled)";
  return success();
}

LogicalResult CommitGroupOp::verify() { return verifyInMgpuKernel(*this); }
LogicalResult WaitSmemToGmemOp::verify() { return verifyInMgpuKernel(*this); }
LogicalResult CommitSmemOp::verify() { return verifyInMgpuKernel(*this); }
LogicalResult WgmmaWaitOp::verify() { return verifyInMgpuKernel(*this); }
