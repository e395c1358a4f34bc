# The build cache (src/cache, .sheaf-cache/): a build killed midway, a
# damaged entry and an unwritable cache folder still give the right output.
add_test(NAME cache/kill
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/kill.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/kill PROPERTIES TIMEOUT 300)
# The cache as untrusted input (issue 34): poisoned entries, a secret sheaf
# did not make, entries that are special files, a symlinked cache folder.
add_test(NAME cache/poison
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/poison.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/poison PROPERTIES TIMEOUT 300)
# Builds that take pages' Markdown from the cache equal clean builds through
# a sequence of edits (issue 31), and a damaged, copied or foreign cache is
# said and not trusted.
add_test(NAME cache/sequence
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/sequence.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/sequence PROPERTIES TIMEOUT 600)
# A build killed while it writes page entries: the next build says so and
# uses none of them (issue 31).
add_test(NAME cache/kill-pages
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/kill_pages.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/kill-pages PROPERTIES TIMEOUT 600)
set_tests_properties(cache/sequence cache/kill-pages PROPERTIES ENVIRONMENT SHEAF_CHECK_INCREMENTAL=1)
# A page's values taken as the last build's only when nothing they are made
# of changed: its neighbours', related posts' and backlinks' titles, URLs,
# dates and link texts, each edited where only another page shows it
# (issue 31).
add_test(NAME cache/inputs
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/inputs.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/inputs PROPERTIES TIMEOUT 300)
# Random edits of a site with links, citations, tags, drafts, a section,
# a shortcode, data, templates and site.yaml keys: after each, the cached
# build equals a clean one, or both fail alike (issue 31). Run it longer by
# hand: random_edits.py path/to/sheaf STEPS SEED.
add_test(NAME cache/random-edits
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/random_edits.py $<TARGET_FILE:sheaf> 60 1)
set_tests_properties(cache/random-edits PROPERTIES TIMEOUT 600)
# A one-shot build only stats an unchanged source (its record in the cache,
# site/srcrec.c), and sees every change behind the record (issue 31).
add_test(NAME cache/records
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "" strace
                 /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/records.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/records PROPERTIES TIMEOUT 300)
# A page's body, summary and search text are read from the build cache only
# when used, and a damaged, cut or missing part found then is made again
# from the source: the output is still a clean build's (issue 31).
add_test(NAME cache/bulk
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/bulk.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/bulk PROPERTIES TIMEOUT 300)
# A trim never removes what the build used, even when that alone is over
# the limit, and a build that wrote little does not walk the cache (issue 31).
add_test(NAME cache/trim
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "" strace
                 /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/trim.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/trim PROPERTIES TIMEOUT 300)
# The pages' heads packed in a few entries: one cut short or unreadable is
# redone with a warning, another site's or sheaf's is never used, and the
# bulk parts a build did not read survive a trim (issue 31).
add_test(NAME cache/heads
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/heads.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/heads PROPERTIES TIMEOUT 300)
# A page's table of contents is made when a template first reads it, in a
# build with the cache: a list page reading only the posts' tocs writes what
# a clean build writes (issue 31).
add_test(NAME cache/toc
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/toc.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/toc PROPERTIES TIMEOUT 300)
# Every post's related posts from the build cache equal a clean build's
# through edits of what they are made from; a damaged or forged entry is
# said and not trusted (issue 31).
add_test(NAME cache/related
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/related.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/related PROPERTIES TIMEOUT 300 ENVIRONMENT SHEAF_CHECK_INCREMENTAL=1)
# Links written relative to a page's output are found in a cached build,
# which makes the set of output paths only when a page's Markdown asks for
# it: an edit, a bulk made again, a post added (issue 31).
add_test(NAME cache/outputs
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/outputs.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/outputs PROPERTIES TIMEOUT 300)
# The checks of output paths are skipped when their fingerprint is the last
# passing check's: a page, an alias, a setting, a term or a slug that
# clashes is still found by the next cached build (issue 31).
add_test(NAME cache/paths
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/paths.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/paths PROPERTIES TIMEOUT 300)
