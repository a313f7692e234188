//===- PallasDialect.cpp - dialect registration and types -----------------===//
#include "pallas/Dialect/Pallas.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pallas;

#include "pallas/Dialect/PallasDialect.cpp.inc"
#include "pallas/Dialect/PallasEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/Dialect/PallasTypes.cpp.inc"

void PallasDialect::initialize() {
  registerAttributes();
  addTypes<
#define GET_TYPEDEF_LIST
#include "pallas/Dialect/PallasTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pallas/Dialect/PallasOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// RefType
//===----------------------------------------------------------------------===//

/// Element types a ref may hold (f64, f32, f16, bf16, the two f8 types, i1
/// to i64), plus the semaphore types for arrays of semaphores.
static bool isRefElementType(Type t) {
  if (t.isF64() || t.isF32() || t.isF16() || t.isBF16())
    return true;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    return true;
  if (auto i = dyn_cast<IntegerType>(t))
    return i.isSignless() && llvm::is_contained({1u, 8u, 16u, 32u, 64u},
                                                i.getWidth());
  return isa<SemaphoreType, DMASemaphoreType>(t);
}

LogicalResult RefType::verify(function_ref<InFlightDiagnostic()> emitError,
                              ArrayRef<int64_t> shape, Type elementType,
                              MemorySpace) {
  // `?` (a symbolic size) only comes from pallas-expand-grid: the parser
  // does not accept it.
  for (int64_t d : shape)
    if (d <= 0 && !ShapedType::isDynamic(d))
      return emitError() << "ref dimensions must be positive, got " << d;
  if (!isRefElementType(elementType))
    return emitError() << "unsupported ref element type " << elementType
                       << " (expected f64, f32, f16, bf16, f8E4M3FN, f8E5M2, "
                          "i1, i8, i16, i32, i64 or a semaphore type)";
  return success();
}

int64_t RefType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

RefType RefType::withShape(ArrayRef<int64_t> shape) const {
  return RefType::get(getContext(), shape, getElementType(), getMemorySpace());
}

/// `<128x128xf32>` or `<128x128xf32, vmem>`; rank 0 is `<f32>`.
Type RefType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType))
    return {};
  MemorySpace space = MemorySpace::none;
  if (succeeded(parser.parseOptionalComma())) {
    StringRef keyword;
    SMLoc spaceLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword))
      return {};
    std::optional<MemorySpace> parsed = symbolizeMemorySpace(keyword);
    if (!parsed || *parsed == MemorySpace::none) {
      parser.emitError(spaceLoc, "unknown memory space '")
          << keyword << "' (expected any, vmem, smem, gmem or regs)";
      return {};
    }
    space = *parsed;
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<RefType>(loc, parser.getContext(), shape,
                                    elementType, space);
}

void RefType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape()) {
    if (ShapedType::isDynamic(d))
      printer << "?x";
    else
      printer << d << "x";
  }
  printer << getElementType();
  if (getMemorySpace() != MemorySpace::none)
    printer << ", " << stringifyMemorySpace(getMemorySpace());
  printer << ">";
}
