# lit configuration for HPVM's FileCheck tests.
import os
import lit.formats

config.name = "HPVM"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".test"]
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

# hpvm-clang can link programs once the runtime is next to it (c-frontend/).
if os.path.exists(os.path.join(config.hpvm_obj_root, "lib", "libhpvm-rt.a")):
    config.available_features.add("hpvm-link")

import shutil
if shutil.which("dot"):
    config.available_features.add("graphviz")

# The SPIR-V tests run every module they emit through spirv-val as well as
# the backend's own in-process validation, and read binaries with spirv-dis.
if shutil.which("spirv-val") and shutil.which("spirv-dis"):
    config.available_features.add("spirv-tools")
    config.substitutions.append(("%spirv-val", shutil.which("spirv-val")))
    config.substitutions.append(("%spirv-dis", shutil.which("spirv-dis")))
