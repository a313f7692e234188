//===- Indexers.cpp - NDIndexer syntax and shape rules --------------------===//
#include "pallas/Dialect/Indexers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace mlir::pallas;

static constexpr unsigned kFieldsPerIndexer = 4;

IndexerList IndexerList::decode(ArrayRef<int64_t> encoded) {
  IndexerList list;
  for (size_t i = 0; i + kFieldsPerIndexer <= encoded.size();
       i += kFieldsPerIndexer)
    list.push({static_cast<IndexerKind>(encoded[i]), encoded[i + 1],
               encoded[i + 2], encoded[i + 3]});
  return list;
}

SmallVector<int64_t> IndexerList::encode() const {
  SmallVector<int64_t> out;
  for (const Indexer &i : items)
    out.append({static_cast<int64_t>(i.kind), i.start, i.size, i.stride});
  return out;
}

unsigned IndexerList::numOperands() const {
  return llvm::count_if(items, [](const Indexer &i) { return i.takesOperand(); });
}

bool IndexerList::hasTensorIndexer() const {
  return llvm::any_of(items,
                      [](const Indexer &i) { return i.kind == IndexerKind::Tensor; });
}

IndexerList IndexerList::expandedFor(int64_t rank) const {
  if (!whole)
    return *this;
  IndexerList list;
  for (int64_t d = 0; d < rank; ++d)
    list.push({IndexerKind::Full});
  list.whole = rank != 0 ? false : true;
  return list;
}

IndexerList::ResultLayout
IndexerList::resultLayout(unsigned advancedRank) const {
  ResultLayout layout;
  layout.sliceDim.assign(items.size(), -1);
  bool hasAdvanced = hasTensorIndexer();
  int first = -1, last = -1;
  for (auto [d, idx] : llvm::enumerate(items)) {
    if (idx.isSlice())
      continue;
    if (first < 0)
      first = d;
    last = d;
  }
  bool contiguous = true;
  for (int d = first; hasAdvanced && d <= last; ++d)
    contiguous &= !items[d].isSlice();
  int pos = 0;
  if (hasAdvanced && !contiguous) {
    layout.advancedStart = 0;
    pos = advancedRank;
  }
  for (auto [d, idx] : llvm::enumerate(items)) {
    if (hasAdvanced && contiguous && static_cast<int>(d) == first) {
      layout.advancedStart = pos;
      pos += advancedRank;
    }
    if (idx.isSlice())
      layout.sliceDim[d] = pos++;
  }
  return layout;
}

LogicalResult IndexerList::resultShape(ArrayRef<int64_t> refShape,
                                       ArrayRef<ArrayRef<int64_t>> tensorShapes,
                                       SmallVectorImpl<int64_t> &shape,
                                       std::string &error) const {
  shape.clear();
  if (whole) {
    shape.append(refShape.begin(), refShape.end());
    return success();
  }
  // Broadcast the tensor indexers together (NumPy advanced indexing).
  SmallVector<int64_t> advanced;
  for (ArrayRef<int64_t> t : tensorShapes) {
    SmallVector<int64_t> joined;
    if (!OpTrait::util::getBroadcastedShape(advanced, t, joined)) {
      error = "tensor indexers do not broadcast together";
      return failure();
    }
    advanced = joined;
  }
  ResultLayout layout = resultLayout(tensorShapes.empty() ? 0 : advanced.size());
  unsigned rank = llvm::count_if(items, [](const Indexer &i) { return i.isSlice(); });
  if (layout.advancedStart >= 0)
    rank += advanced.size();
  shape.assign(rank, 0);
  for (auto [d, idx] : llvm::enumerate(items))
    if (layout.sliceDim[d] >= 0)
      shape[layout.sliceDim[d]] =
          idx.kind == IndexerKind::Full ? refShape[d] : idx.size;
  if (layout.advancedStart >= 0)
    llvm::copy(advanced, shape.begin() + layout.advancedStart);
  return success();
}

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

/// `ds(START, SIZE[, STRIDE])` after the `ds` keyword.
static ParseResult parseSlice(OpAsmParser &parser, Indexer &idx,
                              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands) {
  if (parser.parseLParen())
    return failure();
  OpAsmParser::UnresolvedOperand start;
  OptionalParseResult isOperand = parser.parseOptionalOperand(start);
  if (isOperand.has_value()) {
    if (failed(*isOperand))
      return failure();
    operands.push_back(start);
    idx.kind = IndexerKind::Slice;
  } else {
    idx.kind = IndexerKind::SliceConst;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseInteger(idx.start))
      return failure();
    if (idx.start < 0)
      return parser.emitError(loc, "slice start must be non-negative");
  }
  SMLoc sizeLoc;
  if (parser.parseComma() || parser.getCurrentLocation(&sizeLoc) ||
      parser.parseInteger(idx.size))
    return failure();
  if (idx.size <= 0)
    return parser.emitError(sizeLoc, "slice size must be positive");
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc strideLoc = parser.getCurrentLocation();
    if (parser.parseInteger(idx.stride))
      return failure();
    if (idx.stride <= 0)
      return parser.emitError(strideLoc, "slice stride must be positive");
  }
  return parser.parseRParen();
}

