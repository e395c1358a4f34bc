# CSL styles: sheaf's citeproc-js and BibTeX mapping against Pandoc's
# citeproc, every bundled style (tests/csl/differential.py).
add_executable(csl_render ${CMAKE_CURRENT_SOURCE_DIR}/csl/csl_render.c)
sheaf_target_defaults(csl_render)
target_link_libraries(csl_render PRIVATE sheaf_bib sheaf_js)
