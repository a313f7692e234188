//===- WaveOccupancy.cpp - CTAs per SM chosen by the grid's waves ---------===//
#include "Backend/WaveOccupancy.h"

#include <algorithm>

using namespace mlir::pallas::cuda;

/// Shared memory the driver reserves per CTA.
static constexpr int64_t kReservedPerCta = 1024;

/// The grid's time at `perSm` CTAs per SM, in units of one CTA alone.
static double gridTime(int64_t ctas, int64_t sms, int64_t perSm) {
  auto wave = [](int64_t busiest) { return std::max<int64_t>(busiest, 2) / 2.0; };
  int64_t full = ctas / (sms * perSm), rest = ctas - full * sms * perSm;
  return full * wave(perSm) + (rest ? wave((rest + sms - 1) / sms) : 0.0);
}

int64_t mlir::pallas::cuda::ctasBySharedMemoryAndThreads(int64_t bytes, int64_t threads,
                                                         const SmLimits &sm) {
  return std::min(sm.sharedPerSm / (bytes + kReservedPerCta), sm.threadsPerSm / threads);
}

int64_t mlir::pallas::cuda::ctasByRegisters(int64_t registers, int64_t threads,
                                            int64_t registersPerSm) {
  int64_t warps = (threads + 31) / 32;
  int64_t perWarp = (std::max<int64_t>(registers, 1) * 32 + 255) / 256 * 256;
  return registersPerSm / (perWarp * warps);
}

int64_t mlir::pallas::cuda::sharedBytesForWaves(int64_t bytes, int64_t threads, int64_t ctas,
                                                const SmLimits &sm) {
  if (sm.sms <= 0 || sm.sharedPerSm <= 0 || threads <= 0 || ctas <= 0)
    return bytes;
  int64_t most = ctasBySharedMemoryAndThreads(bytes, threads, sm);
  if (most < 2)
    return bytes;
  int64_t best = most;
  for (int64_t perSm = most - 1; perSm >= 1; --perSm)
    if (gridTime(ctas, sm.sms, perSm) < gridTime(ctas, sm.sms, best))
      best = perSm;
  if (best == most || gridTime(ctas, sm.sms, best) > 0.9 * gridTime(ctas, sm.sms, most))
    return bytes;
  // Enough that `best` fit an SM and `best + 1` do not.
  int64_t padded = (sm.sharedPerSm / best - kReservedPerCta) / 128 * 128;
  if (padded < bytes || padded > sm.sharedPerBlock ||
      sm.sharedPerSm / (padded + kReservedPerCta) != best)
    return bytes;
  return padded;
}
