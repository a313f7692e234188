//===- LaunchSpec.h - the JSON launch spec ----------------------*- C++ -*-===//
//
// The launch spec (README: Use). `loadLaunchSpec` parses and validates a spec (the rules of
// schemas/launch.schema.json plus what a schema cannot say, e.g. that an
// index map parses) and reports each problem as an MLIR diagnostic located
// in the JSON file, naming the JSON path.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_SPEC_LAUNCHSPEC_H
#define PALLAS_SPEC_LAUNCHSPEC_H

#include "pallas/Dialect/Pallas.h"
#include "pallas/Spec/JsonLocator.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <optional>
#include <vector>
#include <string>

namespace mlir::pallas {

/// Largest grid extent along one axis (program ids are i32).
constexpr int64_t kMaxGridExtent = (int64_t{1} << 31) - 1;
/// Largest number of programs in a whole grid.
constexpr int64_t kMaxGridPrograms = int64_t{1} << 40;
/// Largest array dimension and element count.
constexpr int64_t kMaxArrayDim = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxArrayElements = int64_t{1} << 40;
constexpr unsigned kMaxGridRank = 6;


/// One entry of `inputs` or `outputs`: an array and its BlockSpec.
struct SpecOperand {
  std::string name;
  /// Array dims; `ShapedType::kDynamic` where the spec names a size.
  SmallVector<int64_t> shape;
  /// Per dim: the size name (`"M"`), or "" for a number. Empty when every
  /// dim is a number.
  SmallVector<std::string> sizeNames;
  std::string dtype;
  Type elementType;
  /// Block dims; std::nullopt marks a squeezed dim. Equal to `shape` when the
  /// spec omits `block_shape`.
  SmallVector<std::optional<int64_t>> blockShape;
  bool hasBlockShape = false;
  /// The index map over grid indices; null when `indexFn` is used. When the
  /// spec omits it, all zeros.
  AffineMap indexMap;
  /// `"@fn"` index maps: the func.func's name, without '@'.
  std::string indexFn;
  MemorySpace memorySpace = MemorySpace::none;
  /// JSON path of this entry, e.g. "inputs[1]".
  std::string path;

  /// The ref the kernel sees: block dims with squeezed ones removed.
  SmallVector<int64_t> refShape() const;
  /// The block dims with squeezed ones as 1.
  SmallVector<int64_t> blockDims() const;
  int64_t numElements() const;
  /// Whether some dim is a size name.
  bool isSymbolic() const { return !sizeNames.empty(); }
};

/// A symbolic size (a name in an array shape): a run-time argument of the
/// launch function, with what the spec promises about it (`sizes`).
struct SpecSize {
  std::string name;
  int64_t multipleOf = 1;
  int64_t max = kMaxArrayDim;
};

struct SpecScratch {
  SmallVector<int64_t> shape;
  std::string dtype;
  Type elementType;
  MemorySpace memorySpace = MemorySpace::none;
  /// A scratch semaphore (`"dtype": "semaphore"` or `"dma_semaphore"`).
  bool isSemaphore() const { return dtype == "semaphore" || dtype == "dma_semaphore"; }
  std::string path;
};

struct SpecVmap {
  int64_t size = 1;
  /// Per input / output: the batched array axis, or nullopt (unbatched).
  SmallVector<std::optional<int64_t>> inAxes, outAxes;
};

/// The Pallas:MGPU mesh of a plgpu kernel (the grid itself is
/// LaunchSpec::grid): axis names, the cluster, warpgroups per block.
struct SpecMesh {
  SmallVector<std::string> gridNames;
  SmallVector<int64_t> cluster;
  SmallVector<std::string> clusterNames;
  int64_t numThreads = 1;
  std::string threadName;
};

struct LaunchSpec {
  std::string file;
  std::string kernel;
  /// Artifact and C symbol prefix; defaults to the kernel name.
  std::string name;
  /// Programs per axis; `ShapedType::kDynamic` where `gridSizes` holds an
  /// expression.
  SmallVector<int64_t> grid;
  /// Per grid axis: the canonical text of a size expression
  /// (`"cdiv(M, 128)"`), or "" for a number. Empty when the grid is all
  /// numbers.
  std::vector<std::string> gridSizes;
  /// The size names, in order of first appearance in inputs then outputs:
  /// the order of the launch function's size arguments.
  std::vector<SpecSize> sizes;
  std::vector<SpecOperand> inputs, outputs;
  std::vector<SpecScratch> scratch;
  int64_t numScalarPrefetch = 0;
  /// (input index, output index) pairs.
  SmallVector<std::pair<int64_t, int64_t>> aliases;
  SmallVector<DimensionSemantics> dimensionSemantics;
  int64_t numWarps = LaunchAttr::kDefaultNumWarps;
  int64_t numStages = LaunchAttr::kDefaultNumStages;
  std::optional<int64_t> vmemLimitBytes;
  /// compiler_params.persistent: CTAs loop over the programs (sm_90a
  /// kernels with a producer warpgroup); unset lets the compiler choose.
  std::optional<bool> persistent;
  /// compiler_params.cluster: CTAs per thread-block cluster on chips that
  /// have clusters (sm_90a), consecutive programs in launch order sharing
  /// the blocks they all read through TMA multicast; 1: none.
  int64_t cluster = 1;
  std::optional<SpecVmap> vmap;
  /// Set for plgpu kernels (`plgpu.kernel`): whole-array GMEM operands.
  std::optional<SpecMesh> mesh;
  std::shared_ptr<JsonLocator> locator;
  MLIRContext *context = nullptr;

  /// A location in the spec file for a JSON path.
  Location loc(StringRef path) const;
  /// Grid size along an axis; 1 past the grid's rank.
  int64_t gridSize(unsigned axis) const {
    return axis < grid.size() ? grid[axis] : 1;
  }
  /// Programs in the grid; the spec must have no grid expressions.
  int64_t numPrograms() const;
  bool hasSymbolicSizes() const { return !sizes.empty(); }
  bool isParallel(unsigned axis) const {
    return axis >= dimensionSemantics.size() ||
           dimensionSemantics[axis] == DimensionSemantics::parallel;
  }
  /// The grid axes before the first arbitrary one (as LaunchAttr's).
  unsigned numLeadingParallelAxes() const {
    unsigned n = 0;
    while (n < grid.size() && isParallel(n))
      ++n;
    return n;
  }
  /// Whether input `i` shares its buffer with an output.
  std::optional<int64_t> aliasedOutput(int64_t input) const;
  std::optional<int64_t> aliasedInput(int64_t output) const;
};

/// Parses and validates a spec. Errors go to `ctx`'s diagnostic handler,
/// located in `filename`.
FailureOr<LaunchSpec> loadLaunchSpec(StringRef filename, StringRef text,
                                     MLIRContext *ctx);

/// The MLIR element type for a spec dtype ("f32", "bf16", "i32", ...), or
/// null when unknown.
Type parseDType(StringRef dtype, MLIRContext *ctx);
/// The spec dtype of an MLIR element type ("f32"), or "" if none.
std::string dtypeName(Type type);
/// Bytes per element, rounded up to whole bytes (i1 is one byte).
int64_t dtypeBytes(Type type);

/// A copy of `spec` with `vmap` folded in: a leading grid axis, a batch dim
/// per batched operand (squeezed in its block), index maps that read it.
/// Program ids in the kernel then start one axis later.
LaunchSpec applyVmap(const LaunchSpec &spec);

} // namespace mlir::pallas

#endif
