# Highlighting: the native engine against highlight.js itself (run in
# Duktape, test-only), on a sample of every language fences may name.
add_executable(hl_diff ${CMAKE_CURRENT_SOURCE_DIR}/hl/hl_diff.c)
sheaf_target_defaults(hl_diff)
target_link_libraries(hl_diff PRIVATE sheaf_hl PkgConfig::DUKTAPE)
add_test(NAME hl/differential COMMAND hl_diff ${HLJS_JS} ${CMAKE_CURRENT_SOURCE_DIR}/hl/samples)
set_tests_properties(hl/differential PROPERTIES TIMEOUT 120)
