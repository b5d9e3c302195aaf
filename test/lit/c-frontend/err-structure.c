// Errors about the statement a pragma applies to and about the node tree.
// RUN: not %hpvm-clang -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:

void not_for(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  // CHECK: err-structure.c:[[@LINE-1]]:1: error: '#pragma hpvm parallel for' must be followed by a 'for' loop
  while (n--) a[n] = 0;
}

// A task labels any statement (OpenMP's structured block), but not a
// declaration, which a C23 label would make the statement.
void task_declaration(float *a, int n) {
#pragma hpvm task out(a[0:n])
  // CHECK: err-structure.c:[[@LINE-1]]:1: error: '#pragma hpvm task' must be followed by the statement it runs (a block '{ ... }', a loop, a call), not a declaration or the end of a block
  float x = 0;
  a[0] = x;
}

void too_deep(float *a, int n) {
#pragma hpvm parallel for collapse(3) out(a[0:n*n])
  // CHECK: err-structure.c:[[@LINE-1]]:27: error: collapse(3) needs 3 perfectly nested 'for' loops, but the nest has 2
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      a[i * n + j] = 0;
      // CHECK: err-structure.c:[[@LINE-1]]:7: note: the loop nest ends here
    }
}

void not_perfect(float *a, int n) {
#pragma hpvm parallel for collapse(2) out(a[0:n*n])
  // CHECK: err-structure.c:[[@LINE-1]]:27: error: collapse(2) needs 2 perfectly nested 'for' loops, but the nest has 1
  for (int i = 0; i < n; i++) {
    // CHECK: err-structure.c:[[@LINE+1]]:5: note: the loop nest ends here
    a[i] = 1;
    for (int j = 0; j < n; j++)
      a[i * n + j] = 0;
  }
}

void misplaced(float *a, int n) {
#pragma hpvm task out(a[0:n])
  {
    if (n > 0) {
#pragma hpvm parallel for out(a[0:n])
      // CHECK: err-structure.c:[[@LINE-1]]:1: error: '#pragma hpvm' inside a node must label a statement directly in a task, in the body of a parallel loop, or in the body of a 'for' loop that is itself directly in one (a loop run in order)
      for (int i = 0; i < n; i++) a[i] = 0;
    }
  }
}

void statement_in_internal(float *a, int n) {
#pragma hpvm task
  {
    int half = n / 2;
    a[0] = 1;
    // CHECK: err-structure.c:[[@LINE-1]]:5: error: a node with child nodes may contain only child nodes and declarations; put this statement in a '#pragma hpvm task' of its own
#pragma hpvm parallel for out(a[0:n])
    for (int i = 0; i < half; i++) a[i] = 0;
  }
}

// A plain loop around child nodes runs in order (a node of its own); its
// body holds child nodes and declarations only, like a task's, and it
// must itself stand directly in a node's body.
void loop_statement(float *a, float *b, int n, int steps) {
#pragma hpvm task inout(a[0:n], b[0:n])
  {
    for (int t = 0; t < steps; t++) {
#pragma hpvm parallel for in(a[0:n]) out(b[0:n])
      for (int i = 0; i < n; i++) b[i] = a[i];
      float *swap = a;
      a = b;
      // CHECK: err-structure.c:[[@LINE-1]]:7: error: a node with child nodes may not assign pointer 'a': every node of a graph names its buffers when the graph starts, so a swap between time steps cannot move them; write the step twice (a to b, then b to a), or keep the time loop on the host around the graph
      b = swap;
      // CHECK: err-structure.c:[[@LINE-1]]:7: error: a node with child nodes may not assign pointer 'b'
      n = n + 1;
      // CHECK: err-structure.c:[[@LINE-1]]:7: error: a node with child nodes may contain only child nodes and declarations; put this statement in a '#pragma hpvm task' of its own
    }
  }
}

void loop_misplaced(float *a, int n, int steps) {
#pragma hpvm task inout(a[0:n])
  {
    if (n > 0)
      for (int t = 0; t < steps; t++) {
        // CHECK: err-structure.c:[[@LINE-1]]:7: error: '#pragma hpvm' inside a node must label a statement directly in a task
#pragma hpvm parallel for inout(a[0:n])
        for (int i = 0; i < n; i++) a[i] += 1;
      }
  }
}

void loop_not_canonical(float *a, int n, int steps) {
#pragma hpvm task inout(a[0:n])
  {
    for (int t = 1; t < steps; t *= 2) {
      // CHECK: err-structure.c:[[@LINE-1]]:32: error: non-canonical parallel loop: the increment must add an integer constant to the loop variable 't'
#pragma hpvm parallel for inout(a[0:n])
      for (int i = 0; i < n; i++) a[i] += 1;
    }
  }
}

void duplicate(float *a, float *b, int n) {
#pragma hpvm task
  {
#pragma hpvm parallel for out(a[0:n]) name(k)
    for (int i = 0; i < n; i++) a[i] = 0;
#pragma hpvm parallel for out(b[0:n]) name(k)
    // CHECK: err-structure.c:[[@LINE-1]]:44: error: two sibling nodes are named 'k'
    // CHECK: err-structure.c:[[@LINE-4]]:44: note: the other node named 'k' is here
    for (int i = 0; i < n; i++) b[i] = 0;
  }
}

void after_graph(float *a, int n) {
#pragma hpvm parallel for out(a[0:n]) after(x)
  // CHECK: err-structure.c:[[@LINE-1]]:39: error: after() orders sibling nodes, but this node is a graph of its own
  for (int i = 0; i < n; i++) a[i] = 0;
}

void after_unknown(float *a, float *b, int n) {
#pragma hpvm task
  {
#pragma hpvm parallel for out(a[0:n]) name(first) after(second)
    // CHECK: err-structure.c:[[@LINE-1]]:57: error: after(second): no earlier sibling node is named 'second'
    for (int i = 0; i < n; i++) a[i] = 0;
#pragma hpvm parallel for out(b[0:n]) name(second)
    for (int i = 0; i < n; i++) b[i] = 0;
  }
}
