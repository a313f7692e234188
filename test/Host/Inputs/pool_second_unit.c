/* A second source file of pool_header's program that includes the header
 * and launches: its launches go to the same pool as the first file's. */
#include "edge_add2d.h"

int launch_from_second_unit(float *x, float *y, float *o);
int launch_from_second_unit(float *x, float *y, float *o) { return edge_add2d(0, x, y, o); }
