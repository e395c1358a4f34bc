# What sheaf touches on disk (docs/publishing.md): the output folder rules
# of `sheaf build -o` (refusals, the manifest, --force, staging leftovers).
# Needs only Debian's python3.
add_test(NAME output/rules
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/output/rules.py $<TARGET_FILE:sheaf>)
set_tests_properties(output/rules PROPERTIES TIMEOUT 300)
# SIGKILL a rebuild of a generated site at 20 points: the output is always
# the old build or the new one, and the next build leaves no staging folder.
# 200 posts (about 20 s); output/kill-2000, slow (minutes), gives the kills
# a longer build to land in, and is left out under the sanitizers (each
# build is several times slower there).
add_test(NAME output/kill
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/output/kill.py $<TARGET_FILE:sheaf> 200)
set_tests_properties(output/kill PROPERTIES TIMEOUT 300)
# The same kills over an output with a spare beside it: they land while the
# spare is brought up to date and while it is exchanged; now and then the
# next build is of the old sources, which a half-updated spare would spoil.
add_test(NAME output/kill-spare
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/output/kill.py $<TARGET_FILE:sheaf> 200 --spare)
set_tests_properties(output/kill-spare PROPERTIES TIMEOUT 300)
if(NOT SHEAF_SANITIZE)
  add_test(NAME output/kill-2000
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/output/kill.py $<TARGET_FILE:sheaf> 2000)
  set_tests_properties(output/kill-2000 PROPERTIES TIMEOUT 900)
  sheaf_label_slow(output/kill-2000)
endif()
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
# The spare: a build stages into the previous generation's tree beside the
# output folder and rewrites only what changed; each build of a sequence of
# edits (and of other people's files added, replaced, removed) equals a
# clean build, the replaced tree is never written in place, and a spare a
# build was killed in, one changed by hand or another site's is not trusted.
add_test(NAME output/spare
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/output/spare.py $<TARGET_FILE:sheaf>)
set_tests_properties(output/spare PROPERTIES TIMEOUT 300)
