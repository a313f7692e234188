//===- PallasOps.cpp - custom syntax and verifiers of pallas ops ----------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Dialect/OperandSegments.h"
#include "pallas/Mgpu/Mgpu.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::pallas;

/// `tensor<SHAPExi1>` for a tensor value, `i1` for a scalar: the type of a
/// mask over `valueType`.
static Type maskTypeFor(Type valueType) {
  Type i1 = IntegerType::get(valueType.getContext(), 1);
  if (auto shaped = dyn_cast<RankedTensorType>(valueType))
    return RankedTensorType::get(shaped.getShape(), i1);
  return i1;
}

static ArrayRef<int64_t> shapeOf(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    return shaped.getShape();
  return {};
}

static Type elementTypeOf(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    return shaped.getElementType();
  return t;
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     FunctionType type) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.addRegion();
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult KernelOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("kernels return nothing; write results through output refs");
  if (getBody().empty())
    return emitOpError("needs a body");
  for (auto [i, t] : llvm::enumerate(getArgumentTypes())) {
    // Symbolic sizes: i64 arguments that pallas-expand-grid adds.
    auto spec = getArgAttrOfType<BlockSpecAttr>(i, PallasDialect::kBlockSpecAttrName);
    if (spec && spec.getRole() == ArgRole::size) {
      if (!t.isInteger(64))
        return emitOpError("argument #") << i << " (size '" << spec.getName()
                                         << "') must be i64, got " << t;
      continue;
    }
    if (!isa<RefType, SemaphoreType, DMASemaphoreType>(t))
      return emitOpError("argument #")
             << i << " must be a !pallas.ref or a semaphore, got " << t;
  }
  // The dialects the compiler lowers kernels to are its own business: a
  // kernel that used them directly would bypass every check.
  WalkResult internal = getBody().walk([](Operation *op) {
    StringRef ns = op->getName().getDialectNamespace();
    if (ns == "tt" || ns == "pallas_gpu" || ns == "tpu") {
      op->emitOpError("is not allowed in a pallas.kernel: '")
          << ns << "' is a dialect pallasc lowers to, not one kernels are written in";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(internal.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// RunScopedOp
//===----------------------------------------------------------------------===//

ParseResult RunScopedOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> args;
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true))
    return failure();
  if (succeeded(parser.parseOptionalArrow()))
    if (parser.parseLParen() || parser.parseTypeList(result.types) ||
        parser.parseRParen())
      return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  RunScopedOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void RunScopedOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getBody().getArguments(), p,
                        [&](BlockArgument a) { p.printRegionArgument(a); });
  p << ")";
  if (!getResults().empty()) {
    p << " -> (";
    llvm::interleaveComma(getResultTypes(), p);
    p << ")";
  }
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/!getResults().empty());
  p.printOptionalAttrDict((*this)->getAttrs());
}

LogicalResult RunScopedOp::verify() {
  for (BlockArgument a : getBody().getArguments())
    if (!isa<RefType, SemaphoreType, DMASemaphoreType, plgpu::BarrierType>(a.getType()))
      return emitOpError("scoped value #")
             << a.getArgNumber() << " must be a !pallas.ref, a semaphore or a !plgpu.barrier, got "
             << a.getType();
  // A missing or foreign terminator is reported by the region trait, which
  // runs after this verifier.
  Block &body = getBody().front();
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return success();
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ")
           << yield.getValues().size()
           << " value(s) whose types differ from the op's result types";
  return success();
}

//===----------------------------------------------------------------------===//
// Indexed access: shared syntax
//===----------------------------------------------------------------------===//

namespace {
/// `%ref[INDEXERS]` as parsed, before types are known.
struct ParsedAccess {
  OpAsmParser::UnresolvedOperand ref;
  IndexerList list;
  SmallVector<OpAsmParser::UnresolvedOperand> indices;
  SMLoc loc;
};
} // namespace

static ParseResult parseAccess(OpAsmParser &parser, ParsedAccess &access) {
  access.loc = parser.getCurrentLocation();
  return failure(parser.parseOperand(access.ref) ||
                 parseIndexers(parser, access.list, access.indices));
}

/// `REFTYPE (, INDEXTYPE)*`: the ref's type and one type per indexer that
/// stands alone. Marks indexers whose type is a tensor as gathers.
static ParseResult parseAccessTypes(OpAsmParser &parser, ParsedAccess &access,
                                    RefType &refType,
                                    SmallVectorImpl<Type> &operandTypes) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseCustomTypeWithFallback(refType))
    return failure();
  (void)loc;
  SmallVector<Type> written;
  unsigned count = numWrittenIndexTypes(access.list);
  for (unsigned i = 0; i < count; ++i) {
    Type t;
    if (parser.parseComma() || parser.parseType(t))
      return failure();
    written.push_back(t);
  }
  // Decide scalar vs tensor for each standalone indexer.
  IndexerList fixed;
  unsigned next = 0;
  for (Indexer idx : access.list.get()) {
    if (idx.kind == IndexerKind::Scalar || idx.kind == IndexerKind::Tensor)
      idx.kind = isa<ShapedType>(written[next++]) ? IndexerKind::Tensor
                                                  : IndexerKind::Scalar;
    fixed.push(idx);
  }
  if (!access.list.isWhole())
    access.list = fixed;
  collectIndexOperandTypes(access.list, written, parser.getContext(),
                           operandTypes);
  return success();
}

