//===- PallasAttrs.td - the launch as typed attributes -----*- tablegen -*-===//
//
// The driver reads the JSON spec once and writes it onto the kernel as two
// attributes, so that every pass reads the launch from the IR alone (and
// runs in pallas-opt):
//
//   kernel:    pallas.launch = #pallas.launch<...>
//   argument:  pallas.block_spec = #pallas.block_spec<...>
//
// The dialect verifies both where they stand (PallasAttrs.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_ATTRS
#define PALLAS_ATTRS

include "pallas/Dialect/PallasDialect.td"
include "pallas/Dialect/PallasEnums.td"

class Pallas_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Pallas_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Pallas_LaunchAttr : Pallas_Attr<"Launch", "launch"> {
  let summary = "the grid and the compiler params of a kernel";
  let description = [{
    ```
    #pallas.launch<symbol = "matmul", grid = [32, 32, 64],
                   dimension_semantics = [parallel, parallel, arbitrary],
                   batch_axes = 1, num_warps = 8, num_stages = 3, expanded>
    ```
    `symbol` names the artifacts and the C entry point. `dimension_semantics`
    is absent when the spec gives none (each backend has its default:
    parallel on host, GPU and Triton, arbitrary on TPU, as in JAX).
    `batch_axes` counts the leading grid axes `vmap` added. `expanded`
    marks a kernel whose refs are whole arrays (after pallas-expand-grid).
    Defaults (batch_axes 0, num_warps 4, num_stages 3) are not printed.
    `num_warps` and `num_stages` take their defaults and limits from here
    (kDefaultNumWarps, isValidNumWarps, ...): the spec reader, this
    attribute's parser and its verifier use them, and every pass reads the
    values off the attribute.
  }];
  let parameters = (ins
      StringRefParameter<"artifact and C symbol name">:$symbol,
      ArrayRefParameter<"int64_t", "programs along each grid axis">:$grid,
      OptionalArrayRefParameter<"::mlir::pallas::DimensionSemantics",
          "per grid axis; empty when the spec gives none">:$dimensionSemantics,
      DefaultValuedParameter<"int64_t", "0">:$batchAxes,
      DefaultValuedParameter<"int64_t", "kDefaultNumWarps">:$numWarps,
      DefaultValuedParameter<"int64_t", "kDefaultNumStages">:$numStages,
      DefaultValuedParameter<"bool", "false">:$expanded,
      OptionalArrayRefParameter<"int64_t",
          "leading parallel axes, fastest first; empty: axis 0 fastest">:$programOrder,
      DefaultValuedParameter<"int64_t", "0", "groups along programOrder[0]; 0: none">:$programGroup,
      OptionalArrayRefParameter<"::mlir::StringAttr",
          "symbolic size names, in launch-argument order">:$sizes,
      OptionalArrayRefParameter<"int64_t",
          "per size: what it is a multiple of; empty: all 1">:$sizeMultiples,
      OptionalArrayRefParameter<"::mlir::StringAttr",
          "per grid axis: a size expression, or \"\" where grid holds the number">:$gridSizes);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Warps per program where the spec gives no num_warps.
    static constexpr int64_t kDefaultNumWarps = 4;
    /// num_warps is a power of two up to this: 32 warps are 1024 threads,
    /// what every CUDA chip allows in one CTA.
    static constexpr int64_t kMaxNumWarps = 32;
    static bool isValidNumWarps(int64_t n) {
      return n >= 1 && n <= kMaxNumWarps && ::llvm::isPowerOf2_64(n);
    }
    /// Pipeline stages where the spec gives no num_stages, and the most.
    static constexpr int64_t kDefaultNumStages = 3;
    static constexpr int64_t kMaxNumStages = 8;
    /// Whether the spec gave dimension_semantics.
    bool hasDimensionSemantics() const { return !getDimensionSemantics().empty(); }
    /// Axis `axis` is parallel (the default where the spec gives none).
    bool isParallel(unsigned axis) const;
    /// The grid axes before the first arbitrary one: those a backend may
    /// spread over threads, CTAs or cores. The rest run in order.
    unsigned numLeadingParallelAxes() const;
    int64_t numPrograms() const;
    /// A copy with another grid (and no program order, which was the old
    /// grid's).
    LaunchAttr withGrid(::llvm::ArrayRef<int64_t> grid,
        ::llvm::ArrayRef<::mlir::pallas::DimensionSemantics> semantics) const;
    LaunchAttr asExpanded() const;
    /// What size `name` is promised to be a multiple of (1 if nothing).
    int64_t sizeMultipleOf(::llvm::StringRef name) const;
    /// Whether some grid axis has a size expression.
    bool hasSymbolicGrid() const { return !getGridSizes().empty(); }
    /// A copy launched in another program order (empty: the grid's own).
    LaunchAttr withProgramOrder(::llvm::ArrayRef<int64_t> order, int64_t group) const;
    LaunchAttr withNumWarps(int64_t numWarps) const;
  }];
}

def Pallas_BlockSpecAttr : Pallas_Attr<"BlockSpec", "block_spec"> {
  let summary = "what a kernel argument is: its array, block and index map";
  let description = [{
    ```
    #pallas.block_spec<input "x", shape = [4, 1024, 512], block = [1, 128, 512],
                       squeezed = [0], index_map = affine_map<(i, j) -> (i, j, 0)>>
    #pallas.block_spec<output "o", shape = [64], block = [64], index_fn = @o_map>
    #pallas.block_spec<scratch>
    ```
    `shape` is the whole array, `block` the block's dims (a squeezed dim is
    1 and listed in `squeezed`; the kernel's ref drops it). The index map
    takes the grid indices (and, as `index_fn`, the scalar-prefetch refs)
    and gives one block index per array dim. Scratch carries no array.
    A symbolic array dim is `?` in `shape`, named in
    `size_names = ["M", ""]`. `#pallas.block_spec<size "M">` marks the
    kernel's i64 argument that carries size M (added by pallas-expand-grid).
  }];
  let parameters = (ins
      EnumParameter<Pallas_ArgRole>:$role,
      StringRefParameter<"the spec's name for the array", "\"\"">:$name,
      OptionalArrayRefParameter<"int64_t", "the whole array">:$shape,
      OptionalArrayRefParameter<"int64_t", "block dims, squeezed ones 1">:$block,
      OptionalArrayRefParameter<"int64_t", "squeezed block dims">:$squeezed,
      OptionalParameter<"::mlir::AffineMap">:$indexMap,
      OptionalParameter<"::mlir::FlatSymbolRefAttr">:$indexFn,
      OptionalArrayRefParameter<"::mlir::StringAttr",
          "per array dim: a size name, or \"\" where shape holds the number">:$sizeNames);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Inputs and outputs move through blocks; prefetch and scratch do not.
    bool isBlocked() const {
      return getRole() == ::mlir::pallas::ArgRole::input ||
             getRole() == ::mlir::pallas::ArgRole::output;
    }
    bool isSqueezed(unsigned dim) const;
    /// The ref the kernel sees: block dims without the squeezed ones.
    ::llvm::SmallVector<int64_t> refShape() const;
    /// A copy with other block dims (same squeezed dims) and index map.
    BlockSpecAttr withBlock(::llvm::ArrayRef<int64_t> block,
                            ::mlir::AffineMap indexMap) const;
  }];
}

#endif // PALLAS_ATTRS
