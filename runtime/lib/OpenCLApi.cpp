//===- OpenCLApi.cpp - OpenCL entry points without linking OpenCL ---------===//

#include "OpenCLApi.h"

#include <dlfcn.h>

using namespace hpvm::rt::cl;

std::shared_ptr<Library> Library::open(const std::string &Path,
                                       std::string &Why) {
  // RTLD_LOCAL: the loader's symbols must not satisfy anyone else's
  // references (a program may carry its own OpenCL code).
  void *Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char *E = dlerror();
    Why = "cannot load the OpenCL ICD loader '" + Path +
          "': " + (E ? E : "unknown error");
    return nullptr;
  }
  auto L = std::make_shared<Library>();
#define HPVM_CL_LOAD(Name, Ret, Params)                                        \
  L->Name = reinterpret_cast<Ret(*) Params>(dlsym(Handle, #Name));             \
  if (!L->Name) {                                                              \
    Why = "'" + Path + "' has no " #Name;                                      \
    return nullptr;                                                            \
  }
  HPVM_CL_FUNCTIONS(HPVM_CL_LOAD)
#undef HPVM_CL_LOAD
#define HPVM_CL_LOAD(Name, Ret, Params)                                        \
  L->Name = reinterpret_cast<Ret(*) Params>(dlsym(Handle, #Name));
  HPVM_CL_OPTIONAL_FUNCTIONS(HPVM_CL_LOAD)
#undef HPVM_CL_LOAD
  return L;
}

std::string hpvm::rt::cl::errorName(Int Code) {
  static const struct {
    Int Code;
    const char *Name;
  } Names[] = {
      {0, "CL_SUCCESS"},
      {-1, "CL_DEVICE_NOT_FOUND"},
      {-2, "CL_DEVICE_NOT_AVAILABLE"},
      {-3, "CL_COMPILER_NOT_AVAILABLE"},
      {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
      {-5, "CL_OUT_OF_RESOURCES"},
      {-6, "CL_OUT_OF_HOST_MEMORY"},
      {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
      {-11, "CL_BUILD_PROGRAM_FAILURE"},
      {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
      {-30, "CL_INVALID_VALUE"},
      {-32, "CL_INVALID_PLATFORM"},
      {-33, "CL_INVALID_DEVICE"},
      {-34, "CL_INVALID_CONTEXT"},
      {-36, "CL_INVALID_COMMAND_QUEUE"},
      {-38, "CL_INVALID_MEM_OBJECT"},
      {-42, "CL_INVALID_BINARY"},
      {-43, "CL_INVALID_BUILD_OPTIONS"},
      {-44, "CL_INVALID_PROGRAM"},
      {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
      {-46, "CL_INVALID_KERNEL_NAME"},
      {-47, "CL_INVALID_KERNEL_DEFINITION"},
      {-48, "CL_INVALID_KERNEL"},
      {-49, "CL_INVALID_ARG_INDEX"},
      {-50, "CL_INVALID_ARG_VALUE"},
      {-51, "CL_INVALID_ARG_SIZE"},
      {-52, "CL_INVALID_KERNEL_ARGS"},
      {-53, "CL_INVALID_WORK_DIMENSION"},
      {-54, "CL_INVALID_WORK_GROUP_SIZE"},
      {-55, "CL_INVALID_WORK_ITEM_SIZE"},
      {-56, "CL_INVALID_GLOBAL_OFFSET"},
      {-58, "CL_INVALID_EVENT"},
      {-59, "CL_INVALID_OPERATION"},
      {-61, "CL_INVALID_BUFFER_SIZE"},
      {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
      {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
  };
  std::string Number = std::to_string(Code);
  for (const auto &N : Names)
    if (N.Code == Code)
      return std::string(N.Name) + " (" + Number + ")";
  return "error " + Number;
}
