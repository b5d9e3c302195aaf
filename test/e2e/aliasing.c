// The same array as input and output of one node.
//
// hpvm-clang accepts one variable named in both in() and out() of a node and
// treats it as inout(): the clauses merge into one buffer, read and written,
// as large as the largest section. Checked against the sequential meaning
// of the same calls: an element-wise update, one whose in() and out()
// sections differ (instances read the upper half and write the lower half,
// so no instance reads what another writes), and inout() itself.
//
// Two *different* pointer variables that point to the same memory are not
// tested: docs/c-frontend.md §2 says different variables are assumed not to
// overlap, like restrict pointers, so such a program has no defined result.
//
//   aliasing n
#include "e2e.h"

// Named twice: in(a) and out(a).
static void same_variable(long n, float *a) {
#pragma hpvm parallel for name(same_variable) in(a[0:n]) out(a[0:n])
  for (long i = 0; i < n; ++i)
    a[i] = 1.0f - 2.0f * a[i];
}

// Named twice with different sections: the buffer is the larger one.
static void two_sections(long n, const float *b, float *a) {
#pragma hpvm parallel for name(two_sections) in(a[0:n], b[0:n]) out(a[0:n / 2])
  for (long i = 0; i < n / 2; ++i)
    a[i] = a[i + n / 2] + b[i];
}

// The same with inout().
static void in_place(long n, float *a) {
#pragma hpvm parallel for name(in_place) inout(a[0:n])
  for (long i = 0; i < n; ++i)
    a[i] = a[i] * 0.5f + 3.0f;
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 100003);
  size_t bytes = (size_t)n * sizeof(float);
  float *a = e2e_alloc(bytes), *b = e2e_alloc(bytes), *ref = e2e_alloc(bytes);
  static const char *Names[] = {"in(a) out(a)", "in(a) out(a[0:n/2])",
                                "inout(a)"};
  for (int round = 0; round < 3; ++round) {
    for (long i = 0; i < n; ++i) {
      a[i] = ref[i] = (float)(i % 997) * 0.125f - 40.0f;
      b[i] = (float)(i % 13);
    }
    // The node, then the sequential meaning of the same call.
    if (round == 0) {
      same_variable(n, a);
      for (long i = 0; i < n; ++i)
        ref[i] = 1.0f - 2.0f * ref[i];
    } else if (round == 1) {
      two_sections(n, b, a);
      for (long i = 0; i < n / 2; ++i)
        ref[i] = ref[i + n / 2] + b[i];
    } else {
      in_place(n, a);
      for (long i = 0; i < n; ++i)
        ref[i] = ref[i] * 0.5f + 3.0f;
    }
    long bad = 0;
    for (long i = 0; i < n; ++i)
      if (!e2e_close(a[i], ref[i], fabs(ref[i]) + 64.0)) {
        E2E_FAIL("%s: a[%ld] = %g, want %g", Names[round], i, a[i], ref[i]);
        ++bad;
      }
    printf("%s: %ld mismatches\n", Names[round], bad);
  }
  e2e_free(a, bytes, "a");
  e2e_free(b, bytes, "b");
  e2e_free(ref, bytes, "ref");
  return e2e_finish("aliasing");
}
