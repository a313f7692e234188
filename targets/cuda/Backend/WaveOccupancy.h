//===- WaveOccupancy.h - CTAs per SM chosen by the grid's waves -*- C++ -*-===//
//
// A memory-bound kernel's CTAs per SM: as many as its shared memory and
// threads allow, unless fewer let the grid end in less time. A grid of 512
// CTAs on 132 SMs runs in 1.29 waves at three an SM (the second wave one
// CTA an SM, too few to keep an SM's memory pipe busy) but in 1.94 at two;
// JAX's decode and paged attention at 32k keys ran 7 and 14 % faster at
// two. The launch then asks for enough dynamic shared memory that no more
// fit.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_BACKEND_WAVEOCCUPANCY_H
#define PALLAS_TARGETS_CUDA_BACKEND_WAVEOCCUPANCY_H

#include <cstdint>

namespace mlir::pallas::cuda {

/// What an SM offers (the target description's numbers).
struct SmLimits {
  int64_t sms = 0;            ///< SMs on the chip
  int64_t sharedPerSm = 0;    ///< shared memory per SM, bytes
  int64_t sharedPerBlock = 0; ///< most a CTA may ask for, bytes
  int64_t threadsPerSm = 2048;
};

/// CTAs of `threads` threads needing `bytes` of shared memory each that an
/// SM holds by its shared memory (the driver reserves 1 KB more a CTA)
/// and its threads.
int64_t ctasBySharedMemoryAndThreads(int64_t bytes, int64_t threads, const SmLimits &sm);

/// CTAs of `threads` threads using `registers` each that `registersPerSm`
/// hold (registers allocated per warp in units of 256).
int64_t ctasByRegisters(int64_t registers, int64_t threads, int64_t registersPerSm);

/// The dynamic shared memory to launch `ctas` CTAs of `threads` threads
/// that need `bytes` each with: `bytes`, or more where fewer CTAs per SM
/// let the grid end sooner. Time model: a wave's time is its busiest SM's
/// CTAs, counted as two where fewer (an SM's memory pipe is full from two
/// memory-bound CTAs on: decode attention at 8k keys ran as fast at two
/// CTAs an SM as at three); fewer CTAs per SM only where that saves a
/// tenth of the time at least.
int64_t sharedBytesForWaves(int64_t bytes, int64_t threads, int64_t ctas, const SmLimits &sm);

} // namespace mlir::pallas::cuda

#endif