static ParseResult resolveAccess(OpAsmParser &parser, ParsedAccess &access,
                                 RefType refType, ArrayRef<Type> indexTypes,
                                 OperationState &result,
                                 StringRef indexersName = "indexers") {
  if (parser.resolveOperand(access.ref, refType, result.operands) ||
      parser.resolveOperands(access.indices, indexTypes, access.loc,
                             result.operands))
    return failure();
  result.addAttribute(indexersName,
                      parser.getBuilder().getDenseI64ArrayAttr(access.list.encode()));
  return success();
}

static void printAccess(OpAsmPrinter &p, Value ref, ArrayRef<int64_t> encoded,
                        ValueRange indices) {
  p << " " << ref;
  printIndexers(p, IndexerList::decode(encoded), indices);
}

static void printAccessTypes(OpAsmPrinter &p, Type refType,
                             ArrayRef<int64_t> encoded, ValueRange indices) {
  p << refType;
  SmallVector<Type> written;
  writtenIndexTypes(IndexerList::decode(encoded), indices, written);
  for (Type t : written)
    p << ", " << t;
}

/// Whether the `size` elements start, start + stride, ... lie in [0, dim),
/// for start >= 0 and size, stride, dim >= 1; `start + (size - 1) * stride`
/// itself could overflow.
static bool sliceFits(int64_t start, int64_t size, int64_t stride,
                      int64_t dim) {
  return start < dim && size - 1 <= (dim - 1 - start) / stride;
}

/// Checks the indexers against the ref and computes the accessed shape.
static LogicalResult verifyAccess(Operation *op, RefType refType,
                                  ArrayRef<int64_t> encoded, ValueRange indices,
                                  SmallVectorImpl<int64_t> &shape,
                                  StringRef what = "ref") {
  // The encoded array comes from the custom parser, which only builds valid
  // entries, or from the generic form, which can hold anything.
  std::string side = what == "ref" ? std::string() : (what + " ").str();
  if (encoded.size() % 4 != 0)
    return op->emitOpError("has a malformed ")
           << side << "indexer array of " << encoded.size()
           << " entries (4 per indexer)";
  for (size_t d = 0; d < encoded.size() / 4; ++d) {
    int64_t kind = encoded[4 * d], start = encoded[4 * d + 1],
            size = encoded[4 * d + 2], stride = encoded[4 * d + 3];
    if (kind < static_cast<int64_t>(IndexerKind::Scalar) ||
        kind > static_cast<int64_t>(IndexerKind::Full))
      return op->emitOpError() << side << "indexer #" << d
                               << " has unknown kind " << kind;
    auto k = static_cast<IndexerKind>(kind);
    if ((k == IndexerKind::ScalarConst || k == IndexerKind::SliceConst) &&
        start < 0)
      return op->emitOpError() << side << "indexer #" << d
                               << " has a negative start " << start;
    if ((k == IndexerKind::Slice || k == IndexerKind::SliceConst) &&
        (size <= 0 || stride <= 0))
      return op->emitOpError()
             << side << "indexer #" << d << " is a slice of size " << size
             << " and stride " << stride << "; both must be positive";
  }
  IndexerList list = IndexerList::decode(encoded);
  if (!list.isWhole() &&
      static_cast<int64_t>(list.get().size()) != refType.getRank())
    return op->emitOpError("has ")
           << list.get().size() << " indexer(s) for a " << what << " of rank "
           << refType.getRank();
  if (list.numOperands() != indices.size())
    return op->emitOpError("has ") << indices.size()
                                   << " index operand(s) but its indexers use "
                                   << list.numOperands();
  SmallVector<ArrayRef<int64_t>> tensorShapes;
  unsigned next = 0;
  for (auto [d, idx] : llvm::enumerate(list.get())) {
    int64_t dim = refType.getShape()[d];
    if (idx.kind == IndexerKind::ScalarConst && idx.start >= dim)
      return op->emitOpError("index ")
             << idx.start << " is out of bounds for dimension " << d
             << " of size " << dim;
    if (idx.kind == IndexerKind::SliceConst &&
        !sliceFits(idx.start, idx.size, idx.stride, dim))
      return op->emitOpError("slice ds(")
             << idx.start << ", " << idx.size << ", " << idx.stride
             << ") does not fit dimension " << d << " of size " << dim;
    if (idx.kind == IndexerKind::Slice &&
        !sliceFits(0, idx.size, idx.stride, dim))
      return op->emitOpError("slice of size ")
             << idx.size << " and stride " << idx.stride
             << " does not fit dimension " << d << " of size " << dim;
    if (!idx.takesOperand())
      continue;
    Type t = indices[next++].getType();
    if (idx.kind == IndexerKind::Tensor) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.getElementType().isSignlessInteger())
        return op->emitOpError("tensor indexer #")
               << d << " must be a ranked tensor of integers, got " << t;
      tensorShapes.push_back(tensor.getShape());
    } else if (idx.kind == IndexerKind::Slice) {
      // The syntax has no place for the start's type: `ds` starts are i32.
      if (!t.isSignlessInteger(32))
        return op->emitOpError("slice start of indexer #")
               << d << " must be i32, got " << t;
    } else if (!t.isSignlessIntOrIndex()) {
      return op->emitOpError("indexer #")
             << d << " must be an integer or index, got " << t;
    }
  }
  std::string error;
  if (failed(list.resultShape(refType.getShape(), tensorShapes, shape, error)))
    return op->emitOpError(error);
  return success();
}

