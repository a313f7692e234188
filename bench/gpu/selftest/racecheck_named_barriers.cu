// compute-sanitizer's racecheck and warpgroups taking turns: a kernel in
// which two warpgroups pass a turn back and forth through named barriers
// (bar.arrive on one side, bar.sync on the other, as pallas-warpgroup-turns
// lowers them), then every thread writes shared memory, __syncthreads(),
// and reads another thread's word. The kernel is race-free and prints the
// right value, yet racecheck reports RAW hazards across the __syncthreads():
// it loses track of barrier 0 after the named-barrier handoff. This is why
// bench/gpu/check.py racechecks kernels with turns through a twin compiled
// with --no-warpgroup-turns.
//
//   nvcc -arch=sm_90a -o /tmp/rnb racecheck_named_barriers.cu && /tmp/rnb
//   compute-sanitizer --tool racecheck /tmp/rnb     # reports hazards
#include <cstdio>

__global__ void turnsThenExchange(int *out, int rounds) {
  __shared__ int words[256];
  int group = threadIdx.x / 128;
  // Warpgroup 0 goes first; each passes the turn to the other.
  if (group == 1)
    asm volatile("bar.arrive 1, 256;");
  for (int i = 0; i < rounds; ++i) {
    if (group == 0) {
      asm volatile("bar.sync 1, 256;");
      asm volatile("bar.arrive 2, 256;");
    } else {
      asm volatile("bar.sync 2, 256;");
      asm volatile("bar.arrive 1, 256;");
    }
  }
  if (group == 0)
    asm volatile("bar.sync 1, 256;"); // the last turn passed
  __syncthreads();
  words[threadIdx.x] = 3 * threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = words[255 - threadIdx.x];
}

int main() {
  int *out = nullptr;
  if (cudaMalloc(&out, 256 * sizeof(int)) != cudaSuccess)
    return 1;
  turnsThenExchange<<<2, 256>>>(out, 8);
  int host[256];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < 256; ++t)
    bad += host[t] != 3 * (255 - t);
  printf("%s (%d wrong)\n", bad ? "FAILED" : "ok", bad);
  return bad != 0;
}
