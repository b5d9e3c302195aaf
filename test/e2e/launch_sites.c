// Launch sites (docs/runtime.md, "Launch sites"): a small launch of a
// graph that is one CPU leaf may be run by the program itself, at the call,
// once the runtime has armed the site. Everything that a direct launch
// would skip must disarm it first. Each round below runs `bump` (target(cpu),
// small: direct launches) many times on a buffer, between launches that
// make direct launches wrong if the site stayed armed:
//
//   round % 6 == 0   `twice` (target(spirv)) on the same buffer: its copy
//                    on the device must be stale after bump's host writes
//   round % 6 == 1   `anywhere` (no target: the policy decides)
//   round % 6 == 2   `later`, nowait, then bump and `soon` (nowait,
//                    target(cpu)) before the taskwait: both must wait for
//                    it (all write the buffer)
//   round % 6 == 3   bump inside a data region where `twice` keeps the
//                    buffer on the device
//   round % 6 == 4   bump with a size beyond any limit, then small again
//   round % 6 == 5   bump of no instances, and of a negative count
//
// Every round ends with `soon` many times (direct launches of a `nowait`
// site) and a taskwait. After every round the buffer is compared with the
// same steps in C. Then
// two threads run bump at the same site at once, each on a buffer of its
// own, while the main thread launches `twice` on a third.
// Values are integers mod a prime, exact on every device. The test also
// requires the statistics' "direct:" lines (HPVM_STATS=1), so that it
// cannot pass without direct launches.
//
//   launch-sites n
#include "e2e.h"

#include <pthread.h>

enum { Rounds = 12, Bumps = 40, Prime = 1000003 };

static void bump(long n, int *a) {
#pragma hpvm parallel for name(bump) target(cpu) inout(a [0:n])
  for (long i = 0; i < n; ++i)
    a[i] = (a[i] * 5 + (int)(i % 7)) % Prime;
}

static void twice(long n, int *a) {
#pragma hpvm parallel for name(twice) target(spirv) inout(a [0:n])
  for (long i = 0; i < n; ++i)
    a[i] = (a[i] * 7 + 3) % Prime;
}

static void anywhere(long n, int *a) {
#pragma hpvm parallel for name(anywhere) inout(a [0:n])
  for (long i = 0; i < n; ++i)
    a[i] = (a[i] + 11 * (int)(i % 13)) % Prime;
}

static void later(long n, int *a) {
#pragma hpvm parallel for name(later) nowait inout(a [0:n])
  for (long i = 0; i < n; ++i)
    a[i] = (a[i] * 3 + 1) % Prime;
}

static void soon(long n, int *a) {
#pragma hpvm parallel for name(soon) nowait target(cpu) inout(a [0:n])
  for (long i = 0; i < n; ++i)
    a[i] = (a[i] + 5 + (int)(i % 3)) % Prime;
}

static void soon_ref(long n, int *a) {
  for (long i = 0; i < n; ++i)
    a[i] = (a[i] + 5 + (int)(i % 3)) % Prime;
}

static void bump_ref(long n, int *a) {
  for (long i = 0; i < n; ++i)
    a[i] = (a[i] * 5 + (int)(i % 7)) % Prime;
}

static void twice_ref(long n, int *a) {
  for (long i = 0; i < n; ++i)
    a[i] = (a[i] * 7 + 3) % Prime;
}

static void bumps(long n, int *a, int *ref, int times) {
  for (int k = 0; k < times; ++k) {
    bump(n, a);
    bump_ref(n, ref);
  }
}

struct worker {
  long n;
  int *a, *ref;
};

static void *work(void *arg) {
  struct worker *w = arg;
  bumps(w->n, w->a, w->ref, 300);
  return NULL;
}

/// Two threads at bump's site at once, the main thread's launches between.
static void threads(long n) {
  struct worker w[2];
  pthread_t t[2];
  int *c = e2e_alloc((size_t)n * sizeof(int));
  int *cref = e2e_alloc((size_t)n * sizeof(int));
  for (long i = 0; i < n; ++i)
    c[i] = cref[i] = (int)(i % 17);
  for (int k = 0; k < 2; ++k) {
    w[k].n = n;
    w[k].a = e2e_alloc((size_t)n * sizeof(int));
    w[k].ref = e2e_alloc((size_t)n * sizeof(int));
    for (long i = 0; i < n; ++i)
      w[k].a[i] = w[k].ref[i] = (int)((i + k) % 23);
    if (pthread_create(&t[k], NULL, work, &w[k])) {
      E2E_FAIL("pthread_create failed");
      exit(2);
    }
  }
  for (int k = 0; k < 20; ++k) {
    twice(n, c);
    twice_ref(n, cref);
  }
  for (int k = 0; k < 2; ++k) {
    pthread_join(t[k], NULL);
    for (long i = 0; i < n; ++i)
      E2E_CHECK(w[k].a[i] == w[k].ref[i], "thread %d: a[%ld] = %d, want %d", k,
                i, w[k].a[i], w[k].ref[i]);
    e2e_free(w[k].a, (size_t)n * sizeof(int), "thread's a");
    e2e_free(w[k].ref, (size_t)n * sizeof(int), "thread's ref");
  }
  for (long i = 0; i < n; ++i)
    E2E_CHECK(c[i] == cref[i], "threads: c[%ld] = %d, want %d", i, c[i],
              cref[i]);
  e2e_free(c, (size_t)n * sizeof(int), "c");
  e2e_free(cref, (size_t)n * sizeof(int), "cref");
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 1000);
  long big = n * 2000 + 1; // far beyond what a site runs directly
  int *a = e2e_alloc((size_t)big * sizeof(int));
  int *ref = e2e_alloc((size_t)big * sizeof(int));
  for (long i = 0; i < big; ++i)
    a[i] = ref[i] = (int)((i * 37) % 101);

  for (int round = 0; round < Rounds; ++round) {
    bumps(n, a, ref, Bumps);
    switch (round % 6) {
    case 0:
      twice(n, a);
      twice_ref(n, ref);
      break;
    case 1:
      anywhere(n, a);
      for (long i = 0; i < n; ++i)
        ref[i] = (ref[i] + 11 * (int)(i % 13)) % Prime;
      break;
    case 2:
      later(n, a);
      for (long i = 0; i < n; ++i)
        ref[i] = (ref[i] * 3 + 1) % Prime;
      bumps(n, a, ref, 3);
      soon(n, a);
      soon_ref(n, ref);
#pragma hpvm taskwait
      break;
    case 3:
#pragma hpvm data inout(a [0:n])
    {
      twice(n, a);
      twice_ref(n, ref);
      bumps(n, a, ref, 5);
      twice(n, a);
      twice_ref(n, ref);
    } break;
    case 4:
      bumps(big, a, ref, 2);
      break;
    case 5:
      bumps(0, a, ref, 3);
      bumps(-5, a, ref, 3);
      break;
    }
    bumps(n, a, ref, Bumps);
    for (int k = 0; k < Bumps; ++k) {
      soon(n, a);
      soon_ref(n, ref);
    }
#pragma hpvm taskwait
    long bad = 0;
    for (long i = 0; i < big; ++i)
      if (a[i] != ref[i] && bad++ < 5)
        E2E_FAIL("round %d: a[%ld] = %d, want %d", round, i, a[i], ref[i]);
    if (bad)
      break;
  }
  e2e_free(a, (size_t)big * sizeof(int), "a");
  e2e_free(ref, (size_t)big * sizeof(int), "ref");
  threads(n);
  return e2e_finish("launch-sites");
}
