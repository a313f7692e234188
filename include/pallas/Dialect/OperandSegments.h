//===- OperandSegments.h - required operands of AttrSizedOperandSegments ops ===//
#ifndef PALLAS_DIALECT_OPERANDSEGMENTS_H
#define PALLAS_DIALECT_OPERANDSEGMENTS_H

#include "mlir/IR/OpDefinition.h"

#include <initializer_list>
#include <utility>

namespace mlir::pallas {
/// ODS checks that an op's operandSegmentSizes add up and that an optional
/// operand's segment holds at most one value, but not that a required
/// operand's segment holds exactly one: the generic form can give it none,
/// and its accessor would then read past the operands. Verifiers call this
/// first, with each required group's index and name.
template <typename OpT>
LogicalResult verifyRequiredSegments(
    OpT op, std::initializer_list<std::pair<unsigned, llvm::StringRef>> required) {
  for (auto [group, name] : required) {
    size_t n = op.getODSOperands(group).size();
    if (n != 1)
      return op.emitOpError("operand group '")
             << name << "' requires exactly 1 element, but found " << n;
  }
  return success();
}
} // namespace mlir::pallas

#endif // PALLAS_DIALECT_OPERANDSEGMENTS_H
