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


def cache_dir():
    """Where compiled kernels and graphs are kept between processes:
    $HPVM_CACHE_DIR, else $XDG_CACHE_HOME/hpvm, else ~/.cache/hpvm; ""
    (no cache) with HPVM_CACHE=0."""
    import os
    if os.environ.get("HPVM_CACHE", "1") == "0":
        return ""
    explicit = os.environ.get("HPVM_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hpvm")
