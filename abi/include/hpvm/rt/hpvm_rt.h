/*===- hpvm_rt.h - The C ABI of hpvm-rt ----------------------------------===*
 *
 * What compiled programs (hpvm-clang's output, the Python binding) call.
 * Kept small on purpose; everything else in the runtime is C++ behind it.
 * docs/runtime.md explains each entry point and the environment variables.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HPVM_RT_H
#define HPVM_RT_H

#include "hpvm/abi/targets.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPVM_RT_ABI_VERSION 1u

/* Compilation targets (the bits of a node's target mask), and what an
 * artifact is compiled for. HPVM_TARGET_OPENCL is an artifact target only:
 * a SPIR-V module of the OpenCL (Kernel) flavour, compiled for every leaf
 * that allows spirv and accepted only for such leaves; node target masks
 * never contain it. */
enum hpvm_target {
  HPVM_TARGET_CPU = HPVM_ABI_TARGET_CPU,
  HPVM_TARGET_NVPTX = HPVM_ABI_TARGET_NVPTX,
  HPVM_TARGET_SPIRV = HPVM_ABI_TARGET_SPIRV,
  HPVM_TARGET_OPENCL = HPVM_ABI_TARGET_OPENCL
};

/* A leaf compiled for the CPU. Runs the instances whose first id lies in
 * [begin, end) and every value of the other ids.
 *   args[i]    points to the value of parameter i; for a buffer, to the
 *              buffer's data pointer (so every parameter is passed the same
 *              way whatever its type);
 *   outs[k]    points to where output k of a non-replicated leaf is written
 *              (may be NULL when the node has no outputs);
 *   dims[3]    the node's extents, outermost first, missing ones = 1
 *              (the same values its parameters give; kernels compiled by
 *              the CPU backend read the extents from args instead);
 *   outer_ids  instance ids of the ancestors: level l (1 = the parent),
 *              dim d at outer_ids[(l - 1) * 3 + d], every level up to the
 *              root (0s for a non-replicated one); NULL for a root leaf.
 * Scalars are stored as C stores them: i1 as a one-byte bool, f16 as a
 * 2-byte IEEE half. Extents and ids are below 2^63 (kernels count with
 * signed 64-bit integers). */
typedef void (*hpvm_cpu_kernel_fn)(void *const *args, void *const *outs,
                                   const uint64_t *dims,
                                   const uint64_t *outer_ids, uint64_t begin,
                                   uint64_t end);

/* One compiled form of one leaf. */
typedef struct hpvm_artifact {
  const char *node;          /* the node's path, "graph/child/leaf" */
  uint32_t target;           /* one enum hpvm_target */
  hpvm_cpu_kernel_fn cpu_fn; /* HPVM_TARGET_CPU */
  const void *code;          /* HPVM_TARGET_NVPTX: PTX text followed by a NUL
                                (what cuModuleLoadData takes), which code_size
                                does not count; HPVM_TARGET_SPIRV,
                                HPVM_TARGET_OPENCL: SPIR-V words */
  size_t code_size;          /* in bytes */
  const char *entry;         /* the kernel's entry point in `code` */
} hpvm_artifact;

/* A leaf the compiler could not compile for a target other than the CPU may
 * have an artifact of that target without code (code NULL, code_size 0):
 * never run, its entry (or NULL) says why, and hpvm-rt names it when no
 * device can run the leaf. hpvm-clang makes one for each leaf that the
 * OpenCL flavour of SPIR-V cannot express (64-bit atomics, halves, ...). */

/* The entry of a node's streaming-store variant: a second HPVM_TARGET_CPU
 * artifact of the node whose entry is this string (compared as a string)
 * runs the same leaf with the same ABI and results, but writes the buffers
 * the leaf only writes with non-temporal stores, which skip the cache. The
 * CPU device runs it instead of the node's other CPU artifact for launches
 * whose buffers do not fit in the last-level cache (HPVM_STREAMING_STORES,
 * docs/runtime.md). Optional: a node has at most one, and only next to a
 * normal CPU artifact. The entry of every other CPU artifact is ignored
 * (NULL by convention). */
