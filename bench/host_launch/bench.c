/* Launch cost of the host target's C header: NAME(...) (the grid spread over
 * the header's threads) against NAME_run_range(0, items, ...) (every work
 * item on the calling thread), per call, median of REPEATS repeats, for a
 * tiny kernel (64 programs of 64 floats, where the launch's own cost is what
 * shows) and a big one (2^22 floats, where the threads should pay).
 *
 * Usage: bench [tiny-calls [big-calls]] (default 100000 and 50). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "big_add.h"
#include "tiny_add.h"

enum { REPEATS = 5 };

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return v[n / 2];
}

/* Every element of o is x + y (the launches are checked, not just timed). */
static int check(const float *x, const float *y, const float *o, long n) {
  long i;
  for (i = 0; i < n; ++i)
    if (o[i] != x[i] + y[i]) return 0;
  return 1;
}

static float *filled(long n, float scale) {
  float *p = (float *)malloc(sizeof(float) * (size_t)n);
  long i;
  for (i = 0; i < n; ++i) p[i] = (float)(i % 1000) * scale;
  return p;
}

/* Times `calls` launches and `calls` inline runs, alternating repeats so
 * that drift (frequency, other load) hits both alike. */
#define TIME_BOTH(NAME, ITEMS, calls, x, y, o, launch_us, inline_us)          \
  do {                                                                        \
    double l[REPEATS], r[REPEATS], t0;                                        \
    long c;                                                                   \
    int k;                                                                    \
    for (k = 0; k < REPEATS; ++k) {                                           \
      t0 = now_us();                                                          \
      for (c = 0; c < (calls); ++c) NAME(0, x, y, o);                         \
      l[k] = (now_us() - t0) / (double)(calls);                               \
      t0 = now_us();                                                          \
      for (c = 0; c < (calls); ++c) NAME##_run_range(0, ITEMS, x, y, o);      \
      r[k] = (now_us() - t0) / (double)(calls);                               \
    }                                                                         \
    launch_us = median(l, REPEATS);                                           \
    inline_us = median(r, REPEATS);                                           \
  } while (0)

int main(int argc, char **argv) {
  long tiny_calls = argc > 1 ? atol(argv[1]) : 100000;
  long big_calls = argc > 2 ? atol(argv[2]) : 50;
  const long tiny_n = 4096, big_n = 1L << 22;
  float *tx = filled(tiny_n, 0.5f), *ty = filled(tiny_n, 0.25f), *to = filled(tiny_n, 0);
  float *bx = filled(big_n, 0.5f), *by = filled(big_n, 0.25f), *bo = filled(big_n, 0);
  double launch_us, inline_us;
  const char *env = getenv("PALLAS_HOST_THREADS");

  /* First calls: start whatever the header starts lazily, and check. */
  tiny_add(0, tx, ty, to);
  big_add(0, bx, by, bo);
  if (!check(tx, ty, to, tiny_n) || !check(bx, by, bo, big_n)) {
    printf("wrong results\n");
    return 1;
  }
  printf("PALLAS_HOST_THREADS=%s, median of %d repeats\n", env ? env : "(unset)", REPEATS);

  TIME_BOTH(tiny_add, tiny_add_NUM_WORK_ITEMS, tiny_calls, tx, ty, to, launch_us, inline_us);
  printf("tiny (64 x 64 f32), %ld calls: launch %.3f us/call, run_range on caller "
         "%.3f us/call, launch overhead %.3f us\n",
         tiny_calls, launch_us, inline_us, launch_us - inline_us);

  TIME_BOTH(big_add, big_add_NUM_WORK_ITEMS, big_calls, bx, by, bo, launch_us, inline_us);
  printf("big (4096 x 1024 f32), %ld calls: launch %.1f us/call, run_range on caller "
         "%.1f us/call, speed-up %.2fx\n",
         big_calls, launch_us, inline_us, inline_us / launch_us);

  if (!check(tx, ty, to, tiny_n) || !check(bx, by, bo, big_n)) {
    printf("wrong results\n");
    return 1;
  }
  free(tx); free(ty); free(to); free(bx); free(by); free(bo);
  return 0;
}
