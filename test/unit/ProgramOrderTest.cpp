// Unit tests of the program order: the program ids orderedProgramIds
// derives from every linear block index, folded to constants.
#include "pallas/Tile/ProgramGrid.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

#include <set>

using namespace mlir;
using namespace mlir::pallas;

namespace {

using Ids = std::vector<int64_t>;

/// The program ids of each linear index 0 .. programs - 1, in launch order.
std::vector<Ids> launchOrder(ArrayRef<int64_t> grid, ArrayRef<int64_t> order, int64_t group) {
  MLIRContext ctx;
  ctx.loadDialect<PallasDialect, arith::ArithDialect>();
  auto launch = LaunchAttr::get(&ctx, "k", grid, {}, 0, 4, 3, false, order, group, {}, {}, {});
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  int64_t programs = 1;
  for (int64_t g : grid)
    programs *= g;
  std::vector<Ids> out;
  for (int64_t p = 0; p < programs; ++p) {
    Value linear = arith::ConstantIntOp::create(b, loc, b.getI32Type(), p);
    Ids ids;
    for (Value v : orderedProgramIds(b, loc, linear, launch)) {
      APInt c;
      REQUIRE(matchPattern(v, m_ConstantInt(&c)));
      ids.push_back(c.getSExtValue());
    }
    out.push_back(ids);
  }
  return out;
}

/// Every program of `grid` exactly once.
void requireEachOnce(const std::vector<Ids> &seq, ArrayRef<int64_t> grid) {
  std::set<Ids> seen;
  for (const Ids &ids : seq) {
    REQUIRE(ids.size() == grid.size());
    for (size_t a = 0; a < grid.size(); ++a) {
      CHECK(ids[a] >= 0);
      CHECK(ids[a] < grid[a]);
    }
    seen.insert(ids);
  }
  CHECK(seen.size() == seq.size());
}

} // namespace

TEST_CASE("a program order runs its first axis fastest") {
  std::vector<Ids> seq = launchOrder({3, 5}, {1, 0}, 0);
  requireEachOnce(seq, {3, 5});
  CHECK(seq[0] == Ids{0, 0});
  CHECK(seq[1] == Ids{0, 1});
  CHECK(seq[5] == Ids{1, 0});
  CHECK(seq[14] == Ids{2, 4});
  std::vector<Ids> three = launchOrder({2, 3, 4}, {2, 0, 1}, 0);
  requireEachOnce(three, {2, 3, 4});
  CHECK(three[1] == Ids{0, 0, 1});
  CHECK(three[4] == Ids{1, 0, 0});
  CHECK(three[8] == Ids{0, 1, 0});
}

TEST_CASE("grouped program orders visit every program once") {
  // Groups that divide the axis, groups that do not (a smaller last one),
  // a third axis outside the groups.
  for (auto [grid, order, group] :
       std::vector<std::tuple<Ids, Ids, int64_t>>{{{32, 16}, {0, 1}, 8},
                                                  {{13, 7}, {0, 1}, 4},
                                                  {{5, 9}, {1, 0}, 2},
                                                  {{6, 4, 3}, {0, 2, 1}, 4}}) {
    INFO("grid " << grid.size() << " axes, group " << group);
    requireEachOnce(launchOrder(grid, order, group), grid);
  }
}

TEST_CASE("grouped program orders keep a group's rows together") {
  // Triton's grouped ordering for a 13 x 7 GEMM grid and groups of 4 rows:
  // rows 0-3 across all columns, ..., then the last group, rows 12 alone.
  std::vector<Ids> seq = launchOrder({13, 7}, {0, 1}, 4);
  CHECK(seq[0] == Ids{0, 0});
  CHECK(seq[3] == Ids{3, 0});
  CHECK(seq[4] == Ids{0, 1});
  CHECK(seq[27] == Ids{3, 6});
  CHECK(seq[28] == Ids{4, 0});
  CHECK(seq[84] == Ids{12, 0});
  CHECK(seq[90] == Ids{12, 6});
}
