// Errors about what '#pragma hpvm data' and '#pragma hpvm update' name and
// where they are: buffers follow the rules of node clauses; both are host
// code, outside nodes; control enters and leaves a data statement only
// through its braces.
// RUN: not %hpvm-clang -fsyntax-only -ferror-limit=0 %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=note:
#include <setjmp.h>

struct vec { float *data; int n; };

void pointer_whole(float *a, int n) {
#pragma hpvm data inout(a)
  // CHECK: err-data.c:[[@LINE-1]]:25: error: pointer 'a' has no extent; name the elements the node uses with a section such as inout(a[0:n])
  {}
#pragma hpvm update host(a) device(a[2:])
  // CHECK: err-data.c:[[@LINE-1]]:26: error: pointer 'a' has no extent; name the elements the node uses with a section such as host(a[0:n])
  // CHECK: err-data.c:[[@LINE-2]]:36: error: pointer 'a' has no extent; name the elements the node uses with a section such as device(a[0:n])
}

void not_variable(struct vec v) {
#pragma hpvm data in(v.data[0:v.n])
  // CHECK: err-data.c:[[@LINE-1]]:22: error: a buffer in clause 'in' must be a variable, optionally with an array section
  {}
}

void negative_section(float *a) {
#pragma hpvm update device(a[-1:2])
  // CHECK: err-data.c:[[@LINE-1]]:30: error: the start of the array section of 'a' is -1, which is negative
}

void both_ways(float *a, int n) {
#pragma hpvm update host(a[0:n]) device(a[0:1])
  // CHECK: err-data.c:[[@LINE-1]]:41: error: 'a' is named in both host() and device()
}

void update_as_body(float *a, int n) {
  if (n > 0)
#pragma hpvm update host(a[0:n])
  // CHECK: err-data.c:[[@LINE-1]]:1: error: '#pragma hpvm update' is a statement of its own and cannot be the body of an 'if', a loop or another statement; put it in braces
  a[0] = 1;
  for (int i = 0; i < n; i++)
#pragma hpvm update device(a[i:1])
  // CHECK: err-data.c:[[@LINE-1]]:1: error: '#pragma hpvm update' is a statement of its own
  ;
}

void in_task(float *a, int n) {
#pragma hpvm task inout(a[0:n])
  {
#pragma hpvm update host(a[0:n])
    // CHECK: err-data.c:[[@LINE-1]]:1: error: '#pragma hpvm update' is host code and is not allowed inside an hpvm node; put it outside the graph
    a[0] = 1;
  }
}

void in_loop(float *a, int n) {
#pragma hpvm parallel for inout(a[0:n])
  for (int i = 0; i < n; i++) {
#pragma hpvm data inout(a[0:n])
    // CHECK: err-data.c:[[@LINE-1]]:1: error: '#pragma hpvm data' is host code and is not allowed inside an hpvm node; put it outside the graph
    { a[i] = 0; }
  }
}

void jumps_out(float *a, int n, jmp_buf env) {
  for (int t = 0; t < n; t++) {
#pragma hpvm data inout(a[0:n])
    {
      for (int k = 0; k < t; k++) {
        if (k == 2)
          continue; // the inner loop's: fine
        if (k == 3)
          break;
      }
      switch (t) {
      case 1:
        break; // the switch's: fine
      }
      goto next; // inside: fine
    next:
      if (t == 1)
        break;
      // CHECK: err-data.c:[[@LINE-1]]:9: error: 'break' leaves the '#pragma hpvm data' statement without ending its data region; control may leave it only through its closing '}'
      if (t == 2)
        continue;
      // CHECK: err-data.c:[[@LINE-1]]:9: error: 'continue' leaves the '#pragma hpvm data' statement
      if (t == 3)
        return;
      // CHECK: err-data.c:[[@LINE-1]]:9: error: 'return' leaves the '#pragma hpvm data' statement
      if (t == 4)
        goto done;
      // CHECK: err-data.c:[[@LINE-1]]:9: error: 'goto' leaves the '#pragma hpvm data' statement
      if (t == 5)
        longjmp(env, 1);
      // CHECK: err-data.c:[[@LINE-1]]:9: error: 'longjmp' leaves the '#pragma hpvm data' statement
    }
  }
done:;
}

void nested(float *a, float *b, int n) {
  while (n--) {
#pragma hpvm data inout(a[0:n])
    {
#pragma hpvm data inout(b[0:n])
      {
        if (n == 3)
          break; // reported once, by the inner statement
        // CHECK: err-data.c:[[@LINE-1]]:11: error: 'break' leaves the '#pragma hpvm data' statement
      }
    }
  }
}

void jumps_in(float *a, int n) {
  switch (n) {
  case 0:
#pragma hpvm data inout(a[0:n])
    {
    inside:
      a[0] = 1;
    case 2:
      // CHECK: err-data.c:[[@LINE-1]]:5: error: a 'case' label of a 'switch' outside enters the '#pragma hpvm data' statement without starting its data region; control may enter it only through its opening '{'
      a[1] = 2;
    }
  }
  if (n == 1)
    goto inside;
  // CHECK: err-data.c:[[@LINE-1]]:5: error: 'goto' enters the '#pragma hpvm data' statement
}

// Graphs in a data statement check their own code.
void graph_inside(float *a, int n) {
#pragma hpvm data inout(a[0:n])
  {
#pragma hpvm parallel for inout(a[0:n])
    for (int i = 0; i < n; i++) {
      if (i == 3)
        return;
      // CHECK: err-data.c:[[@LINE-1]]:9: error: 'return' is not allowed inside an hpvm node
      a[i] = 0;
    }
  }
}

// A function with a data directive is host code, as one with nodes.
static void with_update(float *a, int n) {
#pragma hpvm update host(a[0:n])
}

void calls_host_code(float *a, int n) {
#pragma hpvm parallel for inout(a[0:n])
  for (int i = 0; i < n; i++)
    with_update(a, n);
  // CHECK: err-data.c:[[@LINE-1]]:5: error: function 'with_update' contains hpvm nodes or data directives and cannot be called from inside a node
}
