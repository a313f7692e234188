/* Uses a CUDA target launch header as a C or C++ program would. Compiled
 * with -DPALLAS_KERNEL=NAME -DPALLAS_ARRAYS=N (the number of arrays the
 * kernel takes) and linked against libcuda; not run here. */
#include <stdio.h>

#define PALLAS_STR(x) #x
#define PALLAS_XSTR(x) PALLAS_STR(x)
#define PALLAS_CAT(a, b) a##b
#define PALLAS_XCAT(a, b) PALLAS_CAT(a, b)
#include PALLAS_XSTR(PALLAS_KERNEL.h)

static CUresult run(CUstream stream, const CUdeviceptr *p) {
  CUresult r;
#if PALLAS_ARRAYS == 2
  r = PALLAS_KERNEL(stream, p[0], p[1]);
#elif PALLAS_ARRAYS == 3
  r = PALLAS_KERNEL(stream, p[0], p[1], p[2]);
#elif PALLAS_ARRAYS == 4
  r = PALLAS_KERNEL(stream, p[0], p[1], p[2], p[3]);
#else
#error "PALLAS_ARRAYS must be 2, 3 or 4"
#endif
  if (r != CUDA_SUCCESS)
    return r;
  r = cuStreamSynchronize(stream);
  if (r != CUDA_SUCCESS)
    return r;
  return PALLAS_XCAT(PALLAS_KERNEL, _unload)();
}

int main(void) {
  CUdeviceptr p[4] = {0, 0, 0, 0};
  CUresult r = cuInit(0);
  /* The image for the device is picked at load; this one for Hopper. */
  const void *hopper = PALLAS_XCAT(PALLAS_KERNEL, _image)(9, 0);
  if (r == CUDA_SUCCESS)
    r = run(0, p);
  printf("%s: %d (hopper image %s)\n", PALLAS_XSTR(PALLAS_KERNEL), (int)r,
         hopper ? "present" : "absent");
  return r == CUDA_SUCCESS ? 0 : 1;
}
