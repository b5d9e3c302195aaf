// The image pipeline of examples/image-pipeline: blur -> gradient ->
// threshold. For HPVM it is one launch of a three-level graph (the task
// pragmas); for OpenMP three parallel loops in sequence (clang ignores the
// task pragmas, so each `{ }` is a plain block). See saxpy.c for how one
// file makes all three variants.

static float row3(const float *p, long i) { return p[i] + p[i + 1] + p[i + 2]; }

void kernel_pipeline(const float *img, float *blurred, float *grad,
                     unsigned char *mask, long h, long w, float thr) {
  long n = h * w;
#pragma hpvm task name(pipeline)                                               \
    in(img [0:n])out(blurred [0:n], grad [0:n], mask [0:n])
  {
#pragma hpvm parallel for collapse(2) name(blur) in(img [0:n])out(blurred [0:n])
#pragma omp parallel for
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
#pragma omp parallel for
      for (long y = 1; y < h - 1; ++y)
        for (long x = 1; x < w - 1; ++x) {
          long c = y * w + x;
          float dx = blurred[c + 1] - blurred[c - 1];
          float dy = blurred[c + w] - blurred[c - w];
          grad[c] = __builtin_fabsf(dx) + __builtin_fabsf(dy);
        }

#pragma hpvm parallel for name(threshold) in(grad [0:n])out(mask [0:n])
#pragma omp parallel for
      for (long k = 0; k < n; ++k)
        mask[k] = grad[k] > thr;
    }
  }
}
