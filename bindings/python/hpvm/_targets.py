"""Target names and the bits the native core takes for them."""

from . import _hpvm

BITS = {
    "cpu": _hpvm.TARGET_CPU,
    "nvptx": _hpvm.TARGET_NVPTX,
    "spirv": _hpvm.TARGET_SPIRV,
}

#: The targets kernels can be compiled for: "cpu" (x86 SIMD, all cores),
#: "nvptx" (CUDA GPUs) and "spirv" (Vulkan and OpenCL devices).
NAMES = tuple(BITS)


def target_mask(names):
    """The bits of a target name, a list of them, or "all"."""
    if isinstance(names, str):
        names = [names]
    names = list(names)
    if names == ["all"]:
        names = list(BITS)
    if not names:
        raise ValueError("targets: name at least one of " + ", ".join(NAMES))
    mask = 0
    for name in names:
        if name not in BITS:
            raise ValueError(
                f"targets: unknown target {name!r} (expected one of "
                f"{', '.join(NAMES)}, or 'all')"
            )
        mask |= BITS[name]
    return mask
