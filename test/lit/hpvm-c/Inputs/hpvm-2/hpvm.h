/* A stand-in for HPVM 2.0's own hpvm.h, which HPVM's programs often carry
 * next to their sources: the same names and signatures, every call only
 * declared, and HPVM 2.0's numbering of the targets (after GPU_TARGET it
 * differs from HPVM 1.0's). Written for the tests (hpvm-2.c). */
#ifndef DEVICE
#define DEVICE GPU_TARGET
#endif

#ifdef __cplusplus
namespace hpvm {
#endif
enum Target {
  None = 0,
  CPU_TARGET,
  GPU_TARGET,
  CUDNN_TARGET,
  TENSOR_TARGET,
  CPU_OR_GPU_TARGET,
  FPGA_TARGET,
  NUM_TARGETS
};
#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
#include <cstddef>
extern "C" {
void __hpvm__hint(hpvm::Target) noexcept;
#else
#include <stddef.h>
#define noexcept
void __hpvm__hint(enum Target) noexcept;
#endif

void *__hpvm__createNodeND(unsigned, ...) noexcept;
void __hpvm__return(unsigned, ...) noexcept;
void __hpvm__attributes(unsigned, ...) noexcept;
void __hpvm__init() noexcept;
void __hpvm__cleanup() noexcept;
void __hpvm__bindIn(void *, unsigned, unsigned, unsigned) noexcept;
void __hpvm__bindOut(void *, unsigned, unsigned, unsigned) noexcept;
void *__hpvm__edge(void *, void *, unsigned, unsigned, unsigned,
                   unsigned) noexcept;
void __hpvm__push(void *, void *) noexcept;
void *__hpvm__pop(void *) noexcept;
void *__hpvm__launch(unsigned, ...) noexcept;
void __hpvm__wait(void *) noexcept;
void *__hpvm__getNode() noexcept;
void *__hpvm__getParentNode(void *) noexcept;
void __hpvm__barrier() noexcept;
void *__hpvm__malloc(long) noexcept;
long __hpvm__getNodeInstanceID_x(void *) noexcept;
long __hpvm__getNodeInstanceID_y(void *) noexcept;
long __hpvm__getNodeInstanceID_z(void *) noexcept;
long __hpvm__getNumNodeInstances_x(void *) noexcept;
long __hpvm__getNumNodeInstances_y(void *) noexcept;
long __hpvm__getNumNodeInstances_z(void *) noexcept;
int __hpvm__atomic_add(int *, int) noexcept;
int __hpvm__atomic_sub(int *, int) noexcept;
int __hpvm__atomic_inc(int *) noexcept;
int __hpvm__atomic_max(int *, int) noexcept;
void llvm_hpvm_track_mem(void *, size_t) noexcept;
void llvm_hpvm_untrack_mem(void *) noexcept;
void llvm_hpvm_request_mem(void *, size_t) noexcept;

#ifdef __cplusplus
}
#endif
