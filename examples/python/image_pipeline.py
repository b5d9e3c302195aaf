"""A three-stage image pipeline written in Python (docs/python.md, the
tutorial): box blur, gradient magnitude, threshold. One @hpvm.kernel, one
dataflow graph of three nodes; it runs on every device kind present, is
checked against numpy, and writes its graph (DOT, and SVG where Graphviz
is installed) and a Chrome trace of the runs next to this file.

    PYTHONPATH=build/python python3 examples/python/image_pipeline.py [OUT_DIR]
"""
import math
import pathlib
import shutil
import subprocess
import sys

import numpy as np

import hpvm
from hpvm import In, Out, f32, u8

HERE = pathlib.Path(__file__).resolve().parent


@hpvm.kernel
def edges(img: In[f32, 2], blurred: Out[f32, 2], grad: Out[f32, 2],
          mask: Out[u8, 2], threshold: f32):
    h = img.shape[0]
    w = img.shape[1]
    # Stage 1: each output pixel is the mean of its 3x3 neighbourhood.
    for r, c in hpvm.parallel(h, w, name="blur"):
        acc = 0.0
        count = 0
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                if 0 <= r + dr < h and 0 <= c + dc < w:
                    acc += img[r + dr, c + dc]
                    count += 1
        blurred[r, c] = acc / count
    # Stage 2: central differences (0 at the border).
    for r, c in hpvm.parallel(h, w, name="gradient"):
        gx = 0.0
        gy = 0.0
        if 0 < c < w - 1:
            gx = blurred[r, c + 1] - blurred[r, c - 1]
        if 0 < r < h - 1:
            gy = blurred[r + 1, c] - blurred[r - 1, c]
        grad[r, c] = math.sqrt(gx * gx + gy * gy)
    # Stage 3: a binary edge mask.
    for r, c in hpvm.parallel(h, w, name="threshold"):
        mask[r, c] = 255 if grad[r, c] > threshold else 0


def reference(img, threshold):
    """The same pipeline in numpy (sums in double, as the kernel's)."""
    h, w = img.shape
    pad = np.pad(img.astype(np.float64), 1)
    ones = np.pad(np.ones((h, w)), 1)
    window = [(dr, dc) for dr in (0, 1, 2) for dc in (0, 1, 2)]
    acc = sum(pad[dr:dr + h, dc:dc + w] for dr, dc in window)
    count = sum(ones[dr:dr + h, dc:dc + w] for dr, dc in window)
    blurred = (acc / count).astype(np.float32)
    gx = np.zeros_like(blurred)
    gy = np.zeros_like(blurred)
    gx[:, 1:-1] = blurred[:, 2:] - blurred[:, :-2]
    gy[1:-1, :] = blurred[2:, :] - blurred[:-2, :]
    grad = np.sqrt(gx * gx + gy * gy)
    return blurred, grad, np.where(grad > threshold, 255, 0).astype(np.uint8)


def main(out_dir=HERE):
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    # A bright square on noise: its outline is the edge the mask finds.
    img = rng.random((480, 640), dtype=np.float32) * 0.05
    img[120:360, 160:480] += 1.0
    threshold = np.float32(0.2)
    ref_blurred, ref_grad, ref_mask = reference(img, threshold)

    kinds = sorted({d["name"].split(":")[0] for d in hpvm.devices()})
    print("devices:", ", ".join(d["name"] for d in hpvm.devices()))
    ok = True
    with hpvm.trace() as trace:
        for kind in kinds:
            blurred, grad = np.empty_like(img), np.empty_like(img)
            mask = np.empty(img.shape, np.uint8)
            edges.run(img, blurred, grad, mask, threshold, devices=[kind],
                      strict=True)
            # Pixels whose gradient is within rounding of the threshold
            # may fall either way.
            near = np.abs(ref_grad - threshold) < 1e-5
            good = (np.allclose(blurred, ref_blurred, rtol=1e-5, atol=1e-6)
                    and np.allclose(grad, ref_grad, rtol=1e-4, atol=1e-5)
                    and np.array_equal(mask[~near], ref_mask[~near]))
            ok &= good
            print(f"{kind:>7}: {int(mask.sum() // 255)} edge pixels, "
                  f"{'matches numpy' if good else 'DIFFERS FROM NUMPY'}")

    stats = hpvm.statistics()
    print("\nwhere each node ran:")
    for path, devices in sorted(stats.devices("edges").items()):
        print(f"  {path:<16} {', '.join(sorted(devices))}")
    trace.save(out_dir / "image_pipeline.trace.json")
    dot = edges.graph.to_dot()
    (out_dir / "image_pipeline.dot").write_text(dot)
    if shutil.which("dot"):
        subprocess.run(["dot", "-Tsvg", "-o",
                        str(out_dir / "image_pipeline.svg")],
                       input=dot.encode(), check=True)
    print(f"\n{len(trace.nodes())} node executions traced; graph and trace "
          f"written to {out_dir}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