#define HPVM_CPU_STREAMING_ENTRY "hpvm.streaming_stores"

/* The entry suffix of a work-group leaf's work-group kernel (a node with
 * `group`: docs/ir.md §3.4): of two HPVM_TARGET_SPIRV, HPVM_TARGET_OPENCL
 * or HPVM_TARGET_NVPTX artifacts of the node, the one whose entry is the
 * other's followed by this (a PTX identifier's characters) runs one device
 * work-group per instance of the node and
 * one device thread per work-item, the group's extents being the work-group
 * size, with the device's barriers; same parameters, same results. The
 * device runs it instead of the node's other artifact of that target (a
 * thread per group) where the group fits the device's work-group limits.
 * Optional, and only next to that artifact. */
#define HPVM_WORK_GROUP_ENTRY_SUFFIX "_work_group"

/* A program: graphs plus every artifact of every leaf. hpvm-clang emits one
 * as a constant in the executable; the Python binding builds one in memory. */
typedef struct hpvm_program_desc {
  uint32_t abi_version; /* HPVM_RT_ABI_VERSION */
  const char *graphs;   /* the graphs in the text form of docs/runtime.md */
  uint32_t num_artifacts;
  const hpvm_artifact *artifacts;
} hpvm_program_desc;

/* What hpvm_launch returns. Codes are stable; the message from
 * hpvm_error_message() is what says which node, device or setting. */
enum hpvm_status {
  HPVM_OK = 0,
  HPVM_ERR_INVALID_ARGUMENT = 1, /* a NULL program or graph, NULL args */
  HPVM_ERR_BAD_PROGRAM = 2,   /* ABI version, graph text, verifier, artifacts */
  HPVM_ERR_UNKNOWN_GRAPH = 3, /* no graph of that name in the program */
  HPVM_ERR_NO_DEVICE = 4,     /* a leaf can run on no available device, or a
                                 strictly requested device is missing */
  HPVM_ERR_UNSUPPORTED = 5,   /* a graph feature the executor lacks */
  HPVM_ERR_BAD_VALUE = 6,     /* a run-time value, e.g. a negative extent */
  HPVM_ERR_DEVICE = 7,        /* a device failed: allocation, copy, launch */
  HPVM_ERR_CONFIG = 8,        /* a bad HPVM_* environment setting */
  HPVM_ERR_CANCELLED = 9,     /* a stream's frame dropped by a cancel */
  HPVM_END_OF_STREAM = 10     /* not an error: hpvm_stream_pop found the
                                 stream ended and every frame popped */
};

/* Runs graph `graph` of `program` with its root parameters `args` (same
 * convention as hpvm_cpu_kernel_fn's args) and returns when it has finished
 * and every buffer it wrote is back in host memory. Returns 0 on success,
 * otherwise an error code with hpvm_error_message() saying what happened.
 * The program is loaded (parsed, checked) on first use and cached. */
int hpvm_launch(const hpvm_program_desc *program, const char *graph,
                void *const *args);

/* Asynchronous launches. hpvm_launch_async checks its arguments and loads
 * the program as hpvm_launch does (errors found then are returned at once,
 * and no handle is made), copies the argument values (the caller may reuse
 * `args` and what it points to on return; the buffers themselves must stay
 * valid and untouched by the host until the launch is waited for) and
 * returns a handle in *handle while the graph runs in the background.
 *
 * Launches are ordered by the root buffers they name: one starts after
 * every earlier launch of the same runtime whose buffers overlap its own,
 * one of the two writing them (out or inout), has finished; others run at
 * the same time. A synchronous hpvm_launch and the data-region calls below
 * wait likewise for the earlier asynchronous launches they conflict with.
 * A launch that follows a failed launch in that order fails too, saying
 * so, without running.
 *
 * Every handle must be waited for once, by hpvm_wait or hpvm_wait_all:
 * that returns the launch's status (its message in hpvm_error_message())
 * and forgets the handle. A handle that is unknown, or already waited for,
 * is HPVM_ERR_INVALID_ARGUMENT. */
