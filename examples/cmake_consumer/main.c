/* Runs the host build of scale_rows through its generated header and checks
 * every output element against a plain loop. Exit code 0 on success. */
#include "scale_rows.h"

#include <stdio.h>

int main(void) {
  static float x[64 * 128], o[64 * 128];
  for (int i = 0; i < 64 * 128; ++i) {
    x[i] = (float)((i * 37) % 101) / 7.0f - 5.0f;
    o[i] = -12345.0f;
  }
  if (scale_rows(0, x, o) != 0) {
    fprintf(stderr, "scale_rows failed\n");
    return 1;
  }
  for (int i = 0; i < 64 * 128; ++i)
    if (o[i] != x[i] * 2.0f + 1.0f) {
      fprintf(stderr, "o[%d] = %g, want %g\n", i, o[i], x[i] * 2.0f + 1.0f);
      return 1;
    }
  printf("scale_rows: all %d elements match\n", 64 * 128);
  return 0;
}
