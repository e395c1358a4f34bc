# Issue 34's complexity test: inputs that once made sheaf quadratic (tags
# per page, shortcodes per page, unclosed shortcodes, Liquid tags per
# imported post) built at size N and 2N; CPU time and output must grow at
# most about twice (tests/complexity/run.py says how it stays robust on a
# loaded machine).
add_test(NAME complexity/doubling
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/complexity/run.py $<TARGET_FILE:sheaf>)
set_tests_properties(complexity/doubling PROPERTIES TIMEOUT 300 LABELS "slow;no-asan")
