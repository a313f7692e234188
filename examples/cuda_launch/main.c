/* Runs the conformance softmax through the launch header pallasc writes for
 * CUDA targets (softmax.h: pallasc -t sm_90a,sm_80), on device 0, and checks
 * every element against a plain C reference. Prints PASS or FAIL; exits 0
 * only on PASS. */
#include "softmax.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 4096
#define COLS 1000
#define RTOL 1e-5

/* Every driver call is checked; the first failure ends the program. */
#define CHECK(call)                                                          \
  do {                                                                       \
    CUresult r_ = (call);                                                    \
    if (r_ != CUDA_SUCCESS) {                                                \
      const char *name_ = 0;                                                 \
      cuGetErrorName(r_, &name_);                                            \
      fprintf(stderr, "FAIL: %s: %s (%d) at %s:%d\n", #call,                 \
              name_ ? name_ : "unknown error", (int)r_, __FILE__, __LINE__); \
      exit(2);                                                               \
    }                                                                        \
  } while (0)

/* Inputs in [-4, 4] without zeros, from a fixed-seed generator. */
static float random_nonzero(unsigned *state) {
  float magnitude;
  *state = *state * 1664525u + 1013904223u;
  magnitude = 0.01f + 3.99f * (float)(*state >> 8) / 16777216.0f;
  return (*state & 1u) ? magnitude : -magnitude;
}

/* Softmax of each row, in double. */
static void reference(const float *x, double *want) {
  int i, j;
  for (i = 0; i < ROWS; ++i) {
    const float *row = x + (size_t)i * COLS;
    double *out = want + (size_t)i * COLS;
    double max = row[0], sum = 0;
    for (j = 1; j < COLS; ++j)
      if (row[j] > max)
        max = row[j];
    for (j = 0; j < COLS; ++j) {
      out[j] = exp((double)row[j] - max);
      sum += out[j];
    }
    for (j = 0; j < COLS; ++j)
      out[j] /= sum;
  }
}

int main(void) {
  const size_t n = (size_t)ROWS * COLS, bytes = n * sizeof(float);
  float *x = (float *)malloc(bytes), *got = (float *)malloc(bytes);
  double *want = (double *)malloc(n * sizeof(double));
  double worst = 0;
  size_t i, wrong = 0, first = 0;
  unsigned seed = 12345u;
  CUdevice device;
  CUcontext context;
  CUdeviceptr dx, dout;
  char name[256];
  int major, minor;

  if (!x || !got || !want) {
    fprintf(stderr, "FAIL: out of host memory\n");
    return 2;
  }
  for (i = 0; i < n; ++i)
    x[i] = random_nonzero(&seed);
  reference(x, want);

  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDeviceGetName(name, sizeof name, device));
  CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  printf("device 0: %s, compute capability %d.%d\n", name, major, minor);
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));

  CHECK(cuMemAlloc(&dx, bytes));
  CHECK(cuMemAlloc(&dout, bytes));
  CHECK(cuMemcpyHtoD(dx, x, bytes));
  /* NaN in every output element first: one never written shows up. */
  CHECK(cuMemsetD32(dout, 0x7fc00000u, n));
  CHECK(softmax(0, dx, dout));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(got, dout, bytes));

  for (i = 0; i < n; ++i) {
    double err = fabs((double)got[i] - want[i]);
    double rel = err / fabs(want[i]);
    if (!(err <= RTOL * fabs(want[i]))) {
      if (!wrong)
        first = i;
      ++wrong;
    }
    if (rel > worst || rel != rel)
      worst = rel;
  }

  CHECK(softmax_unload());
  CHECK(cuMemFree(dx));
  CHECK(cuMemFree(dout));
  CHECK(cuDevicePrimaryCtxRelease(device));

  if (wrong) {
    printf("FAIL softmax: %lu of %lu elements off by more than %g relative; "
           "first [%lu, %lu]: got %.9g, want %.9g\n",
           (unsigned long)wrong, (unsigned long)n, RTOL, (unsigned long)(first / COLS),
           (unsigned long)(first % COLS), got[first], want[first]);
  } else {
    printf("PASS softmax: %lu elements, largest relative error %.3g\n",
           (unsigned long)n, worst);
  }
  free(x);
  free(got);
  free(want);
  return wrong ? 1 : 0;
}
