/* Uses the Triton target's launch header as a C or C++ program would. Only
 * compiled (no GPU here): the header must build clean with cuda.h. */
#include "softmax.h"

CUresult run(const void *cubin, unsigned shared, CUstream stream,
             CUdeviceptr x, CUdeviceptr o) {
  CUresult r = softmax_load(cubin, shared);
  if (r != CUDA_SUCCESS)
    return r;
  r = softmax(stream, x, o);
  if (r != CUDA_SUCCESS)
    return r;
  return softmax_unload();
}
