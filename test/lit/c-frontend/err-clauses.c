// Errors in what clauses name: buffers, sections, values, reductions, and
// how buffers and extents relate to the graph.
// RUN: not %hpvm-clang -fsyntax-only -ferror-limit=0 %s 2>&1 | FileCheck %s --implicit-check-not=error:

struct vec { float *data; int n; };

void not_variable(struct vec v) {
#pragma hpvm task in(v.data[0:v.n])
  // CHECK: err-clauses.c:[[@LINE-1]]:22: error: a buffer in clause 'in' must be a variable, optionally with an array section
  { }
}

void pointer_whole(float *a, int n) {
#pragma hpvm task in(a)
  // CHECK: err-clauses.c:[[@LINE-1]]:22: error: pointer 'a' has no extent; name the elements the node uses with a section such as in(a[0:n])
  { }
}

void pointer_open_section(float *a, int n) {
#pragma hpvm task inout(a[2:])
  // CHECK: err-clauses.c:[[@LINE-1]]:25: error: pointer 'a' has no extent; name the elements the node uses with a section such as inout(a[0:n])
  { }
}

void array_parameter(float a[16]) {
#pragma hpvm task out(a)
  // CHECK: err-clauses.c:[[@LINE-1]]:23: error: pointer 'a' has no extent
  { }
}

void section_of_scalar(int x) {
#pragma hpvm task in(x[0:1])
  // CHECK: err-clauses.c:[[@LINE-1]]:22: error: array section of 'x', which is neither a pointer nor an array
  { }
}

void void_section(void *p, int n) {
#pragma hpvm task in(p[0:n])
  // CHECK: err-clauses.c:[[@LINE-1]]:22: error: cannot take a section of 'p': its element type 'void' has no size
  { }
}

void float_bound(float *a) {
#pragma hpvm task in(a[0:1.5])
  // CHECK: err-clauses.c:[[@LINE-1]]:26: error: the bounds of an array section must be integers
  { }
}

void value_struct(struct vec v) {
#pragma hpvm task value(v)
  // CHECK: err-clauses.c:[[@LINE-1]]:25: error: value() takes local variables of arithmetic type; 'v' is not one
  { }
}

void value_pointer(float *a) {
#pragma hpvm task value(a)
  // CHECK: err-clauses.c:[[@LINE-1]]:25: error: value(a): 'a' is a pointer; name buffers in in(), out() or inout()
  { }
}

void two_clauses(int x) {
#pragma hpvm task inout(x) value(x)
  // CHECK: err-clauses.c:[[@LINE-1]]:34: error: 'x' is named in both value() and inout()
  { x = 1; }
}

void reduce_float_bits(float *a, int n) {
  float f = 0;
#pragma hpvm parallel for in(a[0:n]) reduction(|: f)
  // CHECK: err-clauses.c:[[@LINE-1]]:51: error: reduction '|' needs an integer variable; 'f' has type 'float'
  for (int i = 0; i < n; i++) f = a[i];
}

void reduce_long_double(float *a, int n) {
  long double s = 0;
#pragma hpvm parallel for in(a[0:n]) reduction(+: s)
  // CHECK: err-clauses.c:[[@LINE-1]]:51: error: reduction on 's' of type 'long double' is not supported
  for (int i = 0; i < n; i++) s += a[i];
}

void reduce_twice(float *a, int n) {
  float s = 0;
#pragma hpvm parallel for inout(s) in(a[0:n]) reduction(+: s)
  // CHECK: err-clauses.c:[[@LINE-1]]:60: error: 's' is named in both reduction() and inout()
  for (int i = 0; i < n; i++) s += a[i];
}

void reduce_internal(float *a, int n) {
  float s = 0;
#pragma hpvm parallel for reduction(+: s)
  // CHECK: err-clauses.c:[[@LINE-1]]:27: error: reduction() is not supported on a parallel loop with child nodes
  for (int i = 0; i < n; i++) {
#pragma hpvm parallel for out(a[0:n])
    for (int j = 0; j < n; j++) a[j] = 0;
  }
}

// Array reductions (reduction(op: a[lo:len])): what they take and where.
struct pair { int a, b; };