/// The value type an access of `shape` over `refType` reads or writes.
static Type accessedType(RefType refType, ArrayRef<int64_t> shape) {
  if (shape.empty())
    return refType.getElementType();
  return RankedTensorType::get(shape, refType.getElementType());
}

static LogicalResult verifyValueType(Operation *op, StringRef what, Type actual,
                                     Type expected) {
  if (actual == expected)
    return success();
  return op->emitOpError(what) << " type " << actual
                               << " does not match the indexed ref: expected "
                               << expected;
}

static LogicalResult verifyMask(Operation *op, Value mask, Type valueType) {
  if (!mask || mask.getType() == maskTypeFor(valueType))
    return success();
  return op->emitOpError("mask type ")
         << mask.getType() << " does not match the accessed shape "
         << shapeString(shapeOf(valueType)) << ": expected "
         << maskTypeFor(valueType);
}

//===----------------------------------------------------------------------===//
// LoadOp
//===----------------------------------------------------------------------===//

ParseResult LoadOp::parse(OpAsmParser &parser, OperationState &result) {
  ParsedAccess access;
  OpAsmParser::UnresolvedOperand mask, other;
  bool hasMask = false, hasOther = false;
  if (parseAccess(parser, access))
    return failure();
  SMLoc otherLoc;
  if (succeeded(parser.parseOptionalKeyword("mask"))) {
    hasMask = true;
    if (parser.parseOperand(mask))
      return failure();
  }
  otherLoc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalKeyword("other"))) {
    if (!hasMask)
      return parser.emitError(otherLoc, "'other' needs a 'mask'");
    hasOther = true;
    if (parser.parseOperand(other))
      return failure();
  }
  RefType refType;
  SmallVector<Type> indexTypes;
  Type resultType;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parseAccessTypes(parser, access, refType, indexTypes) ||
      parser.parseArrow() || parser.parseType(resultType) ||
      resolveAccess(parser, access, refType, indexTypes, result))
    return failure();
  if (hasMask &&
      parser.resolveOperand(mask, maskTypeFor(resultType), result.operands))
    return failure();
  if (hasOther && parser.resolveOperand(other, resultType, result.operands))
    return failure();
  result.addAttribute(getOperandSegmentSizesAttrName(result.name),
                      parser.getBuilder().getDenseI32ArrayAttr(
                          {1, static_cast<int32_t>(access.indices.size()),
                           hasMask ? 1 : 0, hasOther ? 1 : 0}));
  result.addTypes(resultType);
  return success();
}

void LoadOp::print(OpAsmPrinter &p) {
  printAccess(p, getRef(), getIndexers(), getIndices());
  if (getMask())
    p << " mask " << getMask();
  if (getOther())
    p << " other " << getOther();
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {"indexers", "operandSegmentSizes"});
  p << " : ";
  printAccessTypes(p, getRef().getType(), getIndexers(), getIndices());
  p << " -> " << getResult().getType();
}

void LoadOp::build(OpBuilder &b, OperationState &state, Value ref) {
  auto type = cast<RefType>(ref.getType());
  Type result = type.getShape().empty()
                    ? type.getElementType()
                    : (Type)RankedTensorType::get(type.getShape(), type.getElementType());
  build(b, state, result, ref, ValueRange{}, b.getDenseI64ArrayAttr({}), Value(), Value());
}

