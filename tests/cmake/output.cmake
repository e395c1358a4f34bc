# What sheaf touches on disk (docs/publishing.md): the output folder rules
# of `sheaf build -o` (refusals, the manifest, --force, staging leftovers).
# Needs only Debian's python3.
add_test(NAME output/rules
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/output/rules.py $<TARGET_FILE:sheaf>)
set_tests_properties(output/rules PROPERTIES TIMEOUT 300)
# SIGKILL a rebuild of a generated site at 20 points: the output is always
# the old build or the new one, and the next build leaves no staging folder.
# 2,000 posts; 200 under the sanitizers (each build is several times slower).
if(SHEAF_SANITIZE)
  set(kill_posts 200)
else()
  set(kill_posts 2000)
endif()
add_test(NAME output/kill
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/output/kill.py $<TARGET_FILE:sheaf> ${kill_posts})
set_tests_properties(output/kill PROPERTIES TIMEOUT 900)
# A full disk (a 512 KB tmpfs; needs root or `unshare -rm`, else skipped):
# one error naming the disk, the old output intact, no staging left.
add_test(NAME output/diskfull
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/output/diskfull.py $<TARGET_FILE:sheaf>)
set_tests_properties(output/diskfull PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
# `sheaf deploy` to a local folder: the same manifest rules, --force, and a
# --dry-run that lists what it would add, change, remove and keep, and why.
add_test(NAME output/deploy
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/output/deploy.py $<TARGET_FILE:sheaf>)
set_tests_properties(output/deploy PROPERTIES TIMEOUT 300)