void reduce_array_errors(float *a, int n, float (*g)[4], struct pair *p,
                         _Bool *flags, float *y) {
#pragma hpvm parallel for in(a[0:n]) reduction(+: y)
  // CHECK: err-clauses.c:[[@LINE-1]]:51: error: pointer 'y' has no extent; name the elements the node uses with a section such as reduction(y[0:n])
  for (int i = 0; i < n; i++) y[0] += a[i];
#pragma hpvm parallel for in(a[0:n]) reduction(+: g[0:n][0:4])
  // CHECK: err-clauses.c:[[@LINE-1]]:51: error: an array reduction takes a 1-D section ('g[lo:len]'); sections of further dimensions are not supported
  for (int i = 0; i < n; i++) g[i][0] += a[i];
#pragma hpvm parallel for in(a[0:n]) reduction(+: p[0:n])
  // CHECK: err-clauses.c:[[@LINE-1]]:51: error: an array reduction needs an array of numbers; the elements of 'p' have type 'struct pair'
  for (int i = 0; i < n; i++) p[i].a += 1;
#pragma hpvm parallel for in(a[0:n]) reduction(|: flags[0:n])
  // CHECK: err-clauses.c:[[@LINE-1]]:51: error: an array reduction needs an array of numbers; the elements of 'flags' have type '_Bool'
  for (int i = 0; i < n; i++) flags[i] |= a[i] > 0;
#pragma hpvm parallel for in(a[0:n]) reduction(^: y[0:n])
  // CHECK: err-clauses.c:[[@LINE-1]]:51: error: reduction '^' needs an integer variable; 'y' has type 'float'
  for (int i = 0; i < n; i++) y[i] += a[i];
#pragma hpvm parallel for in(a[0:n], y[0:n]) reduction(+: y[0:n])
  // CHECK: err-clauses.c:[[@LINE-1]]:59: error: 'y' is named in both reduction() and in()
  for (int i = 0; i < n; i++) y[i] += a[i];
}

void reduce_array_placement(float *a, int n, float *y) {
#pragma hpvm parallel for in(a[0:n * n]) inout(y[0:n * n])
  for (int r = 0; r < n; r++) {
#pragma hpvm parallel for in(a[0:n * n]) reduction(+: y[r * n:n])
    // CHECK: err-clauses.c:[[@LINE-1]]:55: error: the reduction section of 'y' starts at a value of the graph; an array reduction needs a section known when the graph starts
    for (int i = 0; i < n; i++) y[r * n] += a[i];
#pragma hpvm parallel for in(a[0:n * n]) reduction(+: y[0:n])
    // CHECK: err-clauses.c:[[@LINE-1]]:55: error: an array reduction is not supported in a node inside a replicated node ('reduce_array_placement_{{[0-9]+}}'): its private copies are made once per launch
    for (int i = 0; i < n; i++) y[i] += a[i];
  }
#pragma hpvm task nowait in(a[0:n]) inout(y[0:n])
  {
#pragma hpvm parallel for in(a[0:n]) reduction(+: y[0:n])
    // CHECK: err-clauses.c:[[@LINE-1]]:51: error: an array reduction is not supported in a 'nowait' graph: its private copies are freed when the launch ends
    // CHECK: err-clauses.c:[[@LINE-4]]:19: note: the graph is launched 'nowait' here
    for (int i = 0; i < n; i++) y[i] += a[i];
  }
#pragma hpvm task in(a[0:n]) inout(y[0:n])
  {
    int half = n / 2;
#pragma hpvm parallel for in(a[0:n]) reduction(+: y[0:n])
    for (int i = 0; i < half; i++) y[i] += a[i];
    // CHECK: err-clauses.c:[[@LINE-1]]:25: error: the loop of a node with an array reduction must have bounds known when the graph starts; 'half' is declared inside the graph
  }
}

// Pointers kept in a buffer would point into host memory on a device.
void rows_of_pointers(float **rows, float *out, int n, int m) {
#pragma hpvm parallel for in(rows[0:n]) out(out[0:n])
  // CHECK: err-clauses.c:[[@LINE-1]]:30: error: buffer 'rows' holds pointers ('float *'): a node cannot follow them, since on a device they would point into host memory; pass the data as one array (a 2-D array such as 'float (*rows)[m]', or 'rows[i * m + j]') and name it in a clause
  for (int i = 0; i < n; i++) out[i] = rows[i][m - 1];
}

void array_of_pointers(float *a, float *b, float *out, int n) {
  float *both[2] = {a, b};
#pragma hpvm parallel for in(both) out(out[0:n])
  // CHECK: err-clauses.c:[[@LINE-1]]:30: error: buffer 'both' holds pointers ('float *')
  for (int i = 0; i < n; i++) out[i] = both[i % 2][i];
}

void graph_local_buffer(float *a, int n) {
#pragma hpvm task
  {
    float tmp[4];
#pragma hpvm task out(tmp)
    // CHECK: err-clauses.c:[[@LINE-1]]:23: error: buffer 'tmp' is declared inside the graph; the buffers of every node must exist when the graph starts
    { tmp[0] = 1; }
  }
}

