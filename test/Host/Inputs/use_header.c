/* Uses the generated header as a C program (or C++) would: random non-zero
 * inputs, poisoned output, one launch, every element checked against a
 * plain loop. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edge_add2d.h"

int main(void) {
  enum { N = 100 * 70 };
  float *x = (float *)malloc(sizeof(float) * N);
  float *y = (float *)malloc(sizeof(float) * N);
  float *o = (float *)malloc(sizeof(float) * N);
  int i, bad = 0;
  srand(7);
  for (i = 0; i < N; ++i) {
    x[i] = (float)(rand() % 1000 + 1) / 7.0f;
    y[i] = (float)(rand() % 1000 + 1) / 3.0f;
  }
  memset(o, 0xff, sizeof(float) * N); /* NaN everywhere */
  if (edge_add2d(0, x, y, o) != 0) {
    printf("launch failed\n");
    return 1;
  }
  for (i = 0; i < N; ++i)
    if (!(fabsf(o[i] - (x[i] + y[i])) <= 1e-5f * fabsf(x[i] + y[i])))
      ++bad;
  printf("%d of %d elements wrong\n", bad, (int)N);
  free(x);
  free(y);
  free(o);
  return bad != 0;
}
