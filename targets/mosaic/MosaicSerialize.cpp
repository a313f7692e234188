//===- MosaicSerialize.cpp - ops to their stable_mosaic form --------------===//
//
// JAX ships Mosaic modules with every op renamed `stable_mosaic.<name>` and
// carrying all its attributes as a plain dictionary, so that the bytecode
// needs nothing from the dialects' own encodings and jaxlib's mosaic-serde
// can upgrade old modules op by op.
//
// The version: jaxlib's serde reads versions up to its own (15 in jaxlib
// 0.10.2) and upgrades older ones; jax.export, the way a kernel is shipped
// without a live TPU, writes the forward-compatible version that every
// supported libtpu reads (`_FWD_COMPAT_VERSION = 11` in JAX's
// tpu_custom_call.py). The tpu ops are defined in their version-11 form
// (e.g. tpu.matmul without `transpose_lhs_hint`, tpu.enqueue_dma with six
// operand segments), so version 11 is what this pass stamps by default.
//
//===----------------------------------------------------------------------===//
#include "pallas/Mosaic/MosaicPasses.h"

#include "mlir/IR/Builders.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_MOSAICSERIALIZE
#include "pallas/Mosaic/MosaicPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;

namespace {
struct MosaicSerializePass
    : public pallas::impl::MosaicSerializeBase<MosaicSerializePass> {
  using MosaicSerializeBase::MosaicSerializeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Children before parents: a renamed parent takes over regions whose
    // ops are renamed already.
    SmallVector<Operation *> ops;
    module.getBody()->walk<WalkOrder::PostOrder>(
        [&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      StringRef name = op->getName().getStringRef();
      if (name.starts_with("stable_mosaic."))
        continue;
      OperationState state(op->getLoc(), "stable_mosaic." + name.str());
      state.addOperands(op->getOperands());
      state.addTypes(op->getResultTypes());
      // Inherent attributes (properties) included: operandSegmentSizes,
      // sym_name, function_type, value, ...
      state.addAttributes(op->getAttrDictionary().getValue());
      state.addSuccessors(op->getSuccessors());
      for (unsigned i = 0; i < op->getNumRegions(); ++i)
        state.addRegion();
      OpBuilder b(op);
      Operation *renamed = b.create(state);
      for (unsigned i = 0; i < op->getNumRegions(); ++i)
        renamed->getRegion(i).takeBody(op->getRegion(i));
      op->replaceAllUsesWith(renamed->getResults());
      op->erase();
    }
    module->setAttr("stable_mosaic.version",
                    IntegerAttr::get(IntegerType::get(&getContext(), 64), version));
  }
};
} // namespace
