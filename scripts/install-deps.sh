#!/usr/bin/env bash
# Installs every system package HPVM needs on a fresh Debian 12 (bookworm) machine.
# Idempotent: packages already present are left alone. Later components add lines here.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  # build
  cmake ninja-build ccache pkg-config
  # compiler infrastructure
  llvm-19-dev llvm-19-tools clang-19 libclang-19-dev lld-19 libpolly-19-dev
  # SPIR-V
  spirv-tools spirv-headers
  # Vulkan loader and Mesa's lavapipe CPU device
  libvulkan-dev mesa-vulkan-drivers vulkan-tools
  # OpenCL loader and PoCL CPU device
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3
  # benchmark baselines (clang-19 -fopenmp) and timing
  libomp-19-dev time
  # compiler-rt: hpvm-clang -fsanitize=address links its runtime
  libclang-rt-19-dev
  # DOT rendering
  graphviz
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all system packages present"
fi

# An OpenCL device that ingests SPIR-V, for the opencl device kind's tests:
# Debian's PoCL (3.1) reports no IL version, Intel's CPU runtime (PyPI
# intel-opencl-rt, Intel's licence) does. It goes into a prefix of its own and
# is registered with the ICD loader by a vendor file; without it the OpenCL
# tests skip, saying why.
INTEL_OCL_PREFIX=/opt/hpvm/intel-opencl
INTEL_OCL_ICD=/etc/OpenCL/vendors/hpvm-intel-cpu.icd
if [ -f "$INTEL_OCL_ICD" ] && [ -f "$(cat "$INTEL_OCL_ICD")" ]; then
  echo "install-deps: Intel OpenCL CPU runtime present"
elif ! python3 -m pip --version >/dev/null 2>&1; then
  echo "install-deps: warning: no pip for python3; the OpenCL device tests will skip" >&2
elif $SUDO python3 -m pip install --quiet --disable-pip-version-check \
    --no-warn-script-location --root-user-action=ignore --ignore-installed \
    --prefix "$INTEL_OCL_PREFIX" \
    intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0; then
  lib=$(find "$INTEL_OCL_PREFIX" -name libintelocl.so -print -quit)
  if [ -n "$lib" ]; then
    $SUDO mkdir -p /etc/OpenCL/vendors
    echo "$lib" | $SUDO tee "$INTEL_OCL_ICD" >/dev/null
    echo "install-deps: Intel OpenCL CPU runtime installed ($lib)"
  else
    echo "install-deps: warning: intel-opencl-rt has no libintelocl.so; the OpenCL device tests will skip" >&2
  fi
else
  echo "install-deps: warning: could not install intel-opencl-rt; the OpenCL device tests will skip" >&2
fi

# lit and FileCheck come with llvm-19-tools (/usr/lib/llvm-19/build/utils/lit, /usr/lib/llvm-19/bin).

# The Python binding (bindings/python): pybind11 to build it, scikit-build-core
# for `pip install`, numpy and pytest for its tests. Into the python3 that
# CMake finds; without them the binding is not built and its tests skip.
PY_PACKAGES=(pybind11 scikit_build_core numpy pytest)
PY_REQUIREMENTS=("pybind11>=2.12" "scikit-build-core>=0.10" "numpy>=1.24" "pytest>=7")
if python3 -c "import $(IFS=,; echo "${PY_PACKAGES[*]}")" 2>/dev/null; then
  echo "install-deps: Python packages for the binding present"
elif python3 -m pip --version >/dev/null 2>&1 &&
    { pip_install() {
        $SUDO python3 -m pip install --quiet --disable-pip-version-check \
          --no-warn-script-location --root-user-action=ignore "$@" "${PY_REQUIREMENTS[@]}"
      }
      # A distribution's own python3 refuses pip (PEP 668) unless told.
      pip_install || pip_install --break-system-packages; }; then
  echo "install-deps: Python packages for the binding installed"
else
  echo "install-deps: warning: could not install ${PY_REQUIREMENTS[*]}; the Python binding will not be built" >&2
fi