ParseResult mlir::pallas::parseIndexers(
    OpAsmParser &parser, IndexerList &list,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands) {
  list = IndexerList();
  if (parser.parseLSquare())
    return failure();
  if (succeeded(parser.parseOptionalEllipsis()))
    return parser.parseRSquare();
  if (succeeded(parser.parseOptionalRSquare()))
    return parser.emitError(parser.getCurrentLocation(),
                            "expected indexers or '...' between '[' and ']'");
  auto parseOne = [&]() -> ParseResult {
    Indexer idx{IndexerKind::Full};
    if (succeeded(parser.parseOptionalColon())) {
      list.push(idx);
      return success();
    }
    if (succeeded(parser.parseOptionalKeyword("ds"))) {
      if (parseSlice(parser, idx, operands))
        return failure();
      list.push(idx);
      return success();
    }
    OpAsmParser::UnresolvedOperand operand;
    OptionalParseResult isOperand = parser.parseOptionalOperand(operand);
    if (isOperand.has_value()) {
      if (failed(*isOperand))
        return failure();
      operands.push_back(operand);
      // Scalar or tensor is decided once the types are known.
      idx.kind = IndexerKind::Scalar;
      list.push(idx);
      return success();
    }
    SMLoc loc = parser.getCurrentLocation();
    int64_t value;
    OptionalParseResult isInt = parser.parseOptionalInteger(value);
    if (!isInt.has_value())
      return parser.emitError(loc, "expected an indexer: an SSA value, an "
                                   "integer, 'ds(...)' or ':'");
    if (failed(*isInt))
      return failure();
    if (value < 0)
      return parser.emitError(loc, "constant index must be non-negative");
    idx.kind = IndexerKind::ScalarConst;
    idx.start = value;
    list.push(idx);
    return success();
  };
  if (parser.parseCommaSeparatedList(parseOne))
    return failure();
  return parser.parseRSquare();
}

void mlir::pallas::printIndexers(OpAsmPrinter &p, const IndexerList &list,
                                 ValueRange operands) {
  p << "[";
  if (list.isWhole()) {
    p << "...]";
    return;
  }
  unsigned next = 0;
  llvm::interleaveComma(list.get(), p, [&](const Indexer &idx) {
    switch (idx.kind) {
    case IndexerKind::Full:
      p << ":";
      return;
    case IndexerKind::ScalarConst:
      p << idx.start;
      return;
    case IndexerKind::Scalar:
    case IndexerKind::Tensor:
      p << operands[next++];
      return;
    case IndexerKind::Slice:
    case IndexerKind::SliceConst:
      p << "ds(";
      if (idx.kind == IndexerKind::Slice)
        p << operands[next++];
      else
        p << idx.start;
      p << ", " << idx.size;
      if (idx.stride != 1)
        p << ", " << idx.stride;
      p << ")";
      return;
    }
  });
  p << "]";
}

unsigned mlir::pallas::numWrittenIndexTypes(const IndexerList &list) {
  return llvm::count_if(list.get(), [](const Indexer &i) {
    return i.kind == IndexerKind::Scalar || i.kind == IndexerKind::Tensor;
  });
}

void mlir::pallas::collectIndexOperandTypes(const IndexerList &list,
                                            ArrayRef<Type> written,
                                            MLIRContext *ctx,
                                            SmallVectorImpl<Type> &types) {
  unsigned next = 0;
  Type i32 = IntegerType::get(ctx, 32);
  for (const Indexer &idx : list.get()) {
    if (idx.kind == IndexerKind::Slice)
      types.push_back(i32);
    else if (idx.kind == IndexerKind::Scalar || idx.kind == IndexerKind::Tensor)
      types.push_back(written[next++]);
  }
}

void mlir::pallas::writtenIndexTypes(const IndexerList &list,
                                     ValueRange operands,
                                     SmallVectorImpl<Type> &types) {
  unsigned next = 0;
  for (const Indexer &idx : list.get()) {
    if (!idx.takesOperand())
      continue;
    Value v = operands[next++];
    if (idx.kind != IndexerKind::Slice)
      types.push_back(v.getType());
  }
}
