//===- Gpu.h - tile IR ops for staging blocks in shared memory --*- C++ -*-===//
#ifndef PALLAS_GPU_GPU_H
#define PALLAS_GPU_GPU_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pallas/Gpu/GpuDialect.h.inc"
#include "pallas/Gpu/GpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/Gpu/GpuAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/Gpu/GpuTypes.h.inc"

#define GET_OP_CLASSES
#include "pallas/Gpu/GpuOps.h.inc"

namespace mlir::pallas::pgpu {
/// Unit attributes on a tt.dot issued in warpgroup turns
/// (pallas_gpu.turns_begin): the warpgroup waits for its turn before
/// issuing it (take), passes the turn on once it is issued (pass). A turn
/// spanning several dots takes at the first and passes at the last.
constexpr llvm::StringLiteral kTurnTakeAttrName = "pallas_gpu.turn_take";
constexpr llvm::StringLiteral kTurnPassAttrName = "pallas_gpu.turn_pass";
/// Unit attribute on a tt.dot in the wgmma layout issued without waiting
/// for it (pallas-async-dots): a pallas_gpu.dot_wait takes its result.
constexpr llvm::StringLiteral kAsyncDotAttrName = "pallas_gpu.async";
/// Unit attribute on an f32 math.tanh whose result reaches memory only as
/// bf16 (convert-tile-to-nvvm sets it): tanh.approx.f32 (one MUFU.TANH,
/// relative error about 2^-11, an eighth of bf16's precision) instead of
/// libdevice's exp2, reciprocal and range checks.
constexpr llvm::StringLiteral kApproxTanhAttrName = "pallas_gpu.approx_tanh";
/// Unit attribute on a tensor.cast from the wgmma layout into
/// #pallas_gpu.wgmma_f8_a (pallas-fragment-order-keys): the scores it
/// rounds were computed from K rows loaded permuted within each 16, so each
/// thread already holds the four adjacent keys of its fragment registers.
constexpr llvm::StringLiteral kKeysInFragmentOrderAttrName = "pallas_gpu.keys_in_fragment_order";
/// On a tile-IR function: the #pallas_gpu.tensor_map array its
/// pallas_gpu.tma_copy ops index, in parameter order.
constexpr llvm::StringLiteral kTensorMapsAttrName = "pallas_gpu.tensor_maps";
/// On a kernel gpu.func: its #pallas_gpu.launch_config (convert-tile-to-nvvm),
/// what the CUDA backend launches it with.
constexpr llvm::StringLiteral kLaunchConfigAttrName = "pallas_gpu.launch_config";
/// On a ring loop fed by a producer (the consumers' loop and the
/// producer's fill loop): the index of the iter_arg carrying the ring slot
/// (the next one carries its parity). pallas-persistent-programs carries
/// both from tile to tile.
constexpr llvm::StringLiteral kRingSlotAttrName = "pallas_gpu.ring_slot";
/// On a loop whose loads pallas-stage-loads pipelines (and a producer's
/// fill loop): the CUDA backend asks that it not be unrolled.
constexpr llvm::StringLiteral kPipelinedLoopAttrName = "pallas_gpu.pipelined";
/// On a tile-IR function and the kernel made of it: its loop mostly loads
/// and was staged for more CTAs per SM (pallas-stage-loads' one buffer a
/// block); the CUDA backend may hold its CTAs per SM lower where the grid
/// then runs in fewer waves' worth of time.
constexpr llvm::StringLiteral kMemoryBoundAttrName = "pallas_gpu.memory_bound";
/// Unit attribute on a kernel gpu.func whose TMA stores write into a
/// shared-memory area of their own (convert-tile-to-nvvm's
/// tma-store-area): the CUDA backend drops the area where it leaves room
/// for fewer CTAs an SM.
constexpr llvm::StringLiteral kTmaStoreAreaAttrName = "pallas_gpu.tma_store_area";
/// On a tile-IR function whose programs run in a persistent loop: the CTAs
/// the launch starts (pallas-persistent-programs).
constexpr llvm::StringLiteral kPersistentCtasAttrName = "pallas_gpu.persistent_ctas";
/// On a tile-IR function (pallas-cluster-multicast): the CTAs per
/// thread-block cluster its launch groups, consecutive along x.
constexpr llvm::StringLiteral kClusterAttrName = "pallas_gpu.cluster";
/// On a tt.func (convert-plgpu-to-tile): the warpgroups of 128 threads the
/// CTA runs, one per Pallas thread of a plgpu kernel; the function's
/// #pallas.launch (num_warps 4) describes one of them, which lays out its
/// tensors over its own threads.
constexpr llvm::StringLiteral kWarpgroupsAttrName = "pallas_gpu.warpgroups";
/// On a tile-IR function: why the cluster the spec asks for is not used.
constexpr llvm::StringLiteral kClusterUnusedAttrName = "pallas_gpu.cluster_unused";
} // namespace mlir::pallas::pgpu

#endif
