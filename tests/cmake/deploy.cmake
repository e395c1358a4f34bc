# Publishing: `sheaf new` + `sheaf deploy` end to end (Debian's nginx serves
# the deployed folder under /notes/ and a crawler checks every link), and the
# error cases of both commands. Both scripts need only Debian's python3,
# nginx and rsync.
add_test(NAME deploy/e2e
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/deploy/e2e.py $<TARGET_FILE:sheaf>)
add_test(NAME deploy/errors
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/deploy/errors.py $<TARGET_FILE:sheaf>)
set_tests_properties(deploy/e2e deploy/errors PROPERTIES TIMEOUT 120)
