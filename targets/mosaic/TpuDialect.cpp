//===- TpuDialect.cpp - the subset of Mosaic's `tpu` dialect we emit ------===//
#include "pallas/Mosaic/Tpu.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pallas::tpu;

#include "pallas/Mosaic/TpuDialect.cpp.inc"
#include "pallas/Mosaic/TpuEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "pallas/Mosaic/TpuAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "pallas/Mosaic/TpuTypes.cpp.inc"

void TPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pallas/Mosaic/TpuAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "pallas/Mosaic/TpuTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pallas/Mosaic/TpuOps.cpp.inc"
      >();
}

/// `<[1], [0], [0], [1], [0, 0, 1, 1], [], []>`: seven integer lists, any of
/// them possibly empty.
Attribute DotDimensionNumbersAttr::parse(AsmParser &parser, Type) {
  SmallVector<SmallVector<int64_t>, 7> lists(7);
  if (parser.parseLess())
    return {};
  for (unsigned i = 0; i < 7; ++i) {
    if (i && parser.parseComma())
      return {};
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
          return parser.parseInteger(lists[i].emplace_back());
        }))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return get(parser.getContext(), lists[0], lists[1], lists[2], lists[3],
             lists[4], lists[5], lists[6]);
}

void DotDimensionNumbersAttr::print(AsmPrinter &printer) const {
  ArrayRef<int64_t> lists[] = {
      getLhsContractingDims(),    getRhsContractingDims(),
      getLhsNonContractingDims(), getRhsNonContractingDims(),
      getOutputDimOrder(),        getLhsBatchDims(),
      getRhsBatchDims()};
  printer << "<";
  for (auto [i, list] : llvm::enumerate(lists)) {
    printer << (i ? ", [" : "[");
    llvm::interleaveComma(list, printer);
    printer << "]";
  }
  printer << ">";
}

#define GET_OP_CLASSES
#include "pallas/Mosaic/TpuOps.cpp.inc"
