# lit configuration for HPVM's FileCheck tests.
import os
import sys
import lit.formats

config.name = "HPVM"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".cpp", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hpvm_obj_root, "test", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.hpvm_tools_dir, config.hpvm_backend_dir, config.llvm_tools_dir,
     config.environment.get("PATH", "")])

config.substitutions.append(("%hpvm-opt", os.path.join(config.hpvm_tools_dir, "hpvm-opt")))
config.substitutions.append(("%hpvm-backend", os.path.join(config.hpvm_backend_dir, "hpvm-backend")))
config.substitutions.append(("%hpvm-clang", os.path.join(config.hpvm_bin_dir, "hpvm-clang")))
config.substitutions.append(("%opt", os.path.join(config.llvm_tools_dir, "opt")))
config.substitutions.append(("%clang", os.path.join(config.llvm_tools_dir, "clang")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# Generators of large inputs (bad-input/Inputs/*.py) run with this Python.
config.substitutions.append(("%python", sys.executable))

# hpvm-clang can link programs once the runtime is next to it (c-frontend/).
if os.path.exists(os.path.join(config.hpvm_obj_root, "lib", "libhpvm-rt.a")):
    config.available_features.add("hpvm-link")
# -fsanitize=address links against compiler-rt (libclang-rt-19-dev, which
# scripts/install-deps.sh installs).
import glob
if glob.glob(os.path.join(config.llvm_tools_dir, "..", "lib", "clang", "*",
                          "lib", "linux", "libclang_rt.asan-x86_64.a")):
    config.available_features.add("asan-runtime")

import shutil
if shutil.which("dot"):
    config.available_features.add("graphviz")

# The SPIR-V tests run every module they emit through spirv-val as well as
# the backend's own in-process validation, and read binaries with spirv-dis.
if shutil.which("spirv-val") and shutil.which("spirv-dis"):
    config.available_features.add("spirv-tools")
    config.substitutions.append(("%spirv-val", shutil.which("spirv-val")))
    config.substitutions.append(("%spirv-dis", shutil.which("spirv-dis")))

# The OpenCL device lists devices that ingest no SPIR-V as unusable, with the
# reason; Debian's PoCL (3.1) is one. The tests that check the message run
# with a vendor directory holding PoCL alone, where clinfo agrees.
pocl_icd = "/etc/OpenCL/vendors/pocl.icd"
if os.path.exists(pocl_icd) and shutil.which("clinfo"):
    import re
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as vendors:
        shutil.copy(pocl_icd, vendors)
        try:
            info = subprocess.run(
                ["clinfo"], env=dict(os.environ, OCL_ICD_VENDORS=vendors),
                capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            info = ""
    if re.search(r"\n\s*IL version\s+\(n/a\)", info):
        config.available_features.add("pocl-without-spirv")
        config.substitutions.append(("%pocl-icd", pocl_icd))
# The NVPTX tests assemble every PTX module they emit with NVIDIA's ptxas
# (from the CUDA toolkit) for the SM they chose, and read libdevice for math
# functions PTX has no instruction for. Both are searched where the backend
# and CUDA put them; without them those tests say UNSUPPORTED.
def find_cuda(relative):
    roots = [os.environ.get(v) for v in ("CUDA_PATH", "CUDA_HOME")]
    roots += ["/usr/local/cuda", "/usr/lib/cuda"]
    for root in roots:
        if root and os.path.isfile(os.path.join(root, relative)):
            return os.path.join(root, relative)
    return None

ptxas = shutil.which("ptxas") or find_cuda(os.path.join("bin", "ptxas"))
if ptxas:
    config.available_features.add("ptxas")
    # Longest first: lit substitutes in order, and %ptxas is a prefix.
    config.substitutions.append(("%ptxas-each", "%s %s %s" % (
        sys.executable,
        os.path.join(config.test_source_root, "nvptx", "ptxas-each.py"),
        ptxas)))
    config.substitutions.append(("%ptxas", ptxas))
else:
    lit_config.note("ptxas not found (not on PATH, nor in bin/ of $CUDA_PATH, "
                    "$CUDA_HOME, /usr/local/cuda, /usr/lib/cuda): emitted "
                    "PTX is not assembled, and tests that need ptxas are "
                    "UNSUPPORTED")

libdevice = find_cuda(os.path.join("nvvm", "libdevice", "libdevice.10.bc")) or (
    "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"
    if os.path.isfile("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc")
    else None)
if libdevice:
    config.available_features.add("libdevice")
else:
    lit_config.note("libdevice.10.bc not found (nvvm/libdevice/ of $CUDA_PATH, "
                    "$CUDA_HOME, /usr/local/cuda, /usr/lib/cuda): NVPTX tests "
                    "of math functions that need it are UNSUPPORTED")
