// Code in a node (and in the functions it calls) must be able to run as
// many instances on any device: constructs that cannot are errors.
// RUN: not %hpvm-clang -fsyntax-only -ferror-limit=0 %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=note:
#include <setjmp.h>
#include <stdio.h>

int global_counter;
static const float table[4] = {1, 2, 3, 4};

void returns(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    if (i == 3)
      return;
    // CHECK: err-kernel.c:[[@LINE-1]]:7: error: 'return' is not allowed inside an hpvm node
    a[i] = table[i % 4]; // a constant table needs no clause
  }
}

void jumps(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    goto skip;
    // CHECK: err-kernel.c:[[@LINE-1]]:5: error: 'goto' is not allowed inside an hpvm node
  skip:
    a[i] = 0;
  }
}

void breaks(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 4; k++)
      if (k == i)
        break; // leaves the inner loop: fine
    switch (i) {
    case 1:
      break; // leaves the switch: fine
    }
    if (i > 5)
      continue; // ends this instance: fine
    if (i == 7)
      break;
    // CHECK: err-kernel.c:[[@LINE-1]]:7: error: 'break' out of the parallel loop is not allowed inside an hpvm node
    a[i] = 0;
  }
}

void task_continue(float *a, int n) {
  for (int r = 0; r < 2; r++) {
#pragma hpvm task out(a[0:n])
    {
      if (n < 3)
        continue;
      // CHECK: err-kernel.c:[[@LINE-1]]:9: error: 'continue' out of the task is not allowed inside an hpvm node
      a[0] = 1;
    }
  }
}

void assembly(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    __asm__("nop");
    // CHECK: err-kernel.c:[[@LINE-1]]:5: error: inline assembly is not allowed inside an hpvm node
    a[i] = 0;
  }
}

void vla(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    float scratch[n];
    // CHECK: err-kernel.c:[[@LINE-1]]:11: error: variable-length array 'scratch' is not allowed inside an hpvm node: a node's private memory has a size fixed when it is compiled, on every target it may run on (SPIR-V, for Vulkan and OpenCL, has no private arrays sized at run time); give it a constant bound, the largest it needs, or make it a buffer of the node with a section per instance
    scratch[0] = 1;
    a[i] = scratch[0];
  }
}

void static_local(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    static int calls;
    // CHECK: err-kernel.c:[[@LINE-1]]:16: error: static variable 'calls' is not allowed inside an hpvm node
    a[i] = calls;
  }
}

void jmp(float *a, int n) {
  jmp_buf env;
#pragma hpvm task out(a[0:n]) inout(env)
  {
    if (setjmp(env))
      // CHECK: err-kernel.c:[[@LINE-1]]:9: error: '_setjmp' is not allowed inside an hpvm node
      // CHECK: note: expanded from macro 'setjmp'
      a[0] = 1;
  }
}

// Code the node cannot see into (a function defined elsewhere, a function
// pointer) runs on the CPU; what it may write through a pointer argument
// that is not a pointer to const is a write (left-out.c has the rest).
void unseen_writes(const float *in, float *a, int n, void (*f)(float *)) {
#pragma hpvm parallel for in(in[0:n]) out(a[0:n])
  for (int i = 0; i < n; i++) {
    char text[16];
    snprintf(text, sizeof text, "%g", in[i]);
    sscanf(text, "%f", (float *)&in[i]);
    // CHECK: err-kernel.c:[[@LINE-1]]:24: error: the node passes 'in', which it declares in(), to 'sscanf', which may write through it (its parameter is not a pointer to const); declare it inout()
    f((float *)in + i);
    // CHECK: err-kernel.c:[[@LINE-1]]:7: error: the node passes 'in', which it declares in(), to a function pointer, which may write through it (its parameter is not a pointer to const); declare it inout()
    a[i] = 0;
  }
}

