// Unit tests of the CTAs per SM a memory-bound kernel is launched at
// (targets/cuda/Backend/WaveOccupancy.h), on an H100/H200's numbers.
#include "../../targets/cuda/Backend/WaveOccupancy.h"

#include <catch2/catch.hpp>

using mlir::pallas::cuda::SmLimits;
using mlir::pallas::cuda::sharedBytesForWaves;

static const SmLimits kHopper{132, 233472, 232448, 2048};

TEST_CASE("a grid ending in a thin wave runs at fewer CTAs per SM") {
  // 512 CTAs of 75008 bytes: three fit an SM (1.29 waves, the second one
  // CTA an SM); at two, 1.94 waves. Padded so that two fit and three do not.
  int64_t bytes = sharedBytesForWaves(75008, 128, 512, kHopper);
  CHECK(bytes == 115712);
  CHECK(kHopper.sharedPerSm / (bytes + 1024) == 2);
}

TEST_CASE("grids of many waves, or of one, keep every CTA an SM holds") {
  CHECK(sharedBytesForWaves(75008, 128, 2048, kHopper) == 75008);  // 5.17 waves at three
  CHECK(sharedBytesForWaves(40192, 128, 16384, kHopper) == 40192); // 24.8 waves at five
  CHECK(sharedBytesForWaves(75008, 128, 128, kHopper) == 75008);   // one CTA an SM anyway
  CHECK(sharedBytesForWaves(115712, 128, 512, kHopper) == 115712); // two at most already
}

TEST_CASE("threads per SM bound the CTAs as shared memory does") {
  // 1024 threads: two CTAs an SM whatever their shared memory.
  CHECK(sharedBytesForWaves(16384, 1024, 512, kHopper) == 16384);
  // No SM count known: as the kernel needs.
  CHECK(sharedBytesForWaves(75008, 128, 512, SmLimits{}) == 75008);
}
