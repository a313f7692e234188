//===- BlockView.cpp - a ref as a window of a row-major array -------------===//
#include "pallas/Passes/BlockView.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::pallas;

BlockView BlockView::whole(Value base, ArrayRef<int64_t> shape,
                           Type elementType, Value zero) {
  BlockView v;
  v.base = base;
  v.arrayShape.assign(shape.begin(), shape.end());
  v.elementType = elementType;
  v.fixed.assign(shape.size(), Value());
  for (unsigned d = 0; d < shape.size(); ++d)
    v.dims.push_back({d, zero, 1, shape[d]});
  return v;
}

Value BlockView::constant(OpBuilder &b, Location loc, int64_t v) const {
  Type t = dims.empty() ? b.getIndexType() : dims.front().offset.getType();
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

Value BlockView::at(OpBuilder &b, Location loc, const Dim &d, Value index) const {
  return arith::AddIOp::create(
      b, loc, d.offset, arith::MulIOp::create(b, loc, index, constant(b, loc, d.stride)));
}

BlockView BlockView::block(OpBuilder &b, Location loc, ValueRange indices,
                           ArrayRef<int64_t> blockShape,
                           ArrayRef<int64_t> squeezed) const {
  BlockView out = *this;
  out.dims.clear();
  for (auto [d, vd] : llvm::enumerate(dims)) {
    // Block i starts at element i * size along the view dim. (Folded where
    // constant: a whole-array block's offsets stay a visible 0.)
    Value start = b.createOrFold<arith::MulIOp>(loc, indices[d],
                                                constant(b, loc, blockShape[d] * vd.stride));
    Value offset = b.createOrFold<arith::AddIOp>(loc, vd.offset, start);
    if (llvm::is_contained(squeezed, static_cast<int64_t>(d)))
      out.fixed[vd.arrayDim] = offset;
    else
      out.dims.push_back({vd.arrayDim, offset, vd.stride, blockShape[d]});
  }
  return out;
}

FailureOr<BlockView> BlockView::slice(OpBuilder &b, Location loc,
                                      const IndexerList &list,
                                      ValueRange operands) const {
  BlockView out = *this;
  out.dims.clear();
  unsigned next = 0;
  for (auto [d, i] : llvm::enumerate(list.get())) {
    const Dim &vd = dims[d];
    Value operand = i.takesOperand() ? operands[next++] : Value();
    switch (i.kind) {
    case IndexerKind::Full:
      out.dims.push_back(vd);
      break;
    case IndexerKind::Scalar:
      out.fixed[vd.arrayDim] = at(b, loc, vd, operand);
      break;
    case IndexerKind::ScalarConst:
      out.fixed[vd.arrayDim] = at(b, loc, vd, constant(b, loc, i.start));
      break;
    case IndexerKind::Slice:
    case IndexerKind::SliceConst:
      out.dims.push_back(
          {vd.arrayDim,
           at(b, loc, vd, i.kind == IndexerKind::Slice ? operand : constant(b, loc, i.start)),
           vd.stride * i.stride, i.size});
      break;
    case IndexerKind::Tensor:
      return failure();
    }
  }
  return out;
}
