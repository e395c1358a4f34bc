# The preview server: unit checks of what it decides per request and of the
# watcher (C, no socket), `sheaf serve` over real sockets (python3), and a
# headless Chromium driven by playwright-core that watches a page change as
# its source is edited.
add_executable(test_serve_unit ${CMAKE_CURRENT_SOURCE_DIR}/serve/test_serve_unit.c)
sheaf_target_defaults(test_serve_unit)
target_include_directories(test_serve_unit PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_link_libraries(test_serve_unit PRIVATE sheaf_serve)
add_test(NAME serve/unit COMMAND test_serve_unit)

add_test(NAME serve/http
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/serve/test_serve.py $<TARGET_FILE:sheaf>)
# 1,100 idle, slow and streaming connections at once, and the per-address
# limit (see docs/serve.md); then 20 s of wrk load while a 200 KB post is
# saved every 100 ms: no error, memory flat (the 2-minute run on a
# 2,000-post corpus is a benchmark: see the comment in soak.py).
add_test(NAME serve/slow-clients
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/serve/test_slow_clients.py $<TARGET_FILE:sheaf>)
add_test(NAME serve/soak
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "" wrk
                 /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/serve/soak.py $<TARGET_FILE:sheaf> --seconds 20)
set_tests_properties(serve/slow-clients PROPERTIES LABELS serve TIMEOUT 180 SKIP_RETURN_CODE 77)
set_tests_properties(serve/soak PROPERTIES LABELS "serve;no-asan" TIMEOUT 180 SKIP_RETURN_CODE 77)
sheaf_label_slow(serve/soak)
# (skipped, by needs.sh, without playwright-core, Node.js or Chromium)
add_test(NAME serve/browser
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh playwright-core "node chromium"
                 node ${CMAKE_CURRENT_SOURCE_DIR}/serve/browser.mjs $<TARGET_FILE:sheaf>)
set_tests_properties(serve/unit PROPERTIES LABELS serve TIMEOUT 60)
set_tests_properties(serve/http PROPERTIES LABELS serve TIMEOUT 180)
set_tests_properties(serve/browser PROPERTIES LABELS "serve;no-asan" TIMEOUT 180 SKIP_RETURN_CODE 77)
# Every fast rebuild of these servers is checked against a full build made
# in memory (render/session.c); a difference aborts the server.
set_tests_properties(serve/http serve/browser PROPERTIES ENVIRONMENT SHEAF_CHECK_INCREMENTAL=1)
# Random edits (tests/cache/random_site.py) under `sheaf serve`, which runs
# with SHEAF_CHECK_INCREMENTAL=1 (the test sets it): every fast rebuild
# equals a full build. Longer runs: random_edits.py path/to/sheaf STEPS SEED.
add_test(NAME serve/random-edits
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/serve/random_edits.py $<TARGET_FILE:sheaf> 30 1)
set_tests_properties(serve/random-edits PROPERTIES LABELS serve TIMEOUT 300)
