// Hand-written CUDA kernels in the form the CUDA target's artifacts take (one
// 64-bit device pointer per manifest parameter, in manifest order), with
// hand-written manifests beside them. They check pallas-launch's CUDA path and
// bench.py's cubin loader while the compiler cannot make CUDA artifacts yet.

// selftest: o = 2 * x[reversed within each block] + y, over 1000 elements
// (not a multiple of the block: the tail is masked), staged through 64 KiB of
// dynamic shared memory (the launcher must opt in above 48 KiB); z is an
// in-place i32 buffer (aliased output): z[i] += i.
#define SELFTEST_N 1000
#define SELFTEST_SMEM_FLOATS (64 * 1024 / 4)

extern "C" __global__ void selftest(const float *x, const float *y, int *z,
                                    float *o, int *z_out) {
  extern __shared__ float stage[];
  int t = threadIdx.x, b = blockIdx.x, n = blockDim.x;
  int i = b * n + t;
  // Mirror the block into the far end of the buffer so that all 64 KiB are
  // addressed.
  int slot = SELFTEST_SMEM_FLOATS - 1 - t;
  stage[slot] = i < SELFTEST_N ? x[i] : 0.0f;
  __syncthreads();
  int j = b * n + (n - 1 - t);  // reversed within the block
  if (j < SELFTEST_N) {
    float v = stage[SELFTEST_SMEM_FLOATS - 1 - (n - 1 - t)];
    o[j] = 2.0f * v + y[j];
  }
  if (i < SELFTEST_N && z == z_out)  // the launcher passes one buffer twice
    z_out[i] = z[i] + i;
}

// vector_add_cuda: o = x + y over 2^26 f32, 4 elements per thread through
// 16-byte loads; block 256, grid 2^26 / 1024. A hand-written reference for
// the vector-add benchmark.
#define VADD_N (1 << 26)
extern "C" __global__ void vector_add_cuda(const float4 *x, const float4 *y,
                                           float4 *o) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < VADD_N / 4) {
    float4 a = x[i], b = y[i];
    o[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}
