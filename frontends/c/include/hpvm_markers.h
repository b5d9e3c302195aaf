/*===- hpvm_markers.h - HPVM for C: the marker form -----------------------===*
 *
 * hpvm-clang includes this header into every C file it compiles, so programs
 * that only use `#pragma hpvm` need not include anything
 * (docs/c-frontend.md). It declares only names HPVM reserves (hpvm_*,
 * HPVM_*, __hpvm*), so that it cannot clash with a program's own; hpvm.h
 * adds HPVM-C's interface (docs/hpvm-c.md), whose names (Target, DEVICE...)
 * only programs that include it get.
 *
 * It declares the *marker form*: two calls that delimit a node, which is what
 * the pragmas are rewritten to and what other frontends (or people who
 * prefer calls to pragmas) can emit directly:
 *
 *   void *h = __hpvm_region_begin("name", HPVM_DIMS1(n),
 *                                 HPVM_IN(a, n * sizeof *a),
 *                                 HPVM_OUT(c, n * sizeof *c), HPVM_END);
 *   for (long i = 0; i < n; ++i)
 *     c[i] = 2 * a[i];
 *   __hpvm_region_end(h);
 *
 * After the arguments, a list of tagged clauses ends with HPVM_END (0):
 *
 *   tag             operands                 meaning
 *   HPVM_TAG_DIMS   count (1-3), extents...  the node is replicated; the code
 *                                            between the markers is a loop
 *                                            nest of that depth whose loops
 *                                            run from 0 by 1 to the extents
 *   HPVM_TAG_IN     pointer, bytes           a buffer the node reads
 *   HPVM_TAG_OUT    pointer, bytes           a buffer the node writes
 *   HPVM_TAG_INOUT  pointer, bytes           both
 *   HPVM_TAG_VALUE  one scalar               a value the node receives
 *   HPVM_TAG_TARGET mask (HPVM_CPU | ...)    devices the node may run on
 *   HPVM_TAG_AFTER  handle                   order after an earlier sibling
 *   HPVM_TAG_NOWAIT (none)                   a top-level node's launch goes on
 *                                            while the code after it runs;
 *                                            hpvm_wait_all() waits for it
 *   HPVM_TAG_SEQUENTIAL (none)               with DIMS around child nodes:
 *                                            the iterations run in order
 *                                            (a time-step loop)
 *   HPVM_TAG_GROUP  count, count extents     a leaf whose instances are
 *                                            work-groups of that many
 *                                            work-items (HPVM-C's barriers;
 *                                            hpvm-clang writes it)
 *
 * Markers nest: a node whose markers enclose other nodes is an internal node.
 * The buffers of an internal node must include its children's buffers (the
 * same pointer). Removing the markers gives the sequential program, and that
 * is what a compiler other than hpvm-clang makes of this header.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HPVM_MARKERS_H
#define HPVM_MARKERS_H

#if defined(__GNUC__) || defined(__clang__)
/* Included into every file hpvm-clang compiles: no warnings of its own. */
#pragma GCC system_header
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Clause tags; the values are part of the marker ABI (hpvm/ir/RegionForm.h,
 * namespace marker). */
enum hpvm_tag {
  HPVM_TAG_END = 0,
  HPVM_TAG_DIMS = 1,
  HPVM_TAG_IN = 2,
  HPVM_TAG_OUT = 3,
  HPVM_TAG_INOUT = 4,
  HPVM_TAG_VALUE = 5,
  HPVM_TAG_TARGET = 6,
  HPVM_TAG_AFTER = 7,
  HPVM_TAG_NOWAIT = 8,
  HPVM_TAG_SEQUENTIAL = 9,
  HPVM_TAG_GROUP = 10
};

/* Target bits for HPVM_TAG_TARGET: hpvm/abi/targets.h's, spelled again so that
 * this header stands alone (test/unit/AbiTest.cpp checks they agree). */
enum hpvm_target_bits { HPVM_CPU = 1, HPVM_NVPTX = 2, HPVM_SPIRV = 4 };

/* Operands go through `...`, so each macro casts them to the type the
 * lowering expects: 64-bit integers for extents and sizes, void * for
 * pointers and handles. */
