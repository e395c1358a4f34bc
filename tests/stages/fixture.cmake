# Runs check_stages.sh over the fixture tree, which breaks the order in every
# way the check knows, and wants it to fail with exactly fixture.expected.
#   cmake -DCHECK=… -DROOT=… -DSTAGES=… -DEXPECTED=… -P fixture.cmake
string(REPLACE "|" " " STAGES "${STAGES}")
execute_process(COMMAND sh ${CHECK} ${ROOT} "${STAGES}"
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
file(READ ${EXPECTED} want)
if(rc EQUAL 0)
  message(FATAL_ERROR "check_stages.sh passed a tree that breaks the order:\n${out}")
endif()
if(NOT out STREQUAL want)
  message(FATAL_ERROR "check_stages.sh said:\n${out}\nwanted:\n${want}")
endif()
