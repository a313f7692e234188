/* One compiled matmul_symbolic (examples/) launched at many (M, N, K):
 * random non-zero bf16 inputs, poisoned output, every element checked
 * against a plain loop in double. Arrays are allocated to their exact size,
 * so a read or write past an edge shows under the address sanitizer. Also
 * checks that invalid sizes are refused without running anything. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "matmul_symbolic.h"

static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static float from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static int run(int64_t m, int64_t n, int64_t k) {
  uint16_t *x = (uint16_t *)malloc(sizeof(uint16_t) * m * k);
  uint16_t *y = (uint16_t *)malloc(sizeof(uint16_t) * k * n);
  float *z = (float *)malloc(sizeof(float) * m * n);
  int64_t i, j, l, bad = 0;
  for (i = 0; i < m * k; ++i)
    x[i] = to_bf16((float)(rand() % 2000 + 1) / 1000.0f - 1.0005f);
  for (i = 0; i < k * n; ++i)
    y[i] = to_bf16((float)(rand() % 2000 + 1) / 1000.0f - 1.0005f);
  memset(z, 0xff, sizeof(float) * m * n); /* NaN everywhere */
  if (matmul_symbolic(0, x, y, z, m, k, n) != 0) {
    printf("M=%lld N=%lld K=%lld: launch failed\n", (long long)m, (long long)n,
           (long long)k);
    return 1;
  }
  for (i = 0; i < m; ++i)
    for (j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (l = 0; l < k; ++l) {
        double p = (double)from_bf16(x[i * k + l]) * from_bf16(y[l * n + j]);
        ref += p;
        mag += fabs(p);
      }
      if (!(fabs(z[i * n + j] - ref) <= 1e-5 * mag + 1e-6))
        ++bad;
    }
  printf("M=%lld N=%lld K=%lld: %lld of %lld elements wrong\n", (long long)m,
         (long long)n, (long long)k, (long long)bad, (long long)(m * n));
  free(x);
  free(y);
  free(z);
  return bad != 0;
}

int main(void) {
  /* 1, non-multiples of the 64-element blocks, exact multiples. */
  static const int64_t sizes[][3] = {{1, 1, 1},     {1, 70, 3},    {63, 65, 130},
                                     {64, 64, 64},  {128, 192, 64}, {200, 17, 300},
                                     {129, 128, 1}};
  int failed = 0;
  size_t s;
  uint16_t in = 0;
  float out = 0;
  srand(11);
  for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
    failed |= run(sizes[s][0], sizes[s][1], sizes[s][2]);
  /* M above the spec's max, a zero size: refused, nothing touched. */
  /* Sizes in the order they first appear: M, K, N. */
  printf("M=65537: %d\n", matmul_symbolic(0, &in, &in, &out, 65537, 1, 1));
  printf("K=0: %d\n", matmul_symbolic(0, &in, &in, &out, 1, 0, 1));
  printf("work items at M=N=130: %lld\n", (long long)matmul_symbolic_num_work_items(130, 5, 130));
  return failed;
}
