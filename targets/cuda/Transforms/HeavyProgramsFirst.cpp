//===- HeavyProgramsFirst.cpp - long programs start first -----------------===//
//
// The GPU starts CTAs in block order, x fastest. When a program's loop runs
// longer the larger its id along an axis (causal attention: query block i
// walks the key blocks 0..i), block order starts the short programs first
// and leaves the longest for last, where they run alone while most SMs
// idle. Counting that axis down instead starts the longest first and ends
// with the shortest (longest-processing-time-first scheduling). Programs of
// a parallel axis are independent, so any order computes the same.
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Tile/ProgramGrid.h"

#include "mlir/IR/Matchers.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASHEAVYPROGRAMSFIRST
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

bool isPositiveConstant(Value v) {
  APInt c;
  return matchPattern(v, m_ConstantInt(&c)) && c.isStrictlyPositive();
}

bool isConstant(Value v) { return matchPattern(v, m_Constant()); }

/// Whether `v` increases with the program id along `axis`: the id through
/// casts, additions of constants and multiplications by positive ones.
bool growsWith(Value v, tt::ProgramIDDim axis) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto pid = dyn_cast<tt::GetProgramIdOp>(def))
    return pid.getAxis() == axis;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp>(def))
    return growsWith(def->getOperand(0), axis);
  if (isa<arith::AddIOp, arith::MulIOp>(def)) {
    auto other = isa<arith::AddIOp>(def) ? isConstant : isPositiveConstant;
    Value l = def->getOperand(0), r = def->getOperand(1);
    return (growsWith(l, axis) && other(r)) || (growsWith(r, axis) && other(l));
  }
  return false;
}

struct HeavyProgramsFirstPass
    : pallas::impl::PallasHeavyProgramsFirstBase<HeavyProgramsFirstPass> {
  void runOnOperation() override {
    getOperation().walk([&](tt::FuncOp func) {
      LaunchAttr launch = getLaunch(func);
      if (!launch)
        return;
      ProgramGrid grid = programGridOf(launch);
      if (grid.folded)
        return;
      const tt::ProgramIDDim axes[] = {tt::ProgramIDDim::X, tt::ProgramIDDim::Y,
                                       tt::ProgramIDDim::Z};
      for (unsigned a = 0; a < grid.ids.size() && a < 3; ++a) {
        int64_t programs = grid.ids[a];
        if (programs < 2)
          continue;
        bool longer = false;
        func.walk([&](scf::ForOp loop) {
          longer |= growsWith(loop.getUpperBound(), axes[a]) && !growsWith(loop.getLowerBound(), axes[a]);
        });
        if (!longer)
          continue;
        // id -> (programs - 1) - id, for every read of this axis's id.
        func.walk([&](tt::GetProgramIdOp pid) {
          if (pid.getAxis() != axes[a])
            return;
          OpBuilder b(pid->getContext());
          b.setInsertionPointAfter(pid);
          Location loc = pid.getLoc();
          Value last = arith::ConstantIntOp::create(b, loc, b.getI32Type(), programs - 1);
          Value reversed = arith::SubIOp::create(b, loc, last, pid.getResult());
          pid.getResult().replaceAllUsesExcept(reversed, reversed.getDefiningOp());
        });
      }
    });
  }
};

} // namespace
