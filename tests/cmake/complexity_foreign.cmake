# Issue 34, the stages that run foreign code: doubling an input must not
# more than triple its time or output — formula length (KaTeX), bib macro
# depth (the reader's value cap). Identifier length per grammar is
# complexity/identifier-length (hl.cmake).
add_executable(complexity_foreign ${CMAKE_CURRENT_SOURCE_DIR}/complexity/foreign.c)
sheaf_target_defaults(complexity_foreign)
target_link_libraries(complexity_foreign PRIVATE sheaf_cli)
add_test(NAME complexity/formula-length COMMAND complexity_foreign formula)
add_test(NAME complexity/bib-macro-depth COMMAND complexity_foreign bib)
set_tests_properties(complexity/formula-length complexity/bib-macro-depth PROPERTIES TIMEOUT 300)
# some 4 s of CPU time, so half a minute on a busy machine
set_tests_properties(complexity/formula-length PROPERTIES LABELS slow)
# Growth in time is the normal build's to judge: a sanitizer's allocator
# adds costs of its own (formula-length measured x3.15 under ASan, x2.03
# without), so none of the complexity tests runs in the ASan pass.
set_property(TEST complexity/formula-length complexity/bib-macro-depth APPEND PROPERTY LABELS no-asan)
