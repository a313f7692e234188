/* The launch cost of a pallasc CUDA header: CPU time per call of
 * NAME(stream, arrays...) against cuLaunchKernel of the same function with
 * the same parameters, after the first launch in the context. Launches go
 * in batches of 100 with an untimed synchronization between batches, so
 * the launch queue never fills and the kernel's own time stays out. The
 * header's calls run with fixed arrays, then with outputs alternating
 * between two buffers (as torch's allocator hands them out), which is
 * where tensor maps would be re-encoded. Prints one JSON line.
 *
 * Built by bench/gpu/prepare_launch.sh with -DPALLAS_KERNEL=NAME
 * -DPALLAS_ARRAYS=N (the kernel's arrays, the last one its output), and
 * -DPALLAS_HAS_MAPS / -DPALLAS_PERSISTENT where the header defines
 * NAME_TENSOR_MAPS / NAME_PERSISTENT. With -DPALLAS_EXPECT_F16=BITS (a
 * GEMM of f16 inputs) it also checks, inputs all 1.0, that both output
 * buffers hold BITS in every element of their first row. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PALLAS_STR(x) #x
#define PALLAS_XSTR(x) PALLAS_STR(x)
#define PALLAS_CAT(a, b) a##b
#define PALLAS_XCAT(a, b) PALLAS_CAT(a, b)
#define K(suffix) PALLAS_XCAT(PALLAS_KERNEL, suffix)
#include PALLAS_XSTR(PALLAS_KERNEL.h)

enum { BATCH = 100, BATCHES = 200, ARRAY_BYTES = 64 << 20 };

#define CHECK(call)                                                                \
  do {                                                                             \
    CUresult r_ = (call);                                                          \
    if (r_ != CUDA_SUCCESS) {                                                      \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)r_); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static CUresult header_launch(CUstream stream, const CUdeviceptr *p) {
#if PALLAS_ARRAYS == 2
  return PALLAS_KERNEL(stream, p[0], p[1]);
#elif PALLAS_ARRAYS == 3
  return PALLAS_KERNEL(stream, p[0], p[1], p[2]);
#elif PALLAS_ARRAYS == 4
  return PALLAS_KERNEL(stream, p[0], p[1], p[2], p[3]);
#else
#error "PALLAS_ARRAYS must be 2, 3 or 4"
#endif
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  CUdevice device;
  CUcontext context;
  CUstream stream;
  CUdeviceptr arrays[PALLAS_ARRAYS], other_output;
  void *params[PALLAS_ARRAYS + 8];
  K(_loaded_t) *loaded;
  static double raw[BATCHES], header[BATCHES], moving[BATCHES];
  unsigned grid_x = K(_GRID_X);
  int i, b, n = 0;

  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  for (i = 0; i < PALLAS_ARRAYS; ++i) {
    CHECK(cuMemAlloc(&arrays[i], ARRAY_BYTES));
    CHECK(cuMemsetD8(arrays[i], 0, ARRAY_BYTES));
  }
  CHECK(cuMemAlloc(&other_output, ARRAY_BYTES));
  CHECK(cuMemsetD8(other_output, 0, ARRAY_BYTES));

  /* The first launch loads the kernel; the raw launches reuse its function
   * and, for code taking tensor maps, the maps it encoded. */
  CHECK(header_launch(stream, arrays));
  CHECK(cuStreamSynchronize(stream));
  CHECK(K(_loaded)(&loaded));
  for (i = 0; i < PALLAS_ARRAYS; ++i)
    params[n++] = &arrays[i];
#ifdef PALLAS_HAS_MAPS
  for (i = 0; i < K(_TENSOR_MAPS); ++i)
    params[n++] = &loaded->maps[i][0].map;
#endif
#ifdef PALLAS_PERSISTENT
  grid_x = loaded->grid_x;
#endif
  (void)n;

  for (b = 0; b < BATCHES; ++b) {
    double t0 = now_us(), t1, t2, t3;
    for (i = 0; i < BATCH; ++i)
      CHECK(cuLaunchKernel(loaded->function, grid_x, K(_GRID_Y), K(_GRID_Z), K(_BLOCK_X), 1, 1,
                           K(_SHARED_BYTES), stream, params, 0));
    t1 = now_us();
    CHECK(cuStreamSynchronize(stream));
    t2 = now_us();
    for (i = 0; i < BATCH; ++i)
      CHECK(header_launch(stream, arrays));
    t3 = now_us();
    CHECK(cuStreamSynchronize(stream));
    raw[b] = (t1 - t0) / BATCH;
    header[b] = (t3 - t2) / BATCH;
    t0 = now_us();
    for (i = 0; i < BATCH; ++i) {
      CUdeviceptr swapped[PALLAS_ARRAYS];
      int a;
      for (a = 0; a < PALLAS_ARRAYS; ++a)
        swapped[a] = arrays[a];
      if (i % 2)
        swapped[PALLAS_ARRAYS - 1] = other_output;
      CHECK(header_launch(stream, swapped));
    }
    t1 = now_us();
    CHECK(cuStreamSynchronize(stream));
    moving[b] = (t1 - t0) / BATCH;
  }
#ifdef PALLAS_EXPECT_F16
  /* The cached maps view the right arrays: with every input element 1.0,
   * each output element is PALLAS_EXPECT_F16 in both output buffers, and a
   * buffer cleared between launches is written again. */
  {
    static unsigned short host[2][4096];
    CUdeviceptr outs[2] = {arrays[PALLAS_ARRAYS - 1], other_output};
    int o, e;
    for (i = 0; i + 1 < PALLAS_ARRAYS; ++i)
      CHECK(cuMemsetD16(arrays[i], 0x3C00, ARRAY_BYTES / 2));
    for (o = 0; o < 2; ++o)
      CHECK(cuMemsetD8(outs[o], 0, ARRAY_BYTES));
    for (i = 0; i < 3; ++i) {
      CUdeviceptr swapped[PALLAS_ARRAYS];
      int a;
      for (a = 0; a < PALLAS_ARRAYS; ++a)
        swapped[a] = arrays[a];
      swapped[PALLAS_ARRAYS - 1] = outs[i % 2];
      if (i == 2)
        CHECK(cuMemsetD8(outs[0], 0, ARRAY_BYTES));
      CHECK(header_launch(stream, swapped));
      CHECK(cuStreamSynchronize(stream));
    }
    for (o = 0; o < 2; ++o) {
      CHECK(cuMemcpyDtoH(host[o], outs[o], sizeof(host[o])));
      for (e = 0; e < 4096; ++e)
        if (host[o][e] != PALLAS_EXPECT_F16) {
          fprintf(stderr, "output buffer %d element %d: 0x%04x, not 0x%04x\n", o, e, host[o][e],
                  PALLAS_EXPECT_F16);
          return 1;
        }
    }
  }
#endif
  qsort(raw, BATCHES, sizeof(double), compare);
  qsort(header, BATCHES, sizeof(double), compare);
  qsort(moving, BATCHES, sizeof(double), compare);
  printf("{\"kernel\": \"%s\", \"launch_us\": %.3f, \"header_us\": %.3f, "
         "\"header_over_launch_us\": %.3f, \"header_alternating_outputs_us\": %.3f}\n",
         PALLAS_XSTR(PALLAS_KERNEL), raw[BATCHES / 2], header[BATCHES / 2],
         header[BATCHES / 2] - raw[BATCHES / 2], moving[BATCHES / 2]);
  CHECK(K(_unload)());
  return 0;
}
