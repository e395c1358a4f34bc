# The pipeline order of src/ (SHEAF_STAGES in CMakeLists.txt): no folder
# includes a header of a later folder or of a peer (layout/stages), and the
# check catches each way of breaking it (layout/stages-fixture).
string(REPLACE ";" " " stages "${SHEAF_STAGES}")
add_test(NAME layout/stages
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/stages/check_stages.sh ${CMAKE_SOURCE_DIR} "${stages}")
string(REPLACE ";" "|" stages_arg "${SHEAF_STAGES}")
add_test(NAME layout/stages-fixture
         COMMAND ${CMAKE_COMMAND} -DCHECK=${CMAKE_CURRENT_SOURCE_DIR}/stages/check_stages.sh
                 -DROOT=${CMAKE_CURRENT_SOURCE_DIR}/stages/fixture "-DSTAGES=${stages_arg}"
                 -DEXPECTED=${CMAKE_CURRENT_SOURCE_DIR}/stages/fixture.expected
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/stages/fixture.cmake)
set_tests_properties(layout/stages layout/stages-fixture PROPERTIES TIMEOUT 60)
