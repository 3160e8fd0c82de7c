# The dashboard ships web/wc_status.json, a copy of `rdmactl explain --all --json`
# (the WC status table of common/wc_status.h), so it needs no API for it.
#   cmake -DRDMACTL=path/to/rdmactl -DJSON=web/wc_status.json -DMODE=check -P wc_status.cmake
# MODE=check fails (naming the fix) when the copy differs from rdmactl's output;
# MODE=write regenerates the copy.
execute_process(COMMAND ${RDMACTL} explain --all --json OUTPUT_VARIABLE current RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${RDMACTL} explain --all --json failed (exit ${rc})")
endif()
if(MODE STREQUAL "write")
  file(WRITE ${JSON} "${current}")
  message(STATUS "wrote ${JSON}")
  return()
endif()
file(READ ${JSON} shipped)
if(NOT shipped STREQUAL current)
  message(FATAL_ERROR "${JSON} differs from `rdmactl explain --all --json`: the WC status table changed. "
                      "Regenerate it: cmake --build build --target web_wc_status")
endif()
message(STATUS "${JSON} matches rdmactl explain --all --json")
