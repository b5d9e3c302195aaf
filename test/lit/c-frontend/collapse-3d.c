// collapse(3): three dims, outermost first.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o - | FileCheck %s

void fill(float *v, int nx, int ny, int nz) {
#pragma hpvm parallel for collapse(3) out(v[0:nx*ny*nz]) name(fill)
  for (int x = 0; x < nx; x++) {
    for (int y = 0; y < ny; y++) {
      for (int z = 0; z < nz; z++)
        v[(x * ny + y) * nz + z] = x + y + z;
    }
  }
}

// CHECK: "hpvm.dims"(i32 %nx, i32 %ny, i32 %nz), "hpvm.out"(ptr %v,
