//===- Indexers.h - Pallas's NDIndexer, as stored on ops --------*- C++ -*-===//
//
// An indexed access (`%r[i, ds(%s, 8), :, %t]`) keeps its SSA indices as
// variadic operands and its structure in a flat i64 array, four entries per
// indexer: (kind, static start, size, stride). An empty array is `[...]`, the
// whole ref.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DIALECT_INDEXERS_H
#define PALLAS_DIALECT_INDEXERS_H

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::pallas {

enum class IndexerKind : int64_t {
  Scalar = 0,      ///< `%s`: one element, dimension dropped.
  ScalarConst = 1, ///< `3`: one element at a constant index.
  Tensor = 2,      ///< `%t`: gather/scatter with an integer tensor.
  Slice = 3,       ///< `ds(%s, SIZE[, STRIDE])`.
  SliceConst = 4,  ///< `ds(START, SIZE[, STRIDE])`.
  Full = 5,        ///< `:`.
};

struct Indexer {
  IndexerKind kind;
  int64_t start = 0;  ///< constant start or index (ScalarConst, SliceConst)
  int64_t size = 0;   ///< slice size (Slice, SliceConst)
  int64_t stride = 1; ///< slice stride (Slice, SliceConst)
  bool takesOperand() const {
    return kind == IndexerKind::Scalar || kind == IndexerKind::Tensor ||
           kind == IndexerKind::Slice;
  }
  bool isSlice() const {
    return kind == IndexerKind::Slice || kind == IndexerKind::SliceConst ||
           kind == IndexerKind::Full;
  }
};

/// The decoded indexers of one access. `isWhole()` for `[...]`.
class IndexerList {
public:
  IndexerList() = default;
  static IndexerList decode(llvm::ArrayRef<int64_t> encoded);
  llvm::SmallVector<int64_t> encode() const;

  bool isWhole() const { return whole; }
  llvm::ArrayRef<Indexer> get() const { return items; }
  void push(Indexer i) {
    whole = false;
    items.push_back(i);
  }
  unsigned numOperands() const;
  bool hasTensorIndexer() const;

  /// Expands `[...]` to one `:` per dimension of a ref of rank `rank`.
  IndexerList expandedFor(int64_t rank) const;

  /// Where each part of an access lands among the result dims (NumPy):
  /// slices (`:`, `ds`) take one result dim each, in order; the tensor
  /// indexers' broadcast shape (of rank `advancedRank`) takes a run of dims
  /// starting at `advancedStart` - where the first advanced indexer stands
  /// when the advanced indexers (tensors, and scalars among them) are
  /// adjacent, in front otherwise.
  struct ResultLayout {
    llvm::SmallVector<int> sliceDim; ///< per indexer; -1 for non-slices
    int advancedStart = -1;          ///< -1 without tensor indexers
  };
  ResultLayout resultLayout(unsigned advancedRank) const;

  /// The shape the access yields for a ref of shape `refShape`, following
  /// NumPy's rules for basic and advanced indexing. `tensorShapes` are the
  /// shapes of the tensor indexers in order. Fails with a message when the
  /// tensor indexers do not broadcast together.
  LogicalResult resultShape(llvm::ArrayRef<int64_t> refShape,
                            llvm::ArrayRef<llvm::ArrayRef<int64_t>> tensorShapes,
                            llvm::SmallVectorImpl<int64_t> &shape,
                            std::string &error) const;

private:
  bool whole = true;
  llvm::SmallVector<Indexer> items;
};

/// `[...]` or `[i, ds(%s, 8), :, %t]`: parses the bracketed indexers,
/// appending SSA operands to `operands`.
ParseResult parseIndexers(OpAsmParser &parser, IndexerList &list,
                          llvm::SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands);
void printIndexers(OpAsmPrinter &printer, const IndexerList &list,
                   ValueRange operands);

/// Operand types of an access: every operand that stands alone as an indexer
/// (`%s`, `%t`) has its type written after the ref type; `ds` starts are i32.
void collectIndexOperandTypes(const IndexerList &list,
                              llvm::ArrayRef<Type> written, MLIRContext *ctx,
                              llvm::SmallVectorImpl<Type> &types);
void writtenIndexTypes(const IndexerList &list, ValueRange operands,
                       llvm::SmallVectorImpl<Type> &types);
unsigned numWrittenIndexTypes(const IndexerList &list);

} // namespace mlir::pallas

#endif // PALLAS_DIALECT_INDEXERS_H