#define HPVM_END HPVM_TAG_END
#define HPVM_DIMS1(n0) HPVM_TAG_DIMS, 1, (long long)(n0)
#define HPVM_DIMS2(n0, n1) HPVM_TAG_DIMS, 2, (long long)(n0), (long long)(n1)
#define HPVM_DIMS3(n0, n1, n2)                                                 \
  HPVM_TAG_DIMS, 3, (long long)(n0), (long long)(n1), (long long)(n2)
#define HPVM_IN(p, bytes) HPVM_TAG_IN, (void *)(p), (unsigned long long)(bytes)
#define HPVM_OUT(p, bytes)                                                     \
  HPVM_TAG_OUT, (void *)(p), (unsigned long long)(bytes)
#define HPVM_INOUT(p, bytes)                                                   \
  HPVM_TAG_INOUT, (void *)(p), (unsigned long long)(bytes)
#define HPVM_VALUE(x) HPVM_TAG_VALUE, (x)
#define HPVM_TARGET(mask) HPVM_TAG_TARGET, (int)(mask)
#define HPVM_AFTER(handle) HPVM_TAG_AFTER, (void *)(handle)
#define HPVM_NOWAIT HPVM_TAG_NOWAIT
#define HPVM_SEQUENTIAL HPVM_TAG_SEQUENTIAL

/* hpvm_stream_pop's "ended, every frame popped" (hpvm_rt.h's
 * HPVM_END_OF_STREAM, spelled so that both headers may be included). */
#define HPVM_STREAM_END 10

#ifdef __HPVM__
/* hpvm-clang lowers these calls into region markers; they have no
 * definition and must not be called through a pointer. */
void *__hpvm_region_begin(const char *name, ...);
void __hpvm_region_end(void *handle);
/* Used by hpvm-clang internally while it reads `#pragma hpvm`. */
int __hpvm_pragma(int);
/* What `#pragma hpvm data` and `update` become: hpvm-rt's data regions,
 * declared as in hpvm_rt.h (docs/runtime.md §5.1). */
int hpvm_data_enter(void *ptr, __UINT64_TYPE__ bytes);
int hpvm_data_exit(void *ptr);
int hpvm_data_request(void *ptr, __UINT64_TYPE__ bytes);
int hpvm_data_update(void *ptr, __UINT64_TYPE__ bytes);
void hpvm_exit_on_error(int status);
/* A parallel loop of more instances than 2^63 - 1 (an unsigned bound):
 * HPVM_ERR_BAD_VALUE with the message naming the node (hpvm_rt.h). */
int hpvm_extent_error(const char *node, __UINT64_TYPE__ instances);
/* The private copies of an array reduction (docs/c-frontend.md §3). */
int hpvm_private_copies(__UINT64_TYPE__ iterations,
                        __UINT64_TYPE__ bytes_per_copy, __UINT64_TYPE__ *copies,
                        void **memory);
/* What `#pragma hpvm taskwait` becomes: waits for the `nowait` launches of
 * this thread (hpvm_rt.h). */
int hpvm_wait_all(void);
/* Streams (docs/c-frontend.md, "Streams"), declared as in hpvm_rt.h: with
 * hpvm_set_thread_stream(s), each `nowait` launch of this thread is a frame
 * of stream s; hpvm_stream_pop returns frames in order, HPVM_STREAM_END
 * once the stream has ended and every frame is popped. */
typedef struct hpvm_stream hpvm_stream;
int hpvm_stream_create(unsigned capacity, hpvm_stream **stream);
int hpvm_set_thread_stream(hpvm_stream *stream);
int hpvm_stream_pop(hpvm_stream *stream, __UINT64_TYPE__ *frame);
int hpvm_stream_end(hpvm_stream *stream);
int hpvm_stream_cancel(hpvm_stream *stream);
int hpvm_stream_close(hpvm_stream *stream);
const char *hpvm_error_message(void);
void hpvm_print_stats(void);
#else
/* Any other compiler: the sequential program. */
static inline void *__hpvm_region_begin(const char *name, ...) {
  (void)name;
  return (void *)0;
}
static inline void __hpvm_region_end(void *handle) { (void)handle; }
#endif

#ifdef __cplusplus
}
#endif

#endif /* HPVM_MARKERS_H */
