// What a program's run says when the runtime cannot do what it was asked:
// a device kind named in HPVM_DEVICES that discovery cannot find is named
// with the reason in the "no device" error (it used to say only "available
// devices: none"), and an HPVM_TRACE file that cannot be written fails the
// run with the reason (it used to exit 0 with a message at exit).
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O2 %s -o %t
// RUN: %t | FileCheck %s --check-prefix=OK
// RUN: env VK_ICD_FILENAMES=%t.no-such-driver.json HPVM_DEVICES=vulkan not %t 2>&1 | FileCheck %s --check-prefix=NODEV
// RUN: env HPVM_TRACE=%t.no-such-dir/trace.json not %t 2>&1 | FileCheck %s --check-prefix=TRACE
// RUN: rm -f %t.trace.json && env HPVM_TRACE=%t.trace.json %t && test -s %t.trace.json
#include <stdio.h>

int main(void) {
  float x[64];
#pragma hpvm parallel for out(x[0:64]) name(fill)
  for (int i = 0; i < 64; i++)
    x[i] = (float)i;
  printf("x[63] = %g\n", x[63]);
  return 0;
}
// OK: x[63] = 63
// NODEV: hpvm-rt: error: no device can run node 'fill': it has artifacts for cpu; available devices: none; discovery: HPVM_DEVICES: 'vulkan' has no device: {{.+}}
// TRACE: hpvm-rt: error: HPVM_TRACE='{{.*}}.no-such-dir/trace.json': the trace file cannot be written there (No such file or directory)
