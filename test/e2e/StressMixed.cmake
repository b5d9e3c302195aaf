# Runs one mixed-device program many times with random sizes, seeds,
# scheduler policies, device sets and thread counts, and stops at the first
# wrong result (hpvm_e2e_mixed_stress in CMakeLists.txt; label stress):
#
#   cmake -DPROGRAM=<exe> -DMAX=<m1|m2|...> [-DRUNS=<n>] [-DSEED=<s>]
#         -P StressMixed.cmake
#
# Run k draws each size argument i of the program from [0, m_i] (0 and 1 an
# eighth of the time each, since empty and single-element index spaces are
# the edge cases), then the program's seed argument, a policy of
# hint/round-robin/heft/dmda/auto, a device set of cpu,vulkan, cpu,opencl or
# cpu,vulkan,opencl (three memory spaces), a thread count of 1, 2 or 4 and
# a Vulkan staging mode (HPVM_VULKAN_STAGING auto, or always: device-local
# buffers as on a discrete GPU), all from a 31-bit LCG started at SEED. Runs cycle through the device sets
# and policies so that every combination gets RUNS/9 of them. HPVM_STRESS_RUNS and HPVM_STRESS_SEED in the environment
# override RUNS (default 60) and SEED (default 1), to run longer or to look
# at other draws. A failure prints the draw's environment and command line
# (everything needed to run it again by hand) and the program's output.
# A device set whose accelerator the machine lacks is left out (hpvm-rt
# notes "'<kind>' has no device"); with neither, the test is skipped
# (HPVM-E2E-SKIP).
string(REPLACE "|" ";" MAX "${MAX}")
if(NOT RUNS)
  set(RUNS 60)
endif()
if(NOT SEED)
  set(SEED 1)
endif()
if(DEFINED ENV{HPVM_STRESS_RUNS} AND NOT "$ENV{HPVM_STRESS_RUNS}" STREQUAL "")
  set(RUNS $ENV{HPVM_STRESS_RUNS})
endif()
if(DEFINED ENV{HPVM_STRESS_SEED} AND NOT "$ENV{HPVM_STRESS_SEED}" STREQUAL "")
  set(SEED $ENV{HPVM_STRESS_SEED})
endif()
set(policies hint round-robin heft dmda auto)
set(threads 1 2 4)

# Which device sets this machine has: one short run of each.
set(device_sets)
foreach(kind vulkan opencl)
  set(ENV{HPVM_DEVICES} cpu,${kind})
  set(ENV{HPVM_STATS} 1)
  set(ENV{HPVM_SCHEDULER} hint)
  set(ENV{HPVM_NUM_THREADS} 2)
  set(probe)
  foreach(m IN LISTS MAX)
    list(APPEND probe 1)
  endforeach()
  execute_process(COMMAND ${PROGRAM} ${probe}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(err MATCHES "note: HPVM_DEVICES: '[a-z]+' has no device[^\n]*")
    message("leaving out cpu,${kind}: ${CMAKE_MATCH_0}")
  else()
    list(APPEND device_sets cpu,${kind})
  endif()
endforeach()
if(NOT device_sets)
  message("HPVM-E2E-SKIP: neither a Vulkan nor an OpenCL device")
  return()
endif()
# With both, also all three memory spaces at once: a spirv child may then
# run on either accelerator, and data moves between them through the host.
list(LENGTH device_sets num_sets)
if(num_sets EQUAL 2)
  list(APPEND device_sets cpu,vulkan,opencl)
endif()
list(LENGTH device_sets num_sets)
unset(ENV{HPVM_STATS})

set(state ${SEED})
macro(next_random bound out_var)
  math(EXPR state "(${state} * 1103515245 + 12345) % 2147483648")
  math(EXPR ${out_var} "(${state} / 65536) % (${bound})")
endmacro()

string(TIMESTAMP start "%s")
set(run 0)
while(run LESS RUNS)
  # Device set and policy cycle; the rest is drawn.
  math(EXPR set_index "${run} % ${num_sets}")
  math(EXPR policy_index "(${run} / ${num_sets}) % 3")
  list(GET device_sets ${set_index} devices)
  list(GET policies ${policy_index} policy)
  next_random(3 k)
  list(GET threads ${k} nthreads)
  set(args)
  foreach(m IN LISTS MAX)
    next_random(8 pick)
    if(pick EQUAL 0)
      set(v 0)
    elseif(pick EQUAL 1)
      set(v 1)
    else()
      math(EXPR span "${m} + 1")
      next_random(${span} v)
    endif()
    list(APPEND args ${v})
  endforeach()
  next_random(65521 program_seed)
  list(APPEND args ${program_seed})

  # Vulkan buffers behind staging copies, as on a discrete GPU, every
  # other run.
  next_random(2 staged)
  set(staging auto)
  if(staged)
    set(staging always)
  endif()
  set(ENV{HPVM_DEVICES} ${devices})
  set(ENV{HPVM_SCHEDULER} ${policy})
  set(ENV{HPVM_NUM_THREADS} ${nthreads})
  set(ENV{HPVM_VULKAN_STAGING} ${staging})
  execute_process(COMMAND ${PROGRAM} ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS ")
    string(REPLACE ";" " " cmdline "${args}")
    message("${out}${err}")
    message(FATAL_ERROR "run ${run} of ${RUNS} (stress seed ${SEED}) failed "
            "with exit status ${rc}: policy ${policy}, devices ${devices}, "
            "${nthreads} threads, Vulkan staging ${staging}, sizes and seed "
            "'${cmdline}'. To reproduce:\n"
            "  HPVM_DEVICES=${devices} HPVM_SCHEDULER=${policy} "
            "HPVM_VULKAN_STAGING=${staging} "
            "HPVM_NUM_THREADS=${nthreads} HPVM_STATS=1 ${PROGRAM} ${cmdline}")
  endif()
  math(EXPR run "${run} + 1")
endwhile()
string(TIMESTAMP end "%s")
math(EXPR secs "${end} - ${start}")
message("${PROGRAM}: ${RUNS} runs correct (stress seed ${SEED}, device sets "
        "${device_sets}, ${secs} s)")