static void has_graph(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

void nested_graph(float *a, int n) {
#pragma hpvm task out(a[0:n])
  {
    has_graph(a, n);
    // CHECK: err-kernel.c:[[@LINE-1]]:5: error: function 'has_graph' contains hpvm nodes or data directives and cannot be called from inside a node
  }
}

void unnamed(float *a, const float *b, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = b[i];
  // CHECK: err-kernel.c:[[@LINE-1]]:12: error: 'b' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. in(b[0:len]), where len counts every element of 'b' the node uses (a device gets only those)
}

// A buffer the node stores into (directly, through a derived pointer, by
// an increment) is suggested out() or inout(), not in().
void unnamed_written(const float *a, float *c, float *e, int n) {
#pragma hpvm parallel for in(a[0:n])
  for (int i = 0; i < n; i++) {
    c[i] = a[i];
    // CHECK: err-kernel.c:[[@LINE-1]]:5: error: 'c' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. out(c[0:len]) or inout(c[0:len]), where len counts every element of 'c' the node uses (a device gets only those)
    float *p = e + i;
    // CHECK: err-kernel.c:[[@LINE-1]]:16: error: 'e' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. out(e[0:len]) or inout(e[0:len]), where len counts every element of 'e' the node uses (a device gets only those)
    (*p)++;
  }
}

// The same for a buffer written by memcpy, an atomic, or a function that
// takes it through a pointer that is not to const.
void fill(float *dst, int i);
void unnamed_written_by_calls(const float *a, float *d, int *h, float *f,
                              int n) {
#pragma hpvm parallel for in(a[0:n])
  for (int i = 0; i < n; i++) {
    __builtin_memcpy(d + i, a + i, sizeof *d);
    // CHECK: err-kernel.c:[[@LINE-1]]:22: error: 'd' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. out(d[0:len]) or inout(d[0:len]), where len counts every element of 'd' the node uses (a device gets only those)
    __atomic_fetch_add(&h[i % 4], 1, __ATOMIC_RELAXED);
    // CHECK: err-kernel.c:[[@LINE-1]]:25: error: 'h' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. out(h[0:len]) or inout(h[0:len]), where len counts every element of 'h' the node uses (a device gets only those)
    fill(f, i);
    // CHECK: err-kernel.c:[[@LINE-1]]:10: error: 'f' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. out(f[0:len]) or inout(f[0:len]), where len counts every element of 'f' the node uses (a device gets only those)
  }
}

// What has no size the node can see still needs a clause: a pointer (b
// above), an array of pointers, a global pointer, an array declared
// without its size.
float *global_ptr;
extern float global_unsized[];
void unnamed_array(float *a, int n) {
  float *rows[8] = {0};
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = rows[i % 8][0] + global_ptr[i] + global_unsized[i];
    // CHECK: err-kernel.c:[[@LINE-1]]:12: error: 'rows' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. in(rows)
  // CHECK: err-kernel.c:[[@LINE-2]]:29: error: 'global_ptr' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. in(global_ptr[0:len]), where len counts every element of 'global_ptr' the node uses (a device gets only those)
  // CHECK: err-kernel.c:[[@LINE-3]]:45: error: 'global_unsized' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. in(global_unsized[0:len]), where len counts every element of 'global_unsized' the node uses (a device gets only those)
}

// A global scalar the node only reads is passed to it (implicit in()); one
// it writes is shared by every instance, as a local would be.
void global(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = global_counter++;
    // CHECK: err-kernel.c:[[@LINE-1]]:26: error: the node writes 'global_counter', a variable declared outside it; give each instance its own with private(global_counter) or firstprivate(global_counter), combine the instances' values with reduction(op: global_counter), or name it in out(global_counter) or inout(global_counter)
}

// An array parameter is a pointer: the hint takes its rows from the
// declaration.
void parameter_rows(float a[64][8], float *out, int n) {
#pragma hpvm parallel for out(out[0:n])
  for (int i = 0; i < n; i++)
    out[i] = a[i][0];
    // CHECK: err-kernel.c:[[@LINE-1]]:14: error: 'a' is used in the node but not named in an in(), out() or inout() clause, so the node does not know its extent; add e.g. in(a[0:64])
}

// A global that a function the node calls only reads is a buffer of the
// node (left-out.c); one it writes is an error.
float global_table[16];
int global_calls;
static float lookup(int i) {
  global_calls++;
  // CHECK: err-kernel.c:[[@LINE-1]]:3: error: global variable 'global_calls' is used inside an hpvm node; copy it to a local variable before the graph or name it in a clause
  return global_table[i % 16];
}
void global_in_callee(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = lookup(i);
    // CHECK: err-kernel.c:[[@LINE-1]]:12: note: called from the hpvm node here
}

void write_input(float *a, int n) {
#pragma hpvm parallel for in(a[0:n])
  for (int i = 0; i < n; i++) {
    float *row = a + i;
    row[0] = 1;
    // CHECK: err-kernel.c:[[@LINE-1]]:12: error: write to 'a', which the node declares in(); declare it out() or inout() to write it
    a[i]++;
    // CHECK: err-kernel.c:[[@LINE-1]]:9: error: write to 'a', which the node declares in()
    __atomic_fetch_add(&a[i], 1.0f, __ATOMIC_RELAXED);
    // CHECK: err-kernel.c:[[@LINE-1]]:5: error: write to 'a', which the node declares in()
  }
}

void write_outside(float *a, int n) {
  int last = 0;
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    a[i] = 0;
    last = i;
    // CHECK: err-kernel.c:[[@LINE-1]]:10: error: the node writes 'last', a variable declared outside it; give each instance its own with private(last) or firstprivate(last), combine the instances' values with reduction(op: last), or name it in out(last) or inout(last)
  }
}

// A counter declared outside that the node reads before a loop assigns it
// is not private by nature: still an error.
void counter_read_first(float *a, int n) {
  int j = 3;
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    a[i] = j;
    for (j = 0; j < 2; j++)
      // CHECK: err-kernel.c:[[@LINE-1]]:12: error: the node writes 'j', a variable declared outside it; give each instance its own with private(j) or firstprivate(j), combine the instances' values with reduction(op: j), or name it in out(j) or inout(j)
      a[i] += 1;
  }
}

void address_outside(float *a, int n) {
  int count = 0;
  void bump(int *);
#pragma hpvm task out(a[0:n])
  {
    int *p = &count;
    // CHECK: err-kernel.c:[[@LINE-1]]:14: error: the node takes the address of 'count', a variable declared outside it; name it in in(count), out(count) or inout(count)
    a[0] = *p;
  }
}
