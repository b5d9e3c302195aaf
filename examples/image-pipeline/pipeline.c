// An edge detector as a three-level HPVM dataflow graph.
//
//   pipeline (task)
//   ├── blur        parallel for, (h-2) x (w-2): 3x3 box blur of the interior
//   └── edges       task
//       ├── gradient  parallel for, (h-2) x (w-2): |d/dx| + |d/dy| of the blur
//       └── threshold parallel for, h*w: mask = gradient > thr
//
// Nobody writes the order of the nodes down: it follows from the buffers, in
// program order. blur writes `blurred`, which gradient (inside edges) reads,
// so blur -> edges; gradient writes `grad`, which threshold reads, so
// gradient -> threshold. The whole graph is one launch.
//
// main.c runs it on a generated image against a plain C reference.
//
//   hpvm-clang -O3 main.c pipeline.c -o image-pipeline
//   hpvm-clang -O3 -emit-hpvm-ir -S pipeline.c -o pipeline.region.ll
//   hpvm-clang -O3 --dfg-dot=pipeline.dot -c pipeline.c

/// Three rows of the 3x3 window whose top-left corner is index i.
static float row3(const float *p, long i) { return p[i] + p[i + 1] + p[i + 2]; }

void pipeline(const float *img, float *blurred, float *grad,
              unsigned char *mask, long h, long w, float thr) {
  long n = h * w;
#pragma hpvm task name(pipeline)                                               \
    in(img [0:n])out(blurred [0:n], grad [0:n], mask [0:n])
  {
    // blur: blurred[y][x] = mean of img[y-1..y+1][x-1..x+1]
#pragma hpvm parallel for collapse(2) name(blur) in(img [0:n])out(blurred [0:n])
    for (long y = 1; y < h - 1; ++y)
      for (long x = 1; x < w - 1; ++x) {
        long corner = (y - 1) * w + (x - 1);
        float s = row3(img, corner) + row3(img, corner + w) +
                  row3(img, corner + 2 * w);
        blurred[y * w + x] = s * (1.0f / 9.0f);
      }

#pragma hpvm task name(edges) in(blurred [0:n])out(grad [0:n], mask [0:n])
    {
#pragma hpvm parallel for collapse(2) name(gradient)                           \
    in(blurred [0:n])out(grad [0:n])
      for (long y = 1; y < h - 1; ++y)
        for (long x = 1; x < w - 1; ++x) {
          long c = y * w + x;
          float dx = blurred[c + 1] - blurred[c - 1];
          float dy = blurred[c + w] - blurred[c - w];
          grad[c] = __builtin_fabsf(dx) + __builtin_fabsf(dy);
        }

#pragma hpvm parallel for name(threshold) in(grad [0:n])out(mask [0:n])
      for (long k = 0; k < n; ++k)
        mask[k] = grad[k] > thr;
    }
  }
}