LogicalResult LoadOp::verify() {
  if (failed(verifyRequiredSegments(*this, {{0, "ref"}})))
    return failure();
  SmallVector<int64_t> shape;
  RefType refType = cast<RefType>(getRef().getType());
  if (failed(verifyAccess(*this, refType, getIndexers(), getIndices(), shape)))
    return failure();
  Type expected = accessedType(refType, shape);
  if (failed(verifyValueType(*this, "result", getResult().getType(), expected)) ||
      failed(verifyMask(*this, getMask(), expected)))
    return failure();
  if (getOther() && !getMask())
    return emitOpError("'other' needs a 'mask'");
  if (getOther() && getOther().getType() != expected)
    return emitOpError("'other' type ")
           << getOther().getType() << " must match the result type " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// StoreOp, SwapOp, AtomicRMWOp: `%ref[IDX], %v [mask %m] : REF, IDX..., V`
//===----------------------------------------------------------------------===//

/// Parses `%ref[IDX], %v [mask %m] attr-dict : types` into `result`, with
/// operand segments (ref, indices, value, mask).
static ParseResult parseWrite(OpAsmParser &parser, OperationState &result,
                              StringRef segmentsName, bool hasResult) {
  ParsedAccess access;
  OpAsmParser::UnresolvedOperand value, mask;
  bool hasMask = false;
  if (parseAccess(parser, access) || parser.parseComma() ||
      parser.parseOperand(value))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("mask"))) {
    hasMask = true;
    if (parser.parseOperand(mask))
      return failure();
  }
  RefType refType;
  SmallVector<Type> indexTypes;
  Type valueType;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parseAccessTypes(parser, access, refType, indexTypes) ||
      parser.parseComma() || parser.parseType(valueType) ||
      resolveAccess(parser, access, refType, indexTypes, result) ||
      parser.resolveOperand(value, valueType, result.operands))
    return failure();
  if (hasMask &&
      parser.resolveOperand(mask, maskTypeFor(valueType), result.operands))
    return failure();
  result.addAttribute(segmentsName,
                      parser.getBuilder().getDenseI32ArrayAttr(
                          {1, static_cast<int32_t>(access.indices.size()), 1,
                           hasMask ? 1 : 0}));
  if (hasResult)
    result.addTypes(valueType);
  return success();
}

static void printWrite(OpAsmPrinter &p, Operation *op, Value ref,
                       ArrayRef<int64_t> indexers, ValueRange indices,
                       Value value, Value mask) {
  printAccess(p, ref, indexers, indices);
  p << ", " << value;
  if (mask)
    p << " mask " << mask;
  p.printOptionalAttrDict(op->getAttrs(),
                          {"indexers", "operandSegmentSizes", "kind"});
  p << " : ";
  printAccessTypes(p, ref.getType(), indexers, indices);
  p << ", " << value.getType();
}

static LogicalResult verifyWrite(Operation *op, Value ref,
                                 ArrayRef<int64_t> indexers, ValueRange indices,
                                 Value value, Value mask) {
  SmallVector<int64_t> shape;
  RefType refType = cast<RefType>(ref.getType());
  if (failed(verifyAccess(op, refType, indexers, indices, shape)))
    return failure();
  Type expected = accessedType(refType, shape);
  if (failed(verifyValueType(op, "value", value.getType(), expected)))
    return failure();
  return verifyMask(op, mask, expected);
}

ParseResult StoreOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseWrite(parser, result,
                    getOperandSegmentSizesAttrName(result.name), false);
}
void StoreOp::print(OpAsmPrinter &p) {
  printWrite(p, *this, getRef(), getIndexers(), getIndices(), getValue(),
             getMask());
}
void StoreOp::build(OpBuilder &b, OperationState &state, Value ref, Value value) {
  build(b, state, ref, ValueRange{}, b.getDenseI64ArrayAttr({}), value, Value());
}

LogicalResult StoreOp::verify() {
  if (failed(verifyRequiredSegments(*this, {{0, "ref"}, {2, "value"}})))
    return failure();
  return verifyWrite(*this, getRef(), getIndexers(), getIndices(), getValue(),
                     getMask());
}

ParseResult SwapOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseWrite(parser, result,
                    getOperandSegmentSizesAttrName(result.name), true);
}
void SwapOp::print(OpAsmPrinter &p) {
  printWrite(p, *this, getRef(), getIndexers(), getIndices(), getValue(),
             getMask());
}
/// The old value that swap and the atomics return has the stored value's type
/// (the custom syntax writes only the latter).
static LogicalResult verifyOldValue(Operation *op, Value value, Value result) {
  if (result.getType() == value.getType())
    return success();
  return op->emitOpError("result type ")
         << result.getType() << " must match the value type "
         << value.getType();
}

LogicalResult SwapOp::verify() {
  if (failed(verifyRequiredSegments(*this, {{0, "ref"}, {2, "value"}})))
    return failure();
  if (failed(verifyWrite(*this, getRef(), getIndexers(), getIndices(),
                         getValue(), getMask())))
    return failure();
  return verifyOldValue(*this, getValue(), getResult());
}

