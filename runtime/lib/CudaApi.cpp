//===- CudaApi.cpp - CUDA Driver API entry points without linking CUDA ----===//

#include "CudaApi.h"

#include <cstring>
#include <dlfcn.h>

using namespace hpvm::rt::cu;

std::shared_ptr<Library> Library::open(const std::string &Path,
                                       std::string &Why) {
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's
  // references (the program may use CUDA itself, through its own loader).
  void *Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char *E = dlerror();
    std::string Error = E ? E : "unknown error";
    // The usual case, a machine without the NVIDIA driver, reads as such;
    // anything else (a file that is no library, a missing dependency) says
    // it could not be loaded.
    bool Missing = Error.find("No such file") != std::string::npos;
    Why =
        Path + (Missing ? " not found (" : " cannot be loaded (") + Error + ")";
    return nullptr;
  }
  auto L = std::make_shared<Library>();
  std::string Lacks;
#define HPVM_CU_LOAD(Member, Symbol, Fallback, Type)                           \
  {                                                                            \
    void *P = dlsym(Handle, Symbol);                                           \
    const char *Alt = Fallback;                                                \
    if (!P && Alt)                                                             \
      P = dlsym(Handle, Alt);                                                  \
    if (P)                                                                     \
      L->Member = reinterpret_cast<Fn<Type>>(P);                               \
    else                                                                       \
      Lacks += (Lacks.empty() ? "" : ", ") + std::string(Symbol);              \
  }
  HPVM_CU_FUNCTIONS(HPVM_CU_LOAD)
#undef HPVM_CU_LOAD
  if (!Lacks.empty()) {
    Why = "'" + Path + "' is not a usable CUDA driver: it lacks " + Lacks;
    return nullptr;
  }
  return L;
}

std::string Library::describe(CUresult R) const {
  const char *Name = nullptr, *Text = nullptr;
  if (cuGetErrorName(R, &Name) != CUDA_SUCCESS || !Name)
    Name = nullptr;
  if (cuGetErrorString(R, &Text) != CUDA_SUCCESS || !Text)
    Text = nullptr;
  std::string S = Name ? std::string(Name) : resultName(R);
  if (Text && *Text)
    S += std::string(" (") + Text + ")";
  return S;
}

std::string hpvm::rt::cu::resultName(CUresult R) {
  switch (R) {
#define HPVM_CU_CASE(Name)                                                     \
  case Name:                                                                   \
    return #Name;
    HPVM_CU_CASE(CUDA_SUCCESS)
    HPVM_CU_CASE(CUDA_ERROR_INVALID_VALUE)
    HPVM_CU_CASE(CUDA_ERROR_OUT_OF_MEMORY)
    HPVM_CU_CASE(CUDA_ERROR_NOT_INITIALIZED)
    HPVM_CU_CASE(CUDA_ERROR_STUB_LIBRARY)
    HPVM_CU_CASE(CUDA_ERROR_DEVICE_UNAVAILABLE)
    HPVM_CU_CASE(CUDA_ERROR_NO_DEVICE)
    HPVM_CU_CASE(CUDA_ERROR_INVALID_IMAGE)
    HPVM_CU_CASE(CUDA_ERROR_INVALID_CONTEXT)
    HPVM_CU_CASE(CUDA_ERROR_NO_BINARY_FOR_GPU)
    HPVM_CU_CASE(CUDA_ERROR_INVALID_PTX)
    HPVM_CU_CASE(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)
    HPVM_CU_CASE(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    HPVM_CU_CASE(CUDA_ERROR_NOT_FOUND)
    HPVM_CU_CASE(CUDA_ERROR_NOT_READY)
    HPVM_CU_CASE(CUDA_ERROR_ILLEGAL_ADDRESS)
    HPVM_CU_CASE(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    HPVM_CU_CASE(CUDA_ERROR_LAUNCH_TIMEOUT)
    HPVM_CU_CASE(CUDA_ERROR_HARDWARE_STACK_ERROR)
    HPVM_CU_CASE(CUDA_ERROR_ILLEGAL_INSTRUCTION)
    HPVM_CU_CASE(CUDA_ERROR_MISALIGNED_ADDRESS)
    HPVM_CU_CASE(CUDA_ERROR_INVALID_ADDRESS_SPACE)
    HPVM_CU_CASE(CUDA_ERROR_INVALID_PC)
    HPVM_CU_CASE(CUDA_ERROR_LAUNCH_FAILED)
    HPVM_CU_CASE(CUDA_ERROR_UNKNOWN)
#undef HPVM_CU_CASE
  default:
    return "CUresult " + std::to_string(R);
  }
}
