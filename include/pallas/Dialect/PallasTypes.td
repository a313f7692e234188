//===- PallasTypes.td - types of the pallas dialect --------*- tablegen -*-===//
#ifndef PALLAS_TYPES
#define PALLAS_TYPES

include "pallas/Dialect/PallasDialect.td"
include "pallas/Dialect/PallasEnums.td"

def Pallas_RefType : Pallas_Type<"Ref", "ref"> {
  let summary = "a reference to a block of memory";
  let description = [{
    `!pallas.ref<SHAPExELT>` or `!pallas.ref<SHAPExELT, SPACE>`: the kernel's
    view of one block (the BlockSpec's block shape with squeezed dims
    removed). SPACE is one of `any`, `vmem`, `smem`, `gmem`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"::mlir::pallas::MemorySpace",
                            "::mlir::pallas::MemorySpace::none">:$memorySpace);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    /// False for a whole array with a symbolic size (`?`).
    bool hasStaticShape() const {
      return ::llvm::none_of(getShape(), ::mlir::ShapedType::isDynamic);
    }
    int64_t getNumElements() const;
    /// The same ref with another shape (used for slices and views).
    RefType withShape(::llvm::ArrayRef<int64_t> shape) const;
  }];
}

def Pallas_SemaphoreType : Pallas_Type<"Semaphore", "semaphore"> {
  let summary = "a regular (counting) semaphore";
}

def Pallas_DMASemaphoreType : Pallas_Type<"DMASemaphore", "dma_semaphore"> {
  let summary = "a semaphore signalled by DMA completion";
}

def Pallas_AnyRef : Type<CPred<"::llvm::isa<::mlir::pallas::RefType>($_self)">,
                         "pallas ref">;
def Pallas_AnySemaphore : AnyTypeOf<[Pallas_SemaphoreType, Pallas_DMASemaphoreType]>;

#endif // PALLAS_TYPES
