# Highlighting: the native engine against highlight.js itself (run in
# Duktape, test-only), on a sample of every language fences may name.
add_executable(hl_diff ${CMAKE_CURRENT_SOURCE_DIR}/hl/hl_diff.c)
sheaf_target_defaults(hl_diff)
target_link_libraries(hl_diff PRIVATE sheaf_hl PkgConfig::DUKTAPE)
add_test(NAME hl/differential COMMAND hl_diff ${HLJS_JS} ${CMAKE_CURRENT_SOURCE_DIR}/hl/samples)
set_tests_properties(hl/differential PROPERTIES TIMEOUT 120)

# Issue 34: work per byte on long tokens (an identifier, digits, blanks, …)
# of every language, as the budget counts it (hl.h); doubling a block must
# not more than triple its work unless it ran out of budget and stayed plain.
add_executable(hl_bench ${CMAKE_CURRENT_SOURCE_DIR}/hl/hl_bench.c)
sheaf_target_defaults(hl_bench)
target_link_libraries(hl_bench PRIVATE sheaf_hl)
add_test(NAME complexity/identifier-length COMMAND hl_bench 8192)
set_tests_properties(complexity/identifier-length PROPERTIES TIMEOUT 600 LABELS "slow;no-asan")

# Issue 34: the budget counts work, not time: one block gets the same
# decision and the same bytes every time, decided by the count alone.
add_executable(hl_budget ${CMAKE_CURRENT_SOURCE_DIR}/hl/hl_budget.c)
sheaf_target_defaults(hl_budget)
target_link_libraries(hl_budget PRIVATE sheaf_hl)
add_test(NAME hl/budget-deterministic COMMAND hl_budget)
