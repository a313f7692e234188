//===- ProducerRegisters.h - registers a thread of each warpgroup gets -*- C++ -*-===//
//
// With a producer warpgroup, setmaxnreg moves registers from it to the
// consumers: convert-tile-to-nvvm sets them so, and the passes deciding
// how many registers a consumer's dots hold at once read the same budget.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_PRODUCERREGISTERS_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_PRODUCERREGISTERS_H

#include <algorithm>
#include <cstdint>

namespace mlir::pallas::cuda {

/// The registers per thread (setmaxnreg) of the producer warpgroup (24: it
/// only computes addresses) and of the consumers (the rest, at most 256,
/// setmaxnreg's most), and what the kernel starts with (its threads'
/// share). 128 * 24 + 256 * 240 fit the 64K registers of an SM: one CTA of
/// two consumer warpgroups, the split FlashAttention-3 makes; one consumer
/// warpgroup takes 256. (pallas-stage-loads gives a producer only to
/// kernels that would not run two CTAs per SM anyway.)
struct ProducerRegisters {
  int64_t producer = 24, consumer = 0, launch = 0;
  ProducerRegisters(int64_t consumerThreads, int64_t producerThreads) {
    int64_t total = consumerThreads + producerThreads;
    launch = std::min<int64_t>(65536 / total / 8 * 8, 248);
    consumer = std::min<int64_t>(
        (launch * total - producer * producerThreads) / consumerThreads / 8 * 8, 256);
  }
};

} // namespace mlir::pallas::cuda

#endif
