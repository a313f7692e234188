// Unit tests of index maps and the indexer shape rules.
#include "pallas/Dialect/Pallas.h"
#include "pallas/Spec/LaunchSpec.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mlir::pallas;

static AffineMap mapOf(MLIRContext &ctx, const std::string &text) {
  std::string spec = R"J({"kernel": "k", "grid": [4, 4], "inputs": [],
    "outputs": [{"shape": [64, 64], "dtype": "f32", "block_shape": [16, 16],
                 "index_map": ")J" + text + R"J("}]})J";
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &d) {
    UNSCOPED_INFO(d.str());
    return success();
  });
  FailureOr<LaunchSpec> s = loadLaunchSpec("s.json", spec, &ctx);
  return succeeded(s) ? s->outputs[0].indexMap : AffineMap();
}

TEST_CASE("index maps evaluate to block indices") {
  MLIRContext ctx;
  AffineMap m = mapOf(ctx, "(i, j) -> (j, i floordiv 2 + 1)");
  REQUIRE(m);
  SmallVector<int64_t> r = m.compose(ArrayRef<int64_t>{3, 1});
  CHECK(r == SmallVector<int64_t>{1, 2});
  AffineMap swap = mapOf(ctx, "(i, j) -> (j mod 3, i * 2)");
  REQUIRE(swap);
  CHECK(swap.compose(ArrayRef<int64_t>{2, 4}) == SmallVector<int64_t>{1, 4});
}

TEST_CASE("index maps with symbols or bad syntax are rejected") {
  MLIRContext ctx;
  CHECK(!mapOf(ctx, "(i, j)[s] -> (i, s)"));
  CHECK(!mapOf(ctx, "(i, j) -> (q)"));
  CHECK(!mapOf(ctx, "i, j -> i"));
}

TEST_CASE("NumPy indexing rules for the accessed shape") {
  IndexerList list;
  list.push({IndexerKind::Full});
  list.push({IndexerKind::Scalar});
  list.push({IndexerKind::Slice, 0, 4, 2});
  SmallVector<int64_t> shape;
  std::string error;
  REQUIRE(succeeded(list.resultShape({8, 16, 32}, {}, shape, error)));
  CHECK(shape == SmallVector<int64_t>{8, 4});

  // Adjacent gathers stay in place; separated ones move to the front.
  IndexerList adjacent;
  adjacent.push({IndexerKind::Full});
  adjacent.push({IndexerKind::Tensor});
  adjacent.push({IndexerKind::Tensor});
  SmallVector<int64_t> t1{5, 1}, t2{3};
  REQUIRE(succeeded(adjacent.resultShape({8, 16, 32}, {t1, t2}, shape, error)));
  CHECK(shape == SmallVector<int64_t>{8, 5, 3});
  IndexerList apart;
  apart.push({IndexerKind::Tensor});
  apart.push({IndexerKind::Full});
  apart.push({IndexerKind::Tensor});
  REQUIRE(succeeded(apart.resultShape({8, 16, 32}, {t1, t2}, shape, error)));
  CHECK(shape == SmallVector<int64_t>{5, 3, 16});

  SmallVector<int64_t> bad{4};
  CHECK(failed(adjacent.resultShape({8, 16, 32}, {t2, bad}, shape, error)));
  CHECK(error.find("broadcast") != std::string::npos);
}

TEST_CASE("indexers encode and decode losslessly") {
  IndexerList list;
  list.push({IndexerKind::SliceConst, 3, 8, 2});
  list.push({IndexerKind::ScalarConst, 5});
  IndexerList back = IndexerList::decode(list.encode());
  REQUIRE(back.get().size() == 2);
  CHECK(back.get()[0].kind == IndexerKind::SliceConst);
  CHECK(back.get()[0].stride == 2);
  CHECK(back.get()[1].start == 5);
  CHECK(IndexerList::decode({}).isWhole());
}
