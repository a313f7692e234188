/* The C header across CUDA contexts: 20 contexts in turn (more than any
 * fixed table would hold), each created, given a launch of the vector add
 * whose every output element is checked, and destroyed, so that a later
 * context may get an earlier one's handle; then two live at once, and
 * NAME_unload() with one of them destroyed. Prints "ok" or what failed.
 *
 * Built by bench/gpu/prepare_launch.sh against vector_add_16.h. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>

#include "vector_add_16.h"

enum { N = 1 << 16 };

#define CHECK(call)                                                                \
  do {                                                                             \
    CUresult r_ = (call);                                                          \
    if (r_ != CUDA_SUCCESS) {                                                      \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)r_); \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

static float host_x[N], host_y[N], host_o[N];

/* One launch in the current context, every element checked. */
static int run_once(void) {
  CUdeviceptr x, y, o;
  int i;
  CHECK(cuMemAlloc(&x, sizeof(host_x)));
  CHECK(cuMemAlloc(&y, sizeof(host_y)));
  CHECK(cuMemAlloc(&o, sizeof(host_o)));
  CHECK(cuMemcpyHtoD(x, host_x, sizeof(host_x)));
  CHECK(cuMemcpyHtoD(y, host_y, sizeof(host_y)));
  CHECK(cuMemsetD8(o, 0xFF, sizeof(host_o)));
  CHECK(vector_add_16(0, x, y, o));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(host_o, o, sizeof(host_o)));
  for (i = 0; i < N; ++i)
    if (host_o[i] != host_x[i] + host_y[i]) {
      fprintf(stderr, "element %d: %g, not %g\n", i, host_o[i], host_x[i] + host_y[i]);
      return 1;
    }
  CHECK(cuMemFree(x));
  CHECK(cuMemFree(y));
  CHECK(cuMemFree(o));
  return 0;
}

int main(void) {
  CUdevice device;
  CUcontext a, b, previous;
  int i;
  for (i = 0; i < N; ++i) {
    host_x[i] = (float)(i % 977) * 0.5f;
    host_y[i] = (float)(i % 131) - 60.0f;
  }
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  for (i = 0; i < 20; ++i) {
    CHECK(cuCtxCreate(&a, 0, 0, device));
    if (run_once() || run_once())
      return 1;
    CHECK(cuCtxDestroy(a));
  }
  CHECK(cuCtxCreate(&a, 0, 0, device));
  CHECK(cuCtxCreate(&b, 0, 0, device));
  if (run_once())
    return 1;
  CHECK(cuCtxPushCurrent(a));
  if (run_once())
    return 1;
  CHECK(cuCtxPopCurrent(&previous));
  CHECK(cuCtxDestroy(b));
  CHECK(vector_add_16_unload());
  CHECK(cuCtxPushCurrent(a));
  if (run_once())
    return 1;
  CHECK(vector_add_16_unload());
  printf("ok: 22 contexts, every element\n");
  return 0;
}
