# Publishing: `sheaf new` + `sheaf deploy` end to end (Debian's nginx serves
# the deployed folder under /notes/ and a crawler checks every link), and the
# error cases of both commands. Both scripts need only Debian's python3,
# nginx and rsync.
add_test(NAME deploy/e2e
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/deploy/e2e.py $<TARGET_FILE:sheaf>)
add_test(NAME deploy/errors
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/deploy/errors.py $<TARGET_FILE:sheaf>)
set_tests_properties(deploy/e2e deploy/errors PROPERTIES TIMEOUT 120)

# The publishing recipes of docs/publishing.md: rsync.sh publishes and
# prunes a folder; the GitHub and GitLab recipes install sheaf with the
# lines of docs/recipes/install-sheaf.sh. deploy/recipes-install also runs
# that script (sheaf built from this checkout's commit, then building the
# example site): minutes, so it carries the label `slow`.
add_test(NAME deploy/recipes
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/deploy/recipes.sh $<TARGET_FILE:sheaf>)
set_tests_properties(deploy/recipes PROPERTIES TIMEOUT 120 ENVIRONMENT SHEAF_SKIP_SLOW=1)
add_test(NAME deploy/recipes-install
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/deploy/recipes.sh $<TARGET_FILE:sheaf>)
set_tests_properties(deploy/recipes-install PROPERTIES TIMEOUT 1800 LABELS no-asan
                     SKIP_RETURN_CODE 77)
sheaf_label_slow(deploy/recipes-install)
