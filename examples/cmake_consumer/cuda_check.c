/* Links the sm_90a build of scale_rows (its header embeds the cubin) and
 * checks that the image for sm_90 is there. Running it needs a GPU: see
 * examples/cuda_launch for a program that does. */
#include "scale_rows.h"

#include <stdio.h>

int main(void) {
  if (!scale_rows_image(9, 0)) {
    fprintf(stderr, "no sm_90a image in scale_rows.h\n");
    return 1;
  }
  printf("scale_rows.h: sm_90a image, grid %u x %u x %u\n", scale_rows_GRID_X, scale_rows_GRID_Y,
         scale_rows_GRID_Z);
  return 0;
}
