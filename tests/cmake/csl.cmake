# CSL styles: sheaf's citeproc-js and BibTeX mapping against Pandoc's
# citeproc, every bundled style (tests/csl/differential.py).
add_executable(csl_render ${CMAKE_CURRENT_SOURCE_DIR}/csl/csl_render.c)
sheaf_target_defaults(csl_render)
target_link_libraries(csl_render PRIVATE sheaf_bib sheaf_js)
# The differential itself: fails when, in any style, more than 2% of the
# entries differ unexplained or by a per-entry exception, or when a rule or
# an exception is stale (tests/csl/differential.py). Minutes on a loaded
# machine (citeproc-js in Duktape, eight styles, Pandoc eight times): slow.
add_test(NAME csl/differential
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "" "pandoc python3"
                 python3 ${CMAKE_CURRENT_SOURCE_DIR}/csl/differential.py $<TARGET_FILE:csl_render>
                 ${CMAKE_CURRENT_SOURCE_DIR}/csl/refs.bib ${SHEAF_CSL_DIR}/styles --show 20)
set_tests_properties(csl/differential PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
sheaf_label_slow(csl/differential)
