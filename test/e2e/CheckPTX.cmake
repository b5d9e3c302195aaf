# Assembles the PTX modules of one program with ptxas for CTest:
#   cmake -DPTXAS=<ptxas or empty> -DGLOB=<dir/prefix.*.ptx> -DARCH=sm_80
#         -P CheckPTX.cmake
# Each module must assemble for ARCH; no module at all is a failure (the
# program was built without its PTX). Without ptxas the test is skipped,
# saying why (the test's SKIP_REGULAR_EXPRESSION matches the marker).
if(NOT PTXAS)
  message("HPVM-E2E-SKIP: ptxas not found (not on PATH, nor in bin/ of "
          "$CUDA_PATH, $CUDA_HOME, /usr/local/cuda, /usr/lib/cuda when the "
          "build was configured): the PTX is not assembled")
  return()
endif()
file(GLOB modules ${GLOB})
if(NOT modules)
  message(FATAL_ERROR "no PTX module matches ${GLOB}")
endif()
foreach(ptx IN LISTS modules)
  execute_process(COMMAND ${PTXAS} -arch=${ARCH} ${ptx} -o /dev/null
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ptxas -arch=${ARCH} ${ptx} failed:\n${out}${err}")
  endif()
  message("ptxas -arch=${ARCH} ${ptx}: ok")
endforeach()
