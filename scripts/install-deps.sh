#!/usr/bin/env bash
# Installs every system package HPVM needs on a fresh Debian 12 (bookworm) machine.
# Idempotent: packages already present are left alone. Later components add lines here.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  # build
  cmake ninja-build ccache pkg-config
  # compiler infrastructure (DESIGN §2)
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

# lit and FileCheck come with llvm-19-tools (/usr/lib/llvm-19/build/utils/lit, /usr/lib/llvm-19/bin).