typedef uint64_t hpvm_handle;
int hpvm_launch_async(const hpvm_program_desc *program, const char *graph,
                      void *const *args, hpvm_handle *handle);
/* Waits for the launch and returns its status. */
int hpvm_wait(hpvm_handle handle);
/* Sets *done to 1 if the launch has finished (hpvm_wait then returns at
 * once), else 0. Returns 0, or HPVM_ERR_INVALID_ARGUMENT for an unknown
 * handle or a NULL done. */
int hpvm_test(hpvm_handle handle, int *done);
/* Waits for every launch this thread started with hpvm_launch_async and has
 * not waited for yet; returns the status of the first that failed (in the
 * order they were started), else 0. */
int hpvm_wait_all(void);

/* Streams: a graph run once per frame over a stream of inputs, its
 * top-level children as the stages of a pipeline (docs/runtime.md §1.3).
 *
 * hpvm_stream_open checks the program and graph as hpvm_launch does and
 * makes a stream in *stream. `capacity` bounds the frames between push and
 * pop (0: 4): a push waits while that many are in flight, so a slow
 * consumer holds the producer back. Each hpvm_stream_push copies the root
 * argument values of one frame (as hpvm_launch_async does) and returns
 * once the frame is admitted; the buffers it names belong to the stream
 * until the frame is popped.
 *
 * Every stage runs its frames in push order, each stage as soon as its
 * predecessors in that frame (edges of any kind) have run it, so different
 * stages work on different frames at once, each on the device the
 * scheduler picks for it. A streaming edge of capacity c also holds its
 * source back: it runs frame i only once its destination has run frame
 * i - c. Frames whose root buffers overlap, one writing them, run one after
 * the other; others overlap.
 *
 * hpvm_stream_pop waits for the oldest frame not popped yet and returns its
 * status; *frame (if not NULL) gets its number, counted from 0. A frame
 * that fails (its message in hpvm_error_message()) skips its remaining
 * stages; the frames after it still run. hpvm_stream_end says no frame
 * follows: pop then returns HPVM_END_OF_STREAM once every frame is popped.
 * hpvm_stream_cancel drops the frames no stage has started (their pop
 * returns HPVM_ERR_CANCELLED) and ends the stream; started frames finish.
 * hpvm_stream_close cancels, waits for the frames still running and frees
 * the stream; a push or pop another thread is making then fails or ends.
 * A push after end or cancel, a pop on a stream that has had no frame and
 * has no graph, a NULL stream, and a stream already closed are
 * HPVM_ERR_INVALID_ARGUMENT: an hpvm_stream is a checked handle, not an
 * address, so a closed one names nothing from then on. */
typedef struct hpvm_stream hpvm_stream;
int hpvm_stream_open(const hpvm_program_desc *program, const char *graph,
                     uint32_t capacity, hpvm_stream **stream);
int hpvm_stream_push(hpvm_stream *stream, void *const *args);
int hpvm_stream_pop(hpvm_stream *stream, uint64_t *frame);
int hpvm_stream_end(hpvm_stream *stream);
int hpvm_stream_cancel(hpvm_stream *stream);
int hpvm_stream_close(hpvm_stream *stream);
/* The C frontend's form (docs/c-frontend.md): hpvm_stream_create makes a
 * stream of no graph yet; once hpvm_set_thread_stream(stream) is called,
 * the `nowait` launches of this thread (hpvm_launch_nowait_or_exit) push
 * frames into it instead of starting asynchronous launches, the first one
 * choosing its graph; a launch of another graph is an error then.
 * hpvm_set_thread_stream(NULL), or closing the stream in this thread, goes
 * back to asynchronous launches; a `nowait` launch into a stream another
 * thread closed is an error (the program ends with its message). */
