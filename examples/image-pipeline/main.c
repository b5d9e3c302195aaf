// Runs the edge detector of pipeline.c on a generated image and checks it
// against a plain C version of the same computation.
//
//   hpvm-clang -O3 main.c pipeline.c -o image-pipeline
//   ./image-pipeline [H W]
//
// This file has no HPVM in it: it builds with any C compiler, and the
// pipeline() it calls is HPVM's or the sequential one depending on how
// pipeline.c was compiled.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void pipeline(const float *img, float *blurred, float *grad,
              unsigned char *mask, long h, long w, float thr);

static void reference(const float *img, float *blurred, float *grad,
                      unsigned char *mask, long h, long w, float thr) {
  for (long y = 1; y + 1 < h; ++y)
    for (long x = 1; x + 1 < w; ++x) {
      float s = 0;
      for (long dy = -1; dy <= 1; ++dy)
        s += img[(y + dy) * w + x - 1] + img[(y + dy) * w + x] +
             img[(y + dy) * w + x + 1];
      blurred[y * w + x] = s * (1.0f / 9.0f);
    }
  for (long y = 1; y + 1 < h; ++y)
    for (long x = 1; x + 1 < w; ++x) {
      long c = y * w + x;
      grad[c] = fabsf(blurred[c + 1] - blurred[c - 1]) +
                fabsf(blurred[c + w] - blurred[c - w]);
    }
  for (long k = 0; k < h * w; ++k)
    mask[k] = grad[k] > thr;
}

int main(int argc, char **argv) {
  long h = argc > 1 ? atol(argv[1]) : 480, w = argc > 2 ? atol(argv[2]) : 640;
  if (h < 3 || w < 3) {
    fprintf(stderr, "usage: %s [H W], both at least 3\n", argv[0]);
    return 2;
  }
  float thr = 0.05f;
  size_t n = (size_t)(h * w);
  // The borders of blurred and grad are never written: zero them (calloc) so
  // that both versions agree there.
  float *img = malloc(n * sizeof(float));
  float *blurred = calloc(n, sizeof(float)), *grad = calloc(n, sizeof(float));
  float *rblurred = calloc(n, sizeof(float)), *rgrad = calloc(n, sizeof(float));
  unsigned char *mask = calloc(n, 1), *rmask = calloc(n, 1);
  if (!img || !blurred || !grad || !rblurred || !rgrad || !mask || !rmask) {
    fprintf(stderr, "out of memory\n");
    return 2;
  }
  // Two discs on a gentle ramp: edges where the discs end.
  for (long y = 0; y < h; ++y)
    for (long x = 0; x < w; ++x) {
      float v = 0.2f * (float)x / (float)w;
      float d1 = hypotf((float)(x - w / 3), (float)(y - h / 2));
      float d2 = hypotf((float)(x - 2 * w / 3), (float)(y - h / 3));
      if (d1 < (float)h / 4)
        v += 0.6f;
      if (d2 < (float)h / 6)
        v += 0.3f;
      img[y * w + x] = v;
    }

  pipeline(img, blurred, grad, mask, h, w, thr);
  reference(img, rblurred, rgrad, rmask, h, w, thr);

  // Both sides do the same float operations in the same order, and there is
  // no multiply-add to contract, so the results are bit-identical and the
  // mask can be compared exactly (some gradients of this image lie within
  // 1e-9 of the threshold). The tolerance on the floats only makes the first
  // report say which stage went wrong.
  long edges = 0, bad = 0;
  for (size_t k = 0; k < n; ++k) {
    edges += mask[k];
    if (mask[k] != rmask[k] || fabsf(grad[k] - rgrad[k]) > 1e-5f ||
        fabsf(blurred[k] - rblurred[k]) > 1e-5f) {
      if (!bad)
        fprintf(stderr, "first mismatch at pixel %zu: grad %g vs %g\n", k,
                grad[k], rgrad[k]);
      ++bad;
    }
  }
  printf("image %ldx%ld: %ld edge pixels, %ld mismatches against the C "
         "reference\n",
         w, h, edges, bad);
  printf("%s image-pipeline\n", bad ? "FAIL" : "PASS");
  free(img);
  free(blurred);
  free(grad);
  free(rblurred);
  free(rgrad);
  free(mask);
  free(rmask);
  return bad != 0;
}
