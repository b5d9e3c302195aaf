# Runs one end-to-end program for CTest: cmake -DPROGRAM=<exe> [-DARGS=a|b]
# [-DNODES=n1|n2] [-DVARIANT=<name>] [-DMAX_BYTES=<n>] -P RunE2E.cmake, with
# HPVM_STATS=1 in the environment. With VARIANT, the program runs with
# HPVM_TRACE set, and every node in NODES must have run in that form of its
# leaf (the trace events' args.variant: "streaming-stores" or "normal", or
# "work-groups" or "a thread per group" for a work-group leaf), and
# no node in another. With MAX_BYTES, hpvm-rt may have moved at most that
# many bytes between memory spaces (the statistics' "coherence: N bytes
# moved"): what data regions save. With IN_FLIGHT, the trace must show two
# launches of one device in flight at once (a lane "... launches in flight
# #2"): the launching thread went on while a kernel ran; with
# IN_FLIGHT=device, also two kernels running at once on the device's clock
# (a lane "... (device clock) #2"). With LAVAPIPE_ERROR, see below.
#
# The program's exit status says whether its results match the reference.
# That alone cannot tell a working HPVM from a compiler that dropped the
# pragmas and built the sequential program (which matches the reference
# too), so the runtime's statistics must also show that nodes ran: at least
# one, and every node path in NODES with at least one launch.
# ARGS and NODES come '|'-separated (see CMakeLists.txt).
string(REPLACE "|" ";" ARGS "${ARGS}")
string(REPLACE "|" ";" NODES "${NODES}")
if(VARIANT OR IN_FLIGHT)
  set(trace "${PROGRAM}.${VARIANT}${DEVICE}.trace.json")
  file(REMOVE "${trace}")
  set(ENV{HPVM_TRACE} "${trace}")
endif()
execute_process(COMMAND ${PROGRAM} ${ARGS}
                RESULT_VARIABLE rc
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
# A device the machine does not have is a skip, not a failure (the test's
# SKIP_REGULAR_EXPRESSION matches the marker).
if(DEVICE AND NOT rc EQUAL 0 AND err MATCHES "HPVM_DEVICES")
  string(REGEX MATCH "HPVM_DEVICES[^\n]*" reason "${err}")
  message("HPVM-E2E-SKIP: no ${DEVICE} device on this machine (${reason})")
  return()
endif()
# With LAVAPIPE_ERROR, the program must fail with hpvm-rt's message of that
# text on lavapipe (a loop limit it has and other devices do not; on those
# the program passes, which is a skip).
if(EXPECT_ERROR)
  if(rc EQUAL 0 OR NOT err MATCHES "${EXPECT_ERROR}")
    message(FATAL_ERROR "${PROGRAM} did not fail with '${EXPECT_ERROR}'")
  endif()
  return()
endif()
if(LAVAPIPE_ERROR)
  if(rc EQUAL 0 AND NOT err MATCHES "llvmpipe")
    message("HPVM-E2E-SKIP: the Vulkan device is not lavapipe")
    return()
  endif()
  if(rc EQUAL 0 OR NOT err MATCHES "${LAVAPIPE_ERROR}")
    message(FATAL_ERROR "${PROGRAM} did not fail with '${LAVAPIPE_ERROR}'")
  endif()
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (exit status ${rc})")
endif()
# hpvm-rt prints "hpvm-rt stats: ..." then one line per (node, device):
# "<path> <device> <launches> <instances> <total ms> <avg us>".
if(NOT err MATCHES "hpvm-rt stats:")
  message(FATAL_ERROR "no statistics from hpvm-rt: the program launched no "
          "HPVM graph (were its pragmas compiled?)")
endif()
# Devices are "cpu", "host" or "<kind>:<index>"; with DEVICE, the nodes
# must have run on that kind.
set(device "[a-z]+(:[0-9]+)?")
if(DEVICE)
  set(device "${DEVICE}(:[0-9]+)?")
endif()
if(NOT err MATCHES "\n[^ \n]+ +[a-z]+(:[0-9]+)? +[1-9][0-9]* ")
  message(FATAL_ERROR "hpvm-rt ran no node")
endif()
foreach(node IN LISTS NODES)
  if(NOT err MATCHES "\n${node} +${device} +[1-9][0-9]* ")
    message(FATAL_ERROR "node '${node}' never ran (on ${device})")
  endif()
endforeach()
if(NOT "${MAX_BYTES}" STREQUAL "")
  if(NOT err MATCHES "coherence: ([0-9]+) bytes moved")
    message(FATAL_ERROR "no 'coherence: N bytes moved' in hpvm-rt's statistics")
  endif()
  set(moved ${CMAKE_MATCH_1})
  if(moved GREATER MAX_BYTES)
    message(FATAL_ERROR "hpvm-rt moved ${moved} bytes between memory spaces, "
            "more than the ${MAX_BYTES} expected")
  endif()
  message("moved ${moved} bytes, at most ${MAX_BYTES} expected")
endif()
if(VARIANT)
  if(NOT EXISTS "${trace}")
    message(FATAL_ERROR "no trace from hpvm-rt at ${trace}")
  endif()
  file(READ "${trace}" events)
  foreach(node IN LISTS NODES)
    if(NOT events MATCHES "\"name\":\"${node}\"[^\n]*\"variant\":\"${VARIANT}\"")
      message(FATAL_ERROR "node '${node}' never ran as '${VARIANT}'")
    endif()
  endforeach()
  string(REGEX MATCHALL "\"variant\":\"[^\"]*\"" variants "${events}")
  list(REMOVE_DUPLICATES variants)
  if(NOT variants STREQUAL "\"variant\":\"${VARIANT}\"")
    message(FATAL_ERROR "nodes ran in other forms than '${VARIANT}': ${variants}")
  endif()
endif()
if(IN_FLIGHT)
  file(READ "${trace}" events)
  if(NOT events MATCHES "\"name\":\"[^\"]* launches in flight #2\"")
    message(FATAL_ERROR "the trace shows no two launches in flight at once")
  endif()
  message("two launches were in flight at once")
  if(IN_FLIGHT STREQUAL "device")
    if(NOT events MATCHES "\"name\":\"[^\"]* \\(device clock\\) #2\"")
      message(FATAL_ERROR "the trace shows no two kernels running at once "
              "on the device")
    endif()
    message("two kernels ran at once on the device")
  endif()
endif()