void graph_local_size(float *a, int n) {
#pragma hpvm task
  {
    int half = n / 2;
#pragma hpvm task out(a[0:half])
    // CHECK: err-clauses.c:[[@LINE-1]]:27: error: buffer 'a' uses 'half', which is declared inside the graph
    { a[0] = 1; }
  }
}

void instance_extent(float *a, int n) {
#pragma hpvm parallel for out(a[0:n*n])
  for (int i = 0; i < n; i++) {
#pragma hpvm parallel for out(a[0:n*n])
    for (int j = 0; j < i; j++)
      // CHECK: err-clauses.c:[[@LINE-1]]:25: error: the loop bound uses 'i', an instance id of an enclosing parallel loop; extents must be known when the graph starts
      a[i * n + j] = 0;
  }
}

// The counter of a loop run in order is not an extent either (LU's k).
void step_extent(float *a, int n) {
#pragma hpvm task inout(a[0:n*n])
  {
    for (int k = 0; k < n; k++) {
#pragma hpvm parallel for inout(a[0:n*n])
      for (int i = k + 1; i < n; i++)
        // CHECK: err-clauses.c:[[@LINE-1]]:20: error: the loop bound uses 'k', the counter of an enclosing loop run in order (a plain 'for' around nodes); extents must be known when the graph starts: loop over the whole range and skip the instances you do not need ('if (i <= k) continue;'), or put that loop around the graph, on the host
        a[i * n + k] /= a[k * n + k];
    }
  }
}

void child_writes_input(float *a, int n) {
#pragma hpvm task in(a[0:n]) name(parent)
  {
#pragma hpvm parallel for out(a[0:n]) name(child)
    // CHECK: err-clauses.c:[[@LINE-1]]:31: error: node 'child' writes 'a', which the enclosing node 'parent' declares in()
    for (int i = 0; i < n; i++) a[i] = 0;
  }
}

// Constant bounds are checked when they are known: negative ones, and sections
// whose byte size 64 bits cannot count (they would fail, or be misread, at
// run time).
void section_negative_length(float *a) {
#pragma hpvm task in(a[0:-5])
  // CHECK: err-clauses.c:[[@LINE-1]]:26: error: the length of the array section of 'a' is -5, which is negative
  { }
}

void section_negative_start(float *a) {
#pragma hpvm task in(a[-1:3])
  // CHECK: err-clauses.c:[[@LINE-1]]:24: error: the start of the array section of 'a' is -1, which is negative
  { }
}

void section_too_large(float *a) {
#pragma hpvm task in(a[1:(1LL << 62) - 1])
  // CHECK: err-clauses.c:[[@LINE-1]]:22: error: the array section of 'a' ends 4611686018427387904 elements of 4 bytes from its start: more bytes than 64 bits can count
  { }
}

// An array whose size is known: a constant section may not end past it.
// Up to its end is fine, in any dimension's rows.
void section_beyond_array(void) {
  int a[10];
  float m[4][8];
#pragma hpvm task out(a[0:20])
  // CHECK: err-clauses.c:[[@LINE-1]]:23: error: the array section of 'a' ends at element 20, but 'a' has 10; the runtime would copy memory past its end
  { a[0] = 1; }
#pragma hpvm task out(a[6:5])
  // CHECK: err-clauses.c:[[@LINE-1]]:23: error: the array section of 'a' ends at element 11, but 'a' has 10; the runtime would copy memory past its end
  { a[6] = 1; }
#pragma hpvm task out(a[6:4], m[2:2][0:8])
  { a[6] = 1; m[3][7] = 2; }
#pragma hpvm task out(m[3:2][0:8])
  // CHECK: err-clauses.c:[[@LINE-1]]:23: error: the array section of 'm' ends at element 5, but 'm' has 4; the runtime would copy memory past its end
  { m[3][0] = 1; }
}

void section_largest(char *a) {
#pragma hpvm task in(a[0:(1ULL << 63)])
  { }
}

// A section that starts at an instance id of an enclosing loop is the
// instance's own: its parent must name the whole buffer, and a node names
// one section of it.
void section_per_instance_without_parent(float *x, long R, long n) {
#pragma hpvm parallel for name(rows)
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(fill) out(x[r * n:n])
    // CHECK: err-clauses.c:[[@LINE-1]]:42: error: the section of 'x' in node 'fill' starts at an instance id of an enclosing loop; name the whole of 'x' in the clauses of 'rows' (e.g. inout(x[0:n])): its size cannot come from the section
    for (long i = 0; i < n; ++i)
      x[r * n + i] = 0;
  }
}