ParseResult AtomicRMWOp::parse(OpAsmParser &parser, OperationState &result) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<AtomicKind> kind = symbolizeAtomicKind(keyword);
  if (!kind)
    return parser.emitError(loc, "unknown atomic kind '")
           << keyword << "' (expected add, max, min, and, or, xor or xchg)";
  result.addAttribute(getKindAttrName(result.name),
                      AtomicKindAttr::get(parser.getContext(), *kind));
  return parseWrite(parser, result,
                    getOperandSegmentSizesAttrName(result.name), true);
}
void AtomicRMWOp::print(OpAsmPrinter &p) {
  p << " " << stringifyAtomicKind(getKind());
  printWrite(p, *this, getRef(), getIndexers(), getIndices(), getValue(),
             getMask());
}
LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyRequiredSegments(*this, {{0, "ref"}, {2, "value"}})))
    return failure();
  if (failed(verifyWrite(*this, getRef(), getIndexers(), getIndices(),
                         getValue(), getMask())) ||
      failed(verifyOldValue(*this, getValue(), getResult())))
    return failure();
  Type elt = elementTypeOf(getValue().getType());
  bool bitwise = getKind() == AtomicKind::and_ || getKind() == AtomicKind::or_ ||
                 getKind() == AtomicKind::xor_;
  if (bitwise && !elt.isSignlessInteger())
    return emitOpError("atomic ")
           << stringifyAtomicKind(getKind()) << " needs integers, got " << elt;
  return success();
}

//===----------------------------------------------------------------------===//
// AtomicCASOp: `%ref[IDX], %cmp, %v : REF, IDX..., V`
//===----------------------------------------------------------------------===//

ParseResult AtomicCASOp::parse(OpAsmParser &parser, OperationState &result) {
  ParsedAccess access;
  OpAsmParser::UnresolvedOperand cmp, value;
  RefType refType;
  SmallVector<Type> indexTypes;
  Type valueType;
  if (parseAccess(parser, access) || parser.parseComma() ||
      parser.parseOperand(cmp) || parser.parseComma() ||
      parser.parseOperand(value) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parseAccessTypes(parser, access, refType, indexTypes) ||
      parser.parseComma() || parser.parseType(valueType) ||
      resolveAccess(parser, access, refType, indexTypes, result) ||
      parser.resolveOperand(cmp, valueType, result.operands) ||
      parser.resolveOperand(value, valueType, result.operands))
    return failure();
  result.addTypes(valueType);
  return success();
}

void AtomicCASOp::print(OpAsmPrinter &p) {
  printAccess(p, getRef(), getIndexers(), getIndices());
  p << ", " << getCmp() << ", " << getValue();
  p.printOptionalAttrDict((*this)->getAttrs(), {"indexers"});
  p << " : ";
  printAccessTypes(p, getRef().getType(), getIndexers(), getIndices());
  p << ", " << getValue().getType();
}

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyWrite(*this, getRef(), getIndexers(), getIndices(),
                         getValue(), Value())) ||
      failed(verifyOldValue(*this, getValue(), getResult())))
    return failure();
  if (getCmp().getType() != getValue().getType())
    return emitOpError("compare value type ")
           << getCmp().getType() << " must match the value type "
           << getValue().getType();
  if (!elementTypeOf(getValue().getType()).isSignlessInteger(32) &&
      !elementTypeOf(getValue().getType()).isSignlessInteger(64))
    return emitOpError("compare-and-swap needs i32 or i64 values, got ")
           << getValue().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// RefSliceOp: `%ref[IDX] : REF, IDX... -> REF`
//===----------------------------------------------------------------------===//

ParseResult RefSliceOp::parse(OpAsmParser &parser, OperationState &result) {
  ParsedAccess access;
  RefType refType;
  SmallVector<Type> indexTypes;
  Type resultType;
  if (parseAccess(parser, access) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parseAccessTypes(parser, access, refType, indexTypes) ||
      parser.parseArrow() || parser.parseType(resultType) ||
      resolveAccess(parser, access, refType, indexTypes, result))
    return failure();
  result.addTypes(resultType);
  return success();
}

void RefSliceOp::print(OpAsmPrinter &p) {
  printAccess(p, getRef(), getIndexers(), getIndices());
  p.printOptionalAttrDict((*this)->getAttrs(), {"indexers"});
  p << " : ";
  printAccessTypes(p, getRef().getType(), getIndexers(), getIndices());
  p << " -> " << getResult().getType();
}

