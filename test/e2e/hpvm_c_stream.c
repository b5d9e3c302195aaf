// A streaming HPVM-C pipeline, written as HPVM's pipelines are: the graph
// launched once for streaming (__hpvm__launch(1, ...)), a frame pushed per
// input (__hpvm__push), results popped in order (__hpvm__pop), the stream
// ended by __hpvm__wait. Two stages, scale (a GPU target by its hint) and
// smooth (the CPU), joined by a streaming edge carrying the frame's size;
// the root's output comes back with each pop. A ring of RING frames' buffers,
// each reused once its frame is popped; every frame checked against C. Then
// a stream without frames.
//
//   hpvm_c_stream <frames> <n>
#include "mixed.h"

#include <hpvm.h>

#ifdef ANY_DEVICE
#define HINT(target) __hpvm__hint(CPU_OR_GPU_TARGET)
#else
#define HINT(target) __hpvm__hint(target)
#endif

enum { RING = 4 };

typedef struct {
  size_t bytes;
} Out;

typedef struct __attribute__((__packed__)) {
  float *in;
  size_t bytes_in;
  float *mid;
  size_t bytes_mid;
  float *out;
  size_t bytes_out;
  float gain;
  Out result;
} Frame;

Out scale(float *in, size_t bytes_in, float *mid, size_t bytes_mid,
          float gain) {
  HINT(DEVICE);
  __hpvm__attributes(1, in, 1, mid);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  mid[i] = gain * in[i];
  __hpvm__return(1, bytes_mid);
}

Out smooth(float *mid, size_t bytes_mid, float *out, size_t bytes_out) {
  HINT(CPU_TARGET);
  __hpvm__attributes(1, mid, 1, out);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  out[i] = mid[i] + (i > 0 ? mid[i - 1] : 0.0f);
  __hpvm__return(1, bytes_out);
}

Out pipeline(float *in, size_t bytes_in, float *mid, size_t bytes_mid,
             float *out, size_t bytes_out, float gain) {
  long n = bytes_in / sizeof(float);
  void *first = __hpvm__createNodeND(1, scale, n);
  void *second = __hpvm__createNodeND(1, smooth, n);
  __hpvm__bindIn(first, 0, 0, 1);
  __hpvm__bindIn(first, 1, 1, 1);
  __hpvm__bindIn(first, 2, 2, 1);
  __hpvm__bindIn(first, 3, 3, 1);
  __hpvm__bindIn(first, 6, 4, 1);
  __hpvm__bindIn(second, 2, 0, 1);
  __hpvm__edge(first, second, 1, 0, 1, 1);
  __hpvm__bindIn(second, 4, 2, 1);
  __hpvm__bindIn(second, 5, 3, 1);
  __hpvm__bindOut(second, 0, 0, 1);
}

static float input(long frame, long i) { return mixed_input(frame, 0, 0, i); }

static void check_frame(long frame, long n, const float *out,
                        const Out *result) {
  E2E_CHECK(result && result->bytes == n * sizeof(float),
            "frame %ld: the output is %zu, want %zu", frame,
            result ? result->bytes : 0, n * sizeof(float));
  float gain = (float)(frame % 5 + 1);
  for (long i = 0; i < n; ++i) {
    float want =
        gain * input(frame, i) + (i > 0 ? gain * input(frame, i - 1) : 0);
    E2E_CHECK(out[i] == want, "frame %ld: out[%ld] = %g, want %g", frame, i,
              out[i], want);
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <frames> <n>\n", argv[0]);
    return 2;
  }
  long frames = atol(argv[1]), n = atol(argv[2]);
  size_t bytes = n * sizeof(float);
  Frame ring[RING];
  for (int k = 0; k < RING; ++k)
    ring[k] = (Frame){e2e_alloc(bytes),
                      bytes,
                      e2e_alloc(bytes),
                      bytes,
                      e2e_alloc(bytes),
                      bytes,
                      0,
                      {0}};
  __hpvm__init();
  void *dfg = __hpvm__launch(1, pipeline, &ring[0]);
  long popped = 0;
  for (long f = 0; f < frames; ++f) {
    Frame *frame = &ring[f % RING];
    if (f >= RING) {
      Out *result = __hpvm__pop(dfg);
      check_frame(popped, n, ring[popped % RING].out, result);
      ++popped;
    }
    for (long i = 0; i < n; ++i)
      frame->in[i] = input(f, i);
    mixed_reset(n, frame->out);
    frame->gain = (float)(f % 5 + 1);
    frame->result.bytes = 0;
    __hpvm__push(dfg, frame);
  }
  for (; popped < frames; ++popped)
    check_frame(popped, n, ring[popped % RING].out, __hpvm__pop(dfg));
  E2E_CHECK(__hpvm__pop(dfg) == NULL, "a pop after the last frame");
  __hpvm__wait(dfg);
  // A stream without frames ends at once.
  void *empty = __hpvm__launch(1, pipeline, &ring[0]);
  E2E_CHECK(__hpvm__pop(empty) == NULL, "a pop of a stream without frames");
  __hpvm__wait(empty);
  __hpvm__cleanup();
  for (int k = 0; k < RING; ++k) {
    e2e_free(ring[k].in, bytes, "in");
    e2e_free(ring[k].mid, bytes, "mid");
    e2e_free(ring[k].out, bytes, "out");
  }
  return e2e_finish("hpvm_c_stream");
}