void section_per_instance_twice(float *x, long R, long n) {
#pragma hpvm parallel for name(rows) inout(x[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(shift) in(x[r * n:n]) out(x[(r + 1) * n:n])
    // CHECK: err-clauses.c:[[@LINE-1]]:58: error: 'x' is named with a section that starts at an instance id and with another section in one node; name one section that covers what the node uses
    for (long i = 0; i < n; ++i)
      x[(r + 1) * n + i] = x[r * n + i];
  }
}

void section_per_instance_length(float *x, long R, long n) {
#pragma hpvm parallel for name(rows) inout(x[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(fill) out(x[r * n:r])
    // CHECK: err-clauses.c:[[@LINE-1]]:50: error: buffer 'x' uses 'r', which is declared inside the graph; the buffers of every node must be known when the graph starts
    for (long i = 0; i < r; ++i)
      x[r * n + i] = 0;
  }
}

// private() and firstprivate() take arithmetic variables (private() also
// pointers and arrays of numbers), on leaves, each variable in one clause;
// the loop's own variable in private() changes nothing, in firstprivate()
// it is an error, as in OpenMP.
void private_pointer(float *a, int n) {
#pragma hpvm parallel for out(a[0:n]) private(a)
  // CHECK: err-clauses.c:[[@LINE-1]]:47: error: 'a' is named in both private() and out()
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

struct point { int x, y; };
void private_struct(float *a, int n) {
  struct point p;
  float *q;
#pragma hpvm parallel for out(a[0:n]) private(p) firstprivate(q)
  // CHECK: err-clauses.c:[[@LINE-1]]:47: error: private() takes variables of arithmetic type (and private() also pointers and arrays of numbers); 'p' is not one
  // CHECK: err-clauses.c:[[@LINE-2]]:63: error: firstprivate() takes variables of arithmetic type (and private() also pointers and arrays of numbers); 'q' is not one
  for (int i = 0; i < n; i++)
    a[i] = p.x + *q;
}

void private_loop_var(float *a, int n) {
  int i;
#pragma hpvm parallel for out(a[0:n]) firstprivate(i)
  // CHECK: err-clauses.c:[[@LINE-1]]:52: error: firstprivate(i): 'i' is the loop's own variable, which every instance has already, set to its iteration; remove it from the clause
  for (i = 0; i < n; i++)
    a[i] = 0;
}

void private_twice(float *a, int n) {
  float t = 1;
#pragma hpvm parallel for out(a[0:n]) private(t) firstprivate(t)
  // CHECK: err-clauses.c:[[@LINE-1]]:63: error: 't' is named in both firstprivate() and private()
  for (int i = 0; i < n; i++) {
    t = i;
    a[i] = t;
  }
}

void private_internal(float *a, int n) {
  float t;
#pragma hpvm task out(a[0:n]) private(t)
  // CHECK: err-clauses.c:[[@LINE-1]]:31: error: private() is not supported on a node with child nodes
  {
#pragma hpvm parallel for out(a[0:n])
    for (int i = 0; i < n; i++)
      a[i] = 0;
  }
}

// A section of a second dimension needs rows that are arrays.
void section_2d_of_pointer(float *p, long n) {
#pragma hpvm parallel for in(p[0:n][0:2])
  // CHECK: err-clauses.c:[[@LINE-1]]:30: error: a section of another dimension of 'p' needs rows that are arrays, but its elements are of type 'float' (a 2-D array or a parameter like 'float p[n][m]' has them)
  for (long i = 0; i < n; ++i)
    (void)p[i];
}

void section_2d_bad_bound(long n, long m, float a[n][m]) {
#pragma hpvm parallel for in(a[0:n][0:1.5])
  // CHECK: err-clauses.c:[[@LINE-1]]:39: error: the bounds of an array section must be integers
  for (long i = 0; i < n; ++i)
    (void)a[i][0];
}

// && and || combine through 32- or 64-bit atomics (a _Bool needs none).
void logical_narrow(const int *v, int n) {
  char any = 0;
#pragma hpvm parallel for in(v[0:n]) reduction(||: any)
  // CHECK: err-clauses.c:[[@LINE-1]]:52: error: reduction '||' on 'any' of type 'char' is not supported: devices combine logical reductions with 32- or 64-bit atomics; declare it int or _Bool
  for (int i = 0; i < n; i++)
    any = any || v[i];
}
