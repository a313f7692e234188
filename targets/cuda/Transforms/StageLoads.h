//===- StageLoads.h - which loads may go through shared memory --*- C++ -*-===//
//
// What pallas-stage-loads (StageLoads.cpp) decides of a load or store, and
// its tensor-map bookkeeping, which pallas-async-copies and
// pallas-tma-stores share.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TRANSFORMS_STAGELOADS_H
#define PALLAS_TARGETS_CUDA_TRANSFORMS_STAGELOADS_H

#include "Analysis/AxisInfo.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Tile/Tile.h"

#include <optional>

namespace mlir::pallas::cuda {

/// The function argument a pointer (tensor) is computed from (through
/// tt.addptr, splat, broadcast, expand_dims), or null.
BlockArgument rootArgument(Value ptr);
/// Whether function argument `a` shares its buffer with another (an input
/// and the output aliasing it are both pallas.aliased).
bool isAliased(BlockArgument a);
/// The pointer (tensor) a tt.store, tt.atomic_rmw or tt.atomic_cas writes
/// through; null for any other op.
Value writtenPointer(Operation *op);
/// Whether accesses rooted at function arguments `a` and `b` may touch the
/// same memory: either is unknown (null), they are one array, or both share
/// buffers (an input and the output aliasing it are both pallas.aliased).
bool mayShareMemory(BlockArgument a, BlockArgument b);
/// Whether `op` (or an op inside it) writes global memory (tt.store, atomics):
/// a load moved ahead of it might read the old value.
bool writesMemory(Operation *op);
/// Whether a store or atomic in `op` may write memory a load in `op`
/// reads: both address the same array parameter, or arrays that alias
/// (pallas.aliased: an input and the output sharing its buffer), or a
/// store's array is unknown.
bool storesMayFeedLoads(Operation *op);
/// Whether a tt.load can be copied into a shared-memory buffer instead (by
/// cp.async or the TMA, which zero-fill): a 2-D block whose masked-off
/// elements read as zero.
bool stageableLoad(tt::LoadOp load);
/// The tensor map through which the TMA may copy the blocks `access` (a
/// tt.load, tt.store or tt.atomic_rmw) reads or writes, to or from buffers of `tile`
/// (laid out with the 128-byte swizzle); none where it cannot
/// (StageLoads.cpp says when).
std::optional<pgpu::TensorMapAttr> tmaView(Operation *access, RankedTensorType tile,
                                           AxisInfoAnalysis &axis);
/// The same for the tile of pointers `ptr` (a copy with no mask). With
/// `interiorRows`, also where its rows step over several trailing dims of
/// a static array (rows of q[b, :, h, :]): the map views the array as rows
/// of those dims (a window overhanging its dim would read the next index
/// of the dim before, where a view of the dims would read zeros).
std::optional<pgpu::TensorMapAttr> tmaViewOfPointers(Value ptr, RankedTensorType tile,
                                                     AxisInfoAnalysis &axis,
                                                     bool interiorRows = false);
/// Whether the dot operand blocks of `loop` (loaded before it, read every
/// iteration; loaded in it) would all fit pallas-stage-loads' rings of two
/// buffers in `sharedBytes`, by its budget (3/4 of them).
bool dotBlocksFitRings(scf::ForOp loop, int64_t sharedBytes);
/// The CUtensorMapDataType a TMA store reducing `elem`s by `kind` ("add",
/// "min", "max", "and", "or", "xor") names (CUDA's cuTensorMapEncodeTiled),
/// where the TMA does that reduction; none where it does not.
std::optional<int64_t> tmaReductionDataType(Type elem, StringRef kind);
/// The index of `map` among `func`'s tensor maps (its
/// pallas_gpu.tensor_maps), added if new.
int64_t tensorMapIndex(tt::FuncOp func, pgpu::TensorMapAttr map);

} // namespace mlir::pallas::cuda

#endif
