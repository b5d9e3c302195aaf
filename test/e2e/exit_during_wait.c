// exit() from another thread while the main thread waits for a launch (or,
// with `nowait`, at a taskwait): the process ends with that thread's
// status, its statistics printed, without a crash, a hang or a sanitizer
// report from the runtime torn down under the waiting thread.
//
// The main thread runs slow launches for ever; once one has finished (so
// the statistics show the node), the other thread checks its result
// against the scalar reference and exits with the verdict.
//
//   exit-during-wait n [nowait]
#include "e2e.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { Reps = 4000 };

// Integer arithmetic, so that the node and the reference agree exactly.
static unsigned step(unsigned x) {
  for (long r = 0; r < Reps; ++r)
    x = x * 1664525u + 1013904223u;
  return x;
}

static void slow(unsigned *a, long n) {
#pragma hpvm parallel for name(slow) inout(a[0:n])
  for (long i = 0; i < n; ++i)
    a[i] = step(a[i]);
}

static void slow_nowait(unsigned *a, long n) {
#pragma hpvm parallel for name(slow_nowait) inout(a[0:n]) nowait
  for (long i = 0; i < n; ++i)
    a[i] = step(a[i]);
}

static atomic_long finished;
static unsigned *first; // a's values after the first launch
static long count;

static void *exiter(void *arg) {
  (void)arg;
  while (atomic_load(&finished) == 0)
    usleep(1000);
  usleep(20000); // into the next launch
  for (long i = 0; i < count; ++i) {
    unsigned want = step((unsigned)(i % 7));
    E2E_CHECK(first[i] == want, "a[%ld] = %u after one launch, want %u", i,
              first[i], want);
  }
  exit(e2e_finish("exit-during-wait"));
  return NULL;
}

int main(int argc, char **argv) {
  count = e2e_count(argc, argv, 1, 4096);
  int nowait = argc > 2 && strcmp(argv[2], "nowait") == 0;
  unsigned *a = e2e_alloc((size_t)count * sizeof(unsigned));
  first = e2e_alloc((size_t)count * sizeof(unsigned));
  for (long i = 0; i < count; ++i)
    a[i] = (unsigned)(i % 7);
  pthread_t t;
  pthread_create(&t, NULL, exiter, NULL);
  for (;;) {
    if (nowait) {
      slow_nowait(a, count);
#pragma hpvm taskwait
    } else {
      slow(a, count);
    }
    if (atomic_load(&finished) == 0)
      memcpy(first, a, (size_t)count * sizeof(unsigned));
    atomic_fetch_add(&finished, 1);
  }
}
