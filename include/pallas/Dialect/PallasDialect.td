//===- PallasDialect.td - the pallas dialect ---------------*- tablegen -*-===//
//
// The kernel language of pallasc: Pallas's primitives over builtin tensors,
// with refs (`!pallas.ref`) for the blocks a kernel reads and writes.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DIALECT
#define PALLAS_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Pallas_Dialect : Dialect {
  let name = "pallas";
  let summary = "Pallas kernels: refs, blocks and the primitives of pl.*";
  let cppNamespace = "::mlir::pallas";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // pallas.launch on kernels, pallas.block_spec on their arguments (and
  // pallas.aliased on an input and the output sharing its buffer).
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kLaunchAttrName = "pallas.launch";
    static constexpr ::llvm::StringLiteral kBlockSpecAttrName = "pallas.block_spec";
    static constexpr ::llvm::StringLiteral kAliasedAttrName = "pallas.aliased";
  private:
    void registerAttributes();
  public:
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

class Pallas_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pallas_Dialect, mnemonic, traits>;

class Pallas_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Pallas_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // PALLAS_DIALECT
