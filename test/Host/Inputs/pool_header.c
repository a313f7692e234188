/* Drives the worker pool behind edge_add2d() (o = x + y): launches back to
 * back, launches spaced so that idle workers fall asleep first, launches
 * from two threads at once, and launches from a second source file that
 * includes the header too (pool_second_unit.c: one pool per program, not
 * one per file). Every launch gets new inputs and a poisoned output, and
 * every element of every output is checked against a plain loop.
 *
 * Usage: pool_header [START_LIMIT]: the pool's pthread_create fails once
 * START_LIMIT workers have started (the launches must still be right).
 *
 * Linked with edge_add2d.o and -Wl,--wrap=pthread_create, the pool's
 * pthread_create comes here. Built with -DPLAIN_C_KERNEL, this file holds
 * the implementation itself (PALLAS_HOST_EDGE_ADD2D_IMPLEMENTATION) and
 * brings the kernel's entry points in plain C, for ThreadSanitizer, which
 * sees only what it compiled. */
#define _POSIX_C_SOURCE 200112L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PLAIN_C_KERNEL
#define start_thread pthread_create
#else
int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
#define start_thread __real_pthread_create
#endif

/* The pool's pthread_create: counts the workers it starts, and fails past
 * the limit. Only the launch that has the pool starts workers. */
static int start_limit = -1, started, failed;
static int counting_create(pthread_t *thread, const pthread_attr_t *attr,
                           void *(*run)(void *), void *arg) {
  if (start_limit >= 0 && started >= start_limit) {
    ++failed;
    return EAGAIN;
  }
  ++started;
  return start_thread(thread, attr, run, arg);
}
#ifdef PLAIN_C_KERNEL
#define pthread_create counting_create
#define PALLAS_HOST_EDGE_ADD2D_IMPLEMENTATION
#include "edge_add2d.h"
#undef pthread_create
#else
#include "edge_add2d.h"
int __wrap_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*run)(void *), void *arg) {
  return counting_create(thread, attr, run, arg);
}
#endif
int launch_from_second_unit(float *x, float *y, float *o); /* pool_second_unit.c */

#ifdef PLAIN_C_KERNEL
/* edge_add2d's work items in C: item k is the 32 x 32 block (k / 3, k % 3)
 * of the 100 x 70 arrays, cut at their edges. */
void edge_add2d_run_range(int64_t begin, int64_t end, void *x, void *y, void *o) {
  int64_t k;
  int r, c;
  for (k = begin; k < end; ++k)
    for (r = (int)(k / 3) * 32; r < (int)(k / 3) * 32 + 32 && r < 100; ++r)
      for (c = (int)(k % 3) * 32; c < (int)(k % 3) * 32 + 32 && c < 70; ++c)
        ((float *)o)[r * 70 + c] = ((float *)x)[r * 70 + c] + ((float *)y)[r * 70 + c];
}
void edge_add2d_run_packed(int64_t begin, int64_t end, void **params) {
  edge_add2d_run_range(begin, end, params[0], params[1], params[2]);
}
#endif

enum { N = 100 * 70, BACK_TO_BACK = 300, SPACED = 20, CONCURRENT = 300 };

typedef struct buffers {
  float x[N], y[N], o[N];
  int seed; /* makes the inputs of each thread's launches differ */
  int launches, bad_launches, wrong;
} buffers;

/* Launches edge_add2d: from this file, or from pool_second_unit.c. */
typedef int (*launcher)(float *x, float *y, float *o);
static int launch_here(float *x, float *y, float *o) { return edge_add2d(0, x, y, o); }

/* One launch with inputs of its own (`seed`) through `launch`; counts
 * wrong elements. */
static void launch_through(launcher launch, buffers *b, int seed) {
  int i, wrong = 0;
  for (i = 0; i < N; ++i) {
    b->x[i] = (float)((i * 7 + seed) % 1000 + 1) / 7.0f;
    b->y[i] = (float)((i * 13 + seed * 3) % 1000 + 1) / 3.0f;
  }
  memset(b->o, 0xff, sizeof b->o); /* NaN everywhere */
  ++b->launches;
  if (launch(b->x, b->y, b->o) != 0) ++b->bad_launches;
  for (i = 0; i < N; ++i)
    if (!(b->o[i] == b->x[i] + b->y[i])) ++wrong;
  b->wrong += wrong;
}

static void launch_and_check(buffers *b, int seed) { launch_through(launch_here, b, seed); }

static void *launch_many(void *p) {
  buffers *b = (buffers *)p;
  int k;
  for (k = 0; k < CONCURRENT; ++k)
    launch_and_check(b, k * 5 + b->seed);
  return 0;
}

static int report(const char *what, const buffers *b) {
  printf("%s: %d launches, %d failed, %d elements wrong\n", what, b->launches,
         b->bad_launches, b->wrong);
  return b->bad_launches != 0 || b->wrong != 0;
}

int main(int argc, char **argv) {
  static buffers one, two, three;
  struct timespec nap = {0, 300 * 1000}; /* longer than the workers poll */
  pthread_t threads[2];
  int k, bad = 0;
  if (argc > 1) start_limit = atoi(argv[1]);

  for (k = 0; k < BACK_TO_BACK; ++k)
    launch_and_check(&one, k);
  bad |= report("back to back", &one);

  memset(&one, 0, sizeof one);
  for (k = 0; k < SPACED; ++k) {
    nanosleep(&nap, 0);
    launch_and_check(&one, k + 1000);
  }
  bad |= report("spaced", &one);

  /* Two threads launch at once (one of them finds the pool busy) while
   * this one launches too. */
  memset(&one, 0, sizeof one);
  two.seed = 1;
  three.seed = 2;
  if (start_thread(&threads[0], 0, launch_many, &two) != 0 ||
      start_thread(&threads[1], 0, launch_many, &three) != 0) {
    printf("cannot start the test's threads\n");
    return 1;
  }
  for (k = 0; k < CONCURRENT; ++k)
    launch_and_check(&one, k + 2000);
  pthread_join(threads[0], 0);
  pthread_join(threads[1], 0);
  bad |= report("concurrent, main", &one);
  bad |= report("concurrent, thread 1", &two);
  bad |= report("concurrent, thread 2", &three);

  /* Launches from another source file share this one's pool: they start
   * no workers of their own. */
  memset(&one, 0, sizeof one);
  for (k = 0; k < SPACED; ++k)
    launch_through(launch_from_second_unit, &one, k + 3000);
  bad |= report("second source file", &one);

  printf("workers started: %d, failed to start: %d\n", started, failed);
  return bad;
}
