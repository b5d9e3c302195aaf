/*===- targets.h - The target bits, defined once -------------------------===*
 *
 * The bits of a node's target mask (cpu, nvptx, spirv) and of what an
 * artifact is compiled for (those, and opencl: SPIR-V of the OpenCL
 * flavour, an artifact target only). Everything that names a target uses
 * these: the runtime's C ABI (hpvm_rt.h), the graph model (Graph.h), the
 * backends. hpvm.h, which a user's compiler reads alone, spells the first
 * three again; test/unit/ir/AbiTest.cpp checks that it agrees.
 *
 * C and C++, no dependencies.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HPVM_ABI_TARGETS_H
#define HPVM_ABI_TARGETS_H

#define HPVM_ABI_TARGET_CPU (1u << 0)
#define HPVM_ABI_TARGET_NVPTX (1u << 1)
#define HPVM_ABI_TARGET_SPIRV (1u << 2)
#define HPVM_ABI_TARGET_OPENCL (1u << 3)

#endif /* HPVM_ABI_TARGETS_H */
