/* Negative control for the AddressSanitizer tests: hands the kernel an
 * input one element shorter than the spec says. The instrumented kernel
 * must be caught reading past it. */
#include <stdlib.h>
#include "edge_add2d.h"

int main(void) {
  float *x = malloc(sizeof(float) * (100 * 70 - 1));
  float *y = malloc(sizeof(float) * 100 * 70);
  float *o = malloc(sizeof(float) * 100 * 70);
  int i;
  for (i = 0; i < 100 * 70 - 1; ++i) x[i] = 1.0f;
  for (i = 0; i < 100 * 70; ++i) y[i] = 2.0f;
  edge_add2d(0, x, y, o);
  free(x);
  free(y);
  free(o);
  return 0;
}