LogicalResult RefSliceOp::verify() {
  RefType refType = cast<RefType>(getRef().getType());
  if (IndexerList::decode(getIndexers()).hasTensorIndexer())
    return emitOpError("cannot take a view with a tensor indexer; use load");
  SmallVector<int64_t> shape;
  if (failed(verifyAccess(*this, refType, getIndexers(), getIndices(), shape)))
    return failure();
  RefType expected = refType.withShape(shape);
  if (getResult().getType() != expected)
    return emitOpError("result type ")
           << getResult().getType() << " does not match the view: expected "
           << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// AsyncCopyOp, DMAWaitOp: `%src[IDX] -> %dst[IDX], %sem : SRC, IDX... -> DST, IDX...`
//===----------------------------------------------------------------------===//

static ParseResult parseCopy(OpAsmParser &parser, OperationState &result,
                             StringRef segmentsName) {
  ParsedAccess src, dst;
  OpAsmParser::UnresolvedOperand sem;
  RefType srcType, dstType;
  SmallVector<Type> srcIndexTypes, dstIndexTypes;
  if (parseAccess(parser, src) || parser.parseArrow() ||
      parseAccess(parser, dst) || parser.parseComma() ||
      parser.parseOperand(sem) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parseAccessTypes(parser, src, srcType, srcIndexTypes) ||
      parser.parseArrow() ||
      parseAccessTypes(parser, dst, dstType, dstIndexTypes) ||
      resolveAccess(parser, src, srcType, srcIndexTypes, result, "src_indexers") ||
      resolveAccess(parser, dst, dstType, dstIndexTypes, result, "dst_indexers") ||
      parser.resolveOperand(sem, DMASemaphoreType::get(parser.getContext()),
                            result.operands))
    return failure();
  result.addAttribute(segmentsName,
                      parser.getBuilder().getDenseI32ArrayAttr(
                          {1, static_cast<int32_t>(src.indices.size()), 1,
                           static_cast<int32_t>(dst.indices.size()), 1}));
  return success();
}

template <typename CopyOp>
static void printCopy(OpAsmPrinter &p, CopyOp op) {
  printAccess(p, op.getSrc(), op.getSrcIndexers(), op.getSrcIndices());
  p << " ->";
  printAccess(p, op.getDst(), op.getDstIndexers(), op.getDstIndices());
  p << ", " << op.getSem();
  p.printOptionalAttrDict(op->getAttrs(), {"src_indexers", "dst_indexers",
                                           "operandSegmentSizes"});
  p << " : ";
  printAccessTypes(p, op.getSrc().getType(), op.getSrcIndexers(),
                   op.getSrcIndices());
  p << " -> ";
  printAccessTypes(p, op.getDst().getType(), op.getDstIndexers(),
                   op.getDstIndices());
}

template <typename CopyOp>
static LogicalResult verifyCopy(CopyOp op) {
  if (failed(verifyRequiredSegments(op, {{0, "src"}, {2, "dst"}, {4, "sem"}})))
    return failure();
  SmallVector<int64_t> srcShape, dstShape;
  auto srcType = cast<RefType>(op.getSrc().getType());
  auto dstType = cast<RefType>(op.getDst().getType());
  if (IndexerList::decode(op.getSrcIndexers()).hasTensorIndexer() ||
      IndexerList::decode(op.getDstIndexers()).hasTensorIndexer())
    return op.emitOpError("copies take slices, not tensor indexers");
  if (failed(verifyAccess(op, srcType, op.getSrcIndexers(), op.getSrcIndices(),
                          srcShape, "source")) ||
      failed(verifyAccess(op, dstType, op.getDstIndexers(), op.getDstIndices(),
                          dstShape, "destination")))
    return failure();
  if (srcShape != dstShape)
    return op.emitOpError("copies a ")
           << shapeString(srcShape) << " source into a "
           << shapeString(dstShape) << " destination";
  if (srcType.getElementType() != dstType.getElementType())
    return op.emitOpError("source element type ")
           << srcType.getElementType() << " differs from destination's "
           << dstType.getElementType();
  return success();
}

ParseResult AsyncCopyOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseCopy(parser, result, getOperandSegmentSizesAttrName(result.name));
}
void AsyncCopyOp::print(OpAsmPrinter &p) { printCopy(p, *this); }
LogicalResult AsyncCopyOp::verify() { return verifyCopy(*this); }

ParseResult DMAWaitOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseCopy(parser, result, getOperandSegmentSizesAttrName(result.name));
}
void DMAWaitOp::print(OpAsmPrinter &p) { printCopy(p, *this); }
LogicalResult DMAWaitOp::verify() { return verifyCopy(*this); }

//===----------------------------------------------------------------------===//
// Tensor ops
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  int64_t rank = getResult().getType().getRank();
  if (static_cast<int64_t>(getDim()) >= rank)
    return emitOpError("dimension ")
           << getDim() << " is out of range for a result of rank " << rank;
  return success();
}

SmallVector<int64_t> BroadcastOp::getInputToResultDims() {
  if (std::optional<ArrayRef<int64_t>> given = getDims())
    return SmallVector<int64_t>(given->begin(), given->end());
  int64_t in = shapeOf(getInput().getType()).size();
  int64_t out = getResult().getType().getRank();
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < in; ++i)
    dims.push_back(out - in + i);
  return dims;
}

