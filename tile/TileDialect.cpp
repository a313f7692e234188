//===- TileDialect.cpp - tile IR: the subset of Triton's `tt` dialect ----===//
#include "pallas/Tile/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pallas::tt;

#include "pallas/Tile/TileDialect.cpp.inc"
#include "pallas/Tile/TileEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "pallas/Tile/TileTypes.cpp.inc"

void TTDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "pallas/Tile/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pallas/Tile/TileOps.cpp.inc"
      >();
}

/// `!tt.ptr<T>` (address space 1 left out, as Triton prints it) or
/// `!tt.ptr<T, N>`.
Type PointerType::parse(AsmParser &parser) {
  Type pointee;
  int addressSpace = 1;
  if (parser.parseLess() || parser.parseType(pointee))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseInteger(addressSpace))
    return {};
  if (parser.parseGreater())
    return {};
  return PointerType::get(pointee, addressSpace);
}

void PointerType::print(AsmPrinter &printer) const {
  printer << "<" << getPointeeType();
  if (getAddressSpace() != 1)
    printer << ", " << getAddressSpace();
  printer << ">";
}

Type mlir::pallas::tt::getPointeeType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(getPointeeType(tensor.getElementType()));
  if (auto ptr = dyn_cast<PointerType>(type))
    return ptr.getPointeeType();
  return type;
}

Type mlir::pallas::tt::getI1SameShape(Type type) {
  Type i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(i1);
  return i1;
}

Type mlir::pallas::tt::getPointerTypeSameShape(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(),
                                 PointerType::get(tensor.getElementType()));
  return PointerType::get(type);
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(p, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(),
                                           getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

// --- Integer ranges ----------------------------------------------------------
//
// Index tiles are built from program ids, iotas and splats: their ranges let
// upstream integer range analysis decide, e.g., that a bounds mask holds for
// every element. A tile's range is the range of its elements.

void GetProgramIdOp::inferResultRanges(ArrayRef<ConstantIntRanges>, SetIntRangeFn set) {
  int64_t programs = std::numeric_limits<int32_t>::max() + int64_t{1};
  if (auto n = (*this)->getAttrOfType<IntegerAttr>(kProgramsAttrName); n && n.getInt() > 0)
    programs = std::min(programs, n.getInt());
  set(getResult(), ConstantIntRanges::fromSigned(APInt(32, 0), APInt(32, programs - 1)));
}

void MakeRangeOp::inferResultRanges(ArrayRef<ConstantIntRanges>, SetIntRangeFn set) {
  if (getEnd() <= getStart())
    return set(getResult(), ConstantIntRanges::maxRange(32));
  set(getResult(), ConstantIntRanges::fromSigned(APInt(32, getStart(), /*isSigned=*/true),
                                                 APInt(32, int64_t(getEnd()) - 1, true)));
}

/// Ops that move a tile's elements around (or repeat a scalar): the
/// result's elements are the operand's.
#define PALLAS_TT_SAME_ELEMENTS(Op)                                                        \
  void Op::inferResultRanges(ArrayRef<ConstantIntRanges> args, SetIntRangeFn set) {        \
    set(getResult(), args[0]);                                                             \
  }
PALLAS_TT_SAME_ELEMENTS(SplatOp)
PALLAS_TT_SAME_ELEMENTS(BroadcastOp)
PALLAS_TT_SAME_ELEMENTS(ExpandDimsOp)
PALLAS_TT_SAME_ELEMENTS(ReshapeOp)
PALLAS_TT_SAME_ELEMENTS(TransOp)
#undef PALLAS_TT_SAME_ELEMENTS

#define GET_OP_CLASSES
#include "pallas/Tile/TileOps.cpp.inc"
