# Runs one mixed-device end-to-end program for CTest (hpvm_e2e_mixed_test in
# CMakeLists.txt):
#
#   cmake -DPROGRAM=<exe> [-DARGS=a|b] [-DNODES=n1|n2] [-DSPIRV=n1|n2]
#         [-DCPU=n1|n2] [-DDIRECT=n1|n2] -P RunMixed.cmake
#
# with HPVM_DEVICES=cpu,<kind> (kind vulkan or opencl), HPVM_SCHEDULER and
# HPVM_STATS=1 in the environment. The program must exit with 0 (its
# results match the scalar reference), and hpvm-rt's statistics
# ("<path> <device> <launches> ...") must show that
#   * every node in NODES ran (at least one launch, on any device),
#   * every node in SPIRV (the leaves with target(spirv)) ran on the
#     <kind> device and never on the CPU,
#   * every node in CPU (the leaves with target(cpu)) ran on the CPU only,
#   * every node in DIRECT had launches that the program ran itself, at an
#     armed launch site (a "direct:" line).
#
# Devices are requested non-strictly: where the machine has no <kind>
# device, hpvm-rt starts with the CPU alone and says so in a note of the
# stats header ("note: HPVM_DEVICES: '<kind>' has no device: <why>"). A test
# about crossing devices means nothing then, so the note turns the run into
# a skip (the marker HPVM-E2E-SKIP, which the test's
# SKIP_REGULAR_EXPRESSION matches), whatever the program did.
string(REPLACE "|" ";" ARGS "${ARGS}")
string(REPLACE "|" ";" NODES "${NODES}")
string(REPLACE "|" ";" SPIRV "${SPIRV}")
string(REPLACE "|" ";" CPU "${CPU}")
string(REPLACE "|" ";" DIRECT "${DIRECT}")
set(devices "$ENV{HPVM_DEVICES}")
string(REGEX REPLACE "^cpu," "" kind "${devices}")
if(NOT kind MATCHES "^(vulkan|opencl)$")
  message(FATAL_ERROR "RunMixed.cmake: HPVM_DEVICES must be cpu,vulkan or "
          "cpu,opencl, not '${devices}'")
endif()

execute_process(COMMAND ${PROGRAM} ${ARGS}
                RESULT_VARIABLE rc
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(err MATCHES "note: HPVM_DEVICES: '[a-z]+' has no device[^\n]*")
  message("HPVM-E2E-SKIP: ${CMAKE_MATCH_0}")
  return()
endif()
set(repro "HPVM_DEVICES=${devices} HPVM_SCHEDULER=$ENV{HPVM_SCHEDULER} "
          "HPVM_NUM_THREADS=$ENV{HPVM_NUM_THREADS} ${PROGRAM} ${ARGS}")
string(REPLACE ";" " " repro "${repro}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (exit status ${rc}); to reproduce: "
          "${repro}")
endif()
if(NOT out MATCHES "\nPASS |^PASS ")
  message(FATAL_ERROR "${PROGRAM} exited with 0 but did not print PASS")
endif()
if(NOT err MATCHES "hpvm-rt stats:")
  message(FATAL_ERROR "no statistics from hpvm-rt: the program launched no "
          "HPVM graph (were its pragmas compiled?)")
endif()
if(NOT err MATCHES "\n[^ \n]+ +[a-z]+(:[0-9]+)? +[1-9][0-9]* ")
  message(FATAL_ERROR "hpvm-rt ran no node")
endif()
foreach(node IN LISTS NODES SPIRV CPU)
  if(NOT err MATCHES "\n${node} +[a-z]+(:[0-9]+)? +[1-9][0-9]* ")
    message(FATAL_ERROR "node '${node}' never ran; to reproduce: ${repro}")
  endif()
endforeach()
foreach(node IN LISTS SPIRV)
  if(NOT err MATCHES "\n${node} +${kind}:[0-9]+ +[1-9][0-9]* ")
    message(FATAL_ERROR "node '${node}' (target spirv) never ran on ${kind}; "
            "to reproduce: ${repro}")
  endif()
  if(err MATCHES "\n${node} +cpu +")
    message(FATAL_ERROR "node '${node}' (target spirv) ran on the CPU; to "
            "reproduce: ${repro}")
  endif()
endforeach()
foreach(node IN LISTS CPU)
  if(err MATCHES "\n${node} +${kind}:[0-9]+ +")
    message(FATAL_ERROR "node '${node}' (target cpu) ran on ${kind}; to "
            "reproduce: ${repro}")
  endif()
endforeach()
# FALLBACK: under round-robin on lavapipe (which cuts the node's long
# loops), the node failed on Vulkan and ran on the CPU instead.
if(FALLBACK AND "$ENV{HPVM_SCHEDULER}" STREQUAL "round-robin" AND
   err MATCHES "lavapipe|llvmpipe")
  if(NOT err MATCHES "\nfallback: node '${FALLBACK}' failed on vulkan:[0-9]+ ")
    message(FATAL_ERROR "node '${FALLBACK}' did not fall back from lavapipe "
            "to the CPU; to reproduce: ${repro}")
  endif()
endif()
foreach(node IN LISTS DIRECT)
  if(NOT err MATCHES "\ndirect: node '${node}' on cpu: [1-9][0-9]* of its launches")
    message(FATAL_ERROR "no direct launches of '${node}': its launch site "
            "was never armed; to reproduce: ${repro}")
  endif()
endforeach()