int hpvm_stream_create(uint32_t capacity, hpvm_stream **stream);
int hpvm_set_thread_stream(hpvm_stream *stream);

/* HPVM-C's streaming launches (docs/hpvm-c.md), as hpvm-clang lowers them:
 * hpvmc_stream_begin makes a stream of HPVMC_STREAM_CAPACITY frames for an
 * __hpvm__launch(1, ...) and returns its handle; each __hpvm__push becomes
 * hpvmc_stream_push_begin (the frame's outputs are at `outputs`; its
 * `nowait` launches are frames of the stream), the graph's launch, then
 * hpvmc_stream_push_end; __hpvm__wait of the handle becomes
 * hpvmc_stream_end, which waits for the frames and frees the handle.
 * __hpvm__pop(handle) returns the outputs of the oldest frame not popped,
 * once it has run, or NULL when none is left. These, and HPVM-C's other
 * host calls (__hpvm__wait, llvm_hpvm_track_mem, ...: hpvm.h declares
 * them), end the program with hpvm-rt's message on an error. */
#define HPVMC_STREAM_CAPACITY 64
void *hpvmc_stream_begin(void);
void hpvmc_stream_push_begin(void *graph, void *outputs);
void hpvmc_stream_push_end(void *graph);
void hpvmc_stream_end(void *graph);

/* Chooses the scheduling policy ("hint", "round-robin", "heft", "dmda",
 * "auto"; docs/runtime.md §6) of the launches this thread starts from now
 * on, synchronous or not, instead of the runtime's (HPVM_SCHEDULER); NULL
 * goes back to the runtime's. An unknown name is HPVM_ERR_INVALID_ARGUMENT
 * and changes nothing. */
int hpvm_set_thread_policy(const char *policy);

/* What generated code calls for a `nowait` node: hpvm_launch_async that
 * prints the error and exits on failure and keeps no handle; the thread's
 * hpvm_wait_all (`#pragma hpvm taskwait`) waits for it. Launches nobody
 * waited for are waited for when the process exits, which then ends with
 * status 1, printing the error, if one failed. */
void hpvm_launch_nowait_or_exit(const hpvm_program_desc *program,
                                const char *graph, void *const *args);

/* hpvm_launch that prints the error and exits the process on failure:
 * what generated host code calls, since C programs have no way to handle
 * a failed launch at that point. */
void hpvm_launch_or_exit(const hpvm_program_desc *program, const char *graph,
                         void *const *args);

/* A launch site: what hpvm-clang emits next to each launch of a graph
 * that is one CPU leaf, so that a launch the runtime would run on the
 * calling thread anyway can skip the runtime altogether (docs/runtime.md,
 * "Launch sites"). Zero-initialised by the program. The runtime writes
 * limit, fn and until; the generated code writes launches and instances.
 * While limit is above 0 and launches is below until, the generated code
 * may, instead of calling hpvm_launch_site_or_exit, run a launch whose
 * extents are all at least 1 and whose instances number at most limit
 * itself: fn(args, NULL, dims, NULL, 0, dims[0]), adding 1 to launches
 * and the instances to instances. The runtime sets limit to 0 (and so
 * sends every launch back to it) whenever such a launch could behave
 * differently from one it runs: copies of buffers on other devices,
 * asynchronous launches in flight, launch options, a trace. */
typedef struct hpvm_launch_site {
  int64_t limit;
  hpvm_cpu_kernel_fn fn;
  uint64_t until;
  uint64_t launches;
  uint64_t instances;
} hpvm_launch_site;

/* hpvm_launch_or_exit from a launch site: the same launch, after which the
 * runtime may arm `site` (never NULL) for the launches that follow. */
void hpvm_launch_site_or_exit(const hpvm_program_desc *program,
                              const char *graph, void *const *args,
                              hpvm_launch_site *site);
/* hpvm_launch_nowait_or_exit from a launch site: a direct launch there
 * finishes before the call returns, which a `nowait` launch may do. */
