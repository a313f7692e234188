/* Launches the Triton-compiled softmax through the generated header: reads
 * the cubin, uploads x (4096x1000 f32, binary), launches, downloads o. */
#include <stdio.h>
#include <stdlib.h>
#include "softmax.h"

#define CHECK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
  fprintf(stderr, "%s failed: %d\n", #call, (int)r_); return 1; } } while (0)

int main(int argc, char **argv) {
  const size_t n = 4096 * 1000;
  FILE *f;
  long size;
  char *cubin;
  float *x, *o;
  CUdevice dev;
  CUcontext ctx;
  CUdeviceptr dx, dox;
  if (argc != 5) return 2;
  f = fopen(argv[1], "rb");
  fseek(f, 0, SEEK_END); size = ftell(f); fseek(f, 0, SEEK_SET);
  cubin = malloc(size);
  if (fread(cubin, 1, size, f) != (size_t)size) return 3;
  fclose(f);
  x = malloc(n * 4); o = malloc(n * 4);
  f = fopen(argv[3], "rb");
  if (fread(x, 4, n, f) != n) return 3;
  fclose(f);
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CHECK(cuMemAlloc(&dx, n * 4));
  CHECK(cuMemAlloc(&dox, n * 4));
  CHECK(cuMemcpyHtoD(dx, x, n * 4));
  CHECK(softmax_load(cubin, (unsigned)atoi(argv[2])));
  CHECK(softmax(0, dx, dox));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(o, dox, n * 4));
  CHECK(softmax_unload());
  f = fopen(argv[4], "wb");
  fwrite(o, 4, n, f);
  fclose(f);
  printf("launched through softmax.h\n");
  return 0;
}
