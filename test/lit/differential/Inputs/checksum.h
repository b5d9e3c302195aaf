/* The checksum the differential drivers print: FNV-1a over the output
 * bytes, so that two builds of one kernel that agree print the same line. */
#ifndef HPVM_DIFFERENTIAL_CHECKSUM_H
#define HPVM_DIFFERENTIAL_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

static uint32_t checksum = 2166136261u;
static void hash(const void *p, size_t bytes) {
  const unsigned char *s = p;
  for (size_t i = 0; i < bytes; ++i)
    checksum = (checksum ^ s[i]) * 16777619u;
}

#endif