void hpvm_launch_nowait_site_or_exit(const hpvm_program_desc *program,
                                     const char *graph, void *const *args,
                                     hpvm_launch_site *site);

/* The last error of this thread, or "" if none. */
const char *hpvm_error_message(void);

/* The CPU device's threads: how many host threads run the instances of a
 * node on the CPU (HPVM_NUM_THREADS, else one per processor). */
int hpvm_cpu_threads(void);
/* Sets the CPU device's threads in place of HPVM_NUM_THREADS, before the
 * process's first launch (OpenMP's omp_set_num_threads). Returns 0, or
 * HPVM_ERR_BAD_VALUE for a count outside 1..4096 or once the runtime has
 * started, with hpvm_error_message() saying which. */
int hpvm_set_cpu_threads(uint32_t threads);

/* Writes the statistics collected so far (per node: device, launches,
 * instances, time; bytes moved and copies avoided) to stderr. Also happens
 * at exit when HPVM_STATS=1. */
void hpvm_print_stats(void);

/* Forgets the cached load of `program`. The cache is keyed by the
 * descriptor's address, so a caller that frees a descriptor it built in
 * memory (the Python binding) calls this first; otherwise a later descriptor
 * at the same address could be mistaken for it. Must not race with a launch
 * of the same program. */
void hpvm_release_program(const hpvm_program_desc *program);

/* Data regions (OpenMP's `target data`, HPVM's track/request/untrack): the
 * bytes [ptr, ptr + bytes) of a buffer stay in device memory across
 * launches between hpvm_data_enter and hpvm_data_exit, instead of coming
 * home at the end of every launch. Inside a region host memory is not kept
 * up to date: host code that reads the buffer calls hpvm_data_request
 * first, and host code that writes it calls hpvm_data_update after.
 * Regions nest (a buffer stays until its last region exits). All return 0
 * or an hpvm_status with hpvm_error_message() saying why. */
int hpvm_data_enter(void *ptr, uint64_t bytes);
/* Leaves one region of the buffer at ptr; leaving its last region copies
 * home everything a device modified. */
int hpvm_data_exit(void *ptr);
/* Makes host memory hold the current [ptr, ptr + bytes) (any part of a
 * buffer), waiting for launches in flight that write it. */
int hpvm_data_request(void *ptr, uint64_t bytes);
/* The host has written [ptr, ptr + bytes): the devices' copies are stale. */
int hpvm_data_update(void *ptr, uint64_t bytes);

/* Memory for the private copies of an array reduction, as hpvm-clang's
 * `reduction(op: a[lo:len])` makes them (docs/c-frontend.md §3): a loop of
 * `iterations` is split into *copies chunks, each accumulating into a copy
 * of bytes_per_copy bytes of its own at *memory + k * bytes_per_copy (free
 * it with free()). *copies is twice the CPU device's threads, at most the
 * iterations (and at least 1), and fewer where the copies would pass
 * 1 GiB. Returns 0, or HPVM_ERR_DEVICE when the memory cannot be had. */
int hpvm_private_copies(uint64_t iterations, uint64_t bytes_per_copy,
                        uint64_t *copies, void **memory);

/* For generated code: a parallel loop whose trip count does not fit the
 * signed 64-bit instance ids of every target (an unsigned bound above
 * 2^63 - 1). Returns HPVM_ERR_BAD_VALUE, hpvm_error_message() naming the
 * node and the count. */
int hpvm_extent_error(const char *node, uint64_t instances);

/* Prints hpvm_error_message() and exits with status 1 if status is not 0:
 * for generated code, which has no way to handle a failure. */
void hpvm_exit_on_error(int status);

/* Writes the trace collected so far to the HPVM_TRACE file now, rather than
 * only at exit (for processes that do not exit normally, or long runs).
 * Returns 0, also when tracing is off; otherwise an hpvm_status with
 * hpvm_error_message() saying why the file could not be written. */
int hpvm_flush_trace(void);

#ifdef __cplusplus
}
#endif

#endif /* HPVM_RT_H */