LogicalResult BroadcastOp::verify() {
  Type inputType = getInput().getType();
  RankedTensorType resultType = getResult().getType();
  if (!isa<RankedTensorType>(inputType) && !inputType.isIntOrIndexOrFloat())
    return emitOpError("input must be a scalar or a ranked tensor, got ")
           << inputType;
  if (elementTypeOf(inputType) != resultType.getElementType())
    return emitOpError("element type ")
           << elementTypeOf(inputType) << " differs from the result's "
           << resultType.getElementType();
  ArrayRef<int64_t> in = shapeOf(inputType), out = resultType.getShape();
  if (!getDims() && in.size() > out.size())
    return emitOpError("cannot broadcast rank ")
           << in.size() << " to the lower rank " << out.size();
  SmallVector<int64_t> dims = getInputToResultDims();
  if (getDims()) {
    if (dims.size() != in.size())
      return emitOpError("has ")
             << dims.size() << " broadcast dim(s) for an input of rank "
             << in.size();
    for (auto [i, d] : llvm::enumerate(dims)) {
      if (d < 0 || d >= static_cast<int64_t>(out.size()))
        return emitOpError("broadcast dim ")
               << d << " is out of range for a result of rank " << out.size();
      if (i > 0 && d <= dims[i - 1])
        return emitOpError("broadcast dims must be strictly increasing");
    }
  }
  for (auto [i, d] : llvm::enumerate(dims))
    if (in[i] != 1 && in[i] != out[d])
      return emitOpError("input dim ")
             << i << " of size " << in[i] << " cannot broadcast to result dim "
             << d << " of size " << out[d];
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("changes the element type from ")
           << in.getElementType() << " to " << out.getElementType();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ")
           << in.getNumElements() << " elements into " << out.getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  ArrayRef<int64_t> perm = getPermutation();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOpError("permutation has ")
           << perm.size() << " entries for an input of rank " << in.getRank();
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError("permutation ")
             << shapeString(perm) << " is not a permutation of 0.."
             << in.getRank() - 1;
    seen[p] = true;
    expected.push_back(in.getShape()[p]);
  }
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      out.getElementType() != in.getElementType())
    return emitOpError("result type ")
           << out << " does not match the permuted input: expected "
           << RankedTensorType::get(expected, in.getElementType());
  return success();
}

LogicalResult ConcatenateOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  auto first = cast<RankedTensorType>(getInputs()[0].getType());
  int64_t dim = getDim();
  if (dim >= first.getRank())
    return emitOpError("dimension ")
           << dim << " is out of range for inputs of rank " << first.getRank();
  SmallVector<int64_t> expected(first.getShape());
  expected[dim] = 0;
  for (Value v : getInputs()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return emitOpError("inputs must share rank and element type");
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != dim && t.getShape()[d] != first.getShape()[d])
        return emitOpError("inputs differ in dimension ")
               << d << ", which is not the concatenated dimension";
    expected[dim] += t.getShape()[dim];
  }
  auto want = RankedTensorType::get(expected, first.getElementType());
  if (getResult().getType() != want)
    return emitOpError("result type ")
           << getResult().getType() << " does not match: expected " << want;
  return success();
}

/// The shape left after removing `axes` from `shape`; fails on a bad axis.
static LogicalResult reducedShape(Operation *op, ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes,
                                  SmallVectorImpl<int64_t> &out) {
  SmallVector<bool> reduced(shape.size(), false);
  for (int64_t a : axes) {
    if (a < 0 || a >= static_cast<int64_t>(shape.size()))
      return op->emitOpError("axis ")
             << a << " is out of range for an input of rank " << shape.size();
    if (reduced[a])
      return op->emitOpError("axis ") << a << " appears twice";
    reduced[a] = true;
  }
  for (auto [d, size] : llvm::enumerate(shape))
    if (!reduced[d])
      out.push_back(size);
  return success();
}

static Type tensorOrScalar(ArrayRef<int64_t> shape, Type elt) {
  if (shape.empty())
    return elt;
  return RankedTensorType::get(shape, elt);
}

LogicalResult ReduceOp::verify() {
  auto in = getInput().getType();
  if (getAxes().empty())
    return emitOpError("needs at least one axis");
  SmallVector<int64_t> shape;
  if (failed(reducedShape(*this, in.getShape(), getAxes(), shape)))
    return failure();
  Type expected = tensorOrScalar(shape, in.getElementType());
  if (getResult().getType() != expected)
    return emitOpError("result type ")
           << getResult().getType() << " does not match the reduction: expected "
           << expected;
  bool bitwise = getKind() == ReductionKind::and_ ||
                 getKind() == ReductionKind::or_ ||
                 getKind() == ReductionKind::xor_;
  if (bitwise && !in.getElementType().isSignlessInteger())
    return emitOpError("reduction '")
           << stringifyReductionKind(getKind()) << "' needs integers or i1, got "
           << in.getElementType();
  return success();
}

template <typename ArgOp>
static LogicalResult verifyArgReduce(ArgOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  SmallVector<int64_t> shape;
  int64_t axis = op.getAxis();
  if (failed(reducedShape(op, in.getShape(), {axis}, shape)))
    return failure();
  Type expected = tensorOrScalar(shape, IntegerType::get(op.getContext(), 32));
  if (op.getResult().getType() != expected)
    return op.emitOpError("result type ")
           << op.getResult().getType() << " does not match: expected "
           << expected;
  return success();
}
LogicalResult ArgMaxOp::verify() { return verifyArgReduce(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgReduce(*this); }

LogicalResult CumsumOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (static_cast<int64_t>(getAxis()) >= rank)
    return emitOpError("axis ")
           << getAxis() << " is out of range for an input of rank " << rank;
  return success();
}

