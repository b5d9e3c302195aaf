/*===- hpvm.h - HPVM for C: the marker form and HPVM-C ---------------------===*
 *
 * What a program includes to use HPVM from C or C++:
 *
 *  - the marker form (hpvm_markers.h, which hpvm-clang includes into every
 *    file anyway), and
 *  - HPVM-C: the explicit graph interface of HPVM 1.0/2.0 programs
 *    (__hpvm__createNodeND, __hpvm__bindIn, __hpvm__launch, ...), with the
 *    names and signatures those programs use, so that they compile with
 *    hpvm-clang unchanged. hpvm-clang turns the calls into graphs
 *    (docs/hpvm-c.md says what each call means and what is not supported
 *    yet); the calls have no definition of their own.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HPVM_H
#define HPVM_H

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC system_header
#endif

#include "hpvm_markers.h"

/* HPVM-C programs use size_t for buffer sizes and get it from here. */
#ifdef __cplusplus
#include <cstddef>
#else
#include <stddef.h>
#endif

/* Where a node may run (__hpvm__hint). The first three values are those of
 * HPVM's own headers, which programs sometimes carry instead of this one. */
#ifdef __cplusplus
namespace hpvm {
#endif
enum Target {
  None = 0,              /* no hint: any target */
  CPU_TARGET = 1,        /* the CPU backend */
  GPU_TARGET = 2,        /* GPUs: PTX (CUDA) and SPIR-V (Vulkan, OpenCL) */
  SPIR_TARGET = 3,       /* SPIR-V only (Vulkan, OpenCL) */
  CPU_OR_GPU_TARGET = 4, /* any target */
  CPU_OR_SPIR_TARGET = 5 /* the CPU or SPIR-V */
};
#ifdef __cplusplus
}
#endif

/* HPVM-C's spelling of "an accelerator" (`hpvm::DEVICE` in C++). */
#ifndef DEVICE
#define DEVICE GPU_TARGET
#endif

/* Hints are called __hpvmc_hint here: HPVM's own headers number the targets
 * after GPU_TARGET differently from version to version, and hpvm-clang
 * reads these numbers only from this header (docs/hpvm-c.md, Hints). */
#ifdef __cplusplus
#define __HPVM_NOEXCEPT noexcept
extern "C" {
void __hpvm__hint(hpvm::Target) noexcept __asm__("__hpvmc_hint");
#else
#define __HPVM_NOEXCEPT
void __hpvm__hint(enum Target) __asm__("__hpvmc_hint");
#endif

/* Graph structure: called in node functions (docs/hpvm-c.md §2). */
void *__hpvm__createNodeND(unsigned dims, ...) __HPVM_NOEXCEPT;
void __hpvm__bindIn(void *node, unsigned parent_input, unsigned node_input,
                    unsigned streaming) __HPVM_NOEXCEPT;
void __hpvm__bindOut(void *node, unsigned node_output, unsigned parent_output,
                     unsigned streaming) __HPVM_NOEXCEPT;
void *__hpvm__edge(void *source, void *destination, unsigned all_to_all,
                   unsigned source_output, unsigned destination_input,
                   unsigned streaming) __HPVM_NOEXCEPT;
void __hpvm__attributes(unsigned inputs, ...) __HPVM_NOEXCEPT;
/* Ends the node, its outputs the values given. */
__attribute__((__noreturn__)) void __hpvm__return(unsigned outputs,
                                                  ...) __HPVM_NOEXCEPT;

/* Queries inside node functions. x is the fastest-varying dimension. */
void *__hpvm__getNode(void) __HPVM_NOEXCEPT;
void *__hpvm__getParentNode(void *node) __HPVM_NOEXCEPT;
long __hpvm__getNodeInstanceID_x(void *node) __HPVM_NOEXCEPT;
long __hpvm__getNodeInstanceID_y(void *node) __HPVM_NOEXCEPT;
long __hpvm__getNodeInstanceID_z(void *node) __HPVM_NOEXCEPT;
long __hpvm__getNumNodeInstances_x(void *node) __HPVM_NOEXCEPT;
long __hpvm__getNumNodeInstances_y(void *node) __HPVM_NOEXCEPT;
long __hpvm__getNumNodeInstances_z(void *node) __HPVM_NOEXCEPT;
void __hpvm__barrier(void) __HPVM_NOEXCEPT;
void *__hpvm__malloc(long bytes) __HPVM_NOEXCEPT;

/* Host code: launching a graph whose root is a node function, with its
 * arguments in a packed struct in parameter order. */
void *__hpvm__launch(unsigned streaming, ...) __HPVM_NOEXCEPT;
void __hpvm__push(void *graph, void *arguments) __HPVM_NOEXCEPT;

/* Host code, defined by hpvm-rt (runtime/lib/HPVMC.cpp): launches run in
 * the background until waited for (__hpvm__wait waits for every launch of
 * the thread, or ends a streaming launch), a tracked buffer stays on the
 * device between launches (a data region), __hpvm__pop returns the outputs
 * of a streaming launch's oldest frame not popped, or NULL. */
void __hpvm__init(void) __HPVM_NOEXCEPT;
void __hpvm__wait(void *graph) __HPVM_NOEXCEPT;
void __hpvm__cleanup(void) __HPVM_NOEXCEPT;
void *__hpvm__pop(void *graph) __HPVM_NOEXCEPT;
void llvm_hpvm_track_mem(void *ptr, size_t bytes) __HPVM_NOEXCEPT;
void llvm_hpvm_request_mem(void *ptr, size_t bytes) __HPVM_NOEXCEPT;
void llvm_hpvm_untrack_mem(void *ptr) __HPVM_NOEXCEPT;

/* Atomics in leaves: sequentially consistent read-modify-writes that
 * return the old value, on every backend. */
#define __HPVM_ATOMIC(name, op)                                                \
  static inline int __hpvm__atomic_##name(int *p, int v) __HPVM_NOEXCEPT {     \
    return op(p, v, __ATOMIC_SEQ_CST);                                         \
  }
__HPVM_ATOMIC(add, __atomic_fetch_add)
__HPVM_ATOMIC(sub, __atomic_fetch_sub)
__HPVM_ATOMIC(xchg, __atomic_exchange_n)
__HPVM_ATOMIC(and, __atomic_fetch_and)
__HPVM_ATOMIC(or, __atomic_fetch_or)
__HPVM_ATOMIC(xor, __atomic_fetch_xor)
__HPVM_ATOMIC(min, __atomic_fetch_min)
__HPVM_ATOMIC(max, __atomic_fetch_max)
#undef __HPVM_ATOMIC
static inline int __hpvm__atomic_inc(int *p) __HPVM_NOEXCEPT {
  return __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);
}
static inline int __hpvm__atomic_dec(int *p) __HPVM_NOEXCEPT {
  return __atomic_fetch_sub(p, 1, __ATOMIC_SEQ_CST);
}

#ifdef __cplusplus
}
#endif

#endif /* HPVM_H */
