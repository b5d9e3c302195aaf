# Runs one end-to-end program for CTest: cmake -DPROGRAM=<exe> [-DARGS=a|b]
# [-DNODES=n1|n2] -P RunE2E.cmake, with HPVM_STATS=1 in the environment.
#
# The program's exit status says whether its results match the reference.
# That alone cannot tell a working HPVM from a compiler that dropped the
# pragmas and built the sequential program (which matches the reference
# too), so the runtime's statistics must also show that nodes ran: at least
# one, and every node path in NODES with at least one launch.
# ARGS and NODES come '|'-separated (see CMakeLists.txt).
string(REPLACE "|" ";" ARGS "${ARGS}")
string(REPLACE "|" ";" NODES "${NODES}")
execute_process(COMMAND ${PROGRAM} ${ARGS}
                RESULT_VARIABLE rc
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (exit status ${rc})")
endif()
# hpvm-rt prints "hpvm-rt stats: ..." then one line per (node, device):
# "<path> <device> <launches> <instances> <total ms> <avg us>".
if(NOT err MATCHES "hpvm-rt stats:")
  message(FATAL_ERROR "no statistics from hpvm-rt: the program launched no "
          "HPVM graph (were its pragmas compiled?)")
endif()
if(NOT err MATCHES "\n[^ \n]+ +[a-z]+ +[1-9][0-9]* ")
  message(FATAL_ERROR "hpvm-rt ran no node")
endif()
foreach(node IN LISTS NODES)
  if(NOT err MATCHES "\n${node} +[a-z]+ +[1-9][0-9]* ")
    message(FATAL_ERROR "node '${node}' never ran")
  endif()
endforeach()