LogicalResult DotOp::verify() {
  auto lhs = getLhs().getType(), rhs = getRhs().getType();
  auto result = getResult().getType();
  if (lhs.getRank() != rhs.getRank() || lhs.getRank() < 2 || lhs.getRank() > 3)
    return emitOpError("operands must both be 2-D, or both 3-D with a leading "
                       "batch dim; got ranks ")
           << lhs.getRank() << " and " << rhs.getRank();
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError("operand element types differ: ")
           << lhs.getElementType() << " and " << rhs.getElementType();
  bool batched = lhs.getRank() == 3;
  ArrayRef<int64_t> a = lhs.getShape().take_back(2),
                    b = rhs.getShape().take_back(2);
  int64_t m = getTransposeLhs() ? a[1] : a[0], ka = getTransposeLhs() ? a[0] : a[1];
  int64_t kb = getTransposeRhs() ? b[1] : b[0], n = getTransposeRhs() ? b[0] : b[1];
  if (ka != kb)
    return emitOpError("contracting dimensions differ: lhs has K = ")
           << ka << ", rhs has K = " << kb;
  if (batched && lhs.getShape()[0] != rhs.getShape()[0])
    return emitOpError("batch dimensions differ: ")
           << lhs.getShape()[0] << " and " << rhs.getShape()[0];
  Type elt = lhs.getElementType();
  Type accElt;
  if (isa<FloatType>(elt))
    accElt = elt.isF64() ? elt : Float32Type::get(getContext());
  else if (elt.isSignlessInteger(8) || elt.isSignlessInteger(16) ||
           elt.isSignlessInteger(32))
    accElt = IntegerType::get(getContext(), 32);
  else
    return emitOpError("unsupported operand element type ") << elt;
  SmallVector<int64_t> shape;
  if (batched)
    shape.push_back(lhs.getShape()[0]);
  shape.append({m, n});
  auto expected = RankedTensorType::get(shape, accElt);
  if (result != expected)
    return emitOpError("result type ")
           << result << " does not match: the product of " << lhs << " and "
           << rhs << " accumulates as " << expected;
  if (getAcc() && getAcc().getType() != result)
    return emitOpError("accumulator type ")
           << getAcc().getType() << " must match the result type " << result;
  if (std::optional<StringRef> precision = getPrecision())
    if (!llvm::is_contained({"default", "high", "highest"}, *precision))
      return emitOpError("precision must be \"default\", \"high\" or "
                         "\"highest\", got \"")
             << *precision << "\"";
  return success();
}

template <typename HintOp>
static LogicalResult verifyHint(HintOp op) {
  if (!elementTypeOf(op.getInput().getType()).isSignlessIntOrIndex())
    return op.emitOpError("applies to integers, got ")
           << op.getInput().getType();
  return success();
}
LogicalResult MultipleOfOp::verify() { return verifyHint(*this); }
LogicalResult MaxContiguousOp::verify() { return verifyHint(*this); }

LogicalResult DebugPrintOp::verify() {
  StringRef format = getFormat();
  size_t placeholders = 0;
  for (size_t pos = format.find("{}"); pos != StringRef::npos;
       pos = format.find("{}", pos + 2))
    ++placeholders;
  if (placeholders && placeholders != getArgs().size())
    return emitOpError("format has ")
           << placeholders << " placeholder(s) for " << getArgs().size()
           << " value(s)";
  return success();
}

LogicalResult BlockOp::verify() {
  auto array = cast<RefType>(getRef().getType());
  auto block = cast<RefType>(getResult().getType());
  ArrayRef<int64_t> dims = getBlockShape();
  if (static_cast<int64_t>(getIndices().size()) != array.getRank() ||
      static_cast<int64_t>(dims.size()) != array.getRank())
    return emitOpError("needs one block index and one block size per array "
                       "dimension (rank ")
           << array.getRank() << ")";
  SmallVector<bool> squeezed(dims.size(), false);
  for (int64_t d : getSqueezed().value_or(ArrayRef<int64_t>())) {
    if (d < 0 || d >= array.getRank() || squeezed[d])
      return emitOpError("squeezed dim ") << d << " is invalid";
    if (dims[d] != 1)
      return emitOpError("squeezed dim ") << d << " must have block size 1";
    squeezed[d] = true;
  }
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(dims)) {
    if (size <= 0)
      return emitOpError("block sizes must be positive");
    if (!squeezed[d])
      shape.push_back(size);
  }
  if (block.getShape() != ArrayRef<int64_t>(shape) ||
      block.getElementType() != array.getElementType())
    return emitOpError("result type ")
           << block << " does not match the block: expected "
           << array.withShape(shape);
  return success();
}

#define GET_OP_CLASSES
#include "pallas/Dialect/PallasOps.cpp.inc"
