// A frame pipeline as a stream: every frame goes through three stages,
//
//   frame (task, nowait: one frame of the stream)
//   ├── decode   parallel for, h rows, CPU: prefix sums of the frame's
//   │            deltas, row by row (a decoder's shape: sequential in a row)
//   ├── filter   parallel for, h x w, a GPU (Vulkan, OpenCL, CUDA) or the CPU:
//   3x3 │            box sum of the decoded image (its border copied) └──
//   reduce   task, CPU: the filtered image's sum and maximum
//
// and the frames flow through them as a pipeline: while frame f is
// filtered, frame f+1 is decoded and frame f-1 reduced. The host turns its
// `nowait` launches into frames of a stream (hpvm_set_thread_stream), keeps
// `capacity` frames in flight in a ring of frame buffers, and pops each
// finished frame in order to check it against plain C.
//
//   frame-pipeline [width height frames capacity]
//   HPVM_STATS=1 shows each stage's device and, last, the stream's frames
//   per second and how busy each stage was; HPVM_TRACE=t.json shows the
//   stages of different frames overlapping.
//
// The values are integers, so every device must give exactly the C result.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// One frame: decode its deltas into img, filter img into out, reduce out
/// into st[0] (sum) and st[1] (maximum).
static void frame(const int32_t *deltas, int32_t *img, int32_t *out,
                  int64_t *st, long h, long w) {
  long n = h * w;
#pragma hpvm task name(frame) nowait in(deltas [0:n])out(img [0:n], out [0:n], \
                                                         st [0:2])
  {
#pragma hpvm parallel for name(decode) target(cpu)                             \
    in(deltas [0:n])out(img [0:n])
    for (long y = 0; y < h; ++y) {
      int32_t v = 0;
      for (long x = 0; x < w; ++x) {
        v += deltas[y * w + x];
        img[y * w + x] = v;
      }
    }

#pragma hpvm parallel for collapse(2) name(filter) target(spirv, nvptx, cpu)   \
    in(img [0:n])out(out [0:n])
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

#pragma hpvm task name(reduce) target(cpu) in(out [0:n])out(st [0:2])
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

/// The deltas of frame f: what a decoder would read from a file.
static void deltas_of(long f, int32_t *d, long h, long w) {
  uint32_t s = 2463534242u ^ (uint32_t)(f * 2654435761u);
  for (long k = 0; k < h * w; ++k) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    d[k] = (int32_t)(s % 7) - 3;
  }
}

/// Frame f in plain C; the number of values that differ from the stream's.
static long check(long f, const int32_t *out, const int64_t *st, long h,
                  long w) {
  long n = h * w, bad = 0;
  int32_t *d = malloc(n * sizeof *d), *img = malloc(n * sizeof *img);
  deltas_of(f, d, h, w);
  for (long y = 0; y < h; ++y) {
    int32_t v = 0;
    for (long x = 0; x < w; ++x)
      img[y * w + x] = v += d[y * w + x];
  }
  int64_t sum = 0, max = INT64_MIN;
  for (long y = 0; y < h; ++y)
    for (long x = 0; x < w; ++x) {
      long c = y * w + x;
      int32_t r = img[c];
      if (y > 0 && x > 0 && y < h - 1 && x < w - 1) {
        r = 0;
        for (long dy = -1; dy <= 1; ++dy)
          for (long dx = -1; dx <= 1; ++dx)
            r += img[c + dy * w + dx];
      }
      bad += out[c] != r;
      sum += r;
      if (r > max)
        max = r;
    }
  if (n)
    bad += (st[0] != sum) + (st[1] != max);
  free(d);
  free(img);
  return bad;
}

static long arg(int argc, char **argv, int i, long fallback) {
  return argc > i ? strtol(argv[i], NULL, 10) : fallback;
}

/// The frame buffers: a ring of `slots`, slot f % slots for frame f.
struct ring {
  long slots, h, w;
  int32_t **deltas, **img, **out;
  int64_t (*st)[2];
  long popped, bad, failed;
};

/// Pops the stream's oldest frame and checks it against plain C.
static void pop_and_check(hpvm_stream *stream, struct ring *r) {
  uint64_t f;
  if (hpvm_stream_pop(stream, &f) != 0) {
    fprintf(stderr, "frame-pipeline: %s\n", hpvm_error_message());
    ++r->failed;
  } else {
    long s = (long)f % r->slots;
    r->bad += check((long)f, r->out[s], r->st[s], r->h, r->w);
  }
  ++r->popped;
}

int main(int argc, char **argv) {
  long w = arg(argc, argv, 1, 640), h = arg(argc, argv, 2, 480);
  long frames = arg(argc, argv, 3, 48), capacity = arg(argc, argv, 4, 4);
  if (w < 1 || h < 1 || frames < 0 || capacity < 1) {
    fprintf(stderr, "usage: frame-pipeline [width height frames capacity]\n");
    return 2;
  }
  long n = w * h;
  // As many slots as frames in flight: slot f % capacity is free again once
  // frame f - capacity is popped.
  struct ring r = {capacity, h, w};
  r.deltas = malloc(capacity * sizeof *r.deltas);
  r.img = malloc(capacity * sizeof *r.img);
  r.out = malloc(capacity * sizeof *r.out);
  r.st = malloc(capacity * sizeof *r.st);
  for (long s = 0; s < capacity; ++s) {
    r.deltas[s] = malloc(n * sizeof **r.deltas);
    r.img[s] = malloc(n * sizeof **r.img);
    r.out[s] = malloc(n * sizeof **r.out);
  }

  hpvm_stream *stream;
  if (hpvm_stream_create((unsigned)capacity, &stream) != 0) {
    fprintf(stderr, "frame-pipeline: %s\n", hpvm_error_message());
    return 1;
  }
  hpvm_set_thread_stream(stream); // this thread's `nowait` launches: frames
  for (long f = 0; f < frames; ++f) {
    if (f >= capacity)
      pop_and_check(stream, &r); // frees slot f % capacity
    long s = f % capacity;
    deltas_of(f, r.deltas[s], h, w);
    frame(r.deltas[s], r.img[s], r.out[s], r.st[s], h, w); // pushes frame f
  }
  hpvm_stream_end(stream);
  while (r.popped < frames)
    pop_and_check(stream, &r);
  uint64_t none;
  if (hpvm_stream_pop(stream, &none) != HPVM_STREAM_END)
    ++r.failed;
  hpvm_set_thread_stream(NULL);
  hpvm_stream_close(stream);

  printf("frame-pipeline %ldx%ld, %ld frames, %ld in flight: %ld mismatches, "
         "%ld failed frames\n",
         w, h, frames, capacity, r.bad, r.failed);
  for (long s = 0; s < capacity; ++s) {
    free(r.deltas[s]);
    free(r.img[s]);
    free(r.out[s]);
  }
  free(r.deltas);
  free(r.img);
  free(r.out);
  free(r.st);
  if (r.bad || r.failed)
    return 1;
  printf("PASS frame-pipeline\n");
  return 0;
}
