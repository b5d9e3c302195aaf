// A stream of frames through three stages: decode (prefix sums of a
// frame's deltas, row by row), filter (3x3 box sum) and reduce (the sum
// and maximum, one sequential pass), as examples/frame-pipeline does.
// HPVM streams the frames (`nowait` launches made frames of a stream,
// docs/c-frontend.md §5.2): while one frame is filtered the next is
// decoded and the one before reduced. kernel_frames_serial (HPVM only)
// waits for each frame's launch before the next (`taskwait`): the same
// stages one frame at a time, what the stream is compared with. OpenMP runs the
// stages one frame at a time as parallel loops (reduce: one thread, as in the
// graph); the sequential build runs the loops. See saxpy.c for how one file
// makes the variants.
#include <stdint.h>

#ifdef __HPVM__
typedef struct hpvm_stream hpvm_stream;
#endif

static void frame(const int32_t *deltas, int32_t *img, int32_t *out,
                  int64_t *st, long h, long w) {
  long n = h * w;
#pragma hpvm task name(frame) nowait in(deltas [0:n])out(img [0:n], out [0:n], \
                                                         st [0:2])
  {
#pragma hpvm parallel for name(decode) in(deltas [0:n])out(img [0:n])
#pragma omp parallel for
    for (long y = 0; y < h; ++y) {
      int32_t v = 0;
      for (long x = 0; x < w; ++x) {
        v += deltas[y * w + x];
        img[y * w + x] = v;
      }
    }
#pragma hpvm parallel for collapse(2) name(filter) in(img [0:n])out(out [0:n])
#pragma omp parallel for collapse(2)
    for (long y = 0; y < h; ++y)
      for (long x = 0; x < w; ++x) {
        long c = y * w + x;
        if (y == 0 || x == 0 || y == h - 1 || x == w - 1) {
          out[c] = img[c];
        } else {
          int32_t s = 0;
          for (long dy = -1; dy <= 1; ++dy)
            for (long dx = -1; dx <= 1; ++dx)
              s += img[c + dy * w + dx];
          out[c] = s;
        }
      }
#pragma hpvm task name(reduce) in(out [0:n])out(st [0:2])
    {
      int64_t sum = 0, max = out[0];
      for (long k = 0; k < n; ++k) {
        sum += out[k];
        if (out[k] > max)
          max = out[k];
      }
      st[0] = sum;
      st[1] = max;
    }
  }
}

/// Frame f uses slot f % slots: deltas[s], img[s], out[s], st[s].
void kernel_frames(int32_t **deltas, int32_t **img, int32_t **out,
                   int64_t (*st)[2], long slots, long frames, long h, long w) {
#ifdef __HPVM__
  hpvm_stream *s;
  hpvm_exit_on_error(hpvm_stream_create((unsigned)slots, &s));
  hpvm_set_thread_stream(s);
  for (long f = 0; f < frames; ++f) {
    if (f >= slots)
      hpvm_exit_on_error(hpvm_stream_pop(s, 0)); // frees slot f % slots
    long k = f % slots;
    frame(deltas[k], img[k], out[k], st[k], h, w);
  }
  hpvm_stream_end(s);
  int status;
  while ((status = hpvm_stream_pop(s, 0)) != HPVM_STREAM_END)
    hpvm_exit_on_error(status);
  hpvm_set_thread_stream(0);
  hpvm_stream_close(s);
#else
  for (long f = 0; f < frames; ++f) {
    long k = f % slots;
    frame(deltas[k], img[k], out[k], st[k], h, w);
  }
#endif
}

void kernel_frames_serial(int32_t **deltas, int32_t **img, int32_t **out,
                          int64_t (*st)[2], long slots, long frames, long h,
                          long w) {
  for (long f = 0; f < frames; ++f) {
    long k = f % slots;
    frame(deltas[k], img[k], out[k], st[k], h, w);
#pragma hpvm taskwait
  }
}
